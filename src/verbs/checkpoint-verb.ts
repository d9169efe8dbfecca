// The `checkpoint` verb's face (docs/design.md#checkpoints): its options and help; checkpoint-run.ts does the work.
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
  get help() {
    return checkpointHelp();
  },
  run: (ctx) => runCheckpoint(ctx),
};
