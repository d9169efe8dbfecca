// A checkpoint (docs/design.md#checkpoints): captured from the transcript's tail and git, rendered and published.
import path from "node:path";
import { Busy, HelperError } from "../errors.ts";
import { captureOf, parseTranscript } from "../agents/transcripts/parsers.ts";
import { captureSource, countToolCalls, FORMATS, isFormat, readEvents,
  sniffFormat } from "../agents/transcripts/index.ts";
import { closeTranscript, earlierHolds, FIRST_TAIL_BYTES, openTranscript, readFailure, TAIL_BYTES, tailPart,
  type TranscriptFile } from "../agents/transcripts/tail.ts";
import { emptyCapture, type Capture } from "../agents/transcripts/types.ts";
import { nonEmpty, userHelperWithoutMemory } from "../agents/harness-path.ts";
import { findLastSave, lineOfSavedTime, type LastSave, type ProjectHandoffs } from "../agents/transcripts/last-save.ts";
import { recordResume } from "../journal/store.ts";
import { findLastResume, type ResumeCall } from "../journal/outcome.ts";
import { anchorsWithoutTokens, formatRedactionReport, redactTranscript } from "../guard/redact.ts";
import type { RedactionFinding } from "../guard/redact.ts";
import { sanitize } from "../guard/sanitize.ts";
import { runGit } from "../git/run.ts";
import { skillExcludes } from "../git/anchors.ts";
import { gitDirOf, gitTopOf, inProgressOf } from "../git/git-dir.ts";
import { parseStatusV2, statusArgs } from "../git/status.ts";
import { quotePath } from "../guard/quote.ts";
import { renderInProgress, renderPathList } from "../schema/anchor-lines.ts";
import { LISTED_ITEMS } from "../schema/capture.ts";
import { isoSeconds, MARKER } from "../schema/values.ts";
import { CHECKPOINT_HEADING, CHECKPOINTS_GITIGNORE, checkpointsDir, checkpointsDirState, cleanCheckpointLeftovers,
  headerValue, isAnchorsOnlySource, isCheckpointText, pruneCheckpoints, pruneOfferMarkers, readCheckpointText,
  rmQuietRegular, sessionFileId, timeOf, type CheckpointSections } from "./store.ts";
import { orNull, readHead, readStable, tokenOf } from "../store/files.ts";
import { ensureIgnored } from "../store/drafts.ts";
import { listArchives } from "../store/archive.ts";
import { underLock } from "../store/repair.ts";
import { homeFolder, samePath } from "../store/home.ts";
import { pauseSwitch } from "../store/pause.ts";
import { archiveDir, ensureDir, memoryDir } from "../store/paths.ts";
import { publish } from "../store/publish.ts";

// Every line this verb prints, all on stderr (with --format gemini cli.ts prints {} instead).
export const CHECKPOINT_LINES = {
  saved: (name: string) => `checkpoint: saved checkpoints/${name}`,
  unchanged: (name: string) => `checkpoint: unchanged checkpoints/${name}`,
  paused: () => "checkpoint: memory writes are paused; nothing was captured",
  subagent: () => "checkpoint: the hook input comes from a subagent (agent_id); nothing was captured",
  busy: (who: string, lock: string) =>
    `checkpoint: memory is busy: ${who} holds the lock ${lock}; skipped, nothing was captured`,
  skipped: (reason: string) => `checkpoint: skipped: ${reason}`,
  noTranscript: (reason: string) => `checkpoint: ${reason}; captured the anchors only`,
  unknownFormat: () => "checkpoint: the transcript's format is not recognised; captured the anchors only",
  badInput: () => "checkpoint: the hook input is not a JSON object (or is over 1 MiB); captured the anchors only",
  nothing: (afterSave: boolean) =>
    `checkpoint: no tool call ${afterSave ? "since the session's last handoff save" : "in the session"}; ` +
    "nothing written",
  kept: (name: string) => `checkpoint: no tool call to capture; kept checkpoints/${name}: no own save supersedes it`,
  removed: (name: string) =>
    `checkpoint: no tool call since the session's last handoff save; removed checkpoints/${name}, which it supersedes`,
  noMemory: (root: string) =>
    `checkpoint: ${root} has no .ai/memory and this helper is installed for the user, not the project; ` +
    "nothing was captured",
  usage: (what: string) => `checkpoint: ${what}; nothing was captured`,
  overlong: (n: number, bytes: number) =>
    `checkpoint: skipped ${n} of the transcript's record(s), each over ${+(bytes / 2 ** 20).toFixed(1)} MiB`,
  redacted: (report: string) => `checkpoint: ${report.replace(/ \(line \d+\)/g, "")} from the transcript`,
} as const;

type Env = Record<string, string | undefined>;
// Claude Code allows 1.5 s at SessionEnd: the lock is waited for until this long after the start.
const LOCK_BUDGET_MS = 1200;
// At most this many archives, newest first, are hashed to recognise a save's token.
const ARCHIVES_HASHED = 50;
export const CHECKPOINT_MAX_BYTES = 4096;
const MAX_REQUESTS = 3;

// The current handoff's token and `Saved:`, and the archives' tokens (hashed only when asked), read without links.
function projectHandoffs(root: string): ProjectHandoffs {
  const bytes = readHead(path.join(memoryDir(root), "HANDOFF.md"));
  let current: ProjectHandoffs["current"] = null;
  if (bytes !== null) {
    const saved = /^Saved: (.+)$/m.exec(bytes.subarray(0, 4096).toString("utf8"))?.[1]?.trim() ?? null;
    current = { token: tokenOf(bytes), savedMs: timeOf(saved, Number.MAX_SAFE_INTEGER) };
  }
  let archived: Set<string> | null = null;
  return {
    current,
    accepts(token) {
      if (token === current?.token) return true;
      if (archived === null) {
        archived = new Set();
        // An unsafe archive folder: no archive counts.
        for (const e of orNull(() => listArchives(root))?.slice(0, ARCHIVES_HASHED) ?? []) {
          const b = e.regular ? readHead(path.join(archiveDir(root), e.name)) : null;
          if (b !== null) archived.add(tokenOf(b));
        }
      }
      return archived.has(token);
    },
  };
}

// The anchor lines: git gets 500 ms; dirty files at most 10 paths and 1,024 bytes, an untracked folder as one entry
// (no file is hashed here, and the hook need not walk a folder of build output).
async function checkpointAnchors(root: string, env: Env, nowMs: number, excludes: readonly string[]) {
  const date = `- Date: ${isoSeconds(nowMs)}`;
  let r;
  try {
    r = await runGit(root, statusArgs(excludes, true), env, 500);
  } catch (err) {
    if ((err as { reason?: string }).reason !== "timeout") return [date];
    return ["Branch", "HEAD", "Dirty files"].map((k) => `- ${k}: unknown (git timed out)`).concat(date);
  }
  if (r.code !== 0) return [date];
  const s = parseStatusV2(r.stdout);
  let shown = 0;
  for (let bytes = 0; shown < Math.min(10, s.dirty.length); shown++) {
    bytes += Buffer.byteLength(quotePath(s.dirty[shown]!)) + 2;
    if (bytes > 1024) break;
  }
  const dirty = renderPathList(s.dirty, shown);
  const head = s.head ?? "none (no commits yet)";
  const lines = [`- Branch: ${s.branch}`, `- HEAD: ${head}`, `- Dirty files: ${dirty}`, date];
  // As `anchors` writes it: the operation in progress, from the git dir's files.
  const top = gitTopOf(root, env);
  const op = top === null ? null : inProgressOf(gitDirOf(top));
  const conflicted = s.conflicted ?? 0;
  if (op !== null) lines.push(`- In progress: ${renderInProgress({ words: op, conflicted })}`);
  return anchorsWithoutTokens(lines);
}

// Whether the tail read holds what a checkpoint needs, so the rest need not be parsed (checkpoint-window.md).
function enough(cap: Capture, file: TranscriptFile, from: number, lastMessage: string | null): boolean {
  if (cap.userRequests.length < MAX_REQUESTS) return false;
  if (cap.lastClaim === null && lastMessage === null) return false;
  return !earlierHolds(file, from, [...(cap.planFinal ? [] : FORMATS[cap.format].planMarkers), "write handoff"]);
}

interface Got {
  cap: Capture | null;
  source: string;
  headStart: string | null;
  // A transcript was read and recognised (a capture or nothing to capture, never anchors only).
  recognised: boolean;
  save: LastSave | null;
  // Tool calls after that save (in the whole part read when there is none).
  toolCalls: number;
  resume?: ResumeCall | null;
}

function capture(
  transcript: string | null, lastMessage: string | null, format: unknown, notes: string[], project: ProjectHandoffs,
): Got {
  const anchorsOnly = (why: string, note: string): Got => {
    notes.push(note);
    return { cap: null, source: `anchors only (${why})`, headStart: null, recognised: false, save: null, toolCalls: 0 };
  };
  if (transcript === null) {
    const note = CHECKPOINT_LINES.noTranscript("the hook input names no transcript");
    return anchorsOnly("no transcript named by the hook", note);
  }
  const unread = (reason: string) =>
    anchorsOnly(`transcript ${reason.replace(/^the transcript /, "")}`, CHECKPOINT_LINES.noTranscript(reason));
  const opened = openTranscript(transcript);
  if (!opened.ok) return unread(opened.reason);
  const file = opened.file;
  // By shape, not by version: --format only names the adapter when the head holds no record to recognise.
  const chosen = sniffFormat(file.head) ?? (isFormat(format) ? format : null);
  let cap: Capture;
  let headStart: string | null;
  let save: LastSave | null = null;
  let toolCalls = 0;
  let resume: ResumeCall | null = null;
  try {
    if (chosen === null) return anchorsOnly("transcript in an unrecognised format", CHECKPOINT_LINES.unknownFormat());
    const after = (lines: readonly string[]) => {
      const events = readEvents(chosen, lines, "all");
      save = findLastSave(events, project);
      resume = findLastResume(events);
      const from = save?.line ?? lineOfSavedTime(events, project);
      toolCalls = countToolCalls(events, from);
      return captureOf(chosen, events.filter((ev) => ev.line > from));
    };
    // The last 1 MiB first; all of the last 4 MiB when that lacks what is needed, or the save may lie before it.
    let read = Math.min(file.size, FIRST_TAIL_BYTES);
    let part = tailPart(file, read);
    cap = after(part.lines);
    const more = read < Math.min(file.size, TAIL_BYTES) && (save as LastSave | null) === null;
    if (more && !enough(cap, file, part.from, lastMessage)) {
      read = Math.min(file.size, TAIL_BYTES);
      part = tailPart(file, read);
      cap = after(part.lines);
    }
    if (part.skipped > 0) notes.push(CHECKPOINT_LINES.overlong(part.skipped, TAIL_BYTES));
    // A part short of the file's start: its first records date the session and name Codex's version.
    headStart = null;
    if (read < file.size) {
      // The first 16 records, else all the lines: then, past a long first record, a short file from its start.
      const first = (lines: readonly string[]) =>
        parseTranscript(chosen, lines.slice(0, 16)).firstTimestamp ?? parseTranscript(chosen, lines).firstTimestamp;
      cap.version ??= parseTranscript(chosen, file.head.slice(0, 16)).version ?? null;
      headStart = first(file.head);
      if (headStart === null && file.size <= TAIL_BYTES) headStart = first(tailPart(file, TAIL_BYTES).lines);
    }
  } catch (err) {
    return unread(readFailure(err));
  } finally {
    closeTranscript(file);
  }
  return { cap, source: captureSource(cap), headStart, recognised: true, save, toolCalls, resume };
}

/** Captures the session the hook's JSON names into checkpoints/<session>.md, under the lock; the lines for stderr. */
export async function writeCheckpoint(
  root: string, hook: Record<string, unknown>, notes: string[],
  o: { env: Env; skillDir: string | null; failpoint?: string; format: unknown; startMs: number },
): Promise<string[]> {
  const home = homeFolder(o.env);
  if (root === path.parse(root).root || (home !== "" && samePath(root, path.resolve(home)))) {
    const why = `${root} is the home directory or the file system's root, not a project`;
    return [...notes, CHECKPOINT_LINES.skipped(why)];
  }
  if (pauseSwitch(memoryDir(root), o.env) !== null) return [CHECKPOINT_LINES.paused()];
  if (userHelperWithoutMemory(o.skillDir, home, root)) return [...notes, CHECKPOINT_LINES.noMemory(root)];
  const lastMessage = nonEmpty(hook.last_assistant_message);
  const compactSummary = nonEmpty(hook.compact_summary);
  const session = sessionFileId(hook.session_id);
  const name = `${session}.md`;
  const nowMs = Date.now();
  // Transcript, git and the handoffs are read before the lock: five sessions ending together hold it only to publish.
  const anchorsP = checkpointAnchors(root, o.env, nowMs, skillExcludes(root, o.skillDir));
  const project = projectHandoffs(root);
  const got = capture(nonEmpty(hook.transcript_path), lastMessage, o.format, notes, project);
  if (lastMessage !== null && (got.cap !== null || !got.recognised)) {
    (got.cap ??= emptyCapture(isFormat(o.format) ? o.format : "claude")).lastClaim = lastMessage;
  }
  const anchorLines = await anchorsP;
  const dir = checkpointsDir(root);
  const file = path.join(dir, name);
  // Without a save in the part read, the session's earlier checkpoint still knows it, if it names this project's.
  const before = checkpointsDirState(root) === "ok" ? readHead(file, CHECKPOINT_MAX_BYTES * 2)?.toString() : undefined;
  const beforeSince = before === undefined ? null : headerValue(before, "Since-handoff");
  const since = got.save?.token ?? (beforeSince !== null && project.accepts(beforeSince) ? beforeSince : null);
  const nothing = got.recognised && got.toolCalls === 0;
  const lockWait = () => Math.max(0, (LOCK_BUDGET_MS - (Date.now() - o.startMs)) / 1000);
  // A resume this session made is measured for the journal (docs/decisions/journal.md).
  const resumed = () => {
    const token = project.current?.token ?? null;
    return got.resume ? recordResume(root, got.resume, session, token, o.env, o.failpoint) : Promise.resolve([]);
  };
  // Nothing to capture and nothing of this session to replace: nothing is written at all.
  if (nothing && (before === undefined || (beforeSince === since && compactSummary === null))) {
    // Busy or paused: the outcome goes unrecorded; the checkpoint's own word stands.
    const locked = got.resume ? underLock({ root, env: o.env, lockTimeoutSeconds: lockWait() }, resumed) : null;
    const journal = locked === null ? [] : await locked.then((r) => r.result, () => []);
    return [...notes, ...journal, CHECKPOINT_LINES.nothing(got.save !== null)];
  }
  try {
    const options = { root, env: o.env, lockTimeoutSeconds: lockWait() };
    const { result, repairs } = await underLock(options, async (lock) => {
      const journal = await resumed();
      ensureDir(dir);
      // Checkpoints hold what a session said and ran: never committed unless the user says so.
      ensureIgnored(dir, CHECKPOINTS_GITIGNORE);
      const cleaned = [...journal, ...cleanCheckpointLeftovers(root)];
      pruneOfferMarkers(dir, nowMs);
      const prior = await readStable(file);
      const priorText = prior?.bytes.toString("utf8") ?? null;
      // Only a capture after the same save merges; one from before the last save is replaced.
      const same = priorText !== null && headerValue(priorText, "Since-handoff") === since;
      const merge = same && isCheckpointText(priorText) ? readCheckpointText(priorText) : null;
      // Only this session's own recorded save removes its checkpoint: another session's save proves nothing.
      if (nothing && merge === null) {
        if (priorText === null) return [...cleaned, CHECKPOINT_LINES.nothing(got.save !== null)];
        if (got.save?.own !== true) return [...cleaned, CHECKPOINT_LINES.kept(name)];
        rmQuietRegular(file);
        return [...cleaned, CHECKPOINT_LINES.removed(name)];
      }
      const priorStart = priorText === null ? null : headerValue(priorText, "Session-start");
      const keepStart = timeOf(priorStart, nowMs) !== null ? priorStart : null;
      // An anchors-only capture merged into a rich one keeps the rich one's source.
      const rich = merge?.source != null && !isAnchorsOnlySource(merge.source) ? merge.source : null;
      const source = (got.cap === null || nothing) && rich !== null ? rich : got.source;
      const sessionStart = keepStart ?? got.headStart ?? got.cap?.firstTimestamp ?? null;
      const { text, findings } = renderCheckpoint({
        saved: isoSeconds(nowMs), session, sessionStart, trigger: triggerOf(hook.hook_event_name), source,
        capture: nothing ? null : got.cap, compactSummary, anchorLines, root, sinceHandoff: since, prior: merge,
      });
      const report = findings.length > 0 ? [CHECKPOINT_LINES.redacted(formatRedactionReport(findings))] : [];
      if (priorText !== null && sameCheckpoint(priorText, text)) {
        return [...cleaned, ...report, CHECKPOINT_LINES.unchanged(name)];
      }
      const published = await publish({
        dir, file: name, archiveDir: archiveDir(root), archivePrefix: "CHECKPOINT", archivePrior: false,
        expectedToken: prior?.token ?? "absent", newMode: 0o600, build: () => Buffer.from(text, "utf8"),
        failpoint: o.failpoint, lock,
      });
      pruneCheckpoints(root, name);
      return [...cleaned, ...report, ...published.warnings, CHECKPOINT_LINES.saved(name)];
    });
    return [...notes, ...repairs, ...result];
  } catch (err) {
    if (err instanceof HelperError && err.code === 4) return [CHECKPOINT_LINES.paused()];
    if (err instanceof Busy) return [CHECKPOINT_LINES.busy(err.holder.who, err.holder.lock)];
    return [...notes, CHECKPOINT_LINES.skipped((err as Error).message)];
  }
}

// ContextThreshold is no harness event: the context verb names its own checkpoint so.
const TRIGGERS: Record<string, string> = {
  PreCompact: "pre-compact", PreCompress: "pre-compact", PostCompact: "post-compact", SessionEnd: "session-end",
  Stop: "stop", ContextThreshold: "context-threshold",
};

export function triggerOf(event: unknown): string {
  return (typeof event === "string" && Object.hasOwn(TRIGGERS, event) ? TRIGGERS[event] : null) ?? "unknown";
}

/** Everything a checkpoint is made of; strings are raw (this module makes them safe), anchor lines rendered. */
export interface CheckpointInput {
  saved: string;
  session: string;
  sessionStart: string | null;
  trigger: string;
  source: string;
  capture: Capture | null;
  compactSummary: string | null;
  anchorLines: string[];
  root: string;
  sinceHandoff?: string | null;
  // The session's earlier checkpoint after the same save, merged in (never degraded).
  prior?: CheckpointSections | null;
}

// Per-item caps in code points: enough to recognise the item, small enough that 4 KiB holds every section.
const CAP = { request: 400, plan: 160, file: 200, command: 200, claim: 600, summary: 1200 };
// Secrets are found in the raw text before any cut: a cut made first could leave half a token.
const REDACT_WINDOW = 16_384;

/** Makes transcript text one safe line: secrets redacted in the raw text, then sanitised and cut to `max` clusters. */
export function safeItem(raw: string, max: number, findings: RedactionFinding[]): string {
  const { text, findings: found } = redactTranscript(raw.length > REDACT_WINDOW ? raw.slice(0, REDACT_WINDOW) : raw);
  findings.push(...found);
  return sanitize(text, { max, redact: false });
}

const MARK = { done: "[x]", doing: "[~]", open: "[ ]", dropped: "[-]" } as const;

const ANCHORS = "## Environment anchors";

// `dropped`: how many older items were left out, for the budget and the count line.
type Section = { heading: string; items: string[]; dropped: number };

function renderSections(head: string[], sections: Section[]): string {
  const out = [...head];
  for (const s of sections) {
    out.push("", s.heading);
    if (s.dropped > 0) out.push(`- (${s.dropped} older left out)`);
    if (s.items.length === 0 && s.dropped === 0) out.push(s.heading === ANCHORS ? "- none" : "- none captured");
    out.push(...s.items);
  }
  return `${out.join("\n")}\n`;
}

/** Renders a checkpoint; over 4,096 bytes the oldest item of the longest list goes, repeatedly, the anchors never. */
export function renderCheckpoint(input: CheckpointInput): { text: string; findings: RedactionFinding[] } {
  const findings: RedactionFinding[] = [];
  const cap = input.capture;
  const earlier = [...new Set(input.prior?.triggers ?? [])].filter((t) => t !== input.trigger);
  const head = [
    MARKER,
    CHECKPOINT_HEADING,
    `Saved: ${input.saved}`,
    `Session: ${input.session}`,
    `Session-start: ${input.sessionStart ?? "unknown"}`,
    `Trigger: ${input.trigger}${earlier.length > 0 ? ` (earlier: ${earlier.join(", ")})` : ""}`,
    `Source: ${input.source}`,
    ...(input.sinceHandoff ? [`Since-handoff: ${input.sinceHandoff}`] : []),
    "",
    "Captured automatically from the harness's transcript, without a model: quoted lines are the user's words, " +
      "the last claim is the agent's statement, not a verified fact. Not confirmed by anyone; " +
      "a handoff written later supersedes it.",
  ];
  // Older items are counted, never redacted or rendered (a tail can hold thousands of commands).
  const list = <T>(heading: string, all: readonly T[] | null | undefined, item: (x: T) => string): Section => {
    const n = all?.length ?? 0;
    return { heading, items: (all ?? []).slice(-LISTED_ITEMS).map(item), dropped: Math.max(0, n - LISTED_ITEMS) };
  };
  const safe = (text: string, max: number) => safeItem(text, max, findings);
  const said = (what: string, raw: string, max: number) => `- ${what}: "${safe(raw, max).replace(/"/g, "'")}"`;
  const command = (c: string) => safe(c, CAP.command).replace(/`/g, "'");
  const requests = (cap?.userRequests ?? []).slice(-MAX_REQUESTS).map((r) => said("The user wrote", r, CAP.request));
  const root = input.root.endsWith("/") ? input.root : `${input.root}/`;
  const file = (f: string) => safe(f.startsWith(root) ? f.slice(root.length) : f, CAP.file);
  const sections: Section[] = [
    { heading: "## User requests", items: requests, dropped: 0 },
    list("## Plan state", cap?.plan, (p) => `- ${MARK[p.status]} ${safe(p.text, CAP.plan)}`),
    list("## Files edited", cap?.filesEdited, (f) => `- ${quotePath(file(f))}`),
    list("## Commands", cap?.commands, (c) => `- \`${command(c.command)}\` — ${c.status}`),
    {
      heading: "## Last claim",
      items: cap?.lastClaim ? [said("The agent claimed (not verified)", cap.lastClaim, CAP.claim)] : [],
      dropped: 0,
    },
  ];
  const summary = input.compactSummary;
  if (summary !== null && summary.trim() !== "") {
    const items = [said("The harness summarised (not verified)", summary, CAP.summary)];
    sections.push({ heading: "## Compaction summary", items, dropped: 0 });
  }
  if (input.prior) mergePrior(sections, input.prior);
  sections.push({ heading: ANCHORS, items: input.anchorLines, dropped: 0 });
  let text = renderSections(head, sections);
  while (Buffer.byteLength(text, "utf8") > CHECKPOINT_MAX_BYTES) {
    let longest: Section | null = null;
    for (const s of sections) {
      if (s.heading === ANCHORS || s.items.length === 0) continue;
      if (longest === null || s.items.length > longest.items.length) longest = s;
    }
    if (longest === null) break;
    longest.items.shift();
    longest.dropped++;
    text = renderSections(head, sections);
  }
  return { text, findings };
}

// What the new capture cannot fill is kept: earlier list items first, then new ones; the latest plan, claim, summary.
const LATEST_WINS = new Set(["## Plan state", "## Last claim", "## Compaction summary"]);

function mergePrior(sections: Section[], prior: CheckpointSections): void {
  for (const [heading, old] of prior.items) {
    if (heading === ANCHORS || (old.length === 0 && !prior.dropped.has(heading))) continue;
    let s = sections.find((x) => x.heading === heading);
    if (s === undefined) {
      s = { heading, items: [], dropped: 0 };
      sections.push(s);
    }
    if (LATEST_WINS.has(heading)) {
      if (s.items.length === 0) {
        s.items = [...old];
        s.dropped = prior.dropped.get(heading) ?? 0;
      }
      continue;
    }
    const fresh = s.items;
    // A command captured before its result was written is the same run as its finished line.
    const kept = heading === "## Commands" ? old.filter((x) => !supersededRun(x, fresh)) : old;
    const merged = [...kept, ...fresh.filter((x) => !kept.includes(x))];
    const cap = heading === "## User requests" ? MAX_REQUESTS : LISTED_ITEMS;
    // Two captures of one transcript overlap: the larger count of older items stands for both.
    s.dropped = Math.max(s.dropped, prior.dropped.get(heading) ?? 0) + Math.max(0, merged.length - cap);
    s.items = merged.slice(-cap);
    if (heading === "## User requests") s.dropped = 0;
  }
}

function supersededRun(item: string, fresh: readonly string[]): boolean {
  const cut = item.lastIndexOf(" — ");
  if (cut < 0 || item.slice(cut) !== " — unknown" || fresh.includes(item)) return false;
  return fresh.some((x) => x.lastIndexOf(" — ") === cut && x.startsWith(item.slice(0, cut + 3)));
}

/** True when two checkpoints are equal apart from `Saved:` and the `- Date:` anchor (docs/design.md#checkpoints). */
export function sameCheckpoint(a: string, b: string): boolean {
  const strip = (t: string) => t.replace(/^Saved: .*$/m, "").replace(/^- Date: .*$/m, "");
  return strip(a) === strip(b);
}
