// The context-threshold offer (docs/context-threshold.md): run by the harness on every prompt
// and tool call, it tells the agent once, when the session's context in use crosses the
// threshold, to offer the user a handoff, and writes a checkpoint then as a safety net.
// On the hot path: one small settings read, one transcript tail, no git.
import { childProcess } from "../builtins.ts";
import { lstatSync, mkdirSync } from "node:fs";
import { closeTranscript, openTranscript, tailPart } from "../agents/transcripts/tail.ts";
import { readEvents, sniffFormat, usagePoints, type UsagePoint } from "../agents/transcripts/index.ts";
import { findLastSave, isSaveCommand, savedToken } from "../agents/transcripts/last-save.ts";
import { recordSavedBy } from "../git/saves.ts";
import { hookCwd } from "../agents/harness-path.ts";
import { checkpointsDir, rmQuietRegular, sessionFileId } from "../store/checkpoints.ts";
import { createExclusive } from "../store/files.ts";
import { checkTree, memoryDir } from "../store/paths.ts";
import { treeUnsafe } from "../store/inspect.ts";
import { pauseSwitch } from "../store/pause.ts";
import { readSettings } from "../store/settings.ts";
import { rootOption } from "./common.ts";
import { userHelperWithoutMemory } from "./checkpoint.ts";
import { homeFolder } from "../store/home.ts";
import { ok, type Outcome, type Verb, type VerbContext } from "./types.ts";

/** Bytes of the transcript's end read first; the usage of the last response is almost always there. */
const SMALL_TAIL = 256 * 1024;
/** Bytes read when the small tail holds no usage (Claude Code 2.1.332 writes ~38 KB request records). */
const LARGE_TAIL = 1024 * 1024;
const STDIN_BYTES = 65_536;
const FORMATS = new Set(["claude", "codex"]);

/** The sentence the agent gets once per crossing. */
export function offerText(pct: number, used: number, window: number, threshold: number): string {
  return (
    `session-handoff: this session's context is ${pct}% full ` +
    `(${used} of ${window} tokens; the threshold is ${threshold}%). ` +
    "Before it is compacted, offer the user once to save a handoff now with the session-handoff skill's save flow; " +
    "save only if they agree. An automatic checkpoint was written to .ai/memory/checkpoints/ as a safety net."
  );
}

interface HookInput {
  sessionId: unknown;
  transcriptPath: unknown;
  cwd: unknown;
  event: string;
  raw: Record<string, unknown>;
}

async function readInput(ctx: VerbContext): Promise<HookInput | null> {
  if (ctx.stdinIsTTY) return null;
  const data = await ctx.readStdinWithin(1000, STDIN_BYTES);
  if (data === null || data.length === 0 || data.length > STDIN_BYTES) return null;
  try {
    const raw = JSON.parse(data.toString("utf8")) as unknown;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return null;
    const r = raw as Record<string, unknown>;
    const event = typeof r.hook_event_name === "string" ? r.hook_event_name : "UserPromptSubmit";
    return { sessionId: r.session_id, transcriptPath: r.transcript_path, cwd: r.cwd, event, raw: r };
  } catch {
    return null;
  }
}

type Format = "claude" | "codex";

/** The usage points of the transcript's tail, and its lines; null when it cannot be read. */
function readUsage(transcriptPath: unknown): { points: UsagePoint[]; lines: string[]; format: Format } | null {
  if (typeof transcriptPath !== "string" || transcriptPath === "") return null;
  const opened = openTranscript(transcriptPath);
  if (!opened.ok) return null;
  try {
    const format = sniffFormat(opened.file.head);
    if (format !== "claude" && format !== "codex") return null;
    for (const bytes of [SMALL_TAIL, LARGE_TAIL]) {
      const { lines } = tailPart(opened.file, bytes);
      const points = usagePoints(readEvents(format, lines, true));
      if (points.length > 0 || bytes >= opened.file.size) return { points, lines, format };
    }
    return null;
  } catch {
    return null;
  } finally {
    closeTranscript(opened.file);
  }
}

// Creates `p` exclusively, never through a link: true for the one caller that made it.
function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

// Every string inside a JSON value, joined by newlines (a tool's input or response, any shape).
function strings(v: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof v === "string") out.push(v);
  else if (v !== null && typeof v === "object" && depth < 8) {
    for (const x of Object.values(v)) strings(x, out, depth + 1);
  }
  return out;
}

const AGENT_OF_FORMAT: Record<string, string> = { claude: "Claude Code", codex: "Codex" };

/**
 * After a tool call that saved the handoff, records which agent saved it (the hook's format
 * says; Codex sets nothing in its tools' environment that `write` could read).
 */
function noteSave(root: string, input: HookInput, format: string): void {
  if (input.event !== "PostToolUse") return;
  if (!isSaveCommand(strings(input.raw.tool_input).join("\n"))) return;
  const token = savedToken(strings(input.raw.tool_response).join("\n"), false);
  if (token !== null) recordSavedBy(root, token, AGENT_OF_FORMAT[format] ?? null);
}

function envelope(event: string, text: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } })}\n`;
}

/** The offer's decision for one hook call; every way out but the offer prints nothing. */
async function decide(ctx: VerbContext, input: HookInput, format: string): Promise<Outcome> {
  const say = (line: string): Outcome => ok("", [`memory_io context: ${line}`]);
  let root: string;
  try {
    root = rootOption(ctx, typeof ctx.values.root === "string" ? null : hookCwd(input.cwd));
  } catch (err) {
    return say(`${(err as Error).message}; printing nothing`);
  }
  noteSave(root, input, format);
  const memDir = memoryDir(root);
  const { settings, problems } = readSettings(memDir);
  const warn = problems.map((p) => `memory_io context: ${p}`);
  if (!settings.contextOffer || pauseSwitch(memDir, ctx.env) !== null || treeUnsafe(root) === true) return ok("", warn);
  if (userHelperWithoutMemory(ctx.skillDir, homeFolder(ctx.env), root)) return ok("", warn);
  const usage = readUsage(input.transcriptPath);
  if (usage === null || usage.points.length === 0) return ok("", warn);
  const last = usage.points[usage.points.length - 1]!;
  const window = settings.contextWindow ?? last.window;
  if (window === null) return ok("", warn);
  const above = (p: UsagePoint) => (p.used * 100) / window >= settings.contextThreshold;
  const marker = `${checkpointsDir(root)}/.offered-${sessionFileId(input.sessionId)}`;
  if (!above(last)) {
    // Back under the threshold (a compaction): the next crossing is offered again.
    rmQuietRegular(marker);
    return ok("", warn);
  }
  if (exists(marker)) return ok("", warn);
  // The crossing: the first of the last run of responses above the threshold.
  let at = usage.points.length - 1;
  while (at > 0 && above(usage.points[at - 1]!)) at--;
  const since = usage.lines.slice(usage.points[at]!.line);
  const saved = findLastSave(readEvents(usage.format, since), { accepts: () => true, current: null }) !== null;
  const pct = Math.floor((last.used * 100) / window);
  try {
    checkTree(root, { create: true });
    mkdirSync(checkpointsDir(root), { recursive: true, mode: 0o700 });
  } catch (err) {
    return ok("", [...warn, `memory_io context: ${(err as Error).message}; printing nothing`]);
  }
  // Exclusive: of two hooks at the same crossing (parallel tool calls), one offers.
  if (!createExclusive(marker, `${JSON.stringify({ pct, used: last.used, window, saved })}\n`)) return ok("", warn);
  if (saved) return ok("", warn);
  if (typeof ctx.helperPath === "string") {
    childProcess().spawnSync(process.execPath, [ctx.helperPath, "checkpoint", "--format", format, "--root", root], {
      input: JSON.stringify({ ...input.raw, hook_event_name: "ContextThreshold" }),
      env: ctx.env,
      stdio: ["pipe", "ignore", "ignore"],
      timeout: 8000,
    });
  }
  return ok(envelope(input.event, offerText(pct, last.used, window, settings.contextThreshold)), warn);
}

/** `context --format claude|codex [--root DIR]`: the threshold offer. Always exit 0. */
export const contextVerb: Verb = {
  name: "context",
  options: { root: { type: "string" }, format: { type: "string" } },
  positionals: [0, 0],
  get help() {
    return `usage: node memory_io.mjs context --format claude|codex [--root DIR]

The context-threshold offer, run by the harness's UserPromptSubmit and PostToolUse hooks.
Reads the hook's JSON on stdin (session_id, transcript_path, cwd, hook_event_name) and the
last 256 KiB of the transcript (1 MiB when that holds no usage). When the context in use --
the last response's input + cache creation + cache read + output tokens (Claude Code), or
the last token_count (Codex) -- is at or above the threshold of the window and this session
was not told yet, it prints once, as
{"hookSpecificOutput":{"hookEventName":"<event>","additionalContext":"<sentence>"}}:
  ${offerText(75, 150000, 200000, 70)}
and writes the session's checkpoint (see \`checkpoint --help\`; Trigger: context-threshold).
The marker checkpoints/.offered-<session> records that it was told; back under the threshold
(after a compaction) the marker goes, so the next crossing is told again. A handoff saved
after the crossing (a \`write handoff\` that printed its token) silences it.
The window: Claude Code 1,000,000 for a model named with [1m] or claude-opus-5-5, else
200,000; Codex's token_count says it. .ai/memory/settings.json (docs/context-threshold.md):
  {"contextOffer": true, "contextThreshold": 70, "contextWindow": null, "archivesKept": 5}
A bad value is named on stderr and its default used. Nothing is printed when the offer is
off, memory writes are paused, SESSION_HANDOFF_DISABLE is set, or the memory tree is unsafe.
exit: always 0.
`;
  },
  async run(ctx) {
    const format = ctx.values.format ?? "claude";
    if (typeof format !== "string" || !FORMATS.has(format)) {
      return ok("", ["memory_io context: --format must be claude or codex; printing nothing"]);
    }
    const input = await readInput(ctx);
    if (input === null) return ok("", []);
    return decide(ctx, input, format);
  },
};
