// Every change to memory runs under the lock, after the repair of what an interrupted save left.
import { linkSync, readFileSync, rmSync, unlinkSync } from "../builtins.ts";
import path from "node:path";
import { HelperError, Refused } from "../errors.ts";
import { ARCHIVE_NAME } from "./archive.ts";
import { failpoint } from "./failpoint.ts";
import { listDir, lstatBig, orNull, type PrivateEntry } from "./files.ts";
import { acquireLock, type LockHandle } from "./lock.ts";
import { archiveDir, archivePrefixOf, checkTree, memoryDir } from "./paths.ts";
import { assertNotPaused } from "./pause.ts";
import { linkIntoArchive } from "./publish.ts";
import { ARCHIVE_TEMP, archiveEntriesWithIno, DEAD_LOCK, groupByFile, inoOf, needsRepair, pendingRepairs,
  plantedPrivate } from "./recover.ts";

// An archive entry holding these bytes: the reference helper archives by copying, so its copy is another inode.
function archiveEntryWithBytes(dir: string, claimPath: string): string | undefined {
  const bytes = orNull(() => readFileSync(claimPath));
  if (bytes === null) return undefined;
  return listDir(dir).filter((n) => ARCHIVE_NAME.test(n)).find((n) => {
    const p = path.join(dir, n);
    const st = lstatBig(p);
    if (st === null || !st.isFile() || st.nlink !== 1n || st.size !== BigInt(bytes.length)) return false;
    return orNull(() => readFileSync(p))?.equals(bytes) === true;
  });
}

// The pid and random part shared by one save's temp and claim.
function saveId(e: PrivateEntry): string {
  return e.name.slice(e.name.lastIndexOf(".") + 1).replace(/^(tmp|claim)-/, "");
}

// Drops the reference's archive temps (one link, or two with the archive entry); anything else is left alone.
async function dropArchiveTemps(arch: string, fp?: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of listDir(arch).filter((n) => ARCHIVE_TEMP.test(n))) {
    const p = path.join(arch, name);
    const st = lstatBig(p);
    if (st === null || !st.isFile()) continue;
    if (st.nlink !== 1n && !(st.nlink === 2n && archiveEntriesWithIno(arch, st.ino).length === 2)) continue;
    unlinkSync(p);
    await failpoint(fp, "recover-after-temp-drop");
    out.push(`archive: dropped an archive copy left half-done (${name})`);
  }
  return out;
}

/** Each step is idempotent and the name marking it pending goes last, so a killed repair is finished by the next. */
export async function repair(root: string, fp?: string): Promise<string[]> {
  const actions: string[] = [];
  const memDir = memoryDir(root);
  const arch = archiveDir(root);
  const planted = plantedPrivate(root)[0];
  if (planted !== undefined) {
    const what = "it holds a private name of the helper but is not a file it left";
    throw new Refused(`${planted.entry.path} ${planted.reason}: ${what}; move it away, then retry`);
  }
  const byFile = groupByFile(pendingRepairs(root));
  for (const [filePath, list] of byFile) {
    const file = path.basename(filePath);
    const prefix = archivePrefixOf(file);
    const currentIno = inoOf(filePath);
    // A temp sharing the current file's inode marks a published save: its claim (same pid and random) was replaced.
    const published = (e: PrivateEntry) => e.role === "tmp" && currentIno !== null && inoOf(e.path) === currentIno;
    const finished = new Set(list.filter(published).map(saveId));
    const claims = list
      .filter((e) => e.role === "claim")
      .sort((a, b) => (lstatBig(a.path)?.mtimeMs ?? 0n) < (lstatBig(b.path)?.mtimeMs ?? 0n) ? -1 : 1);
    for (const claim of claims) {
      const claimIno = inoOf(claim.path);
      if (claimIno === null) continue;
      if (inoOf(filePath) === null) {
        linkSync(claim.path, filePath);
        await failpoint(fp, "recover-after-restore");
      }
      if (inoOf(filePath) === claimIno) {
        // The prior version is current again: an archive copy would duplicate it and leave the file hard-linked.
        for (const copy of archiveEntriesWithIno(arch, claimIno)) {
          unlinkSync(path.join(arch, copy));
          await failpoint(fp, "recover-after-unarchive");
        }
        unlinkSync(claim.path);
        await failpoint(fp, "recover-after-claim-drop");
        actions.push(`${file}: rolled back an interrupted save; the prior version is current again`);
        continue;
      }
      const copies = archiveEntriesWithIno(arch, claimIno);
      // Ledgers and AGENTS.md are never archived; a handoff's copy is there.
      if (finished.has(saveId(claim)) && (copies.length > 0 || prefix !== "HANDOFF")) {
        unlinkSync(claim.path);
        await failpoint(fp, "recover-after-claim-drop");
        const where = copies[0] ? ` (archived as archive/${copies[0]})` : "";
        actions.push(`${file}: finished a save; dropped the version it replaced${where}`);
        continue;
      }
      let where = copies[0] ?? archiveEntryWithBytes(arch, claim.path);
      if (where === undefined) {
        where = linkIntoArchive(claim.path, arch, prefix);
        await failpoint(fp, "recover-after-archive");
      }
      unlinkSync(claim.path);
      await failpoint(fp, "recover-after-claim-drop");
      actions.push(`${file}: kept the prior version as archive/${where}`);
    }
    for (const temp of list.filter((e) => e.role === "tmp")) {
      const tempIno = inoOf(temp.path);
      if (tempIno === null) continue;
      const published = tempIno === inoOf(filePath);
      rmSync(temp.path, { force: true });
      await failpoint(fp, "recover-after-temp-drop");
      const unpublished = `${file}: dropped an unpublished new version (${temp.name}); the old version stays current`;
      actions.push(published ? `${file}: finished a publication (dropped ${temp.name})` : unpublished);
    }
  }
  actions.push(...(await dropArchiveTemps(arch, fp)));
  // A taker that died mid-takeover leaves its renamed lock aside.
  try {
    for (const name of listDir(memDir).filter((n) => DEAD_LOCK.test(n))) {
      rmSync(path.join(memDir, name), { recursive: true, force: true });
    }
  } catch {
    // Left for the next repair: the lock protocol never looks at a lock moved aside.
  }
  return actions;
}

interface MutateOptions {
  root: string;
  env: Record<string, string | undefined>;
  lockTimeoutSeconds: number;
  // The input checks that come after "busy" in the refusal order, run before anything is created.
  validate?: () => void;
  // The compare-and-swap check when the memory dir did not exist: a stale token then creates nothing.
  precheck?: () => Promise<void>;
  failpoint?: string;
}

/** Runs `body` under the memory lock, after the kill switch and repairs; the memory dir is made after `validate`. */
export async function underLock<T>(opts: MutateOptions, body: (lock: LockHandle) => Promise<T>) {
  const memDir = memoryDir(opts.root);
  assertNotPaused(memDir, opts.env);
  const existed = checkTree(opts.root);
  let lock: LockHandle | null = null;
  let repairs: string[] = [];
  try {
    if (existed) lock = await acquireLock(memDir, opts.lockTimeoutSeconds);
    opts.validate?.();
    if (!existed) await opts.precheck?.();
    checkTree(opts.root, { create: true });
    if (lock === null) lock = await acquireLock(memDir, opts.lockTimeoutSeconds);
    // The switch may have been pulled while we waited for the lock.
    assertNotPaused(memDir, opts.env);
    const repaired = needsRepair(opts.root) ? await repair(opts.root, opts.failpoint) : [];
    repairs = repaired.map((line) => `recovered: ${line}`);
    const result = await body(lock);
    return { result, repairs };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    const fsError = err instanceof Error && !(err instanceof HelperError) && typeof code === "string";
    const refusal = fsError ? new Refused(`file system error: ${(err as Error).message}`) : err;
    // A repair made before a refusal stays made: say so, as a successful save would.
    if (refusal instanceof HelperError) refusal.before = [...repairs, ...refusal.before];
    throw refusal;
  } finally {
    await lock?.release();
  }
}
