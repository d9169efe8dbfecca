import path from "node:path";
import { listDir, listPrivate, lstatBig, type PrivateEntry } from "./files.ts";
import { FILE_OF, TARGETS, archiveDir, memoryDir } from "./paths.ts";

const MEMORY_FILES = new Set(Object.values(FILE_OF));
const ROOT_FILES = new Set<string>(TARGETS);

/** Private files an interrupted save left, in the memory dir and (for promote) the root. */
export function pendingRepairs(root: string): PrivateEntry[] {
  return [
    ...listPrivate(memoryDir(root)).filter((e) => MEMORY_FILES.has(e.file)),
    ...listPrivate(root).filter((e) => ROOT_FILES.has(e.file)),
  ];
}

export function inoOf(p: string): bigint | null {
  return lstatBig(p)?.ino ?? null;
}

export function archiveEntriesWithIno(dir: string, ino: bigint): string[] {
  return listDir(dir).filter((n) => inoOf(path.join(dir, n)) === ino);
}

// Why a private name holds what no save leaves (a link the protocol did not make, say), or null.
function notOurs(e: PrivateEntry, filePath: string, arch: string, siblings: readonly PrivateEntry[]) {
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

/** Private names holding what no save leaves: planted, so `recover` and `write` refuse them and `check` says 3. */
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

// A lock that a taker which died mid-takeover renamed aside.
export const DEAD_LOCK = /^\.lock-dead-\d+-[0-9a-f]{8}$/;

/** True when `repair` has anything to do; only directory listings, so an uninterrupted save runs none. */
export function needsRepair(root: string): boolean {
  return (
    pendingRepairs(root).length > 0 ||
    listDir(memoryDir(root)).some((n) => DEAD_LOCK.test(n)) ||
    listDir(archiveDir(root)).some((n) => ARCHIVE_TEMP.test(n))
  );
}
