// What `--help` prints, and the usage a usage error shows (docs/decisions/skill-flows.md).
import { nearest } from "./schema/validate-common.ts";
import { VERBS } from "./verbs/index.ts";

/** The overview `--help` prints (and, for a usage error, stderr). */
export function usageText(): string {
  const listed = Object.entries(VERBS).filter(([, v]) => v.summary !== undefined);
  const width = Math.max(...listed.map(([name]) => name.length));
  const lines = listed.map(([name, v]) => `  ${name.padEnd(width)}  ${v.summary}`);
  return [
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
    "root: --root DIR, else found upward from here (references/verbs/root.md)",
    "",
    "example: resume in one call; save in two (read for the token, then write):",
    "node memory_io.mjs brief",
    "node memory_io.mjs read handoff",
    "(write the whole handoff with your file tool to the path read printed as DRAFT:)",
    "node memory_io.mjs write handoff --from-draft <draft> \\",
    "  --expected-current-sha256 <token>",
    "",
  ].join("\n");
}

/** A verb's `--help` as printed: its own text, then its example. */
export function verbHelp(name: string, help: string): string {
  return `${help.replace(/\n*$/, "\n")}\nexample:\n${VERBS[name]!.example.join("\n")}\n`;
}

// Words users and the README say for what a verb does: a user who types them is pointed at it.
const SAID_FOR: Record<string, string> = {
  resume: "brief", save: "write", handoff: "brief", status: "check", restore: "archives",
};

/** The "did you mean" tail for an unknown verb: a verb 1 to 3 edits away, else one it starts (`arch`), or "". */
export function suggestion(word: string, verbs: readonly string[]): string {
  const w = word.toLowerCase();
  const near = SAID_FOR[w] ?? nearest(w, verbs, () => Math.min(3, Math.max(1, Math.floor(w.length / 3))))
    ?? (w.length >= 3 ? verbs.find((v) => v.toLowerCase().startsWith(w)) : undefined);
  return near ? `; did you mean ${near}?` : "";
}
