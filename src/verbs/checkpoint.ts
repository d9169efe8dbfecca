// `checkpoint` (docs/design.md#checkpoints): a hook's capture of the session into checkpoints/<session>.md.
import { isFormat } from "../agents/transcripts/index.ts";
import { hookStart, readHookJson } from "../agents/harness-path.ts";
import { CHECKPOINT_LINES, writeCheckpoint } from "../checkpoint/capture.ts";
import { nonEmpty } from "../agents/harness-path.ts";
import { quotedValue } from "../guard/quote.ts";
import { disabledByEnv } from "../store/pause.ts";
import { failpointOf, rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";

const HELP = `usage: node memory_io.mjs checkpoint [--format claude|codex|gemini] [--root DIR]
       < hook-input.json

Run by harness hooks at a compaction and at a session's end, never by hand. With
no model call, it captures what a handoff would need from the hook's JSON on
stdin and the transcript's tail into
<root>/.ai/memory/checkpoints/<session id>.md (at most 4,096 bytes, redacted):
the last user requests, the latest plan, files edited, commands with their
recorded status, the agent's last claim, the harness's compaction summary and
the environment anchors. Only tool calls after the session's last
\`write handoff\` count: with none, nothing is written. The 5 newest sessions'
checkpoints are kept, and any other saved in the last 7 days, up to 50 files
(past 50, those with no file edited and no failed command go first). It waits
for the lock at most 1.2 s, then skips. The root
is --root, else (claude, gemini) CLAUDE_PROJECT_DIR or GEMINI_PROJECT_DIR,
else the hook input's cwd, walked up, else the current folder. The rules:
references/verbs/checkpoint.md.

  --format NAME  the transcript format when its records do not say
                 (gemini: print {})
  --root DIR     the project root

stdout: nothing (with --format gemini \`{}\` and nothing on stderr).
stderr: one line starting "checkpoint: " (saved, unchanged, nothing written,
        skipped: …, or …; nothing was captured); nothing at all with
        SESSION_HANDOFF_DISABLE set.
exit: always 0, usage errors included -- a hook must never block the harness.
`;

// Longer hook input is ignored, not refused.
const STDIN_BYTES = 1024 * 1024;

export const checkpointVerb: Verb = {
  options: { root: { type: "string" }, format: { type: "string" } },
  help: HELP,
  async run(ctx) {
    const startMs = Date.now();
    const format = ctx.values.format;
    if (format !== undefined && !isFormat(format)) {
      const got = quotedValue(String(format).slice(0, 40));
      return ok("", [CHECKPOINT_LINES.usage(`--format must be claude, codex or gemini, got ${got}`)]);
    }
    if (disabledByEnv(ctx.env)) return ok("", []);
    const input = await readHookJson(ctx, STDIN_BYTES);
    const hook = input ?? {};
    if (nonEmpty(hook.agent_id) !== null) return ok("", [CHECKPOINT_LINES.subagent()]);
    const notes = input === null ? [CHECKPOINT_LINES.badInput()] : [];
    let root: string;
    try {
      const given = typeof ctx.values.root === "string" && ctx.values.root !== "";
      root = rootOption(ctx, given ? null : hookStart(hook.cwd, ctx.env, format));
    } catch (err) {
      return ok("", [...notes, CHECKPOINT_LINES.skipped((err as Error).message)]);
    }
    const o = { env: ctx.env, skillDir: ctx.skillDir ?? null, failpoint: failpointOf(ctx), format, startMs };
    return ok("", await writeCheckpoint(root, hook, notes, o));
  },
};
