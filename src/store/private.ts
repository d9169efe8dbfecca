import { lstatSync, readdirSync, readFileSync, type BigIntStats } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";

/** `.<FILE>.tmp-<pid>-<hex>` (a new version being written) or `.<FILE>.claim-<pid>-<hex>` (the prior, set aside). */
export type PrivateRole = "tmp" | "claim";

export interface PrivateEntry {
  name: string;
  /** The user-facing file it belongs to, e.g. `HANDOFF.md`. */
  file: string;
  role: PrivateRole;
  pid: number;
  path: string;
}

// Ours: 8 hex on both. The reference's: `.tmp-<pid>-<16 hex>`, `.claim-<pid>-<32 hex>`.
const TMP = "(tmp)-(\\d+)-(?:[0-9a-f]{8}|[0-9a-f]{16})";
const CLAIM = "(claim)-(\\d+)-(?:[0-9a-f]{8}|[0-9a-f]{32})";
const PRIVATE_PATTERN = new RegExp(`^\\.(.+)\\.(?:${TMP}|${CLAIM})$`);

/** The private name for `file` in `role`, unique to this process. */
export function privateName(file: string, role: PrivateRole, pid: number, rand: string): string {
  return `.${file}.${role}-${pid}-${rand}`;
}

/** Lists the private temp and claim files in `dir` (none when it does not exist). */
export function listPrivate(dir: string): PrivateEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: PrivateEntry[] = [];
  for (const name of names) {
    const m = PRIVATE_PATTERN.exec(name);
    if (!m) continue;
    const role: PrivateRole = m[2] === "tmp" ? "tmp" : "claim";
    out.push({ name, file: m[1]!, role, pid: Number(m[3] ?? m[5]), path: path.join(dir, name) });
  }
  return out;
}

/** lstat with bigint fields (exact inodes and times), or null when nothing is there. */
export function lstatBig(p: string): BigIntStats | null {
  try {
    return lstatSync(p, { bigint: true });
  } catch {
    return null;
  }
}

/**
 * True when one of `file`'s private files in `dir` is the very file with inode `ino`: a save
 * between its publication `link` and the drop of its temp (or claim) — the one case where a
 * memory file legitimately has two links (docs/design.md#tokens-and-the-publication-protocol).
 */
export function hasPrivatePartner(dir: string, file: string, ino: bigint): boolean {
  return listPrivate(dir).some((e) => e.file === file && lstatBig(e.path)?.ino === ino);
}

/** The lock directory inside the memory dir. */
export const LOCK_NAME = ".lock";
/** The file inside the lock directory naming its holder. */
export const OWNER_NAME = "owner";

/** Who holds the lock, as its owner file says. */
export interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
}

/** Parses a lock owner file; null when unreadable or malformed. */
export function readOwner(lockDir: string): LockOwner | null {
  try {
    const text = readFileSync(path.join(lockDir, OWNER_NAME), "utf8");
    const data = JSON.parse(text) as Partial<LockOwner>;
    if (typeof data.pid !== "number" || typeof data.host !== "string" || typeof data.nonce !== "string") return null;
    return { pid: data.pid, host: data.host, nonce: data.nonce };
  } catch {
    return null;
  }
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

/** True when process `pid` started after `ms`, by Linux's /proc (USER_HZ 100); false elsewhere or when unreadable. */
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

/** How old a lock may look (its mtime, refreshed by the holder) before it counts as abandoned, in ms. */
export const LOCK_STALE_MS = 10_000;
/** How long a lock directory may exist without an owner file before it counts as abandoned, in ms. */
export const OWNERLESS_GRACE_MS = 3_000;

type Times = { mtimeMs: number; ctimeMs: number };

/**
 * Whether a lock on disk is `held` or `dead` (docs/decisions/lock.md): dead when its holder here is gone, its
 * mtime is over 10 s old, it has had no owner for 3 s, or a foreign or unreadable owner stayed unchanged for
 * `unchangedMs` ≥ 10 s (0 for a single look).
 */
export function lockVerdict(owner: LockOwner | null, st: Times, host: string, unchangedMs: number): "held" | "dead" {
  const local = owner !== null && owner.host === host;
  if (local && !processAlive(owner.pid)) return "dead";
  // A live holder on this host keeps its lock however long its heartbeat waits (a busy event
  // loop); only a process started after the lock was made reuses a dead holder's pid.
  if (local) return startedAfter(owner.pid, st.ctimeMs) ? "dead" : "held";
  if (Date.now() - st.mtimeMs > LOCK_STALE_MS) return "dead";
  if (owner === null && Date.now() - st.ctimeMs > OWNERLESS_GRACE_MS) return "dead";
  if (!local && unchangedMs >= LOCK_STALE_MS) return "dead";
  return "held";
}

type LockState = { state: "free" | "held" | "dead"; pid: number | null; host: string | null; unproven: boolean };

/**
 * The lock's state as a reader sees it, without taking it, to tell a save in progress from an interrupted one;
 * `unproven`: a held lock one look cannot judge (a writer takes it over after watching it 10 s).
 */
export function lockState(memDir: string): LockState {
  const lockDir = path.join(memDir, LOCK_NAME);
  let st: { mtimeMs: number; ctimeMs: number };
  try {
    st = lstatSync(lockDir);
  } catch {
    return { state: "free", pid: null, host: null, unproven: false };
  }
  const owner = readOwner(lockDir);
  const here = hostname();
  const state = lockVerdict(owner, st, here, 0);
  const unproven = state === "held" && (owner === null || (owner.host !== here && st.mtimeMs > Date.now()));
  return { state, pid: owner?.pid ?? null, host: owner?.host ?? null, unproven };
}
