import { lstatSync, readdirSync, readFileSync, type BigIntStats } from "../builtins.ts";
import { hostname } from "node:os";
import path from "node:path";
import { orNull } from "./files.ts";

/** `.<file>.tmp-<pid>-<hex>` (a new version being written) or `.<file>.claim-<pid>-<hex>` (the prior, set aside). */
export interface PrivateEntry {
  name: string;
  file: string;
  role: "tmp" | "claim";
  pid: number;
  path: string;
}

// Ours: 8 hex on both. The reference's: `.tmp-<pid>-<16 hex>`, `.claim-<pid>-<32 hex>`.
const TMP = "(tmp)-(\\d+)-(?:[0-9a-f]{8}|[0-9a-f]{16})";
const CLAIM = "(claim)-(\\d+)-(?:[0-9a-f]{8}|[0-9a-f]{32})";
const PRIVATE_PATTERN = new RegExp(`^\\.(.+)\\.(?:${TMP}|${CLAIM})$`);

export function privateName(file: string, role: PrivateEntry["role"], pid: number, rand: string): string {
  return `.${file}.${role}-${pid}-${rand}`;
}

export const listDir = (dir: string): string[] => orNull(() => readdirSync(dir)) ?? [];

export function listPrivate(dir: string): PrivateEntry[] {
  const out: PrivateEntry[] = [];
  for (const name of listDir(dir)) {
    const m = PRIVATE_PATTERN.exec(name);
    if (!m) continue;
    const role = m[2] === "tmp" ? "tmp" : "claim";
    out.push({ name, file: m[1]!, role, pid: Number(m[3] ?? m[5]), path: path.join(dir, name) });
  }
  return out;
}

export const lstatBig = (p: string): BigIntStats | null => orNull(() => lstatSync(p, { bigint: true }));

/** True when a private file of `file` in `dir` has inode `ino`: the one case where a memory file has two links. */
export function hasPrivatePartner(dir: string, file: string, ino: bigint): boolean {
  return listPrivate(dir).some((e) => e.file === file && lstatBig(e.path)?.ino === ino);
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
