import { quotedValue } from "../guard/quote.ts";
import { lstatSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync, utimesSync,
  writeFileSync } from "../builtins.ts";
import { hostname } from "node:os";
import path from "node:path";
import { Busy, Refused } from "../errors.ts";
import { orNull, randomHex8, succeeds } from "./files.ts";

/** A held lock; `assertHeld` refuses (exit 2) once it is no longer ours, before publication. */
export interface LockHandle {
  assertHeld(): void;
  release(): Promise<void>;
}

const RETRY_MS = 25;
// How often a holder refreshes its lock's mtime: a fifth of the staleness.
const REFRESH_MS = 2_000;

/** Takes the memory dir's lock `<memDir>/.lock` (docs/decisions/lock.md), waiting at most `timeoutSeconds`. */
export async function acquireLock(memDir: string, timeoutSeconds: number) {
  return acquireLockDir(path.join(memDir, LOCK_NAME), timeoutSeconds, { what: "memory is busy" });
}

interface LockDirOptions {
  what: string;
  retry?: string;
  makeParent?: boolean;
}

/** Takes `lockDir` with the memory lock's protocol. @throws Busy (exit 5) naming the holder; Refused (exit 2). */
export async function acquireLockDir(lockDir: string, timeoutSeconds: number, opts: LockDirOptions) {
  const start = performance.now();
  const deadline = start + timeoutSeconds * 1000;
  const me: LockOwner = { pid: process.pid, host: hostname(), nonce: randomHex8() + randomHex8() };
  let seen = null as { key: string; since: number } | null;
  for (;;) {
    checkLockPath(lockDir);
    if (tryMake(lockDir, me, opts.makeParent === true)) return holding(lockDir, me);
    const now = performance.now();
    const owner = readOwner(lockDir);
    const st = lstatSync(lockDir, { throwIfNoEntry: false });
    // Released meanwhile: try again at once.
    if (st === undefined) continue;
    const key = `${owner?.nonce ?? "-"} ${st.mtimeMs}`;
    // The first sight counts from the wait's start: a 10 s wait ends when the lock was seen unchanged for 10 s.
    if (seen?.key !== key) seen = { key, since: seen ? now : start };
    const verdict = lockVerdict(owner, st, me.host, now - seen.since);
    if (verdict === "dead" && takeOver(lockDir, owner)) {
      seen = null;
      continue;
    }
    if (now >= deadline) {
      const on = owner && owner.host !== me.host ? ` on ${quotedValue(owner.host)}` : "";
      const who = owner ? `process ${owner.pid}${on}` : "another process";
      const retry = opts.retry ?? "wait and retry, or pass a longer --lock-timeout";
      throw new Busy(`${opts.what}: ${who} holds the lock ${lockDir}; ${retry}`, { who, lock: lockDir });
    }
    const pause = Math.min(RETRY_MS + Math.random() * RETRY_MS, deadline - now);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, pause)));
  }
}

// The lock's name holds our directory or nothing: a link there is refused, never followed.
function checkLockPath(lockDir: string): void {
  const st = lstatSync(lockDir, { throwIfNoEntry: false });
  if (st !== undefined && (st.isSymbolicLink() || !st.isDirectory())) {
    const what = st.isSymbolicLink() ? "a link" : "not a directory";
    throw new Refused(`${lockDir} is ${what}; it is the helper's private lock: move it away and retry`);
  }
}

// mkdir is the atomic step; false when another lock is there, or ours was taken as ownerless before its owner file.
function tryMake(lockDir: string, me: LockOwner, makeParent: boolean): boolean {
  try {
    mkdirSync(lockDir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    // The install lock's folder, removed by a holder that left it empty: made again.
    if ((err as NodeJS.ErrnoException).code === "ENOENT" && makeParent) {
      mkdirSync(path.dirname(lockDir), { recursive: true, mode: 0o700 });
      return tryMake(lockDir, me, false);
    }
    throw new Refused(`cannot take the lock ${lockDir}: ${(err as Error).message}`);
  }
  try {
    writeFileSync(path.join(lockDir, OWNER_NAME), JSON.stringify(me), { mode: 0o600, flag: "wx" });
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EEXIST") return false;
    // What cannot be removed is left for the ownerless rule to take over.
    orNull(() => rmdirSync(lockDir));
    throw new Refused(`cannot take the lock ${lockDir}: ${(err as Error).message}`);
  }
}

function holding(lockDir: string, me: LockOwner): LockHandle {
  const ours = () => readOwner(lockDir)?.nonce === me.nonce;
  let lost = false;
  const timer = setInterval(() => {
    if (!ours()) {
      lost = true;
      return;
    }
    const now = new Date();
    if (!succeeds(() => utimesSync(lockDir, now, now))) lost = true;
  }, REFRESH_MS);
  timer.unref();
  return {
    assertHeld() {
      if (lost || !ours()) {
        const lost = "lost the memory lock to another process before publishing";
        throw new Refused(`${lost}; nothing was published: read again and retry`);
      }
    },
    async release() {
      clearInterval(timer);
      // A holder that took ours over (it went stale) keeps its lock.
      if (!ours()) return;
      // Taken over between the check and the removal: nothing of ours is left.
      if (succeeds(() => unlinkSync(path.join(lockDir, OWNER_NAME)))) succeeds(() => rmdirSync(lockDir));
    },
  };
}

// One atomic rename aside, so one taker wins; a fresh lock moved by a race is put back (its assertHeld still guards).
function takeOver(lockDir: string, dead: LockOwner | null): boolean {
  const aside = `${lockDir}-dead-${process.pid}-${randomHex8()}`;
  try {
    renameSync(lockDir, aside);
  } catch (err) {
    // Gone already (another taker was first): try again at once. Anything else: wait.
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  const moved = readOwner(aside);
  // When it cannot go back, someone made a new lock meanwhile; the one we hold aside is compromised either way.
  if (moved && moved.nonce !== dead?.nonce && succeeds(() => renameSync(aside, lockDir))) return true;
  rmSync(aside, { recursive: true, force: true });
  return true;
}

export const LOCK_NAME = ".lock";
export const OWNER_NAME = "owner";

export interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
}

export function readOwner(lockDir: string): LockOwner | null {
  const data = orNull(() => JSON.parse(readFileSync(path.join(lockDir, OWNER_NAME), "utf8")) as Partial<LockOwner>);
  if (typeof data?.pid !== "number" || typeof data.host !== "string" || typeof data.nonce !== "string") return null;
  return { pid: data.pid, host: data.host, nonce: data.nonce };
}

/** True unless the process is known to be gone (EPERM means it exists under another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

// True when process `pid` started after `ms`, by Linux's /proc (USER_HZ 100); false elsewhere.
function startedAfter(pid: number, ms: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const bootS = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
    const startMs = (bootS + Number(fields[19]) / 100) * 1000;
    // A second of slack: btime is rounded to the second.
    return Number.isFinite(startMs) && startMs > ms + 1000;
  } catch {
    return false;
  }
}

/** How old a lock's mtime (refreshed by its holder) may be before it counts as abandoned. */
export const LOCK_STALE_MS = 10_000;
// How long a lock directory may have no owner file before it counts as abandoned.
const OWNERLESS_GRACE_MS = 3_000;

type Times = { mtimeMs: number; ctimeMs: number };

/** Whether a lock on disk is `held` or `dead` (docs/decisions/lock.md); `unchangedMs` is 0 for a single look. */
export function lockVerdict(owner: LockOwner | null, st: Times, host: string, unchangedMs: number): "held" | "dead" {
  const local = owner !== null && owner.host === host;
  if (local && !processAlive(owner.pid)) return "dead";
  // A live local holder keeps its lock however long its heartbeat waits; only a later process reuses a dead one's pid.
  if (local) return startedAfter(owner.pid, st.ctimeMs) ? "dead" : "held";
  if (Date.now() - st.mtimeMs > LOCK_STALE_MS) return "dead";
  if (owner === null && Date.now() - st.ctimeMs > OWNERLESS_GRACE_MS) return "dead";
  if (unchangedMs >= LOCK_STALE_MS) return "dead";
  return "held";
}

type LockState = { state: "free" | "held" | "dead"; pid: number | null; host: string | null; unproven: boolean };

/** The lock's state as a reader sees it; `unproven`: held, but one look cannot judge it (a writer watches 10 s). */
export function lockState(memDir: string): LockState {
  const lockDir = path.join(memDir, LOCK_NAME);
  const st: Times | null = orNull(() => lstatSync(lockDir));
  if (st === null) return { state: "free", pid: null, host: null, unproven: false };
  const owner = readOwner(lockDir);
  const here = hostname();
  const state = lockVerdict(owner, st, here, 0);
  const unproven = state === "held" && (owner === null || (owner.host !== here && st.mtimeMs > Date.now()));
  return { state, pid: owner?.pid ?? null, host: owner?.host ?? null, unproven };
}
