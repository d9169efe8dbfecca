// The journal folder: month, continuation and year files, the `OFF` switch, and an append that is all or nothing.
import { closeSync, linkSync, lstatSync, renameSync, unlinkSync } from "../builtins.ts";
import path from "node:path";
import { HelperError, Refused } from "../errors.ts";
import { failpoint } from "../store/failpoint.ts";
import { exists } from "../store/fs.ts";
import { syncDir, unlinkQuiet, writeTemp } from "../store/publish.ts";
import { openRegular, orNull, randomHex8, readAll, tokenOf } from "../store/files.ts";
import { ensureDir, MAX_DOCUMENT_BYTES, memoryDir } from "../store/paths.ts";
import { listDir, listPrivate, privateName, processAlive } from "../store/private.ts";
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

/** A journal file's bytes and token; null when absent. Refused when it is a link, not regular, or too big. */
export function readJournalFile(dir: string, name: string): { bytes: Buffer; token: string } | null {
  const p = path.join(dir, name);
  let opened: ReturnType<typeof openRegular>;
  try {
    opened = openRegular(p, MAX_DOCUMENT_BYTES);
  } catch (err) {
    throw new Refused(`journal/${name} cannot be read (${(err as Error).message}); move it away`);
  }
  if (opened === null) return null;
  try {
    const bytes = readAll(opened.fd, MAX_DOCUMENT_BYTES);
    return { bytes, token: tokenOf(bytes) };
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

/** Puts right what a killed append left: a claim back, dropped or kept as `<name>.orig-<hex>.md`; temps go. */
export function repairJournal(dir: string): string[] {
  const actions: string[] = [];
  for (const e of listPrivate(dir)) {
    if (e.pid !== process.pid && processAlive(e.pid)) continue;
    if (lstatSync(e.path).isSymbolicLink()) continue;
    if (e.role === "tmp") {
      unlinkSync(e.path);
      continue;
    }
    const target = path.join(dir, e.file);
    if (!exists(target)) {
      renameSync(e.path, target);
      actions.push(`journal/${e.file}: put back after an interrupted append`);
      continue;
    }
    const now = readJournalFile(dir, e.file);
    const claimed = readJournalFile(dir, e.name);
    if (now && claimed && now.bytes.subarray(0, claimed.bytes.length).equals(claimed.bytes)) {
      unlinkSync(e.path);
    } else {
      const kept = `${e.file.replace(/\.md$/, "")}.orig-${randomHex8()}.md`;
      renameSync(e.path, path.join(dir, kept));
      const what = "another program changed it during an interrupted append";
      actions.push(`journal/${e.file}: ${what}; the earlier version is journal/${kept}`);
    }
  }
  return actions;
}

/** Publishes `bytes` as `journal/<name>` while it is the version `expected` names; repairJournal finishes a crash. */
export async function publishJournalFile(dir: string, name: string, expected: string, bytes: Buffer, fp?: string) {
  const rand = randomHex8();
  const temp = path.join(dir, privateName(name, "tmp", process.pid, rand));
  const claim = path.join(dir, privateName(name, "claim", process.pid, rand));
  const target = path.join(dir, name);
  writeTemp(temp, bytes, 0o600, null);
  try {
    if (expected !== "absent") {
      renameSync(target, claim);
      await failpoint(fp, "journal-after-claim");
      const claimed = readJournalFile(dir, path.basename(claim));
      if (claimed === null || claimed.token !== expected) {
        if (!exists(target)) renameSync(claim, target);
        const why = "changed while the entry was appended (another program wrote it)";
        throw new Refused(`journal/${name} ${why}; the entry was not added`);
      }
    }
    await failpoint(fp, "journal-before-publication");
    try {
      linkSync(temp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const why = "was created by another program during the append";
      throw new Refused(`journal/${name} ${why}; the entry was not added`);
    }
    syncDir(dir);
    await failpoint(fp, "journal-after-publication");
    if (expected !== "absent") unlinkSync(claim);
  } finally {
    unlinkQuiet(temp);
  }
}

/** Appends one entry to the month of `ms` (UTC), in `<YYYY-MM>-N.md` past 1,000,000 bytes; the repairs' lines. */
export async function appendEntry(root: string, entry: string, ms: number, fp?: string): Promise<string[]> {
  const dir = ensureDir(journalDir(root));
  const repairs = repairJournal(dir);
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
  await publishJournalFile(dir, name, current?.token ?? "absent", Buffer.concat([base, add]), fp);
  return repairs.map((l) => `recovered: ${l}`);
}
