// What `--help` prints, and the usage a usage error shows (docs/decisions/skill-flows.md).
import { nearest, wrapHelp } from "./help.ts";
import { exampleBlock } from "./verbs/examples.ts";

// The overview's list; `merge-driver` is run by git only (docs/decisions/merge-driver.md), so it is not listed.
const SUMMARIES: Record<string, string> = {
  read: "print a memory file in the untrusted envelope, with its token",
  write: "replace a memory file (compare-and-swap on its token)",
  "read-target": "print AGENTS.md or CLAUDE.md in the envelope, with its token",
  promote: "append an approved lesson to AGENTS.md or CLAUDE.md (compare-and-swap)",
  check: "bootstrap check: 0 nothing parked, 1 interrupted save, 2 handoff parked, 3 unsafe",
  recover: "repair what an interrupted save left; idempotent",
  anchors: "print the git anchors (branch, HEAD, dirty files, date) for a save",
  drift: "measure how far the repository moved since the handoff: verdict and numbers",
  brief: "the six-line warm-start brief for a resume (exit 3: cold start)",
  hook: "session-start hook: fixed sentences about parked memory",
  validate: "check a memory document: schema errors (exit 2), score 0-100, findings, dropped items",
  archives: "list, show or restore (compare-and-swap) the archived handoffs",
  init: "set the skill up in a project: copy it, make every agent see it, install the hooks",
  install: "wire the session-start hook or bootstrap block into an agent's files",
  uninstall: "remove exactly what install added",
  doctor: "read-only health report: Node, installs per agent, memory dir; each problem with its fix",
  publish: "commit exactly the memory dir (on the user's request); --push to the upstream",
  checkpoint: "compaction/session-end hooks: capture the session (exit 0)",
  statusline: "Claude Code's status line: yours, then the handoff's state",
  context: "prompt/tool hooks: offer a handoff once near a full context",
  search: "search memory: journal, archives, ledgers, checkpoints",
  impact: "did the handoffs help? measured from the journal's resumes",
  journal: "journal purge [--before YYYY-MM]: delete journal files",
  redact: "copy stdin to stdout with secrets replaced by <redacted: KIND>",
};

/** The overview `--help` prints (and, for a usage error, stderr), wrapped at 80 columns. */
export function usageText(): string {
  const width = Math.max(...Object.keys(SUMMARIES).map((v) => v.length));
  const lines = Object.entries(SUMMARIES).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`);
  const text = [
    "usage: node memory_io.mjs <verb> [options]",
    "",
    "Safe reads and writes of an agent's session memory under <root>/.ai/memory/.",
    "",
    "verbs:",
    ...lines,
    "",
    "`node memory_io.mjs <verb> --help` (or `--help <verb>`) describes a verb.",
    "",
    "exit codes: 0 success; 2 refused (safety, compare-and-swap) or usage error;",
    "            3 absent; 4 paused (kill switch); 5 busy (lock not had in time)",
    "A refusal prints `memory operation refused: <reason>` (stderr) and changes",
    "nothing; a wrong command line prints `usage error: <what>` (exit 2, `check` 64).",
    "",
    "kill switch: the writing verbs exit 4 and change nothing while one of these",
    "  exists: <root>/.ai/memory/PAUSE, the file named by SESSION_HANDOFF_PAUSE,",
    "  ${XDG_CONFIG_HOME:-~/.config}/session-handoff/PAUSE; or with",
    "  SESSION_HANDOFF_DISABLE set to anything but empty, 0, false, no or off. They",
    "  say `memory writes are paused: remove <path> to resume`. Reads work.",
    "",
    "root: --root DIR, else found upward from here (references/verbs.md#the-root)",
    "",
    "example: resume in one call; save in two (read for the token, then write):",
    "node memory_io.mjs brief",
    "node memory_io.mjs read handoff",
    "(write the whole handoff with your file tool to the path read printed as DRAFT:)",
    "node memory_io.mjs write handoff --from-draft <draft> --expected-current-sha256 <token>",
    "",
  ].join("\n");
  return wrapHelp(text);
}

/** A verb's `--help` as printed: its own text, its example, wrapped at 80 columns. */
export function verbHelp(name: string, help: string): string {
  return wrapHelp(`${help.replace(/\n*$/, "\n")}${exampleBlock(name)}`);
}

// Words users and the README say for what a verb does: a user who types them is pointed at it.
const SAID_FOR: Record<string, string> = {
  resume: "brief", save: "write", handoff: "brief", status: "check", restore: "archives",
};

/** The "did you mean" tail for an unknown verb, or "" when nothing is near. */
export function suggestion(word: string, verbs: readonly string[]): string {
  const near = SAID_FOR[word.toLowerCase()] ?? nearest(word, verbs);
  return near === null ? "" : `; did you mean ${near}?`;
}
