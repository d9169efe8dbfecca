// `context` (docs/context-threshold.md): the threshold offer of checkpoint/offer.ts, run by hooks on every turn.
import { hookStart, readHookJson } from "../agents/harness-path.ts";
import { contextOffer } from "../checkpoint/offer.ts";
import { rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";

export const contextVerb: Verb = {
  options: { root: { type: "string" }, format: { type: "string" } },
  get help() {
    return `usage: node memory_io.mjs context --format claude|codex [--root DIR]

The context-threshold offer, run by the harness's UserPromptSubmit and
PostToolUse hooks. Reads the hook's JSON on stdin and the transcript's last
256 KiB (1 MiB when that holds no usage). When the context in use is at or above
the threshold of the window and this session was not told yet, it prints once,
as {"hookSpecificOutput":{"hookEventName":"<event>","additionalContext":"…"}}:
  session-handoff: this session's context is 75% full (150000 of 200000 tokens;
    the threshold is 70%). Before it is compacted, offer the user once to save a
    handoff now with the session-handoff skill's save flow; save only if they
    agree. An automatic checkpoint is in .ai/memory/checkpoints/ as a safety
    net.
and writes the session's checkpoint (Trigger: context-threshold); the last
sentence is left out when none was written (no tool call since the last save).
Well under the threshold again (a compaction) the next crossing is told again;
this project's handoff saved after the crossing silences it. Usage before a
compaction is not read. .ai/memory/settings.json sets it (a bad value is named
on stderr and its default used; a bad contextOffer or an unusable file: off):
  {"contextOffer": true, "contextThreshold": 70, "contextWindow": null,
   "archivesKept": 5}
Nothing is printed when the offer is off, memory writes are paused,
SESSION_HANDOFF_DISABLE is set, the memory tree is unsafe, or the input is a
subagent's (agent_id). How usage and the window are counted:
docs/context-threshold.md.
exit: always 0.
`;
  },
  async run(ctx) {
    const format = ctx.values.format ?? "claude";
    if (format !== "claude" && format !== "codex") {
      return ok("", ["memory_io context: --format must be claude or codex; printing nothing"]);
    }
    const input = await readHookJson(ctx);
    if (!input) return ok("", []);
    const say = (line: string) => `memory_io context: ${line}`;
    let root: string;
    try {
      root = rootOption(ctx, typeof ctx.values.root === "string" ? null : hookStart(input.cwd, ctx.env, format));
    } catch (err) {
      return ok("", [say(`${(err as Error).message}; printing nothing`)]);
    }
    const { notes, offer } = await contextOffer(root, input, { ...ctx, format });
    const json = offer && { hookSpecificOutput: { hookEventName: offer.event, additionalContext: offer.text } };
    return ok(json ? `${JSON.stringify(json)}\n` : "", notes.map(say));
  },
};
