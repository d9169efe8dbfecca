// What `--help` prints, and the usage a usage error shows (docs/decisions/skill-flows.md).
import { nearest, wrapHelp } from "./help.ts";
import { exampleBlock } from "./verbs/examples.ts";
import type { VerbTable } from "./verbs/types.ts";

/** The overview `--help` prints (and, for a usage error, stderr), wrapped at 80 columns. */
export function usageText(VERBS: VerbTable): string {
  const shown = Object.entries(VERBS).filter(([, v]) => v.hidden !== true);
  const width = Math.max(...shown.map(([v]) => v.length));
  const lines = shown.map(([name, v]) => `  ${name.padEnd(width)}  ${v.summary}`);
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
    "exit codes: 0 success; 2 refused (safety, compare-and-swap, usage); 3 absent;",
    "            4 paused (kill switch); 5 busy (lock not had in time)",
    "A refusal prints `memory operation refused: <reason>` (stderr), changes nothing.",
    "A flag given twice is a usage error: `--<flag> is given more than once`.",
    "",
    // Contract §6, docs/design.md#tokens-and-the-publication-protocol, in the words a user can act on.
    "kill switch: the writing verbs (write, promote, recover, archives restore,",
    "  install, uninstall, publish) exit 4 and change nothing while any of these",
    "  exist: <root>/.ai/memory/PAUSE; the file named by SESSION_HANDOFF_PAUSE;",
    "  ${XDG_CONFIG_HOME:-~/.config}/session-handoff/PAUSE; or SESSION_HANDOFF_DISABLE",
    "  set to anything but empty, 0, false, no or off (which also silences `hook`).",
    "  They say `memory writes are paused: remove <path> to resume` (`remove",
    "  SESSION_HANDOFF_DISABLE=<value> from the environment`). Reads keep working.",
    "",
    "The root is found by every verb: from --root DIR when given, else from the current",
    "folder, the nearest folder up that holds .ai/memory or .git (stderr says",
    "`using root <path>` when it is not the --root given).",
    "",
    "example: resume in one call; save in two (read for the token, then write):",
    "node memory_io.mjs brief",
    "node memory_io.mjs read handoff",
    "node memory_io.mjs write handoff --expected-current-sha256 <token> <<'EOF'",
    "<the whole handoff; see `write --help`>",
    "EOF",
    "",
  ].join("\n");
  return wrapHelp(text);
}

/** A verb's `--help` as printed: its own text, its example, wrapped at 80 columns. */
export function verbHelp(name: string, help: string): string {
  return wrapHelp(`${help.replace(/\n*$/, "\n")}${exampleBlock(name)}`);
}

/** The "did you mean" tail for an unknown verb, or "" when nothing is near (docs/design.md#tokens-and-the-publication-protocol). */
export function suggestion(word: string, VERBS: VerbTable): string {
  const near = nearest(word, Object.keys(VERBS));
  return near === null ? "" : `; did you mean ${near}?`;
}

