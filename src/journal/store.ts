// The journal folder (month, continuation and year files, the `OFF` switch, an all-or-nothing append) and what a
// save or a resume adds to it: one entry, then at most one fold of an old month into its year file.
import { closeSync, readdirSync, rmSync, unlinkSync } from "../builtins.ts";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { harnessPath, windowsShaped } from "../agents/harness-path.ts";
import { HelperError, Refused } from "../errors.ts";
import { findRoot } from "../git/root.ts";
import { parseHandoff } from "../schema/handoff.ts";
import { droppedItems } from "../schema/open-items.ts";
import { validateHandoff } from "../schema/validate.ts";
import { isoSeconds } from "../schema/values.ts";
import { ARCHIVE_NAME } from "../store/archive.ts";
import { failpoint } from "../store/failpoint.ts";
import { exists, listDir, openRegular, orNull, readAll, readStable, tokenOf, unreadReason } from "../store/files.ts";
import { archiveDir, ensureDir, MAX_DOCUMENT_BYTES, memoryDir } from "../store/paths.ts";
import { journalHeader, parseJournal, renderResumeEntry, renderSaveEntry, type JournalEntry } from "./entry.ts";
import { measureOutcome, type ResumeCall } from "./outcome.ts";

export function journalDir(root: string): string {
  return path.join(memoryDir(root), "journal");
}

/** A month file (`2026-12.md`), its continuation (`2026-12-2.md`) or a year file (`2026.md`). */
const JOURNAL_NAME = /^(\d{4})(?:-(\d{2})(?:-(\d+))?)?\.md$/;

/** One journal file by its name: `period` is `2026-12` (month) or `2026` (year), `part` N of `2026-12-N.md`. */
export interface JournalFile {
  name: string;
  period: string;
  kind: "month" | "year";
  part: number;
}

function parseJournalName(name: string): JournalFile | null {
  const m = JOURNAL_NAME.exec(name);
  if (!m) return null;
  if (m[2] === undefined) return { name, period: m[1]!, kind: "year", part: 1 };
  const month = Number(m[2]);
  if (month < 1 || month > 12) return null;
  const part = m[3] === undefined ? 1 : Number(m[3]);
  if (m[3] !== undefined && (part < 2 || String(part) !== m[3])) return null;
  return { name, period: `${m[1]}-${m[2]}`, kind: "month", part };
}

/** The journal files present, oldest period first, parts in order. */
export function listJournal(root: string): JournalFile[] {
  return listDir(journalDir(root))
    .map(parseJournalName)
    .filter((f): f is JournalFile => f !== null)
    .sort((a, b) => (a.period === b.period ? a.part - b.part : a.period < b.period ? -1 : 1));
}

/** True when `journal/OFF` exists (made by hand, like `PAUSE`): no entries, no folds, no publish. */
export function journalOff(root: string): boolean {
  return exists(path.join(journalDir(root), "OFF"));
}

export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** A journal file's bytes; null when absent. Refused when it is a link, not regular, or too big. */
export function readJournalFile(dir: string, name: string): { bytes: Buffer } | null {
  const p = path.join(dir, name);
  let opened: ReturnType<typeof openRegular>;
  try {
    opened = openRegular(p, MAX_DOCUMENT_BYTES);
  } catch (err) {
    throw new Refused(`journal/${name} cannot be read (${(err as Error).message}); move it away`);
  }
  if (opened === null) return null;
  try {
    return { bytes: readAll(opened.fd, MAX_DOCUMENT_BYTES) };
  } finally {
    closeSync(opened.fd);
  }
}

/** The journal's files, its OFF switch, and the first line of each file that breaks its schema (for `doctor`). */
export function journalHealth(root: string) {
  const journalFiles = listJournal(root);
  const problems: { file: string; line: number; message: string }[] = [];
  for (const f of journalFiles) {
    const file = `journal/${f.name}`;
    try {
      const read = readJournalFile(journalDir(root), f.name);
      const first = read === null ? undefined : parseJournal(read.bytes.toString("utf8"), f.kind).problems[0];
      if (first) problems.push({ file, ...first });
    } catch {
      // The whole file is unusable (line 0): a link, a folder, a FIFO, over 1 MB.
      problems.push({ file, line: 0, message: unreadReason(path.join(journalDir(root), f.name)) ?? "is a link" });
    }
  }
  return { files: journalFiles.length, off: journalOff(root), problems };
}

/** A journal file's text, or null when it is absent or cannot be read (a reader skips it). */
export function readJournalText(root: string, f: JournalFile): string | null {
  return orNull(() => readJournalFile(journalDir(root), f.name)?.bytes.toString("utf8") ?? null);
}

/** Publishes `bytes` as `journal/<name>`, whole or not at all; the memory lock keeps our other writers out. */
export async function publishJournalFile(dir: string, name: string, bytes: Buffer, fp?: string) {
  // A write killed between its temp file and the rename leaves `<name>.<number>`, which git would offer to add: under
  // the lock no writer of ours is live, so any such file is a dead one's.
  for (const f of readdirSync(dir)) if (/^\d{4}(-\d+)*\.md\.\d+$/.test(f)) rmSync(path.join(dir, f), { force: true });
  await failpoint(fp, "journal-before-publication");
  writeFileAtomic.sync(path.join(dir, name), bytes, { mode: 0o600 });
  await failpoint(fp, "journal-after-publication");
}

/** Appends one entry to the month of `ms` (UTC), in `<YYYY-MM>-N.md` past 1,000,000 bytes. */
export async function appendEntry(root: string, entry: string, ms: number, fp?: string): Promise<void> {
  const dir = ensureDir(journalDir(root));
  const month = monthOf(ms);
  const parts = listJournal(root).filter((f) => f.kind === "month" && f.period === month);
  let part = parts.length > 0 ? parts[parts.length - 1]!.part : 1;
  let name = part === 1 ? `${month}.md` : `${month}-${part}.md`;
  let current = readJournalFile(dir, name);
  const add = Buffer.from(entry, "utf8");
  if (current !== null && current.bytes.length + add.length + 1 > MAX_DOCUMENT_BYTES) {
    part++;
    name = `${month}-${part}.md`;
    current = readJournalFile(dir, name);
  }
  const problem = current === null ? undefined : parseJournal(current.bytes.toString("utf8")).problems[0];
  if (problem !== undefined) {
    const todo = "the entry was not added (fix that line, or move the file away)";
    throw new HelperError(`journal/${name} line ${problem.line}: ${problem.message}; ${todo}`, 2);
  }
  // The entry follows one blank line.
  const text = current === null ? `${journalHeader(month, part)}\n` : current.bytes.toString("latin1");
  const base = Buffer.from(text.length < 2 ? text : text.replace(/\n?\n?$/, "\n\n"), "latin1");
  await publishJournalFile(dir, name, Buffer.concat([base, add]), fp);
}

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
