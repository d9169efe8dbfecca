// What a save adds to the journal: one entry, then at most one fold of an old month into its year file.
import { unlinkSync } from "../builtins.ts";
import path from "node:path";
import { harnessPath, windowsShaped } from "../agents/harness-path.ts";
import { HelperError } from "../errors.ts";
import { parseHandoff } from "../schema/handoff.ts";
import { droppedItems } from "../schema/open-items.ts";
import { validateHandoff } from "../schema/validate.ts";
import { isoSeconds } from "../schema/values.ts";
import { ARCHIVE_NAME } from "../store/archive.ts";
import { listDir, readStable, tokenOf } from "../store/files.ts";
import { archiveDir, ensureDir, MAX_DOCUMENT_BYTES, memoryDir } from "../store/paths.ts";
import { findRoot } from "../git/root.ts";
import { journalHeader, parseJournal, renderResumeEntry, renderSaveEntry, type JournalEntry } from "./entry.ts";
import { measureOutcome, type ResumeCall } from "./outcome.ts";
import { appendEntry, journalDir, journalOff, listJournal, monthOf, publishJournalFile, readJournalFile,
  readJournalText } from "./store.ts";

/** Months this many or more before the save's month are folded: 6 whole months are kept. */
const FOLD_AFTER_MONTHS = 7;

/** The items a fold keeps, one line per session; the rest are counted. */
const FOLD_KEPT = new Set([
  "Decision", "Failed approach", "Handoff score", "Next step followed", "Failed approach retried",
  "Calls to first edit",
]);

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The save time of a handoff's `Saved:` line, or null when it is not an ISO UTC time. */
function savedMs(text: string): number | null {
  const saved = parseHandoff(text).saved;
  if (saved === null || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(saved)) return null;
  const ms = Date.parse(saved);
  return Number.isNaN(ms) ? null : ms;
}

type Save = { prior: string | null; next: string; token: string };

/** Records a published save, then folds the month due; never throws: a failure is a stderr line, the save stands. */
export async function recordSave(root: string, save: Save, fp?: string): Promise<string[]> {
  if (journalOff(root)) return [];
  const notes: string[] = [];
  const ms = savedMs(save.next) ?? Date.now();
  try {
    const dropped = save.prior === null ? [] : droppedItems(save.prior, save.next).map((i) => i.text);
    const entry = renderSaveEntry({ ...save, time: isoSeconds(ms) }, dropped);
    await appendEntry(root, entry, ms, fp);
  } catch (err) {
    notes.push(`journal: not appended: ${messageOf(err)}`);
    return notes;
  }
  if (save.prior !== null) notes.push(...retriedNotes(root, tokenOf(save.prior)));
  try {
    const folded = await foldOne(root, monthOf(ms), fp);
    if (folded) notes.push(folded);
  } catch (err) {
    const todo = "the next save tries again";
    notes.push(`journal: the fold of an old month did not finish: ${messageOf(err)}; ${todo}`);
  }
  return notes;
}

// write's note on failed approaches a checkpoint saw retried after a resume of the handoff this save replaces.
function retriedNotes(root: string, priorToken: string): string[] {
  const seen = new Set<string>();
  for (const f of listJournal(root).filter((f) => f.kind === "month").slice(-2)) {
    for (const e of parseJournal(readJournalText(root, f) ?? "", "month").entries) {
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
  const archived = listDir(archiveDir(root)).filter((n) => ARCHIVE_NAME.test(n));
  for (const f of [path.join(memoryDir(root), "HANDOFF.md"), ...archived.map((n) => path.join(archiveDir(root), n))]) {
    // An unsafe file is not read.
    const r = await readStable(f).catch(() => null);
    if (r !== null && r.token === token) return r.bytes.toString("utf8");
  }
  return null;
}

/** Records once per session and handoff what a resumed session did (under the lock); never throws. */
export async function recordResume(
  root: string, call: ResumeCall, sessionId: string, currentToken: string | null,
  env: Record<string, string | undefined>, fp?: string,
): Promise<string[]> {
  try {
    if (journalOff(root)) return [];
    // A Windows path is never joined under a POSIX one.
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
    const outcome = measureOutcome(call.events, h.nextSteps[0] ?? null, h.failedApproaches);
    const score = validateHandoff(text, { mode: "root", nowMs: Date.now() }).score;
    const sessionKey = tokenOf(sessionId).slice(0, 16);
    const ms = Date.now();
    // Once per session and handoff: a later checkpoint of the same session adds no second entry.
    const seen = `resume ${sessionKey}\n- Resumed: ${token.slice(0, 16)}\n`;
    const dir = ensureDir(journalDir(root));
    const month = listJournal(root).filter((f) => f.kind === "month" && f.period === monthOf(ms));
    if (month.some((f) => readJournalFile(dir, f.name)?.bytes.includes(seen))) return [];
    const entry = renderResumeEntry(isoSeconds(ms), sessionKey, token, score, outcome);
    await appendEntry(root, entry, ms, fp);
    return [];
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
  const parts = [`${saves} save(s)`, `${resumes} resume(s)`, `${count("Finished")} step(s) finished`];
  parts.push(`${count("Dropped")} item(s) dropped`, `${count("Superseded")} decision(s) superseded`);
  return `- (${parts.join(", ")})`;
}

/** A year file's section for one month: a line per session of the items kept, then a line counting the rest. */
export function foldSection(period: string, entries: readonly JournalEntry[]): string {
  const lines = [`## ${period}`];
  // Times are of one length, so time then id orders as their concatenation does.
  const order = (a: JournalEntry, b: JournalEntry) => (a.time + a.id < b.time + b.id ? -1 : 1);
  for (const e of [...entries].sort(order)) {
    const items = e.items.filter((i) => FOLD_KEPT.has(i.label));
    if (items.length === 0) continue;
    const kept = items.map((i) => `${i.label}: ${i.text}`).join("; ");
    lines.push(`- ${e.time.slice(0, 10)} ${e.kind} ${e.id}: ${kept}`);
  }
  lines.push(summaryLine(entries));
  return `${lines.join("\n")}\n\n`;
}

/** Keeps a year file within 1,000,000 bytes: the oldest month still listing sessions keeps only its counts. */
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

/** A crash between the year file's publication and the month files' removal is finished by the next fold. */
async function foldOne(root: string, nowMonth: string, fp?: string): Promise<string | null> {
  const months = (period: string) => Number(period.slice(0, 4)) * 12 + Number(period.slice(5, 7));
  const old = (period: string) => months(nowMonth) - months(period) >= FOLD_AFTER_MONTHS;
  const due = listJournal(root).filter((f) => f.kind === "month" && old(f.period));
  if (due.length === 0) return null;
  const period = due[0]!.period;
  const files = due.filter((f) => f.period === period);
  const dir = ensureDir(journalDir(root));
  const entries: JournalEntry[] = [];
  for (const f of files) {
    const read = readJournalFile(dir, f.name);
    if (read === null) continue;
    const parsed = parseJournal(read.bytes.toString("utf8"), "month");
    const p = parsed.problems[0];
    if (p !== undefined) throw new HelperError(`journal/${f.name} line ${p.line}: ${p.message}`, 2);
    entries.push(...parsed.entries);
  }
  const year = period.slice(0, 4);
  const yearName = `${year}.md`;
  const current = readJournalFile(dir, yearName);
  const text = current === null ? `${journalHeader(year)}\n` : current.bytes.toString("utf8");
  if (!new RegExp(`^## ${period}$`, "m").test(text)) {
    const next = boundYear(insertSection(text.replace(/\n{0,2}$/, "\n\n"), period, foldSection(period, entries)));
    await publishJournalFile(dir, yearName, Buffer.from(next, "utf8"), fp);
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
