import { linkSync, lstatSync, readdirSync, rmSync, unlinkSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { ARCHIVE_KEEP, pruneArchive } from "./archive.ts";
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

/** Prunable archived handoffs beyond the five kept (a crash before pruning), or 0. */
export function archiveExcess(root: string): number {
  let names: string[];
  try {
    names = readdirSync(archiveDir(root));
  } catch {
    return 0;
  }
  let count = 0;
  for (const name of names) {
    if (!/^HANDOFF-.*\.md$/.test(name)) continue;
    try {
      const st = lstatSync(path.join(archiveDir(root), name));
      // Pruning is skipped while an unsafe entry exists, so there is then nothing to finish.
      if (st.isSymbolicLink() || !st.isFile() || st.nlink !== 1) return 0;
    } catch {
      continue;
    }
    count++;
  }
  return Math.max(0, count - ARCHIVE_KEEP);
}

function inoOf(p: string): bigint | null {
  return lstatBig(p)?.ino ?? null;
}

function archiveEntriesWithIno(dir: string, ino: bigint): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => inoOf(path.join(dir, n)) === ino);
}

// The pid and random part shared by one save's temp and claim.
function saveId(e: PrivateEntry): string {
  return e.name.slice(e.name.lastIndexOf(".") + 1).replace(/^(tmp|claim)-/, "");
}

// A private name must hold what a save of ours leaves there: a regular file, with one link,
// or two when the other is the current file or an archive entry (a save stopped between a
// link and an unlink). Anything else was planted: refuse rather than publish it (contract §3).
function assertOurs(e: PrivateEntry, currentIno: bigint | null, arch: string): void {
  const st = lstatBig(e.path);
  if (st === null) return; // gone meanwhile
  const bad = st.isSymbolicLink()
    ? "is a link"
    : !st.isFile()
      ? "is not a regular file"
      : st.nlink > 2n || (st.nlink === 2n && st.ino !== currentIno && archiveEntriesWithIno(arch, st.ino).length === 0)
        ? "has hard links the helper did not make"
        : null;
  if (bad !== null) {
    throw new Refused(`${e.path} ${bad}: it holds a private name of the helper but is not a file it left; move it away, then retry`);
  }
}

/**
 * Repairs what interrupted saves left, under the memory lock (contract §3, §5 `recover`):
 *
 * - a temp file that shares the current file's inode was published: it is dropped;
 *   any other temp was never published: it is dropped too (the old version stays current);
 * - a claim that is the current file (a restore died before dropping it) is dropped;
 * - a claim with no current file is rolled back: it becomes current again, and its archive
 *   copy (same inode) is removed so that no duplicate stays behind;
 * - a claim whose save was published (its temp shares the current inode) is the version that
 *   save replaced: dropped (a handoff's is already archived; ledgers never are);
 * - any other claim beside a current file is a prior version: it is kept in the archive (already
 *   there for the handoff, else linked as `<PREFIX>-<time>-<hex>.md`), then dropped;
 * - the handoff archive is pruned to five when a crash skipped pruning.
 *
 * Private names holding anything else (a link, a directory, a foreign hard link) are refused.
 * Idempotent. Returns one line per action taken.
 * @throws Refused (exit 2) for a planted private file.
 */
export function repair(root: string): string[] {
  const actions: string[] = [];
  const memDir = memoryDir(root);
  const arch = archiveDir(root);
  const entries = pendingRepairs(root);
  const byFile = new Map<string, PrivateEntry[]>();
  for (const e of entries) {
    const key = path.join(path.dirname(e.path), e.file);
    byFile.set(key, [...(byFile.get(key) ?? []), e]);
  }
  for (const [filePath, list] of byFile) {
    const file = path.basename(filePath);
    const prefix = archivePrefixOf(file);
    const currentIno = inoOf(filePath);
    for (const e of list) assertOurs(e, currentIno, arch);
    // A temp that shares the current file's inode marks a save that was published; its
    // claim (same pid and random part) is the version that save replaced on purpose.
    const finished = new Set(list.filter((e) => e.role === "tmp" && currentIno !== null && inoOf(e.path) === currentIno).map(saveId));
    for (const temp of list.filter((e) => e.role === "tmp")) {
      const published = currentIno !== null && inoOf(temp.path) === currentIno;
      rmSync(temp.path, { force: true });
      actions.push(published ? `${file}: finished a publication (dropped ${temp.name})` : `${file}: dropped an unpublished new version (${temp.name}); the old version stays current`);
    }
    const claims = list
      .filter((e) => e.role === "claim")
      .sort((a, b) => (lstatSync(a.path).mtimeMs || 0) - (lstatSync(b.path).mtimeMs || 0));
    for (const claim of claims) {
      const claimIno = inoOf(claim.path);
      if (claimIno === null) continue;
      if (inoOf(filePath) === claimIno) {
        // A restore (ours, or a rollback) linked the claim back and died before dropping it.
        unlinkSync(claim.path);
        actions.push(`${file}: finished putting the prior version back (dropped ${claim.name})`);
        continue;
      }
      if (inoOf(filePath) === null) {
        linkSync(claim.path, filePath);
        for (const copy of archiveEntriesWithIno(arch, claimIno)) unlinkSync(path.join(arch, copy));
        unlinkSync(claim.path);
        actions.push(`${file}: rolled back an interrupted save; the prior version is current again`);
        continue;
      }
      const copies = archiveEntriesWithIno(arch, claimIno);
      if (finished.has(saveId(claim)) && (copies.length > 0 || prefix !== "HANDOFF")) {
        // Ledgers and AGENTS.md are never archived (contract §2); a handoff's copy is there.
        unlinkSync(claim.path);
        actions.push(`${file}: finished a save; dropped the version it replaced${copies[0] ? ` (archived as archive/${copies[0]})` : ""}`);
        continue;
      }
      let where = copies[0];
      if (where === undefined) {
        where = linkIntoArchive(claim.path, arch, prefix);
      }
      unlinkSync(claim.path);
      actions.push(`${file}: kept the prior version as archive/${where}`);
    }
  }
  // A taker that died mid-takeover leaves its renamed lock aside.
  try {
    for (const name of readdirSync(memDir)) {
      if (/^\.lock-dead-\d+-[0-9a-f]{8}$/.test(name)) rmSync(path.join(memDir, name), { recursive: true, force: true });
    }
  } catch {
    // No memory dir: nothing to clean.
  }
  if (archiveExcess(root) > 0) {
    const pruned = pruneArchive(arch);
    if (pruned.deleted.length > 0) actions.push(`archive: pruned ${pruned.deleted.length} old handoff(s) to keep the newest ${ARCHIVE_KEEP}`);
    actions.push(...pruned.warnings);
  }
  return actions;
}
