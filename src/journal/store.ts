// The journal folder: month, continuation and year files, the `OFF` switch, and an append that is all or nothing.
import { closeSync, readdirSync, rmSync } from "../builtins.ts";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { HelperError, Refused } from "../errors.ts";
import { failpoint } from "../store/failpoint.ts";
import { exists, listDir, openRegular, orNull, readAll } from "../store/files.ts";
import { ensureDir, MAX_DOCUMENT_BYTES, memoryDir } from "../store/paths.ts";
import { journalHeader, parseJournal } from "./entry.ts";

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
    } catch (err) {
      problems.push({ file, line: 0, message: (err as Error).message });
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
