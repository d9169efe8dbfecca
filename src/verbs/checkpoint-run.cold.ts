// What `checkpoint` does (contract §12, rulings 19–25); checkpoint.ts is its face. A chunk of
// its own (build.mjs rule 2b), compiled only when a hook runs the verb.
import { homedir } from "node:os";
import path from "node:path";
import { HelperError } from "../errors.ts";
import { ADAPTERS, anchorsOnlySource, captureSource, isFormat, PLAN_MARKERS } from "../agents/transcripts/index.ts";
import { closeTranscript, earlierHolds, FIRST_TAIL_BYTES, headLines, openTranscript, readFailure, sniffFormat, TAIL_BYTES, tailLines, tailPart, type TranscriptFile } from "../agents/transcripts/tail.ts";
import { emptyCapture, type Capture, type TranscriptFormat } from "../agents/transcripts/types.ts";
import { formatRedactionReport } from "../guard/redaction.cold.ts";
import { runGit } from "../git/run.ts";
import { skillExcludes } from "../git/anchors.ts";
import { gitDirOf, gitTopOf, inProgressOf, inProgressWords } from "../git/in-progress.ts";
import { parseStatusV2, statusArgs } from "../git/status.ts";
import { quotePath, renderInProgress } from "../schema/anchor-lines.ts";
import { headerValue, MAX_REQUESTS, renderCheckpoint, sameCheckpoint, triggerOf } from "../schema/checkpoint.ts";
import { isoSeconds, parseStrictTime } from "../schema/values.ts";
import { checkpointsDir, sessionFileId } from "../store/checkpoints.ts";
import { cleanCheckpointLeftovers, pruneCheckpoints } from "../store/checkpoint-cleanup.ts";
import { readStable } from "../store/files.ts";
import { underLock } from "../store/mutate.ts";
import { archiveDir, ensureDir, memoryDir } from "../store/paths.ts";
import { disabledByEnv, pauseSwitch } from "../store/pause.ts";
import { publish } from "../store/publish.ts";
import { failpointOf, rootOption } from "./common.ts";
import { COLD_HELPERS } from "./index.ts";
import { ok, type Outcome, type VerbContext } from "./types.ts";
import { CHECKPOINT_DIRTY, CHECKPOINT_GIT_MS, CHECKPOINT_LINES, CHECKPOINT_STDIN_BYTES } from "./checkpoint.ts";

/** What the hook input says (harnesses.md): every field optional. */
interface HookInput {
  sessionId: unknown;
  transcriptPath: string | null;
  cwd: string | null;
  event: unknown;
  compactSummary: string | null;
  /** Claude Code's `Stop` carries the last reply itself: fresher than a transcript that lags. */
  lastMessage: string | null;
  agentId: boolean;
}

async function readInput(ctx: VerbContext): Promise<HookInput | null> {
  if (ctx.stdinIsTTY) return { sessionId: undefined, transcriptPath: null, cwd: null, event: undefined, compactSummary: null, lastMessage: null, agentId: false };
  // Reading stops just past the cap (ruling 20): longer input is ignored, not refused.
  const data = await ctx.readStdinWithin(1000, CHECKPOINT_STDIN_BYTES);
  if (data === null || data.length === 0) return { sessionId: undefined, transcriptPath: null, cwd: null, event: undefined, compactSummary: null, lastMessage: null, agentId: false };
  if (data.length > CHECKPOINT_STDIN_BYTES) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString("utf8"));
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const o = parsed as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
  return {
    sessionId: o.session_id,
    transcriptPath: s(o.transcript_path),
    cwd: s(o.cwd),
    event: o.hook_event_name,
    compactSummary: s(o.compact_summary),
    lastMessage: s(o.last_assistant_message),
    agentId: typeof o.agent_id === "string" && o.agent_id !== "",
  };
}


/** The anchor lines of a checkpoint: git gets 500 ms; dirty files at most 10 paths and 1,024 bytes (ruling 21). */
export async function checkpointAnchors(root: string, env: Record<string, string | undefined>, nowMs: number, excludes: readonly string[] = []): Promise<string[]> {
  const date = `- Date: ${isoSeconds(nowMs)}`;
  let r;
  try {
    r = await runGit(root, statusArgs(excludes), env, CHECKPOINT_GIT_MS);
  } catch (err) {
    const reason = (err as { reason?: string }).reason;
    if (reason === "timeout") return ["- Branch: unknown (git timed out)", "- HEAD: unknown (git timed out)", "- Dirty files: unknown (git timed out)", date];
    return [date];
  }
  if (r.code !== 0) return [date];
  const s = parseStatusV2(r.stdout);
  const shown: string[] = [];
  let bytes = 0;
  for (const p of s.dirty) {
    const q = quotePath(p);
    if (shown.length >= CHECKPOINT_DIRTY.paths || bytes + Buffer.byteLength(q) + 2 > CHECKPOINT_DIRTY.bytes) break;
    shown.push(q);
    bytes += Buffer.byteLength(q) + 2;
  }
  if (s.dirty.length > shown.length) shown.push(`… and ${s.dirty.length - shown.length} more`);
  const lines = [`- Branch: ${s.branch}`, `- HEAD: ${s.head ?? "none (no commits yet)"}`, `- Dirty files: ${shown.length > 0 ? shown.join(", ") : "none"}`, date];
  // As `anchors` writes it (contract §5): the operation in progress, from the git dir's files.
  const top = gitTopOf(root);
  const op = top === null ? null : inProgressOf(gitDirOf(top));
  if (op !== null) lines.push(`- In progress: ${renderInProgress({ words: inProgressWords(op), conflicted: s.conflicted ?? 0 })}`);
  return lines;
}

/**
 * Whether the last `bytes` of a transcript, read as `cap`, hold what a checkpoint needs, so
 * that the rest of the 4 MiB need not be parsed (issue 15): the last three user requests, a
 * last claim (or the hook's own last message), and the latest plan -- one that nothing earlier
 * can change, or none at all in the bytes before (a byte search for the format's plan tools).
 * Files edited and commands are then those of the part read.
 */
function enough(cap: Capture, file: TranscriptFile, from: number, hook: HookInput): boolean {
  if (cap.userRequests.length < MAX_REQUESTS) return false;
  if (cap.lastClaim === null && hook.lastMessage === null) return false;
  return cap.planFinal || !earlierHolds(file, from, PLAN_MARKERS[cap.format]);
}

function capture(input: HookInput, format: string | undefined, notes: string[]): { cap: Capture | null; source: string; headStart: string | null } {
  if (input.transcriptPath === null) {
    notes.push(CHECKPOINT_LINES.noTranscript("the hook input names no transcript"));
    return { cap: null, source: anchorsOnlySource("the hook input names no transcript"), headStart: null };
  }
  // No transcript to read: the reason is a note, and the checkpoint's Source.
  const unread = (reason: string) => {
    notes.push(CHECKPOINT_LINES.noTranscript(reason));
    return { cap: null, source: anchorsOnlySource(reason), headStart: null };
  };
  const opened = openTranscript(input.transcriptPath);
  if (!opened.ok) return unread(opened.reason);
  const file = opened.file;
  // By shape, not by version or by the flag (docs/design.md#checkpoints): --format only
  // names the adapter when the head holds no record to recognise.
  const chosen = sniffFormat(file.head) ?? (isFormat(format) ? format : null);
  let read: number;
  let cap: Capture;
  let headStart: string | null;
  try {
    if (chosen === null) {
      notes.push(CHECKPOINT_LINES.unknownFormat());
      return { cap: null, source: anchorsOnlySource("the transcript's format is not recognised"), headStart: null };
    }
    // The last 1 MiB first; all of the last 4 MiB when that part lacks what is needed.
    read = Math.min(file.size, FIRST_TAIL_BYTES);
    const part = tailPart(file, read);
    cap = ADAPTERS[chosen](part.lines);
    if (read < Math.min(file.size, TAIL_BYTES) && !enough(cap, file, part.from, input)) {
      read = Math.min(file.size, TAIL_BYTES);
      cap = ADAPTERS[chosen](tailLines(file, read));
    }
    // The file's first records date the session's start when the part read does not reach them.
    headStart = read < file.size ? sessionStartOf(file, chosen) : null;
    // Codex names its version in the file's first record, which a tail may not reach.
    if (cap.version == null && read < file.size) cap.version = ADAPTERS[chosen](file.head.slice(0, 16)).version ?? null;
  } catch (err) {
    return unread(readFailure(err));
  } finally {
    closeTranscript(file);
  }
  if (cap.records === 0) {
    notes.push(CHECKPOINT_LINES.noTranscript("the transcript's tail holds no complete record"));
    return { cap: null, source: anchorsOnlySource("the transcript holds no complete record yet"), headStart };
  }
  return { cap, source: captureSource(cap), headStart };
}

// The first timestamp of the file: its first few lines usually hold it, and the adapter's first
// timestamp of a prefix is that of the whole (it is the first one met in order). When the 64 KiB
// head holds none (a first record longer than it: a long paste) and the whole file lies within
// the last TAIL_BYTES (ruling 19's bound), the file is read from its start.
function sessionStartOf(file: TranscriptFile, format: TranscriptFormat): string | null {
  const first = (lines: readonly string[]) => ADAPTERS[format](lines.slice(0, 16)).firstTimestamp ?? (lines.length > 16 ? ADAPTERS[format](lines).firstTimestamp : null);
  const fromHead = first(file.head);
  if (fromHead !== null || file.size > TAIL_BYTES) return fromHead;
  return first(headLines(file, TAIL_BYTES));
}

/**
 * Runs `checkpoint` (see its help in checkpoint.ts): captures the session's state from the hook
 * input and the transcript's tail into `checkpoints/<session>.md`. Always exit 0, nothing on
 * stdout; every outcome is one line on stderr.
 */
export async function runCheckpoint(ctx: VerbContext): Promise<Outcome> {
  const format = ctx.values.format;
  if (format !== undefined && !isFormat(format)) {
    return ok("", [CHECKPOINT_LINES.usage(`--format must be claude, codex or gemini, got ${JSON.stringify(String(format).slice(0, 40))}`)]);
  }
  if (disabledByEnv(ctx.env)) return ok("", []);
  const notes: string[] = [];
  const input = await readInput(ctx);
  if (input?.agentId) return ok("", [CHECKPOINT_LINES.subagent()]);
  if (input === null) notes.push(CHECKPOINT_LINES.badInput());
  const hook: HookInput = input ?? { sessionId: undefined, transcriptPath: null, cwd: null, event: undefined, compactSummary: null, lastMessage: null, agentId: false };
  let root: string;
  try {
    // The same root as every verb (contract "Words", ruling 20): --root, else stdin's cwd, else the current directory.
    const given = typeof ctx.values.root === "string" && ctx.values.root !== "";
    root = rootOption(ctx, given || hook.cwd === null || !path.isAbsolute(hook.cwd) ? null : hook.cwd);
  } catch (err) {
    return ok("", [...notes, CHECKPOINT_LINES.skipped((err as Error).message)]);
  }
  if (root === path.parse(root).root || root === path.resolve(ctx.env.HOME || homedir())) {
    return ok("", [...notes, CHECKPOINT_LINES.skipped(`${root} is the home directory or the file system's root, not a project`)]);
  }
  if (pauseSwitch(memoryDir(root), ctx.env) !== null) return ok("", [CHECKPOINT_LINES.paused()]);

  const session = sessionFileId(hook.sessionId);
  const name = `${session}.md`;
  const nowMs = Date.now();
  const anchorsP = checkpointAnchors(root, ctx.env, nowMs, skillExcludes(root, ctx.skillDir ?? null));
  const got = capture(hook, typeof format === "string" ? format : undefined, notes);
  if (hook.lastMessage !== null) (got.cap ??= emptyCapture(isFormat(format) ? format : "claude")).lastClaim = hook.lastMessage;
  const anchorLines = await anchorsP;
  const dir = checkpointsDir(root);
  try {
    const { result, repairs } = await underLock({ root, env: ctx.env, lockTimeoutSeconds: 0, loadRepair: COLD_HELPERS.repair }, async (lock) => {
      ensureDir(dir);
      const cleaned = cleanCheckpointLeftovers(root);
      const prior = await readStable(path.join(dir, name));
      const priorText = prior?.bytes.toString("utf8") ?? null;
      const priorStart = priorText === null ? null : headerValue(priorText, "Session-start");
      const keepStart = priorStart !== null && "ms" in parseStrictTime(priorStart, nowMs) ? priorStart : null;
      const { text, findings } = renderCheckpoint({
        saved: isoSeconds(nowMs),
        session,
        sessionStart: keepStart ?? got.headStart ?? got.cap?.firstTimestamp ?? null,
        trigger: triggerOf(hook.event),
        source: got.source,
        capture: got.cap,
        compactSummary: hook.compactSummary,
        anchorLines,
        root,
      });
      const report = findings.length > 0 ? [CHECKPOINT_LINES.redacted(formatRedactionReport(findings))] : [];
      if (priorText !== null && sameCheckpoint(priorText, text)) return { lines: [...cleaned, ...report, CHECKPOINT_LINES.unchanged(name)] };
      const published = await publish({
        dir,
        file: name,
        archiveDir: archiveDir(root),
        archivePrefix: "CHECKPOINT",
        archivePrior: false,
        expectedToken: prior?.token ?? "absent",
        newMode: 0o600,
        build: () => Buffer.from(text, "utf8"),
        failpoint: failpointOf(ctx),
        lock,
      });
      pruneCheckpoints(root, name);
      return { lines: [...cleaned, ...report, ...published.warnings, CHECKPOINT_LINES.saved(name)] };
    });
    return ok("", [...notes, ...repairs, ...result.lines]);
  } catch (err) {
    if (err instanceof HelperError && err.code === 4) return ok("", [CHECKPOINT_LINES.paused()]);
    if (err instanceof HelperError && err.code === 5) return ok("", [CHECKPOINT_LINES.busy()]);
    return ok("", [...notes, CHECKPOINT_LINES.skipped((err as Error).message)]);
  }
}
