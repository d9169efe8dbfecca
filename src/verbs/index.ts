import type { Verb } from "./types.ts";

/** Every verb: its loader, its `--help` overview line (none for `merge-driver`) and its example, shown as is. */
export const VERBS: Record<string, { load: () => Promise<Verb>; summary?: string; example: string[] }> = {
  read: {
    load: async () => (await import("./read.ts")).readVerb,
    summary: "print a memory file in the untrusted envelope, with its token",
    example: ["node memory_io.mjs read handoff", "# keep the token on its CURRENT-SHA256: line for `write`"],
  },
  write: {
    load: async () => (await import("./write.ts")).writeVerb,
    summary: "replace a memory file (compare-and-swap on its token)",
    example: [
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
  },
  "read-target": {
    load: async () => (await import("./read.ts")).readTargetVerb,
    summary: "print AGENTS.md or CLAUDE.md in the envelope, with its token",
    example: [
      "node memory_io.mjs read-target --target AGENTS.md",
      "# its token goes to `promote --expected-current-sha256`",
    ],
  },
  promote: {
    load: async () => (await import("./promote.ts")).promoteVerb,
    summary: "append an approved lesson to AGENTS.md or CLAUDE.md",
    example: [
      "# after read-target printed CURRENT-SHA256: absent (no AGENTS.md yet)",
      "node memory_io.mjs promote --target AGENTS.md \\",
      "  --expected-current-sha256 absent <<'EOF'",
      "- Run the integration tests against the real database before a release.",
      "EOF",
    ],
  },
  check: {
    load: async () => (await import("./check.ts")).checkVerb,
    summary: "bootstrap: 0 nothing parked, 1 interrupted, 2 parked, 3 unsafe",
    example: ['node memory_io.mjs check; echo "exit $?"   # 2: a handoff is parked'],
  },
  recover: {
    load: async () => (await import("./recover.ts")).recoverVerb,
    summary: "repair what an interrupted save left; idempotent",
    example: ["node memory_io.mjs check || node memory_io.mjs recover   # after exit 1"],
  },
  anchors: {
    load: async () => (await import("./anchors.ts")).anchorsVerb,
    summary: "print the git anchors of a save (branch, HEAD, dirty files, date)",
    example: ["node memory_io.mjs anchors", "node memory_io.mjs anchors --key-file notes.txt   # outside git"],
  },
  drift: {
    load: async () => (await import("./drift.ts")).driftVerb,
    summary: "how far the repository moved since the handoff: verdict, numbers",
    example: [
      "node memory_io.mjs drift --json",
      "# a handoff pasted from another machine, checked against this repository:",
      "node memory_io.mjs drift --stdin < pasted-handoff.md",
    ],
  },
  brief: {
    load: async () => (await import("./brief.ts")).briefVerb,
    summary: "the six-line warm-start brief for a resume (exit 3: cold start)",
    example: ["node memory_io.mjs brief   # the whole resume in one call; exit 3: cold start"],
  },
  hook: {
    load: async () => (await import("./hook.ts")).hookVerb,
    summary: "session-start hook: fixed sentences about parked memory",
    example: ["node memory_io.mjs hook --mode session </dev/null"],
  },
  validate: {
    load: async () => (await import("./validate.ts")).validateVerb,
    summary: "check a memory document: schema errors (exit 2), score, findings",
    example: [
      "node memory_io.mjs validate handoff   # the saved file: errors, score, findings",
      "node memory_io.mjs validate handoff --stdin < draft.md   # before saving",
    ],
  },
  archives: {
    load: async () => (await import("./archives.ts")).archivesVerb,
    summary: "list, show or restore (compare-and-swap) the archived handoffs",
    example: [
      "node memory_io.mjs archives list",
      "# then: archives show <name>, or make one current again (its token from read):",
      "# archives restore <name> --expected-current-sha256 <token>",
    ],
  },
  init: {
    load: async () => (await import("./init.ts")).initVerb,
    summary: "set the skill up: copy it, make every agent see it, install hooks",
    example: [
      "npx session-handoff init --dry-run   # what it would do, for the agents found",
      "npx session-handoff init --agent claude-code --agent codex",
    ],
  },
  install: {
    load: async () => (await import("./install.ts")).installVerb,
    summary: "wire the start hook or bootstrap block into an agent's files",
    example: [
      "node memory_io.mjs install --agent claude-code --dry-run   # what would change",
      "node memory_io.mjs install --agent claude-code",
    ],
  },
  uninstall: {
    load: async () => (await import("./uninstall.ts")).uninstallVerb,
    summary: "remove exactly what install added",
    example: ["node memory_io.mjs uninstall --agent claude-code   # the files as they were"],
  },
  doctor: {
    load: async () => (await import("./doctor.ts")).doctorVerb,
    summary: "read-only health report: Node, installs, memory; with fixes",
    example: ["node memory_io.mjs doctor   # each problem with the command that fixes it"],
  },
  publish: {
    load: async () => (await import("./publish.ts")).publishVerb,
    summary: "commit exactly the memory dir when asked; --push to the upstream",
    example: [
      "# only when the user asks; --push also pushes to the branch's upstream",
      'node memory_io.mjs publish --message "handoff: CSV importer, stopped at dedupe"',
    ],
  },
  checkpoint: {
    load: async () => (await import("./checkpoint.ts")).checkpointVerb,
    summary: "compaction/session-end hooks: capture the session (exit 0)",
    example: [
      "# what a PreCompact hook runs (install writes it); always exit 0, stdout empty",
      'echo \'{"session_id":"s1","hook_event_name":"PreCompact"}\' |',
      "  node memory_io.mjs checkpoint --format claude",
    ],
  },
  statusline: {
    load: async () => (await import("./statusline.ts")).statuslineVerb,
    summary: "Claude Code's status line: yours, then the handoff's state",
    example: [
      "# what Claude Code's status line runs (install writes it); exit 0",
      "echo '{\"context_window\":{\"used_percentage\":45}}' | node memory_io.mjs statusline",
    ],
  },
  context: {
    load: async () => (await import("./context.ts")).contextVerb,
    summary: "prompt/tool hooks: offer a handoff once near a full context",
    example: [
      "# what a UserPromptSubmit or PostToolUse hook runs (install writes it); exit 0",
      'echo \'{"session_id":"s1","hook_event_name":"PostToolUse"}\' |',
      "  node memory_io.mjs context --format claude",
    ],
  },
  search: {
    load: async () => (await import("./search.ts")).searchVerb,
    summary: "search memory: journal, archives, ledgers, checkpoints",
    example: ["node memory_io.mjs search sqlite lock --since 2026-06-01"],
  },
  impact: {
    load: async () => (await import("./impact.ts")).impactVerb,
    summary: "did the handoffs help? measured from the journal's resumes",
    example: ["node memory_io.mjs impact"],
  },
  journal: {
    load: async () => (await import("./journal.ts")).journalVerb,
    summary: "journal purge [--before YYYY-MM]: delete journal files",
    example: ["node memory_io.mjs journal purge --before 2026-01"],
  },
  "merge-driver": {
    load: async () => (await import("./merge-driver.ts")).mergeDriverVerb,
    example: [
      "# registered by install and publish; git runs it as: merge-driver %O %A %B %P",
      "node memory_io.mjs merge-driver --help",
    ],
  },
  redact: {
    load: async () => (await import("./redact.ts")).redactVerb,
    summary: "copy stdin to stdout with secrets replaced by <redacted: KIND>",
    example: ["git diff | node memory_io.mjs redact --json"],
  },
};
