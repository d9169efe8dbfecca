// What a saving `write handoff` adds to the project's memory over months: one journal entry,
// then at most one fold of an old month into its year file (docs/decisions/journal.md).
import { unlinkSync } from "node:fs";
import path from "node:path";
import { HelperError } from "../errors.ts";
import { parseHandoff } from "../schema/handoff.ts";
import { droppedItems } from "../schema/open-items.ts";
import { MAX_DOCUMENT_BYTES } from "../store/paths.ts";
import { harnessPath, windowsShaped } from "../agents/harness-path.ts";
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { findRoot } from "../store/root.ts";
import { readStable } from "../store/files.ts";
import { archiveDir, memoryDir } from "../store/paths.ts";
import { validateHandoff } from "../schema/validate.ts";
import { journalHeader, parseJournal, renderResumeEntry, renderSaveEntry, type JournalEntry } from "./entry.ts";
import { measureOutcome } from "./outcome.ts";
import type { ResumeCall } from "./resume-events.ts";
import { appendEntry, ensureJournalDir, journalDir, journalOff, listJournal, monthOf } from "./store.ts";
import { publishJournalFile, readJournalFile } from "./store.ts";

/** Months this many or more before the save's month are folded: 6 whole months are kept. */
export const FOLD_AFTER_MONTHS = 7;

/** The items a fold keeps, one line per session; the rest are counted. */
const FOLD_KEPT = new Set([
  "Decision",
  "Failed approach",
  "Handoff score",
  "Next step followed",
  "Failed approach retried",
  "Calls to first edit",
]);

const isoSecond = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function monthIndex(period: string): number {
  return Number(period.slice(0, 4)) * 12 + Number(period.slice(5, 7)) - 1;
}

/** The save time of a handoff's `Saved:` line, or null when it is not an ISO UTC time. */
function savedMs(text: string): number | null {
  const saved = parseHandoff(text).saved;
  if (saved === null || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(saved)) return null;
  const ms = Date.parse(saved);
  return Number.isNaN(ms) ? null : ms;
}

function schemaCheck(text: string, name: string): void {
  const { problems } = parseJournal(text, "month");
  if (problems.length > 0) {
    const p = problems[0]!;
    const todo = "the entry was not added (fix that line, or move the file away)";
    throw new HelperError(`journal/${name} line ${p.line}: ${p.message}; ${todo}`, 2);
  }
}

/**
 * Records one save in the journal (the caller holds the memory lock, the handoff is
 * published): renders the entry from the previous and the new handoff, appends it to the
 * month of the save's `Saved:` time, then folds the oldest month past six whole months.
 * Never throws: the handoff is saved whatever happens here, so a refusal (a hand-edited month
 * that breaks the schema, a file another program wrote meanwhile) becomes a stderr line.
 * With `journal/OFF` it does nothing.
 * @returns stderr lines (empty when all went well).
 */
type Save = { prior: string | null; next: string; token: string };

export async function recordSave(root: string, save: Save, fp?: string): Promise<string[]> {
  if (journalOff(root)) return [];
  const notes: string[] = [];
  const ms = savedMs(save.next) ?? Date.now();
  try {
    const dropped = save.prior === null ? [] : droppedItems(save.prior, save.next).map((i) => i.text);
    const entry = renderSaveEntry({ ...save, time: isoSecond(ms) }, dropped);
    const done = await appendEntry(root, entry, ms, fp, schemaCheck);
    notes.push(...done.repairs.map((l) => `recovered: ${l}`));
  } catch (err) {
    notes.push(`journal: not appended: ${messageOf(err)}`);
    return notes;
  }
  if (save.prior !== null) notes.push(...retriedNotes(root, createHash("sha256").update(save.prior).digest("hex")));
  try {
    const folded = await foldOne(root, monthOf(ms), fp);
    if (folded) notes.push(folded);
  } catch (err) {
    notes.push(`journal: the fold of an old month did not finish: ${messageOf(err)}; the next save tries again`);
  }
  return notes;
}

/**
 * write's note on failed approaches retried: the resume entries of the handoff this save
 * replaces (`priorToken`) that a checkpoint recorded, each retried command or path named once.
 * Only what a checkpoint already measured: `write` reads no transcript.
 */
function retriedNotes(root: string, priorToken: string): string[] {
  const dir = journalDir(root);
  const seen = new Set<string>();
  for (const f of listJournal(root).filter((f) => f.kind === "month").slice(-2)) {
    let text: string;
    try {
      text = readJournalFile(dir, f.name)?.bytes.toString("utf8") ?? "";
    } catch {
      continue;
    }
    for (const e of parseJournal(text, "month").entries) {
      if (e.kind !== "resume" || e.items.find((i) => i.label === "Resumed")?.text !== priorToken.slice(0, 16)) continue;
      for (const i of e.items) if (i.label === "Failed approach retried") seen.add(i.text);
    }
  }
  const why = "listed as a failed approach of the handoff it resumed (measured by its checkpoint)";
  const todo = "say why it was retried in the new handoff";
  return [...seen].slice(0, 5).map((c) => `note: this session ran \`${c}\`, ${why}; ${todo}`);
}

/** The handoff text whose token is `token`: the current HANDOFF.md or one of the archives. */
async function handoffWithToken(root: string, token: string): Promise<string | null> {
  const files = [path.join(memoryDir(root), "HANDOFF.md")];
  try {
    for (const n of readdirSync(archiveDir(root))) {
      if (/^HANDOFF-.*\.md$/.test(n)) files.push(path.join(archiveDir(root), n));
    }
  } catch {
    // No archive yet.
  }
  for (const f of files) {
    try {
      const r = await readStable(f);
      if (r !== null && r.token === token) return r.bytes.toString("utf8");
    } catch {
      // An unsafe file is not read.
    }
  }
  return null;
}

/**
 * Records what a session did after it resumed this project's handoff (the caller, `checkpoint`,
 * holds the memory lock): a resume entry in the journal, once per session and handoff. The
 * brief counts for this project when its `--root`, else the folder the transcript records for
 * it, resolves to `root` by the root walk. The handoff resumed is the one the session's first
 * save after the brief expected (its `--expected-current-sha256`), else the current one.
 * Never throws; with `journal/OFF` it does nothing.
 * @returns stderr lines.
 */
export async function recordResume(
  root: string,
  call: ResumeCall,
  sessionId: string,
  currentToken: string | null,
  env: Record<string, string | undefined>,
  fp?: string,
): Promise<string[]> {
  try {
    if (journalOff(root)) return [];
    // A Windows path is never joined under a POSIX one (src/agents/harness-path.ts, docs/design.md#integrations).
    const absolute = (p: string) => {
      const h = harnessPath("", p);
      return h.ok ? h.path : null;
    };
    const base = call.cwd !== null ? absolute(call.cwd) : null;
    const arg = call.rootArg;
    const start = arg === null ? base : base === null || windowsShaped(arg) ? absolute(arg) : path.resolve(base, arg);
    if (start === null || findRoot(start, env).root !== root) return [];
    const token = call.expectedToken ?? currentToken;
    if (token === null) return [];
    const text = await handoffWithToken(root, token);
    if (text === null) return [];
    const h = parseHandoff(text);
    const nextStep = h.nextSteps[0] ?? null;
    const outcome = measureOutcome(call.events, nextStep, h.failedApproaches);
    const score = validateHandoff(text, { mode: "root", nowMs: Date.now() }).score;
    const sessionKey = createHash("sha256").update(sessionId).digest("hex").slice(0, 16);
    const ms = Date.now();
    // Once per session and handoff: a later checkpoint of the same session adds no second entry.
    const seen = `resume ${sessionKey}\n- Resumed: ${token.slice(0, 16)}\n`;
    const dir = ensureJournalDir(root);
    for (const f of listJournal(root).filter((f) => f.kind === "month" && f.period === monthOf(ms))) {
      const r = readJournalFile(dir, f.name);
      if (r !== null && r.bytes.includes(seen)) return [];
    }
    const entry = renderResumeEntry(isoSecond(ms), sessionKey, token, score, outcome);
    const done = await appendEntry(root, entry, ms, fp, schemaCheck);
    return done.repairs.map((l) => `recovered: ${l}`);
  } catch (err) {
    return [`journal: resume not recorded: ${messageOf(err)}`];
  }
}

function summaryLine(entries: readonly JournalEntry[]): string {
  const saves = entries.filter((e) => e.kind === "save").length;
  const resumes = entries.length - saves;
  // Items in parentheses are counts a fold wrote, not items.
  const listed = (e: JournalEntry, label: string) => e.items.filter((i) => i.label === label && i.text[0] !== "(");
  const count = (label: string): number => entries.reduce((n, e) => n + listed(e, label).length, 0);
  const parts = [
    `${saves} save(s)`,
    `${resumes} resume(s)`,
    `${count("Finished")} step(s) finished`,
    `${count("Dropped")} item(s) dropped`,
    `${count("Superseded")} decision(s) superseded`,
  ];
  return `- (${parts.join(", ")})`;
}

/**
 * The year file's section for one month: a line per session for its decisions, failed
 * approaches and resume outcomes (`- <date> <kind> <id>: Decision: …; Failed approach: …`),
 * then one line counting the rest. Deterministic: the same entries give the same bytes.
 */
export function foldSection(period: string, entries: readonly JournalEntry[]): string {
  const lines = [`## ${period}`];
  const order = (a: JournalEntry, b: JournalEntry) => {
    if (a.time !== b.time) return a.time < b.time ? -1 : 1;
    return a.id < b.id ? -1 : 1;
  };
  for (const e of [...entries].sort(order)) {
    const items = e.items.filter((i) => FOLD_KEPT.has(i.label));
    if (items.length === 0) continue;
    lines.push(`- ${e.time.slice(0, 10)} ${e.kind} ${e.id}: ${items.map((i) => `${i.label}: ${i.text}`).join("; ")}`);
  }
  lines.push(summaryLine(entries));
  return `${lines.join("\n")}\n\n`;
}

/**
 * Keeps a year file within 1,000,000 bytes: while too large, the oldest month section that
 * still lists sessions keeps only its count line (and a note of how many lines it lost).
 */
export function boundYear(text: string): string {
  let out = text;
  while (Buffer.byteLength(out) > MAX_DOCUMENT_BYTES) {
    const sections = [...out.matchAll(/^## \d{4}-\d{2}\n((?:- .*\n)*)/gm)];
    const target = sections.find((s) => s[1]!.split("\n").some((l) => l.startsWith("- ") && !l.startsWith("- (")));
    if (!target) break;
    const body = target[1]!;
    const all = body.split("\n").filter(Boolean);
    const sessions = all.filter((l) => !l.startsWith("- (")).length;
    const counts = all.filter((l) => l.startsWith("- ("));
    const note = `- (${sessions} session line(s) summarised to keep this file within ${MAX_DOCUMENT_BYTES} bytes)`;
    const end = target.index! + target[0].length;
    out = `${out.slice(0, end - body.length)}${counts.join("\n")}\n${note}\n${out.slice(end)}`;
  }
  return out;
}

/**
 * Folds the oldest month file set that is {@link FOLD_AFTER_MONTHS} or more months before
 * `nowMonth` into `journal/<YYYY>.md`, then removes that month's files. The year file is
 * published first; a crash between leaves both, and the next fold finds the month's section
 * already there and only removes the month's files, so nothing is added twice.
 * @returns a stderr line naming what was folded, or null when nothing was due.
 */
export async function foldOne(root: string, nowMonth: string, fp?: string): Promise<string | null> {
  const old = (period: string) => monthIndex(nowMonth) - monthIndex(period) >= FOLD_AFTER_MONTHS;
  const due = listJournal(root).filter((f) => f.kind === "month" && old(f.period));
  if (due.length === 0) return null;
  const period = due[0]!.period;
  const files = due.filter((f) => f.period === period);
  const dir = ensureJournalDir(root);
  const entries: JournalEntry[] = [];
  for (const f of files) {
    const read = readJournalFile(dir, f.name);
    if (read === null) continue;
    const parsed = parseJournal(read.bytes.toString("utf8"), "month");
    if (parsed.problems.length > 0) {
      const p = parsed.problems[0]!;
      throw new HelperError(`journal/${f.name} line ${p.line}: ${p.message}`, 2);
    }
    entries.push(...parsed.entries);
  }
  const year = period.slice(0, 4);
  const yearName = `${year}.md`;
  const current = readJournalFile(dir, yearName);
  const text = current === null ? `${journalHeader(year)}\n` : current.bytes.toString("utf8");
  if (!new RegExp(`^## ${period}$`, "m").test(text)) {
    const sep = text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n";
    const next = boundYear(insertSection(text + sep, period, foldSection(period, entries)));
    await publishJournalFile(dir, yearName, current?.token ?? "absent", Buffer.from(next, "utf8"), fp);
  }
  for (const f of files) unlinkSync(path.join(dir, f.name));
  const names = files.map((f) => `journal/${f.name}`).join(", ");
  return `journal: folded ${names} (${entries.length} entries) into journal/${yearName}`;
}

// Sections stay in month order whatever order the folds ran in (a month file pulled late).
function insertSection(text: string, period: string, section: string): string {
  const heads = [...text.matchAll(/^## (\d{4}-\d{2})$/gm)];
  const after = heads.find((h) => h[1]! > period);
  if (!after) return text + section;
  return text.slice(0, after.index!) + section + text.slice(after.index!);
}
