import fs, { type Stats } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import { Busy, Refused } from "../errors.ts";
import { randomHex8 } from "./files.ts";
import { LOCK_NAME, LOCK_STALE_MS, OWNER_NAME, processAlive, readOwner, type LockOwner } from "./private.ts";

/** A held memory lock. */
export interface LockHandle {
  /** Throws `Refused` (exit 2) when the lock is no longer ours; called before publication. */
  assertHeld(): void;
  release(): Promise<void>;
}

const RETRY_MS = 25;

// proper-lockfile removes its lock with rmdir; ours holds an owner file, which goes first.
// Its mkdir would use the umask's mode; every directory we make is private (contract §1).
// Synchronous (the library's lockSync, which calls these `*Sync` methods): each of its async
// steps (mkdir, utimes, stat; lstat, unlink, rmdir to release) was a round trip through
// libuv's thread pool that cost 0.2 to 4 ms on a 2-core machine, 6 to 9 ms a save (measured
// 2026-11-30, issue 15). Made when a lock is first taken (the hook and read load this module
// but never lock). lockSync wraps it in a new object at each call, so the library probes the
// mtime precision at each lock (one utimes and one stat: one lock a process).
// Only the five methods lockSync calls: spreading node:fs would load its stream classes.
let madeLockFs: typeof fs | undefined;
// The nonce of the holder whose release is under way, for rmdirSync.
let releasing: string | null = null;
const lockFs = () => (madeLockFs ??= {
  statSync: fs.statSync,
  utimesSync: fs.utimesSync,
  realpathSync: fs.realpathSync,
  mkdirSync(dir: string): void {
    fs.mkdirSync(dir, { mode: 0o700 });
  },
  rmdirSync(dir: string): void {
    // Never reach through a link planted under the lock's name (contract §3).
    if (!fs.lstatSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: "ENOTDIR" });
    // Our release removes the lock only while its owner file is still ours: a holder that took
    // it over meanwhile (ours went stale) keeps it. A stale lock's removal before a takeover
    // (no release under way) goes on whoever its owner was.
    if (releasing !== null && readOwner(dir)?.nonce !== releasing) return;
    try {
      fs.unlinkSync(path.join(dir, OWNER_NAME));
    } catch {
      // No owner file (a holder killed right after mkdir): the directory goes all the same.
    }
    fs.rmdirSync(dir);
  },
} as unknown as typeof fs);

// The lock's name must hold our directory or nothing: a link or a file there is refused,
// never followed (its target is outside our control).
function checkLockPath(lockDir: string): void {
  let st: Stats;
  try {
    st = fs.lstatSync(lockDir);
  } catch {
    return;
  }
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new Refused(`${lockDir} is ${st.isSymbolicLink() ? "a link" : "not a directory"}; it is the helper's private lock: move it away and retry`);
  }
}

/**
 * Takes the cross-process lock on the memory dir (contract §3): a `.lock` directory made
 * atomically by proper-lockfile (mkdir), kept fresh while held, with an owner file naming
 * the holder's pid. Waits at most `timeoutSeconds` (0 tries once). A lock whose holder has
 * died on this host is taken over at once; one whose holder cannot be checked is taken over
 * once it is stale (10 s without refresh). The lock is not the only guard (field report 13):
 * the token is checked again under it and publication cannot overwrite.
 * @throws Busy (exit 5) naming the holder's pid when known.
 */
export async function acquireLock(memDir: string, timeoutSeconds: number, opts: { log?: string } = {}): Promise<LockHandle> {
  const lockDir = path.join(memDir, LOCK_NAME);
  const deadline = Date.now() + timeoutSeconds * 1000;
  const me: LockOwner = { pid: process.pid, host: hostname(), nonce: randomHex8() + randomHex8() };
  let compromised: Error | null = null;
  for (;;) {
    checkLockPath(lockDir);
    try {
      const release = lockfile.lockSync(memDir, {
        lockfilePath: lockDir,
        realpath: false,
        stale: LOCK_STALE_MS,
        update: 2_000,
        retries: 0,
        fs: lockFs(),
        // The default throws from a timer callback and kills the process; record it instead
        // and refuse before publication.
        onCompromised: (err: Error) => {
          compromised = err;
        },
      });
      // proper-lockfile refreshes the lock only while its mtime is the one it set; creating the
      // owner file changes the directory's mtime, so put it back, or the first refresh (2 s
      // later) would take the lock as compromised and refuse any save that takes that long.
      const made = fs.statSync(lockDir);
      fs.writeFileSync(path.join(lockDir, OWNER_NAME), JSON.stringify(me), { mode: 0o600, flag: "wx" });
      fs.utimesSync(lockDir, made.atime, made.mtime);
      logLock(opts.log, "acquire");
      return {
        assertHeld() {
          const owner = readOwner(lockDir);
          if (compromised || !owner || owner.nonce !== me.nonce) {
            throw new Refused("lost the memory lock to another process before publishing; nothing was published: read again and retry");
          }
        },
        async release() {
          logLock(opts.log, "release");
          releasing = me.nonce;
          try {
            release();
          } catch {
            // Already gone (taken over after going stale): nothing of ours to remove.
          } finally {
            releasing = null;
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") {
        throw new Refused(`cannot take the memory lock ${lockDir}: ${(err as Error).message}`);
      }
    }
    const owner = readOwner(lockDir);
    // A holder writes its owner file within milliseconds of making the lock; one that has
    // none after seconds died in between (a kill right after mkdir). A takeover that could
    // not be done (the lock cannot be moved) falls through to the wait and its deadline.
    const dead = owner ? owner.host === me.host && !processAlive(owner.pid) : ownerlessFor(lockDir) > OWNERLESS_GRACE_MS;
    if (dead && takeOverDead(lockDir, owner)) continue;
    if (Date.now() >= deadline) {
      const who = owner ? `process ${owner.pid}` : "another process";
      throw new Busy(`memory is busy: ${who} holds the lock ${lockDir}; wait and retry, or pass a longer --lock-timeout`);
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS + Math.random() * RETRY_MS));
  }
}

/** How long a lock directory may exist without an owner file before it counts as abandoned, in ms. */
const OWNERLESS_GRACE_MS = 3_000;

// Age of an ownerless lock by its change time: proper-lockfile sets its mtime (even ahead of
// the clock, probing precision), but mkdir and utimes both set the ctime to now.
function ownerlessFor(lockDir: string): number {
  try {
    return Date.now() - fs.lstatSync(lockDir).ctimeMs;
  } catch {
    return 0;
  }
}

// Contributor seam (CONTRIBUTING.md): MEMORY_IO_LOCK_LOG=<file> appends one line per
// acquire and release, `<event> <pid> <monotonic ns>`, so tests can check that no two
// holders' intervals overlap. One O_APPEND write per line keeps lines whole.
function logLock(file: string | undefined, event: "acquire" | "release"): void {
  if (!file) return;
  try {
    fs.appendFileSync(file, `${event} ${process.pid} ${process.hrtime.bigint()}\n`);
  } catch {
    // A test seam must never change what the helper does.
  }
}

// Moves a dead holder's lock (or an ownerless one, `dead` null) aside and removes it; false
// when it could not be moved. The rename is atomic, so only one taker
// gets it; if what we moved turns out to be a fresh live lock (its owner changed between our
// read and the rename), it is put back, and that holder's assertHeld still guards publication.
function takeOverDead(lockDir: string, dead: LockOwner | null): boolean {
  const aside = `${lockDir}-dead-${process.pid}-${randomHex8()}`;
  try {
    fs.renameSync(lockDir, aside);
  } catch (err) {
    // Gone already (another taker was first): try again at once. Anything else: wait.
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  const moved = readOwner(aside);
  if (moved && moved.nonce !== dead?.nonce) {
    try {
      fs.renameSync(aside, lockDir);
      return true;
    } catch {
      // Someone made a new lock meanwhile; the one we hold aside is compromised either way.
    }
  }
  fs.rmSync(aside, { recursive: true, force: true });
  return true;
}
