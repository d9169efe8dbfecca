// The journal folder `.ai/memory/journal/` on disk: month files, their continuations, year
// files, the `OFF` switch, and an append that leaves an entry whole or absent
// (docs/decisions/journal.md). Callers hold the memory lock.
import { closeSync, constants, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { failpoint } from "../store/failpoint.ts";
import { exists } from "../store/pause.ts";
import { syncDir } from "../store/publish.ts";
import { openRegular, randomHex8, readAll, tokenOf } from "../store/files.ts";
import { MAX_DOCUMENT_BYTES, memoryDir } from "../store/paths.ts";
import { listPrivate, privateName, processAlive } from "../store/private.ts";
import { journalHeader } from "./entry.ts";

/** `<root>/.ai/memory/journal`. */
export function journalDir(root: string): string {
  return path.join(memoryDir(root), "journal");
}

/** A month file (`2026-12.md`), its continuation (`2026-12-2.md`) or a year file (`2026.md`). */
export const JOURNAL_NAME = /^(\d{4})(?:-(\d{2})(?:-(\d+))?)?\.md$/;

/** One journal file, parsed from its name. */
export interface JournalFile {
  name: string;
  /** `2026-12` for a month file, `2026` for a year file. */
  period: string;
  kind: "month" | "year";
  /** 1 for `2026-12.md`, N for `2026-12-N.md`; 1 for a year file. */
  part: number;
}

/** Parses a journal file name, or null when the name is not one of ours. */
export function parseJournalName(name: string): JournalFile | null {
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
  let names: string[];
  try {
    names = readdirSync(journalDir(root));
  } catch {
    return [];
  }
  return names
    .map(parseJournalName)
    .filter((f): f is JournalFile => f !== null)
    .sort((a, b) => (a.period === b.period ? a.part - b.part : a.period < b.period ? -1 : 1));
}

/** True when `journal/OFF` exists (made by hand, like `PAUSE`): no entries, no folds, no publish. */
export function journalOff(root: string): boolean {
  return exists(path.join(journalDir(root), "OFF"));
}

/** `2026-12` of a time in ms (UTC). */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/**
 * Reads a journal file as bytes with its token; null when absent.
 * @throws Refused (exit 2) when the name is a link, not a regular file, or over 1,000,000 bytes.
 */
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

/**
 * Puts right what a killed append left in `journal/` (the caller holds the lock, so every
 * private file of a dead process is a leftover): a claim whose file is missing is the file,
 * put back; a claim beside its file is dropped when the file still begins with the claim's
 * bytes (the append landed), else kept visible as `<name>.orig-<hex>.md` for the user; temps
 * are dropped. Files of a live process are left alone.
 * @returns one line per action, for stderr.
 */
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
      actions.push(`journal/${e.file}: another program changed it during an interrupted append; the earlier version is journal/${kept}`);
    }
  }
  return actions;
}

function writeTemp(p: string, bytes: Buffer): void {
  const fd = openSync(p, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Publishes `bytes` as `journal/<name>` when it is still the version `expected` names
 * (`absent` or its token): a temp is written and fsync'ed, the current file is claimed (renamed
 * aside) and compared, the temp is linked in, then claim and temp are dropped. A crash leaves
 * the old file or the new one, never a mix; {@link repairJournal} finishes either. Failpoint
 * phases: `journal-after-claim`, `journal-before-publication`, `journal-after-publication`.
 * @throws Refused (exit 2) when another program changed the file since it was read.
 */
export async function publishJournalFile(dir: string, name: string, expected: string, bytes: Buffer, fp?: string): Promise<void> {
  const rand = randomHex8();
  const temp = path.join(dir, privateName(name, "tmp", process.pid, rand));
  const claim = path.join(dir, privateName(name, "claim", process.pid, rand));
  const target = path.join(dir, name);
  writeTemp(temp, bytes);
  try {
    if (expected !== "absent") {
      renameSync(target, claim);
      await failpoint(fp, "journal-after-claim");
      const claimed = readJournalFile(dir, path.basename(claim));
      if (claimed === null || claimed.token !== expected) {
        if (!exists(target)) renameSync(claim, target);
        throw new Refused(`journal/${name} changed while the entry was appended (another program wrote it); the entry was not added`);
      }
    }
    await failpoint(fp, "journal-before-publication");
    try {
      linkSync(temp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      throw new Refused(`journal/${name} was created by another program during the append; the entry was not added`);
    }
    syncDir(dir);
    await failpoint(fp, "journal-after-publication");
    if (expected !== "absent") unlinkSync(claim);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone.
    }
  }
}

/** Makes `journal/` (0700) when missing. @throws Refused (exit 2) when it is a link or not a folder. */
export function ensureJournalDir(root: string): string {
  const dir = journalDir(root);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new Refused(`cannot create ${dir}: ${(err as Error).message}`);
  }
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) throw new Refused(`${dir} is a link or not a directory; move it away so the journal can be written`);
  return dir;
}

/**
 * Appends one rendered entry to the month of `ms` (UTC), going on in `<YYYY-MM>-2.md`, `-3`, …
 * when the entry would take the file past 1,000,000 bytes. The caller holds the memory lock.
 * @returns the file written, relative to the memory dir, and repair lines.
 * @throws Refused (exit 2) when the month's file breaks the entry schema (its line named) or
 * another program wrote it meanwhile.
 */
export async function appendEntry(root: string, entry: string, ms: number, fp?: string, check?: (text: string, name: string) => void): Promise<{ file: string; repairs: string[] }> {
  const dir = ensureJournalDir(root);
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
  if (current !== null) check?.(current.bytes.toString("utf8"), name);
  let base = current === null ? Buffer.from(journalHeader(month, part) + "\n") : current.bytes;
  if (base.length > 0 && base[base.length - 1] !== 0x0a) base = Buffer.concat([base, Buffer.from("\n")]);
  if (base.length >= 2 && !(base[base.length - 1] === 0x0a && base[base.length - 2] === 0x0a)) base = Buffer.concat([base, Buffer.from("\n")]);
  await publishJournalFile(dir, name, current?.token ?? "absent", Buffer.concat([base, add]), fp);
  return { file: `journal/${name}`, repairs };
}
