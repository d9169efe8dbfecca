// The context-threshold offer, run on every prompt and tool call: one small settings read, one transcript tail, no git.
import { childProcess, mkdirSync } from "../builtins.ts";
import { closeTranscript, openTranscript, tailPart } from "../agents/transcripts/tail.ts";
import { countToolCalls, readEvents, sniffFormat, usagePoints, type UsagePoint } from "../agents/transcripts/index.ts";
import { findLastSave, isSaveCommand, savedToken } from "../agents/transcripts/last-save.ts";
import { recordSavedBy } from "../git/saves.ts";
import { AGENT_OF_FORMAT } from "../agents/render.ts";
import { nonEmpty, userHelperWithoutMemory } from "../agents/harness-path.ts";
import { checkpointsDir, rmQuietRegular, sessionFileId } from "./store.ts";
import { createExclusive, exists, readHead, tokenOf } from "../store/files.ts";
import { checkTree, memoryDir } from "../store/paths.ts";
import { treeUnsafe } from "../store/inspect.ts";
import { pauseSwitch } from "../store/pause.ts";
import { readSettings } from "../store/settings.ts";
import { homeFolder } from "../store/home.ts";

// The last 256 KiB almost always hold the last response's usage; else 1 MiB (Claude Code writes ~38 KB requests).
const TAILS = [256 * 1024, 1024 * 1024];

// The checkpoint is named only when the session has one: with no tool call since the last save none is written.
function offerText(pct: number, used: number, window: number, threshold: number, checkpoint: boolean): string {
  return `session-handoff: this session's context is ${pct}% full (${used} of ${window} tokens; the threshold is ` +
    `${threshold}%). Before it is compacted, offer the user once to save a handoff now with the session-handoff ` +
    "skill's save flow; save only if they agree." +
    (checkpoint ? " An automatic checkpoint is in .ai/memory/checkpoints/ as a safety net." : "");
}

function readUsage(transcriptPath: unknown) {
  if (typeof transcriptPath !== "string" || transcriptPath === "") return null;
  const opened = openTranscript(transcriptPath);
  if (!opened.ok) return null;
  try {
    const format = sniffFormat(opened.file.head);
    if (format !== "claude" && format !== "codex") return null;
    for (const bytes of TAILS) {
      const { lines } = tailPart(opened.file, bytes);
      const points = usagePoints(readEvents(format, lines, "usage"));
      if (points.length > 0 || bytes >= opened.file.size) return { points, lines, format };
    }
    return null;
  } catch {
    return null;
  } finally {
    closeTranscript(opened.file);
  }
}

// Every string inside a JSON value (a tool's input or response, any shape).
function strings(v: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof v === "string") out.push(v);
  else if (v !== null && typeof v === "object" && depth < 8) {
    for (const x of Object.values(v)) strings(x, out, depth + 1);
  }
  return out;
}

type Env = Record<string, string | undefined>;
type OfferOptions = { env: Env; skillDir?: string | null; helperPath?: string; format: string };

/** One hook call's offer: the sentence for the event, or none; `notes` go to stderr either way. */
export async function contextOffer(root: string, input: Record<string, unknown>, o: OfferOptions) {
  const event = typeof input.hook_event_name === "string" ? input.hook_event_name : "UserPromptSubmit";
  const memDir = memoryDir(root);
  // A kill switch turns the whole hook off: not even which agent saved is recorded.
  const paused = pauseSwitch(memDir, o.env) !== null;
  // After a tool call that saved the handoff, records which agent saved it (Codex tells its tools nothing).
  if (!paused && event === "PostToolUse" && isSaveCommand(strings(input.tool_input).join("\n"))) {
    const token = savedToken(strings(input.tool_response).join("\n"), false);
    if (token !== null) await recordSavedBy(root, o.env, token, AGENT_OF_FORMAT[o.format] ?? null);
  }
  const { settings, problems: notes } = readSettings(memDir);
  const quiet = { notes, offer: null };
  // A subagent's input (agent_id) names the main transcript: the offer and its marker are the main agent's.
  if (!settings.contextOffer || paused || nonEmpty(input.agent_id) !== null || treeUnsafe(root) === true) return quiet;
  if (userHelperWithoutMemory(o.skillDir, homeFolder(o.env), root)) return quiet;
  const usage = readUsage(input.transcript_path);
  const last = usage?.points.at(-1);
  const window = settings.contextWindow ?? last?.window;
  if (!usage || !last || window == null) return quiet;
  // More in use than the window the helper assumed for the model: the guess is wrong, so no percent is true.
  if (settings.contextWindow === null && last.used > window) {
    const over = `${last.used} tokens in use, over the ${window} assumed for ${last.model ?? "this model"}`;
    return { notes: [...notes, `${over}: set contextWindow in .ai/memory/settings.json`], offer: null };
  }
  const threshold = settings.contextThreshold;
  const above = (p: UsagePoint) => (p.used * 100) / window >= threshold;
  const marker = `${checkpointsDir(root)}/.offered-${sessionFileId(input.session_id)}`;
  if (!above(last)) {
    // Well under the threshold again (a compaction): the next crossing is offered again. A dip of a few points
    // (thinking or old tool results dropped) is no new crossing.
    if ((last.used * 100) / window < threshold - Math.min(10, threshold / 2)) rmQuietRegular(marker);
    return quiet;
  }
  if (exists(marker)) return quiet;
  // The crossing: the first of the last run of responses above the threshold.
  let at = usage.points.length - 1;
  while (at > 0 && above(usage.points[at - 1]!)) at--;
  // Saved since the crossing, or saved with no tool call since: nothing to offer. Only this project's handoff counts.
  const bytes = readHead(`${memDir}/HANDOFF.md`);
  const current = bytes === null ? null : tokenOf(bytes);
  const events = readEvents(usage.format, usage.lines);
  const save = findLastSave(events, { accepts: (t) => t === current, current: null });
  const saved = save !== null && (save.line >= usage.points[at]!.line || countToolCalls(events, save.line) === 0);
  const pct = Math.floor((last.used * 100) / window);
  try {
    checkTree(root, { create: true });
    mkdirSync(checkpointsDir(root), { recursive: true, mode: 0o700 });
  } catch (err) {
    return { notes: [...notes, `${(err as Error).message}; printing nothing`], offer: null };
  }
  // Exclusive: of two hooks at the same crossing (parallel tool calls), one offers.
  if (!createExclusive(marker, `${JSON.stringify({ pct, used: last.used, window, saved })}\n`) || saved) return quiet;
  if (typeof o.helperPath === "string") {
    childProcess().spawnSync(process.execPath, [o.helperPath, "checkpoint", "--format", o.format, "--root", root], {
      input: JSON.stringify({ ...input, hook_event_name: "ContextThreshold" }),
      env: o.env,
      stdio: ["pipe", "ignore", "ignore"],
      timeout: 8000,
    });
  }
  const checkpoint = exists(`${checkpointsDir(root)}/${sessionFileId(input.session_id)}.md`);
  return { notes, offer: { event, text: offerText(pct, last.used, window, settings.contextThreshold, checkpoint) } };
}
