import { closeSync, constants, fchmodSync, fchownSync, fsyncSync, linkSync, lstatSync, openSync, renameSync, unlinkSync,
  writeSync } from "../builtins.ts";
import path from "node:path";
import { HelperError, Refused } from "../errors.ts";
import { archiveName, pruneArchive } from "./archive.ts";
import { failpoint } from "./failpoint.ts";
import { lstatBig, openRegular, orNull, privateName, randomHex8, readAll, type ReadFile, readStable, succeeds, tokenOf,
  UnsafeFile } from "./files.ts";
import type { LockHandle } from "./lock.ts";
import { ensureDir } from "./paths.ts";

/** What to publish: `file` in `dir` (the memory dir, or the root), against `expectedToken`. */
interface PublishSpec {
  dir: string;
  file: string;
  archiveDir: string;
  archivePrefix: string;
  // Archive the prior version before replacing it (the handoff), then prune.
  archivePrior: boolean;
  // The archive names git tracks, which pruning leaves.
  tracked?: ReadonlySet<string>;
  expectedToken: string;
  // A replaced file keeps its own mode, minus setuid, setgid, sticky and others-write.
  newMode: number;
  build(prior: Buffer | null): Buffer;
  failpoint?: string;
  lock: LockHandle;
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

export const unlinkQuiet = (p: string): void => void orNull(() => unlinkSync(p));

/** Links `from` into the archive under a fresh name, retrying a name clash. */
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

const EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

// A new file (never through a link) with exactly `mode`, fsynced; `owner` is the replaced file's.
export function writeTemp(tempPath: string, bytes: Buffer, mode: number, owner: { uid: number; gid: number } | null) {
  const fd = openSync(tempPath, EXCLUSIVE, mode);
  try {
    // Root editing another user's project must not take their file over; only root can give a file away.
    const other = owner !== null && (owner.uid !== process.geteuid?.() || owner.gid !== process.getegid?.());
    if (owner !== null && process.geteuid !== undefined && other) {
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

/** The compare-and-swap publication under the memory lock, step by step as docs/design.md#publication-step-by-step. */
export async function publish(spec: PublishSpec) {
  const filePath = path.join(spec.dir, spec.file);
  const prior: ReadFile | null = await readStable(filePath, { failpoint: spec.failpoint });
  if (prior !== null && prior.stat.nlink !== 1n) throw new UnsafeFile("hard-linked", filePath);
  const current = prior ? prior.token : "absent";
  if (current !== spec.expectedToken) {
    const tokens = `expected ${spec.expectedToken}, current ${current}`;
    throw new Refused(`${spec.file} changed since it was read (${tokens}); read again and merge`);
  }
  const bytes = spec.build(prior ? prior.bytes : null);
  // A planted file's setuid, setgid, sticky or others-write bits must not pass to the user's saves.
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
        const where = restored ? "it was put back" : "it is kept at a private name for `recover`";
        const what = `${spec.file} was replaced by something that is not a regular file since it was read`;
        throw new Refused(`${what}; ${where} and nothing was saved; move it away, then read again`);
      }
      const kept = restored ? "" : "; its version is kept for `recover`";
      const wrote = "changed since it was read (another program wrote it)";
      throw new Refused(`${spec.file} ${wrote}${kept}; read again and merge`);
    }
  }

  // A refusal before publication changes nothing: any failure from here puts the prior version back.
  const undo = async () =>
    prior === null ? (unlinkQuiet(tempPath), true) : rollBack(tempPath, claimPath, filePath, spec, archived);
  try {
    if (prior !== null) {
      await failpoint(spec.failpoint, "after-claim");
      if (spec.archivePrior) {
        archived = linkIntoArchive(claimPath, spec.archiveDir, spec.archivePrefix);
        await failpoint(spec.failpoint, "after-archive");
      }
    }
    const owner = prior ? { uid: Number(prior.stat.uid), gid: Number(prior.stat.gid) } : null;
    writeTemp(tempPath, bytes, mode, owner);
    await failpoint(spec.failpoint, "before-publication");
    spec.lock.assertHeld();
  } catch (err) {
    const restored = await undo();
    if (err instanceof HelperError) {
      const said = err.message.replace(/; nothing was (?:published|changed)/, "");
      if (!restored) err.message = `${said}; ${afterRollback(false, spec.file)}`;
      throw err;
    }
    throw new Refused(`cannot save ${spec.file}: ${(err as Error).message}; ${afterRollback(restored, spec.file)}`);
  }
  try {
    linkSync(tempPath, filePath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
      const why = afterRollback(await undo(), spec.file);
      throw new Refused(`cannot publish ${filePath}: ${(err as Error).message}; ${why}`);
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
  // The temp goes last: while it shares the file's inode, `recover` knows its claim is the replaced version.
  if (prior !== null) unlinkQuiet(claimPath);
  unlinkQuiet(tempPath);
  if (archived !== null) {
    await failpoint(spec.failpoint, "before-prune");
    warnings.push(...pruneArchive(spec.archiveDir, archived, spec.tracked ?? new Set()));
  }
  return { bytes, token: tokenOf(bytes), archived, warnings };
}

/** Whether the claim is the very version `prior` was read as (inode, size, mtime, bytes). */
function claimIsWhatWeRead(claimPath: string, prior: ReadFile): "same" | "changed" | "not-regular" {
  const st = lstatBig(claimPath);
  if (st === null) return "changed";
  if (!st.isFile()) return "not-regular";
  const p = prior.stat;
  if (st.dev !== p.dev || st.ino !== p.ino || st.size !== p.size || st.mtimeNs !== p.mtimeNs) return "changed";
  // Same inode, size and mtime; the bytes decide (an edit within the mtime granularity).
  const again = openRegular(claimPath);
  if (again === null) return "changed";
  try {
    return tokenOf(readAll(again.fd)) === prior.token ? "same" : "changed";
  } finally {
    closeSync(again.fd);
  }
}

/** Hands back what a claim took that was not ours (a directory by rename, only while the name is free). */
function putBack(claimPath: string, filePath: string): boolean {
  try {
    linkSync(claimPath, filePath);
    unlinkSync(claimPath);
    return true;
  } catch (err) {
    // Yet another file took the name; `recover` keeps this one.
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
  }
  // Renamed only while nothing is at the name (undefined), never when it cannot be told (null).
  const free = orNull(() => lstatSync(filePath, { throwIfNoEntry: false })) === undefined;
  return free && succeeds(() => renameSync(claimPath, filePath));
}

// The claim goes last, so `recover` finishes a killed rollback; false when the claim stays for `recover`.
const NO_ROOM = new Set(["ENOSPC", "EDQUOT", "EMLINK"]);
async function rollBack(temp: string, claimPath: string, filePath: string, spec: PublishSpec, archived: string | null) {
  unlinkQuiet(temp);
  await failpoint(spec.failpoint, "rollback-after-temp-drop");
  try {
    await failpoint(spec.failpoint, "rollback-before-restore");
    linkSync(claimPath, filePath);
  } catch (err) {
    // EEXIST: something else is current now; the claim stays for `recover` to archive.
    if (!NO_ROOM.has((err as NodeJS.ErrnoException).code ?? "")) return false;
    // First: after the rename, a second link with no private partner would be an unsafe file.
    if (archived !== null) {
      unlinkQuiet(path.join(spec.archiveDir, archived));
      await failpoint(spec.failpoint, "rollback-after-unarchive");
    }
    if (lstatSync(filePath, { throwIfNoEntry: false }) !== undefined) return false;
    if (!succeeds(() => renameSync(claimPath, filePath))) return false;
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

// "nothing was changed" only when the prior version is current again.
function afterRollback(restored: boolean, file: string): string {
  if (restored) return "nothing was changed";
  return `${file} is kept at a private name until \`recover\` puts it back: run \`recover\``;
}
