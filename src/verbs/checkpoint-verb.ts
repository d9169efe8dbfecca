// The `checkpoint` verb's face (docs/design.md#checkpoints): its options and help. The work is cold
// code of its own (cold/checkpoint-run.ts, build.mjs): a compaction or session-end hook then
// compiles that, not every cold verb (issue 15: ~9 ms; docs/decisions/checkpoint-window.md).
import { checkpointHelp, runCheckpoint } from "./checkpoint-run.ts";
import type { Verb } from "./types.ts";

/**
 * `checkpoint [--format claude|codex|gemini] [--root DIR]` (docs/design.md#checkpoints):
 * captures the session's state from the hook input and the transcript's tail into
 * `checkpoints/<session>.md`. Always exit 0, nothing on stdout.
 */
export const checkpointVerb: Verb = {
  name: "checkpoint",
  options: { root: { type: "string" }, format: { type: "string" } },
  positionals: [0, 0],
  // A getter, its text in the verb's own chunk: compiled when asked, never at a hook's start.
  get help() {
    return checkpointHelp();
  },
  run: (ctx) => runCheckpoint(ctx),
};
