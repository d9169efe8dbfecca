// archive/: the names of archived handoffs, their order, their pruning and their reading.
import { lstatSync, readdirSync, unlinkSync } from "../builtins.ts";
import path from "node:path";
import { Absent, Refused } from "../errors.ts";
import { quotedPath } from "../guard/quote.ts";
import { listDir, lstatOrNull, randomHex8, type ReadFile, readSmall, readStable, UnsafeFile } from "./files.ts";
import { archiveDir, checkTree } from "./paths.ts";
import { readSettings } from "./settings.ts";

/** Archive names `show`/`restore` accept, as the reference's (docs/design.md#files-on-disk). */
export const ARCHIVE_NAME = /^HANDOFF-[A-Za-z0-9._-]+\.md$/;

// The names the helpers make, the only ones pruning deletes or checks: a user's own file in archive/ is never touched.
export const PRUNABLE_NAME = /^HANDOFF-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3,6}Z-(?:\d{1,30}-)?[0-9a-f]{8}\.md$/;

const NAME_TIME = /^HANDOFF-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})(?:\.(\d{1,9}))?Z-/;
// Ours carry a sequence number between the time and the random part.
const NAME_SEQ = /^HANDOFF-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{1,9})?Z-(\d{1,30})-[0-9a-f]{8}\.md$/;

// The archive time stamp: UTC `%Y-%m-%dT%H-%M-%S.%fZ`, milliseconds padded to six digits.
function archiveStamp(now: Date): string {
  return now.toISOString().replace(/:/g, "-").replace(/\.(\d{3})Z$/, ".$1000Z");
}

function archiveSeq(name: string): bigint | null {
  const m = NAME_SEQ.exec(name);
  return m ? BigInt(m[1]!) : null;
}

/** A fresh archive name, `<seq>` one more than any in `dir`: the newest save ranks first whatever the clocks said. */
export function archiveName(prefix: string, dir: string): string {
  let top = 0n;
  for (const name of listDir(dir)) {
    const seq = archiveSeq(name);
    if (seq !== null && seq > top) top = seq;
  }
  return `${prefix}-${archiveStamp(new Date())}-${top + 1n}-${randomHex8()}.md`;
}

// The time in a name, or the modification time for a name without one, as a sortable string.
function timeKey(name: string, mtimeMs: number): string {
  const m = NAME_TIME.exec(name);
  if (m) return `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}`;
  return archiveStamp(new Date(mtimeMs)).replace(/Z$/, "").padEnd(29, "0");
}

/** Newest first (docs/decisions/archive-order.md): a name without a `<seq>` ranks below every name with one. */
export function newestFirst(a: { name: string; mtimeMs: number }, b: { name: string; mtimeMs: number }): number {
  const sa = archiveSeq(a.name);
  const sb = archiveSeq(b.name);
  if (sa !== null || sb !== null) {
    if (sa === null) return 1;
    if (sb === null) return -1;
    if (sa !== sb) return sa > sb ? -1 : 1;
  }
  const ka = timeKey(a.name, a.mtimeMs);
  const kb = timeKey(b.name, b.mtimeMs);
  if (ka !== kb) return ka < kb ? 1 : -1;
  if (sa !== null) return a.name === b.name ? 0 : a.name < b.name ? 1 : -1;
  return b.mtimeMs - a.mtimeMs;
}

// The prunable entries of `dir`, or the name of one that blocks pruning (a link, hard-linked, not a regular file).
function prunable(dir: string): { name: string; mtimeMs: number }[] | string {
  const entries: { name: string; mtimeMs: number }[] = [];
  for (const name of readdirSync(dir)) {
    const st = PRUNABLE_NAME.test(name) ? lstatSync(path.join(dir, name), { throwIfNoEntry: false }) : undefined;
    if (st === undefined) continue;
    if (st.isSymbolicLink() || !st.isFile() || st.nlink !== 1) return name;
    entries.push({ name, mtimeMs: st.mtimeMs });
  }
  return entries;
}

// Tracked archives stay (deleting one makes rename/rename conflicts); failures only warn: the save already succeeded.
export function pruneArchive(dir: string, justArchived: string, tracked: ReadonlySet<string>): string[] {
  const { settings, problems: warnings } = readSettings(path.dirname(dir));
  let entries;
  try {
    entries = prunable(dir);
  } catch (err) {
    return [...warnings, `archive pruning skipped: cannot list ${dir}: ${(err as Error).message}`];
  }
  if (typeof entries === "string") {
    const why = `archive/${entries} is a link, hard-linked or not a regular file; nothing was deleted`;
    return [...warnings, `archive pruning skipped: ${why} (move it away to resume pruning)`];
  }
  entries.sort(newestFirst);
  // The version this save just archived stays even behind later times (a clock ahead): the save reported keeping it.
  const kept = entries.filter((e) => e.name === justArchived);
  const rest = entries.filter((e) => e.name !== justArchived);
  const doomed = rest.slice(Math.max(0, settings.archivesKept - kept.length)).filter((e) => !tracked.has(e.name));
  for (const entry of doomed) {
    try {
      unlinkSync(path.join(dir, entry.name));
    } catch (err) {
      warnings.push(`archive pruning: could not delete archive/${entry.name}: ${(err as Error).message}`);
    }
  }
  return warnings;
}

/** The archived handoffs, newest first; `regular` is false for an entry listed but never read (a link, say). */
export function listArchives(root: string): { name: string; mtimeMs: number; regular: boolean }[] {
  if (!checkTree(root)) return [];
  const dir = archiveDir(root);
  const st = lstatOrNull(dir);
  if (st === null) return [];
  if (st.isSymbolicLink() || !st.isDirectory()) throw new Refused(`${dir} is a link or not a directory; move it away`);
  const out = [];
  for (const name of readdirSync(dir)) {
    // Null when gone since the listing.
    const s = ARCHIVE_NAME.test(name) ? lstatOrNull(path.join(dir, name)) : null;
    if (s !== null) out.push({ name, mtimeMs: s.mtimeMs, regular: s.isFile() && !s.isSymbolicLink() && s.nlink === 1 });
  }
  return out.sort(newestFirst);
}

/** @throws Refused (exit 2) for a name that is not an archive's. */
export function assertArchiveName(name: string): void {
  if (!ARCHIVE_NAME.test(name)) {
    const shape = "HANDOFF-<letters, digits, . _ ->.md";
    throw new Refused(`${quotedPath(name.slice(0, 100))} is not an archive name (${shape}); run \`archives list\``);
  }
}

/** Reads one archived handoff by its bare name, safely. @throws Refused (exit 2); Absent (exit 3) for none. */
export async function readArchive(root: string, name: string): Promise<ReadFile> {
  assertArchiveName(name);
  const got = checkTree(root) ? await readStable(path.join(archiveDir(root), name)) : null;
  // A merge commit carries no archive: the one a pulled `Merged-with:` line names stays in the clone that merged.
  const merged = readSmall(path.join(archiveDir(root), "..", "HANDOFF.md"))?.includes(`Merged-with: archive/${name}`);
  const where = merged ? "; HANDOFF.md's Merged-with: line names it, but the clone that made that merge holds it " +
    "until it runs `publish` (a merge commit carries no archive): ask whoever merged to publish" : "";
  if (got === null) throw new Absent(`no archived handoff named ${name}${where}; run \`archives list\``);
  if (got.stat.nlink !== 1n) throw new UnsafeFile("hard-linked", path.join(archiveDir(root), name));
  return got;
}
