// One example per verb, appended to its `--help` under `example:` (docs/decisions/skill-flows.md); lines
// are shown as they are (not indented), so that a heredoc copied from the help still works.
export const EXAMPLES: Record<string, readonly string[]> = {
  read: ["node memory_io.mjs read handoff", "# keep the token on its CURRENT-SHA256: line for `write`"],
  write: [
    "# the first save (token `absent`); later, the token `read handoff` printed.",
    "# A quoted heredoc ('EOF') keeps the shell from expanding anything in it;",
    "# write stamps Saved: and fills an empty anchors section itself.",
    "node memory_io.mjs write handoff --expected-current-sha256 absent <<'EOF'",
    "<!-- memory-schema: v1 -->",
    "# Session Handoff",
    "",
    "## Current goal",
    "Stream the CSV importer so large files fit in memory.",
    "## Plan",
    "- [~] Stream rows: reader done, dedupe not started",
    "## Decisions",
    "- [user-directed] Keep the first of two duplicates: the audit log needs it",
    "## Failed approaches",
    "- sort -u before import: it reorders rows, which the audit log forbids",
    "## Open questions",
    "- none",
    "## Next steps",
    "1. Hash rows in src/import/dedupe.ts and run `npm test -- csv`",
    "## Key files",
    "- none",
    "## Environment anchors",
    "EOF",
  ],
  search: ["node memory_io.mjs search sqlite lock --since 2026-06-01"],
  impact: ["node memory_io.mjs impact"],
  journal: ["node memory_io.mjs journal purge --before 2026-01"],
  "read-target": [
    "node memory_io.mjs read-target --target AGENTS.md",
    "# its token goes to `promote --expected-current-sha256`",
  ],
  promote: [
    "# after read-target printed CURRENT-SHA256: absent (no AGENTS.md yet)",
    "node memory_io.mjs promote --target AGENTS.md \\",
    "  --expected-current-sha256 absent <<'EOF'",
    "- Run the integration tests against the real database before a release.",
    "EOF",
  ],
  check: ['node memory_io.mjs check; echo "exit $?"   # 2: a handoff is parked'],
  recover: ["node memory_io.mjs check || node memory_io.mjs recover   # after exit 1"],
  anchors: ["node memory_io.mjs anchors", "node memory_io.mjs anchors --key-file notes.txt   # outside git"],
  drift: [
    "node memory_io.mjs drift --json",
    "# a handoff pasted from another machine, checked against this repository:",
    "node memory_io.mjs drift --stdin < pasted-handoff.md",
  ],
  brief: ["node memory_io.mjs brief   # the whole resume in one call; exit 3: cold start"],
  hook: ["node memory_io.mjs hook --mode session </dev/null"],
  validate: [
    "node memory_io.mjs validate handoff   # the saved file: errors, score, findings",
    "node memory_io.mjs validate handoff --stdin < draft.md   # before saving",
  ],
  archives: [
    "node memory_io.mjs archives list",
    "# then: archives show <name>, or make one current again (its token from read):",
    "# archives restore <name> --expected-current-sha256 <token>",
  ],
  init: [
    "npx session-handoff init --dry-run   # what it would do, for the agents found",
    "npx session-handoff init --agent claude-code --agent codex",
  ],
  install: [
    "node memory_io.mjs install --agent claude-code --dry-run   # what would change",
    "node memory_io.mjs install --agent claude-code",
  ],
  uninstall: ["node memory_io.mjs uninstall --agent claude-code   # the files as they were"],
  doctor: ["node memory_io.mjs doctor   # each problem with the command that fixes it"],
  publish: [
    "# only when the user asks; --push also pushes to the branch's upstream",
    'node memory_io.mjs publish --message "handoff: CSV importer, stopped at dedupe"',
  ],
  checkpoint: [
    "# what a PreCompact hook runs (install writes it); always exit 0, stdout empty",
    'echo \'{"session_id":"s1","hook_event_name":"PreCompact"}\' |',
    "  node memory_io.mjs checkpoint --format claude",
  ],
  context: [
    "# what a UserPromptSubmit or PostToolUse hook runs (install writes it); exit 0",
    'echo \'{"session_id":"s1","hook_event_name":"PostToolUse"}\' |',
    "  node memory_io.mjs context --format claude",
  ],
  statusline: [
    "# what Claude Code's status line runs (install writes it); exit 0",
    "echo '{\"context_window\":{\"used_percentage\":45}}' | node memory_io.mjs statusline",
  ],
  redact: ["git diff | node memory_io.mjs redact --json"],
  "merge-driver": [
    "# registered by install and publish; git runs it as: merge-driver %O %A %B %P",
    "node memory_io.mjs merge-driver --help",
  ],
};

/** The `example:` block for a verb's help, or "" when it has none. */
export function exampleBlock(verb: string): string {
  const lines = EXAMPLES[verb];
  if (!lines || lines.length === 0) return "";
  return `\nexample:\n${lines.join("\n")}\n`;
}
