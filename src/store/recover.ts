import { linkSync, lstatSync, readdirSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { ARCHIVE_NAME, PRUNABLE_NAME, archivesKept, pruneArchive } from "./archive.ts";
import { failpoint } from "./failpoint.ts";
import { listPrivate, lstatBig, type PrivateEntry } from "./private.ts";
import { FILE_OF, TARGETS, archiveDir, archivePrefixOf, memoryDir } from "./paths.ts";
import { linkIntoArchive } from "./publish.ts";

const MEMORY_FILES = new Set(Object.values(FILE_OF));
const ROOT_FILES = new Set<string>(TARGETS);

/** Private files an interrupted save left, in the memory dir and (for promote) the root. */
export function pendingRepairs(root: string): PrivateEntry[] {
  return [
    ...listPrivate(memoryDir(root)).filter((e) => MEMORY_FILES.has(e.file)),
    ...listPrivate(root).filter((e) => ROOT_FILES.has(e.file)),
  ];
}

/** Prunable archived handoffs beyond those kept (a crash before pruning), or 0. */
export function archiveExcess(root: string): number {
  let names: string[];
  try {
    names = readdirSync(archiveDir(root));
  } catch {
    return 0;
  }
  let count = 0;
  for (const name of names) {
    if (!PRUNABLE_NAME.test(name)) continue;
    try {
      const st = lstatSync(path.join(archiveDir(root), name));
      // Pruning is skipped while an unsafe entry exists, so there is then nothing to finish.
      if (st.isSymbolicLink() || !st.isFile() || st.nlink !== 1) return 0;
    } catch {
      continue;
    }
    count++;
  }
  return Math.max(0, count - archivesKept(archiveDir(root)).keep);
}

export function inoOf(p: string): bigint | null {
  return lstatBig(p)?.ino ?? null;
}

export function archiveEntriesWithIno(dir: string, ino: bigint): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => inoOf(path.join(dir, n)) === ino);
}

/**
 * Why a private name does not hold what a save (or a repair) of ours or of the reference helper leaves there, or null
 * when it does (docs/design.md#tokens-and-the-publication-protocol). What the protocol leaves is a regular file whose
 * every link is one the protocol makes: the private name itself, the current file (a publication or a restore that
 * stopped before its unlink), an archive entry (the archive copy of that save), or the same save's other private
 * name. A rollback killed between linking the claim back and dropping it leaves one inode with three links (file,
 * claim, archive copy): ours, and repaired like any other (field report 15).
 */
export function notOurs(e: PrivateEntry, filePath: string, arch: string, siblings: readonly PrivateEntry[]) {
  const st = lstatBig(e.path);
  if (st === null) return null; // gone meanwhile
  if (st.isSymbolicLink()) return "is a link";
  if (!st.isFile()) return "is not a regular file";
  if (st.nlink === 1n) return null;
  let accounted = 1n;
  if (inoOf(filePath) === st.ino) accounted++;
  accounted += BigInt(archiveEntriesWithIno(arch, st.ino).length);
  accounted += BigInt(siblings.filter((o) => o.path !== e.path && inoOf(o.path) === st.ino).length);
  return st.nlink > accounted ? "has hard links the helper did not make" : null;
}

export function groupByFile(entries: readonly PrivateEntry[]): Map<string, PrivateEntry[]> {
  const byFile = new Map<string, PrivateEntry[]>();
  for (const e of entries) {
    const key = path.join(path.dirname(e.path), e.file);
    byFile.set(key, [...(byFile.get(key) ?? []), e]);
  }
  return byFile;
}

/**
 * Private names that hold something no save leaves (a link, a directory, a file hard-linked
 * outside the protocol): planted, so `recover` and `write` refuse them and `check` calls
 * memory unsafe (3), naming nothing `recover` could finish (docs/design.md#tokens-and-the-publication-protocol).
 */
export function plantedPrivate(root: string): { entry: PrivateEntry; reason: string }[] {
  const out: { entry: PrivateEntry; reason: string }[] = [];
  const arch = archiveDir(root);
  for (const [filePath, list] of groupByFile(pendingRepairs(root))) {
    for (const e of list) {
      const reason = notOurs(e, filePath, arch, list);
      if (reason !== null) out.push({ entry: e, reason });
    }
  }
  return out;
}

// The reference helper writes its archive copy through a temp in archive/ itself.
export const ARCHIVE_TEMP = /^\.HANDOFF-[A-Za-z0-9._-]+\.md\.tmp-\d+-[0-9a-f]{16}$/;

/** A lock that a taker which died mid-takeover renamed aside. */
export const DEAD_LOCK = /^\.lock-dead-\d+-[0-9a-f]{8}$/;

function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * True when `repair` has anything to do (private files, an archive past five, a dead
 * takeover's lock, the reference's archive temps). Cheap: only directory listings, so that
 * a save that was not interrupted runs no repair.
 */
export function needsRepair(root: string): boolean {
  return (
    pendingRepairs(root).length > 0 ||
    archiveExcess(root) > 0 ||
    names(memoryDir(root)).some((n) => DEAD_LOCK.test(n)) ||
    names(archiveDir(root)).some((n) => ARCHIVE_TEMP.test(n))
  );
}
