// What `checkpoint` does (docs/design.md#checkpoints); checkpoint.ts is its face.
import { quotedValue } from "../guard/quote.ts";
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { Busy, HelperError } from "../errors.ts";
import { PARSERS } from "../agents/transcripts/parsers.ts";
import { anchorsOnlySource, captureSource, countToolCalls, FORMATS, isFormat, readEvents, sniffFormat } from "../agents/transcripts/index.ts";
import {
  closeTranscript,
  earlierHolds,
  FIRST_TAIL_BYTES,
  headLines,
  openTranscript,
  readFailure,
  TAIL_BYTES,
  tailLines,
  tailPart,
  type TranscriptFile,
} from "../agents/transcripts/tail.ts";
import { emptyCapture, type Capture, type TranscriptFormat } from "../agents/transcripts/types.ts";
import { hookCwd } from "../agents/harness-path.ts";
import { findLastSave, type LastSave, type ProjectHandoffs } from "../agents/transcripts/last-save.ts";
import { recordResume } from "../journal/record.ts";
import { findLastResume, type ResumeCall } from "../journal/resume-events.ts";
import { formatRedactionReport } from "../guard/redact.ts";
import { anchorsWithoutTokens } from "../guard/token-shape.ts";
import { runGit } from "../git/run.ts";
import { skillExcludes } from "../git/anchors.ts";
import { gitDirOf, gitTopOf, inProgressOf, inProgressWords } from "../git/git-dir.ts";
import { parseStatusV2, statusArgs } from "../git/status.ts";
import { quotePath, renderInProgress } from "../schema/anchor-lines.ts";
import {
  CHECKPOINT_MAX_BYTES,
  headerValue,
  isAnchorsOnlySource,
  isCheckpointText,
  MAX_REQUESTS,
  parsePriorCheckpoint,
  renderCheckpoint,
  sameCheckpoint,
  triggerOf,
} from "../schema/checkpoint.ts";
import { isoSeconds, parseStrictTime } from "../schema/values.ts";
import {
  CHECKPOINTS_GITIGNORE,
  checkpointsDir,
  checkpointsDirState,
  readHead,
  readHeadBytes,
  rmQuietRegular,
  sessionFileId,
} from "../store/checkpoints.ts";
import { ensureIgnored } from "../store/drafts.ts";
import { listArchives } from "../store/archive-entries.ts";
import { tokenOf } from "../store/files.ts";
import { cleanCheckpointLeftovers, pruneCheckpoints } from "../store/checkpoint-cleanup.ts";
import { readStable } from "../store/files.ts";
import { underLock } from "../store/mutate.ts";
import { homeFolder, samePath } from "../store/home.ts";
import { archiveDir, ensureDir, memoryDir } from "../store/paths.ts";
import { disabledByEnv, pauseSwitch } from "../store/pause.ts";
import { publish } from "../store/publish.ts";
import { failpointOf, rootOption } from "./common.ts";
import { ok, type Outcome, type VerbContext } from "./types.ts";
import { CHECKPOINT_DIRTY, CHECKPOINT_GIT_MS, CHECKPOINT_LINES, CHECKPOINT_STDIN_BYTES, userHelperWithoutMemory } from "./checkpoint.ts";

/** `checkpoint --help` (the verb's face, checkpoint.ts, asks for it only when help is read). */
export function checkpointHelp(): string {
  return `usage: node memory_io.mjs checkpoint [--format claude|codex|gemini] [--root DIR] < hook-input.json

Run by harness hooks at a compaction and at a session's end (Claude Code PreCompact,
PostCompact and SessionEnd; Codex PreCompact and SessionEnd; Gemini SessionEnd),
never by hand. With no model call, it captures what a handoff would need from the
hook's JSON on stdin and the tail of the transcript it names, into
<root>/.ai/memory/checkpoints/<session id>.md: the last user requests, the latest
plan, files edited, commands with their recorded status, the agent's last claim,
the harness's compaction summary and the environment anchors (at most 4,096 bytes).
Only tool calls after the session's last \`write handoff\` count: with none, nothing
is written. Transcript text is redacted; the 5 newest sessions' checkpoints are
kept. It publishes like \`write\` but waits for the lock at most 1.2 s, then skips.
The root is --root, else the hook input's cwd walked up, else the current folder.
The capture rules and every stderr line: references/verbs.md#checkpoint.

options:
  --format NAME  the transcript format when its records do not say (gemini: print {})
  --root DIR     the project root

stdout: nothing (with --format gemini \`{}\` and nothing on stderr).
stderr: one line "checkpoint: saved checkpoints/<session>.md", "checkpoint:
        unchanged …", "checkpoint: … nothing written", "checkpoint: skipped: …"
        or "checkpoint: …; nothing was captured". Nothing at all with
        SESSION_HANDOFF_DISABLE set.

exit: always 0, usage errors included -- a hook must never block the harness.
`;
}

/** The lock is waited for until this long after the verb's start (Claude Code allows 1.5 s at SessionEnd). */
export const LOCK_BUDGET_MS = 1200;
// Bytes that every save line of this helper holds, as written in any transcript.
const SAVE_MARKERS = ["write handoff"];

/**
 * This project's handoffs as a save's token is checked against them: the current HANDOFF.md's
 * token and `Saved:`, and the SHA-256 of each archive (hashed only when a token is not the
 * current one). Files are read without following links; unreadable ones match nothing.
 */
function projectHandoffs(root: string): ProjectHandoffs {
  const bytes = readHeadBytes(path.join(memoryDir(root), "HANDOFF.md"));
  let current: ProjectHandoffs["current"] = null;
  if (bytes !== null) {
    const saved = /^Saved: (.+)$/m.exec(bytes.subarray(0, 4096).toString("utf8"))?.[1]?.trim() ?? null;
    const t = saved === null ? null : parseStrictTime(saved, Number.MAX_SAFE_INTEGER);
    current = { token: tokenOf(bytes), savedMs: t !== null && "ms" in t ? t.ms : null };
  }
  let archived: Set<string> | null = null;
  return {
    current,
    accepts(token) {
      if (token === current?.token) return true;
      if (archived === null) {
        archived = new Set();
        try {
          for (const e of listArchives(root).slice(0, ARCHIVES_HASHED)) {
            const b = e.regular ? readHeadBytes(path.join(archiveDir(root), e.name)) : null;
            if (b !== null) archived.add(tokenOf(b));
          }
        } catch {
          // An unsafe archive folder: no archive counts.
        }
      }
      return archived.has(token);
    },
  };
}

/** Most archives hashed to recognise a save's token (newest first). */
const ARCHIVES_HASHED = 50;

/** Days after which a context-offer marker goes: its session is long over (a live one is told again at worst). */
const OFFER_MARKER_DAYS = 7;

// Run where a checkpoint is written, never on the context hook's path; at most 200 names looked at.
function pruneOfferMarkers(dir: string, nowMs: number): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(".offered-")).slice(0, 200);
  } catch {
    return;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    try {
      if (nowMs - lstatSync(p).mtimeMs > OFFER_MARKER_DAYS * 86_400_000) rmQuietRegular(p);
    } catch {
      // Gone already.
    }
  }
}

/** What the hook input says (harnesses.md): every field optional. */
interface HookInput {
  sessionId: unknown;
  transcriptPath: string | null;
  /** As given (hookCwd refuses an empty, relative or non-string one by name). */
  cwd: unknown;
  event: unknown;
  compactSummary: string | null;
  /** Claude Code's `Stop` carries the last reply itself: fresher than a transcript that lags. */
  lastMessage: string | null;
  agentId: boolean;
}

async function readInput(ctx: VerbContext): Promise<HookInput | null> {
  if (ctx.stdinIsTTY) return { sessionId: undefined, transcriptPath: null, cwd: null, event: undefined, compactSummary: null, lastMessage: null, agentId: false };
  // Reading stops just past the cap (docs/design.md#checkpoints): longer input is ignored, not refused.
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
    cwd: o.cwd,
    event: o.hook_event_name,
    compactSummary: s(o.compact_summary),
    lastMessage: s(o.last_assistant_message),
    agentId: typeof o.agent_id === "string" && o.agent_id !== "",
  };
}


/** The anchor lines of a checkpoint: git gets 500 ms; dirty files at most 10 paths and 1,024 bytes. */
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
  // As `anchors` writes it (docs/design.md#checkpoints): the operation in progress, from the git dir's files.
  const top = gitTopOf(root);
  const op = top === null ? null : inProgressOf(gitDirOf(top));
  if (op !== null) lines.push(`- In progress: ${renderInProgress({ words: inProgressWords(op), conflicted: s.conflicted ?? 0 })}`);
  return anchorsWithoutTokens(lines);
}

/**
 * Whether the last `bytes` of a transcript, read as `cap`, hold what a checkpoint needs, so
 * that the rest of the 4 MiB need not be parsed (docs/decisions/checkpoint-window.md): the last three user requests, a
 * last claim (or the hook's own last message), and the latest plan -- one that nothing earlier
 * can change, or none at all in the bytes before (a byte search for the format's plan tools).
 * Files edited and commands are then those of the part read.
 */
function enough(cap: Capture, file: TranscriptFile, from: number, hook: HookInput): boolean {
  if (cap.userRequests.length < MAX_REQUESTS) return false;
  if (cap.lastClaim === null && hook.lastMessage === null) return false;
  return cap.planFinal || !earlierHolds(file, from, FORMATS[cap.format].planMarkers);
}

/** What the transcript gave: a capture after the session's last save, or why there is none. */
interface Got {
  cap: Capture | null;
  source: string;
  headStart: string | null;
  /** True when a transcript was read and recognised (a capture or nothing to capture, never anchors only). */
  recognised: boolean;
  /** The last save of this project's handoff the capture starts after, when the part read holds it. */
  save: LastSave | null;
  /** Tool calls after that save (in the whole part read when there is none). */
  toolCalls: number;
  /** The session's last `brief` call in the part read, for the journal's resume outcome. */
  resume?: ResumeCall | null;
}

function capture(input: HookInput, format: string | undefined, notes: string[], project: ProjectHandoffs): Got {
  // No transcript to read: the reason is a note, and the checkpoint's Source (anchors only).
  const anchorsOnly = (why: string, note: string): Got => {
    notes.push(note);
    return { cap: null, source: anchorsOnlySource(why), headStart: null, recognised: false, save: null, toolCalls: 0 };
  };
  if (input.transcriptPath === null) return anchorsOnly("no transcript named by the hook", CHECKPOINT_LINES.noTranscript("the hook input names no transcript"));
  const unread = (reason: string) => anchorsOnly(`transcript ${reason.replace(/^the transcript /, "")}`, CHECKPOINT_LINES.noTranscript(reason));
  const opened = openTranscript(input.transcriptPath);
  if (!opened.ok) return unread(opened.reason);
  const file = opened.file;
  // By shape, not by version or by the flag (docs/design.md#checkpoints): --format only
  // names the adapter when the head holds no record to recognise.
  const chosen = sniffFormat(file.head) ?? (isFormat(format) ? format : null);
  let read: number;
  let cap: Capture;
  let headStart: string | null;
  let save: LastSave | null;
  let toolCalls: number;
  let resume: ResumeCall | null = null;
  try {
    if (chosen === null) return anchorsOnly("transcript in an unrecognised format", CHECKPOINT_LINES.unknownFormat());
    // Only the records after the session's last save count (docs/design.md#checkpoints).
    const after = (lines: readonly string[]) => {
      const events = readEvents(chosen, lines);
      save = findLastSave(events, project);
      resume = findLastResume(events);
      toolCalls = countToolCalls(events, save?.line);
      return PARSERS[chosen](save === null ? lines : lines.slice(save.line + 1));
    };
    // The last 1 MiB first; all of the last 4 MiB when that part lacks what is needed, or
    // when the save may lie before it.
    read = Math.min(file.size, FIRST_TAIL_BYTES);
    const part = tailPart(file, read);
    cap = after(part.lines);
    if (read < Math.min(file.size, TAIL_BYTES) && save! === null && (!enough(cap, file, part.from, input) || earlierHolds(file, part.from, SAVE_MARKERS))) {
      read = Math.min(file.size, TAIL_BYTES);
      cap = after(tailLines(file, read));
    }
    // The file's first records date the session's start when the part read does not reach them.
    headStart = read < file.size ? sessionStartOf(file, chosen) : null;
    // Codex names its version in the file's first record, which a tail may not reach.
    if (cap.version == null && read < file.size) cap.version = PARSERS[chosen](file.head.slice(0, 16)).version ?? null;
  } catch (err) {
    return unread(readFailure(err));
  } finally {
    closeTranscript(file);
  }
  return { cap, source: captureSource(cap), headStart, recognised: true, save: save!, toolCalls: toolCalls!, resume };
}

// The first timestamp of the file: its first few lines usually hold it, and the adapter's first
// timestamp of a prefix is that of the whole (it is the first one met in order). When the 64 KiB
// head holds none (a first record longer than it: a long paste) and the whole file lies within
// the last TAIL_BYTES (docs/design.md#checkpoints), the file is read from its start.
function sessionStartOf(file: TranscriptFile, format: TranscriptFormat): string | null {
  const first = (lines: readonly string[]) => PARSERS[format](lines.slice(0, 16)).firstTimestamp ?? (lines.length > 16 ? PARSERS[format](lines).firstTimestamp : null);
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
  const startMs = Date.now();
  const format = ctx.values.format;
  if (format !== undefined && !isFormat(format)) {
    return ok("", [CHECKPOINT_LINES.usage(`--format must be claude, codex or gemini, got ${quotedValue(String(format).slice(0, 40))}`)]);
  }
  if (disabledByEnv(ctx.env)) return ok("", []);
  const notes: string[] = [];
  const input = await readInput(ctx);
  if (input?.agentId) return ok("", [CHECKPOINT_LINES.subagent()]);
  if (input === null) notes.push(CHECKPOINT_LINES.badInput());
  const hook: HookInput = input ?? { sessionId: undefined, transcriptPath: null, cwd: null, event: undefined, compactSummary: null, lastMessage: null, agentId: false };
  let root: string;
  try {
    // The same root as every verb (docs/design.md#checkpoints): --root, else stdin's cwd, else the current directory.
    const given = typeof ctx.values.root === "string" && ctx.values.root !== "";
    root = rootOption(ctx, given ? null : hookCwd(hook.cwd));
  } catch (err) {
    return ok("", [...notes, CHECKPOINT_LINES.skipped((err as Error).message)]);
  }
  const home = homeFolder(ctx.env);
  if (root === path.parse(root).root || (home !== "" && samePath(root, path.resolve(home)))) {
    return ok("", [...notes, CHECKPOINT_LINES.skipped(`${root} is the home directory or the file system's root, not a project`)]);
  }
  if (pauseSwitch(memoryDir(root), ctx.env) !== null) return ok("", [CHECKPOINT_LINES.paused()]);
  if (userHelperWithoutMemory(ctx.skillDir, home, root)) return ok("", [...notes, CHECKPOINT_LINES.noMemory(root)]);

  const session = sessionFileId(hook.sessionId);
  const name = `${session}.md`;
  const nowMs = Date.now();
  // Transcript, git and the handoffs are read before the lock, so that five sessions ending
  // together each hold it only to publish (docs/design.md#checkpoints).
  const anchorsP = checkpointAnchors(root, ctx.env, nowMs, skillExcludes(root, ctx.skillDir ?? null));
  const project = projectHandoffs(root);
  const got = capture(hook, typeof format === "string" ? format : undefined, notes, project);
  if (hook.lastMessage !== null && (got.cap !== null || !got.recognised)) (got.cap ??= emptyCapture(isFormat(format) ? format : "claude")).lastClaim = hook.lastMessage;
  const anchorLines = await anchorsP;
  const dir = checkpointsDir(root);
  const file = path.join(dir, name);
  // The save this capture starts after; without one in the part read, the session's earlier
  // checkpoint still knows it (a transcript cannot un-happen), while it names this project's handoff.
  const before = checkpointsDirState(root) === "ok" ? readHead(file, CHECKPOINT_MAX_BYTES * 2) : null;
  const beforeSince = before === null ? null : headerValue(before, "Since-handoff");
  const since = got.save?.token ?? (beforeSince !== null && project.accepts(beforeSince) ? beforeSince : null);
  const nothing = got.recognised && got.toolCalls === 0;
  // Nothing to capture and nothing of this session to replace: nothing is written at all.
  // A resume this session made is measured for the journal (docs/decisions/journal.md).
  const resumed = (): Promise<string[]> => (got.resume ? recordResume(root, got.resume, session, project.current?.token ?? null, ctx.env, failpointOf(ctx)) : Promise.resolve([]));
  if (nothing && (before === null || (headerValue(before, "Since-handoff") === since && !hook.compactSummary))) {
    let journal: string[] = [];
    if (got.resume) {
      try {
        const waited = Math.max(0, (LOCK_BUDGET_MS - (Date.now() - startMs)) / 1000);
        journal = (await underLock({ root, env: ctx.env, lockTimeoutSeconds: waited }, resumed)).result;
      } catch {
        // Busy or paused: the outcome goes unrecorded; the checkpoint's own word stands.
      }
    }
    return ok("", [...notes, ...journal, CHECKPOINT_LINES.nothing(got.save !== null)]);
  }
  // The lock is waited for at most what remains of 1.2 s since the start (docs/design.md#checkpoints).
  const waitSeconds = Math.max(0, (LOCK_BUDGET_MS - (Date.now() - startMs)) / 1000);
  try {
    const { result, repairs } = await underLock({ root, env: ctx.env, lockTimeoutSeconds: waitSeconds }, async (lock) => {
      const journal = await resumed();
      ensureDir(dir);
      // Checkpoints hold what a session said and ran: never committed unless the user says so.
      ensureIgnored(dir, CHECKPOINTS_GITIGNORE);
      const cleaned = [...journal, ...cleanCheckpointLeftovers(root)];
      pruneOfferMarkers(dir, nowMs);
      const prior = await readStable(file);
      const priorText = prior?.bytes.toString("utf8") ?? null;
      const priorSince = priorText === null ? null : headerValue(priorText, "Since-handoff");
      // Only a capture after the same save merges; one from before the last save is replaced.
      const merge = priorText !== null && priorSince === since && isCheckpointText(priorText) ? parsePriorCheckpoint(priorText) : null;
      if (nothing && merge === null) {
        if (priorText !== null) rmQuietRegular(file);
        return { lines: [...cleaned, priorText !== null ? CHECKPOINT_LINES.removed(name) : CHECKPOINT_LINES.nothing(got.save !== null)] };
      }
      const priorStart = priorText === null ? null : headerValue(priorText, "Session-start");
      const keepStart = priorStart !== null && "ms" in parseStrictTime(priorStart, nowMs) ? priorStart : null;
      // An anchors-only capture merged into a rich one keeps the rich one's source.
      const source = (got.cap === null || nothing) && merge !== null && !isAnchorsOnlySource(merge.source) && merge.source !== null ? merge.source : got.source;
      const { text, findings } = renderCheckpoint({
        saved: isoSeconds(nowMs),
        session,
        sessionStart: keepStart ?? got.headStart ?? got.cap?.firstTimestamp ?? null,
        trigger: triggerOf(hook.event),
        source,
        capture: nothing ? null : got.cap,
        compactSummary: hook.compactSummary,
        anchorLines,
        root,
        sinceHandoff: since,
        prior: merge,
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
    if (err instanceof Busy) return ok("", [CHECKPOINT_LINES.busy(err.holder.who, err.holder.lock)]);
    return ok("", [...notes, CHECKPOINT_LINES.skipped((err as Error).message)]);
  }
}
