import { closeSync, constants, fchmodSync, fchownSync, fsyncSync, linkSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { HelperError, Refused } from "../errors.ts";
import { archiveName, pruneArchive } from "./archive.ts";
import { failpoint } from "./failpoint.ts";
import { openRegular, randomHex8, readAll, readStable, tokenOf, UnsafeFile, type ReadFile } from "./files.ts";
import type { LockHandle } from "./lock.ts";
import { ensureDir } from "./paths.ts";
import { privateName } from "./private.ts";

/** What to publish, where, and against which token. */
export interface PublishSpec {
  /** Directory holding the file (the memory dir, or the root for AGENTS.md / CLAUDE.md). */
  dir: string;
  /** The user-facing file name, e.g. `HANDOFF.md`. */
  file: string;
  /** The memory dir's `archive/` (must exist when `archivePrior` is set). */
  archiveDir: string;
  /** Prefix of archive names: `HANDOFF`, `LESSONS`, `SOLUTIONS`, `AGENTS`, `CLAUDE`. */
  archivePrefix: string;
  /** Archive every prior version before replacing it (the handoff) and prune to five. */
  archivePrior: boolean;
  /** `absent` or the 64-hex token the caller read (docs/design.md#tokens-and-the-publication-protocol). */
  expectedToken: string;
  /** Mode of a new file (a replaced file keeps its prior mode minus setuid, setgid, sticky and others-write). */
  newMode: number;
  /** The bytes to publish, given the prior bytes (null when there were none). */
  build(prior: Buffer | null): Buffer;
  failpoint?: string;
  lock: LockHandle;
}

/** What a publication did. */
export interface PublishResult {
  bytes: Buffer;
  token: string;
  /** Bare name of the archive entry the prior version went to, when one was made. */
  archived: string | null;
  warnings: string[];
}

/** fsyncs a directory so a link or rename in it is durable; best effort. */
export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort: some file systems refuse fsync on directories.
  }
}

function unlinkQuiet(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // Already gone.
  }
}

/** Links `from` into the archive under a fresh name; retries on the (unlikely) name clash. */
export function linkIntoArchive(from: string, archiveDirPath: string, prefix: string): string {
  ensureDir(archiveDirPath);
  for (let attempt = 0; ; attempt++) {
    const name = archiveName(prefix, archiveDirPath);
    try {
      linkSync(from, path.join(archiveDirPath, name));
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 5) throw err;
    }
  }
}

function writeTemp(tempPath: string, bytes: Buffer, mode: number, owner: { uid: number; gid: number } | null): void {
  const fd = openSync(tempPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    // A replaced file keeps its owner (root editing another user's project must not take it
    // over); only root can give a file away, so others keep what they were always given.
    if (owner !== null && process.geteuid !== undefined && (owner.uid !== process.geteuid() || owner.gid !== process.getegid!())) {
      try {
        fchownSync(fd, owner.uid, owner.gid);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
      }
    }
    // The umask may have narrowed the mode; a replaced file keeps its (masked) prior mode exactly.
    fchmodSync(fd, mode);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The compare-and-swap publication protocol (docs/design.md#tokens-and-the-publication-protocol), run under the memory lock:
 *
 * 1. read the current file whole (`read-opened`), compare its token with the expected one;
 * 2. claim it: rename it to a private claim name (`before-claim`), then check the claim is
 *    the very version we read, else put it back and refuse (`after-claim`);
 * 3. archive the claim by hard link, for the handoff (`after-archive`);
 * 4. write the new version to a private temp file and fsync it (`before-publication`);
 * 5. publish with `link(temp, file)`, which fails rather than overwrite a file that another
 *    program put there meanwhile (`after-publication`);
 * 6. drop the claim, then the temp; prune the archive to five (`before-prune`).
 *
 * A failure between steps 2 and 5 rolls back (`rollback-*`): the prior version is current
 * again and the archive copy of it is gone. What step 2 claimed that is not the version we
 * read (an edit, a directory put at the name) is handed back and the write refused.
 *
 * A crash at any step leaves private files that `recover` (and the next write) repairs to the
 * complete old or the complete new version (see recover.ts).
 * @throws Refused (exit 2): token mismatch, a change during the read or the claim, a file
 *   that appeared before publication (it is kept as current; our prior is archived).
 */
export async function publish(spec: PublishSpec): Promise<PublishResult> {
  const filePath = path.join(spec.dir, spec.file);
  const prior: ReadFile | null = await readStable(filePath, { failpoint: spec.failpoint });
  if (prior !== null && prior.stat.nlink !== 1n) {
    throw new UnsafeFile("hard-linked", filePath, prior.stat);
  }
  const current = prior ? prior.token : "absent";
  if (current !== spec.expectedToken) {
    throw new Refused(`${spec.file} changed since it was read (expected ${spec.expectedToken}, current ${current}); read again and merge`);
  }
  const bytes = spec.build(prior ? prior.bytes : null);
  // A replaced file keeps its mode but never setuid, setgid, sticky or others-write: a
  // planted file's bits must not pass to the user's saves (docs/design.md#files-on-disk).
  const mode = prior ? Number(prior.stat.mode & 0o7777n) & ~0o7002 : spec.newMode;
  const pid = process.pid;
  const rand = randomHex8();
  const claimPath = path.join(spec.dir, privateName(spec.file, "claim", pid, rand));
  const tempPath = path.join(spec.dir, privateName(spec.file, "tmp", pid, rand));
  const warnings: string[] = [];
  let archived: string | null = null;

  if (prior !== null) {
    await failpoint(spec.failpoint, "before-claim");
    try {
      renameSync(filePath, claimPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        throw new Refused(`${spec.file} changed since it was read (it was deleted); read again and merge`);
      }
      throw new Refused(`cannot claim ${filePath}: ${(err as Error).message}`);
    }
    const claimed = claimIsWhatWeRead(claimPath, prior);
    if (claimed !== "same") {
      // Another program replaced or edited the file after our read: hand its file back.
      const restored = putBack(claimPath, filePath);
      if (claimed === "not-regular") {
        throw new Refused(
          `${spec.file} was replaced by something that is not a regular file since it was read${restored ? "; it was put back" : "; it is kept at a private name for `recover`"} and nothing was saved; move it away, then read again`,
        );
      }
      throw new Refused(
        `${spec.file} changed since it was read (another program wrote it)${restored ? "" : "; its version is kept for `recover`"}; read again and merge`,
      );
    }
  }

  // From the claim to publication, any failure (a full disk, a permission, a lost lock) puts
  // the prior version back as current and leaves nothing behind: a refusal before publication
  // changes nothing (docs/design.md#tokens-and-the-publication-protocol).
  try {
    if (prior !== null) {
      await failpoint(spec.failpoint, "after-claim");
      if (spec.archivePrior) {
        archived = linkIntoArchive(claimPath, spec.archiveDir, spec.archivePrefix);
        await failpoint(spec.failpoint, "after-archive");
      }
    }
    writeTemp(tempPath, bytes, mode, prior ? { uid: Number(prior.stat.uid), gid: Number(prior.stat.gid) } : null);
    await failpoint(spec.failpoint, "before-publication");
    spec.lock.assertHeld();
  } catch (err) {
    let restored = true;
    if (prior === null) unlinkQuiet(tempPath);
    else restored = await rollBack(tempPath, claimPath, filePath, spec, archived);
    if (err instanceof HelperError) {
      if (!restored) err.message = `${err.message.replace(/; nothing was (?:published|changed)/, "")}; ${afterRollback(false, spec.file)}`;
      throw err;
    }
    throw new Refused(`cannot save ${spec.file}: ${(err as Error).message}; ${afterRollback(restored, spec.file)}`);
  }
  try {
    linkSync(tempPath, filePath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
      let restored = true;
      if (prior === null) unlinkQuiet(tempPath);
      else restored = await rollBack(tempPath, claimPath, filePath, spec, archived);
      throw new Refused(`cannot publish ${filePath}: ${(err as Error).message}; ${afterRollback(restored, spec.file)}`);
    }
    // A non-cooperating writer created the file after our claim: it stays current.
    unlinkQuiet(tempPath);
    let kept = archived;
    if (prior !== null) {
      if (kept === null) kept = linkIntoArchive(claimPath, spec.archiveDir, spec.archivePrefix);
      unlinkQuiet(claimPath);
    }
    throw new Refused(
      `${spec.file} was written by another program during this save; that version was kept as current` +
        (kept ? ` and the prior version is in archive/${kept}` : "") +
        "; read again and merge",
    );
  }
  syncDir(spec.dir);
  await failpoint(spec.failpoint, "after-publication");
  // The temp goes last: while it shares the file's inode, `recover` knows this save was
  // published, and that its claim is the prior version it replaced (not a race's loser).
  if (prior !== null) unlinkQuiet(claimPath);
  unlinkQuiet(tempPath);
  if (archived !== null) {
    await failpoint(spec.failpoint, "before-prune");
    const pruned = pruneArchive(spec.archiveDir, archived);
    warnings.push(...pruned.warnings);
  }
  return { bytes, token: tokenOf(bytes), archived, warnings };
}

/**
 * Whether the claim at `claimPath` is the very version `prior` was read as (inode, size,
 * mtime, bytes): `same`; `not-regular` when what was claimed is a directory, a FIFO, a link…
 * that someone put at the name after the read; else `changed`.
 */
export function claimIsWhatWeRead(claimPath: string, prior: ReadFile): "same" | "changed" | "not-regular" {
  let st;
  try {
    st = lstatSync(claimPath, { bigint: true });
  } catch {
    return "changed";
  }
  if (!st.isFile()) return "not-regular";
  if (st.dev !== prior.stat.dev || st.ino !== prior.stat.ino || st.size !== prior.stat.size || st.mtimeNs !== prior.stat.mtimeNs) {
    return "changed";
  }
  // Same inode, size and mtime; the bytes decide (an edit within the mtime granularity).
  const again = openRegular(claimPath);
  if (again === null) return "changed";
  try {
    return tokenOf(readAll(again.fd)) === prior.token ? "same" : "changed";
  } finally {
    closeSync(again.fd);
  }
}

/**
 * Hands back what a claim took that was not ours to replace; true when it is current again.
 * A `link` never overwrites; a directory cannot be linked, so it goes back by `rename`, and
 * only while the name is free. False leaves it at the claim's private name (nothing lost).
 */
export function putBack(claimPath: string, filePath: string): boolean {
  try {
    linkSync(claimPath, filePath);
    unlinkSync(claimPath);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false; // Yet another file took the name; `recover` keeps this one.
  }
  try {
    if (lstatSync(filePath, { throwIfNoEntry: false }) !== undefined) return false;
    renameSync(claimPath, filePath);
    return true;
  } catch {
    return false;
  }
}

// The rollback after a failed publication (docs/design.md#tokens-and-the-publication-protocol: a refusal before publication
// changes nothing): drop the temp, link the claimed prior version back as current, remove
// the archive copy this save made of it, drop the claim. The claim goes last: while it
// exists, `recover` knows a rollback is pending and finishes it from any step
// (`rollback-*` failpoints; docs/decisions/failpoints.md).
// A link back can fail for want of space, quota or link count (a disk whose inodes ran out):
// then the claim is renamed back, only after lstat shows the name free; the window between
// the two is in docs/decisions/rollback-rename.md. True when the prior version is current
// again and nothing of this save is left; false when the claim stays for `recover`.
const NO_ROOM = new Set(["ENOSPC", "EDQUOT", "EMLINK"]);
async function rollBack(tempPath: string, claimPath: string, filePath: string, spec: PublishSpec, archived: string | null): Promise<boolean> {
  unlinkQuiet(tempPath);
  await failpoint(spec.failpoint, "rollback-after-temp-drop");
  try {
    await failpoint(spec.failpoint, "rollback-before-restore");
    linkSync(claimPath, filePath);
  } catch (err) {
    // EEXIST: something else is current now; the claim stays for `recover` to archive.
    if (!NO_ROOM.has((err as NodeJS.ErrnoException).code ?? "")) return false;
    // The archive copy goes first: a crash after the rename must not leave the current
    // file with a second link and no private partner (an unsafe file, not a repair).
    if (archived !== null) {
      unlinkQuiet(path.join(spec.archiveDir, archived));
      await failpoint(spec.failpoint, "rollback-after-unarchive");
    }
    if (lstatSync(filePath, { throwIfNoEntry: false }) !== undefined) return false;
    try {
      renameSync(claimPath, filePath);
    } catch {
      return false;
    }
    await failpoint(spec.failpoint, "rollback-after-restore");
    await failpoint(spec.failpoint, "rollback-after-claim-drop");
    return true;
  }
  await failpoint(spec.failpoint, "rollback-after-restore");
  if (archived !== null) {
    unlinkQuiet(path.join(spec.archiveDir, archived));
    await failpoint(spec.failpoint, "rollback-after-unarchive");
  }
  unlinkQuiet(claimPath);
  await failpoint(spec.failpoint, "rollback-after-claim-drop");
  return true;
}

// What a refusal after a rollback may say (docs/decisions/rollback-rename.md): "nothing was
// changed" only when the prior version is current again.
function afterRollback(restored: boolean, file: string): string {
  return restored ? "nothing was changed" : `${file} is kept at a private name until \`recover\` puts it back: run \`recover\``;
}
