import { lstatSync, readdirSync, readFileSync, type BigIntStats } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";

/**
 * Private names in a directory the helper writes to (docs/design.md#files-on-disk): `.<FILE>.tmp-<pid>-<hex>`
 * for a new version being written, `.<FILE>.claim-<pid>-<hex>` for the prior version moved
 * aside during publication. The pid and random part keep two writers from ever sharing one.
 * Ours carry 8 hex digits; the reference helper's (`memory_io.py`) 16 on a temp and 32 on a
 * claim, and are recognised alike (docs/design.md#files-on-disk *(1.1)*, field report 28).
 */
export type PrivateRole = "tmp" | "claim";

/** One private file found in a directory. */
export interface PrivateEntry {
  name: string;
  /** The user-facing file it belongs to, e.g. `HANDOFF.md`. */
  file: string;
  role: PrivateRole;
  pid: number;
  /** Absolute path. */
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

/** Name of the lock directory inside the memory dir (one fixed name; docs/design.md#files-on-disk). */
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

/**
 * True when process `pid` started after `ms` (epoch ms), by Linux's /proc: its start time in
 * clock ticks after boot (USER_HZ, 100 on every Linux port Node runs on). False elsewhere or
 * when unreadable: a pid alive is then trusted to be the holder.
 */
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

/**
 * Whether a lock seen on disk is `held` by a live writer or `dead` (docs/decisions/lock.md):
 * dead when its holder on this host is gone, when its mtime is over 10 s old, when it has
 * had no owner file for 3 s (by ctime), or when its owner is unreadable or on another host
 * and the caller has seen it unchanged (owner nonce, mtime) for `unchangedMs` ≥ 10 s of its
 * monotonic clock: a clock-skewed or future-dated lock of a dead foreign writer.
 * @param unchangedMs 0 for a single look (check, the hook, doctor).
 */
type Times = { mtimeMs: number; ctimeMs: number };

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

/**
 * The lock's state as a reader sees it, without taking it: `free`, `held` by a live writer (pid known or not), or
 * `dead` (its holder is gone or it went stale). Reads, `check` and the hook use this to tell a save in progress from
 * an interrupted one (docs/design.md#tokens-and-the-publication-protocol). `unproven` is true for a held lock this
 * look cannot judge (owner unreadable, or another host's with an mtime ahead of this clock): a writer takes it over
 * after watching it 10 s.
 */
type LockState = { state: "free" | "held" | "dead"; pid: number | null; host: string | null; unproven: boolean };

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
