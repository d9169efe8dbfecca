// Files as the helper touches them: never through a link or a FIFO, read whole and untorn, and a save's private names.
import { type BigIntStats, closeSync, constants, fstatSync, lstatSync, nodeCrypto, openSync, readdirSync,
  readFileSync, readlinkSync, readSync, realpathSync, type Stats, writeFileSync } from "../builtins.ts";
import path from "node:path";
import { Refused } from "../errors.ts";
import { failpoint } from "./failpoint.ts";
import { quotedPath } from "../guard/quote.ts";
import { MAX_DOCUMENT_BYTES, TARGETS } from "./paths.ts";

export function orNull<T>(f: () => T): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

export function succeeds(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

/** Lowercase hex SHA-256 of bytes or UTF-8 text; of a file's exact bytes, its token. */
export function tokenOf(data: Uint8Array | string): string {
  return nodeCrypto().createHash("sha256").update(data).digest("hex");
}

/** `absent` or 64 lowercase hex. */
export const TOKEN_PATTERN = /^(absent|[0-9a-f]{64})$/;

export function randomHex8(): string {
  return nodeCrypto().randomBytes(4).toString("hex");
}

/** Creates `p` (0600) holding `body` only if nothing is at that name, never through a link; false if it could not. */
export function createExclusive(p: string, body: string): boolean {
  // O_EXCL with O_CREAT never follows a link, even a dangling one.
  return succeeds(() => writeFileSync(p, body, { flag: "wx", mode: 0o600 }));
}

/** A regular file read whole, with the fstat taken when it was opened. */
export interface ReadFile {
  bytes: Buffer;
  token: string;
  stat: BigIntStats;
}

const ONE_LINK = "the helper only uses regular files with one link";

type FileState = "link" | "not-regular" | "hard-linked" | "too-large";

// What to say about a link where a file must be: where it points and what to do.
function describeLink(filePath: string): string {
  const to = orNull(() => readlinkSync(filePath));
  if (to === null) {
    const fix = "replace the link with the file it points to, or move it away, and retry";
    return `${filePath} is a link; ${ONE_LINK} (${fix})`;
  }
  const dir = path.dirname(filePath);
  const name = path.basename(filePath);
  const pointsAt = path.resolve(dir, to);
  const other = TARGETS.find((t) => t !== name && pointsAt === path.join(dir, t));
  if ((TARGETS as readonly string[]).includes(name) && other !== undefined) {
    return `${filePath} is a link to ${quotedPath(to)}: the lesson belongs in ${other}; use \`--target ${other}\``;
  }
  const fix = "replace the link with a copy of the file it points to, or move it away, and retry";
  return `${filePath} is a link to ${quotedPath(to)}; ${ONE_LINK} (${fix})`;
}

const UNSAFE: Record<FileState, string> = {
  link: "is a link",
  "not-regular": "is not a regular file",
  "hard-linked": "has more than one hard link",
  "too-large": `is larger than ${MAX_DOCUMENT_BYTES} bytes`,
};

/** A file that is there but unsafe to use. */
export class UnsafeFile extends Refused {
  readonly state: FileState;
  constructor(state: FileState, filePath: string, message?: string) {
    // Too large is no matter of links: shortening the file keeps it, moving it away loses it.
    const fix = state === "too-large" ? "the helper reads no larger file (shorten it, or move it away, and retry)"
      : `${ONE_LINK} (move it away and retry)`;
    super(message ?? `${filePath} ${UNSAFE[state]}; ${fix}`);
    this.state = state;
  }
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A regular file of at most `maxBytes` opened without a link or blocking; null when absent; nlink is the caller's. */
export function openRegular(filePath: string, maxBytes = MAX_DOCUMENT_BYTES): { fd: number; stat: BigIntStats } | null {
  let fd: number;
  try {
    fd = openSync(filePath, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP" || code === "EMLINK") throw new UnsafeFile("link", filePath, describeLink(filePath));
    // ENXIO: a socket; EISDIR on some systems; anything else is equally unusable.
    const special = code === "ENXIO" || code === "EISDIR" || code === "EOPNOTSUPP";
    if (special) throw new UnsafeFile("not-regular", filePath);
    throw new Refused(`cannot open ${filePath}: ${(err as Error).message}`);
  }
  const stat = fstatSync(fd, { bigint: true });
  const unsafe = !stat.isFile() ? "not-regular" : stat.size > BigInt(maxBytes) ? "too-large" : null;
  if (unsafe !== null) {
    closeSync(fd);
    throw new UnsafeFile(unsafe, filePath);
  }
  return { fd, stat };
}

/** Reads an open descriptor to its end, from its offset or `from`, stopping once past `limit` bytes. */
export function readAll(fd: number, limit = MAX_DOCUMENT_BYTES, from: number | null = null): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(65536);
    const n = readSync(fd, buf, 0, buf.length, from === null ? null : from + total);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
    if (total > limit) break;
  }
  return Buffer.concat(chunks, total);
}

// How old a file's mtime must be before its second read: a torn-read guard.
const QUIET_MS = 50;

function sameVersion(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** Reads a whole regular file, refusing a torn read (docs/decisions/torn-reads.md); null when it does not exist. */
export async function readStable(filePath: string, opts: { failpoint?: string } = {}) {
  const opened = openRegular(filePath);
  if (opened === null) return null;
  const { fd, stat } = opened;
  try {
    await failpoint(opts.failpoint, "read-opened");
    const bytes = readAll(fd);
    const after = fstatSync(fd, { bigint: true });
    if (!sameVersion(stat, after) || BigInt(bytes.length) !== after.size) {
      throw new Refused(`${filePath} changed while it was read; read it again`);
    }
    await failpoint(opts.failpoint, "read-before-recheck");
    // A same-size rewrite within one clock tick keeps size and times: a file this fresh is read again once older.
    const age = Date.now() - Number(after.mtimeNs / 1_000_000n);
    if (age >= 0 && age < QUIET_MS) await new Promise((resolve) => setTimeout(resolve, QUIET_MS - age));
    const again = readAll(fd, bytes.length, 0);
    if (!again.equals(bytes) || !sameVersion(after, fstatSync(fd, { bigint: true }))) {
      throw new Refused(`${filePath} changed while it was read; read it again`);
    }
    // Hashing loads node:crypto (~3 ms of start-up, measured) and drift and brief never need the token.
    let token: string | null = null;
    return {
      bytes,
      stat,
      get token() {
        return (token ??= tokenOf(bytes));
      },
    };
  } finally {
    closeSync(fd);
  }
}

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

// Small reads that never follow a link or block on a FIFO, for files the helper only peeks at.
/** `p`'s own stat, never through a link; null when nothing is there or it cannot be told. */
export const lstatOrNull = (p: string): Stats | null => orNull(() => lstatSync(p));

/** `p` with every link resolved; null when it cannot be (nothing there, a loop, no permission). */
export const realOrNull = (p: string): string | null => orNull(() => realpathSync(p));

/** True when anything (a link too) is at `p`. */
export const exists = (p: string): boolean => lstatOrNull(p) !== null;

// Opens `p` for reading, never through a link and never blocking on a FIFO; null when it cannot be, or `read` throws.
function peek<T>(p: string, read: (fd: number) => T | null): T | null {
  const fd = orNull(() => openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
  if (fd === null) return null;
  try {
    return read(fd);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** A regular file's text of at most `maxBytes`, never through a link or a FIFO; null for anything else. */
export function readSmall(p: string, maxBytes = 1_000_000): string | null {
  // Windows has no O_NOFOLLOW: there a link is refused by its own stat first.
  if (constants.O_NOFOLLOW === undefined && !lstatOrNull(p)?.isFile()) return null;
  return peek(p, (fd) => {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    // Checked again after the read: a file that grew meanwhile is no smaller for it.
    const bytes = readFileSync(fd);
    return bytes.length <= maxBytes ? bytes.toString("utf8") : null;
  });
}

/** Why `readSmall(p, maxBytes)` gave null, said after the file's name; null when nothing, or a link, is there. */
export function unreadReason(p: string, maxBytes = 1_000_000): string | null {
  const st = lstatOrNull(p);
  if (st === null || st.isSymbolicLink()) return null;
  if (!st.isFile()) return st.isDirectory() ? "is a folder, not a file" : "is not a regular file";
  if (st.size > maxBytes) return `is larger than ${maxBytes === 1_000_000 ? "1 MB" : `${maxBytes} bytes`}`;
  try {
    closeSync(openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
  } catch (err) {
    return `cannot be read (${(err as Error).message.split(",")[0]})`;
  }
  return "changed while it was read";
}

/** The first bytes of a regular file without following a link or blocking; null otherwise. */
export function readHead(filePath: string, bytes = 1_000_000): Buffer | null {
  return readHeadAndTime(filePath, bytes)?.bytes ?? null;
}

export function readHeadAndTime(filePath: string, bytes: number): { bytes: Buffer; mtimeNs: bigint } | null {
  return peek(filePath, (fd) => {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile()) return null;
    // Two links only while a publication is unfinished (its temp is the other): still the whole new version.
    const partnered = st.nlink === 2n && hasPrivatePartner(path.dirname(filePath), path.basename(filePath), st.ino);
    if (st.nlink !== 1n && !partnered) return null;
    const want = Math.min(bytes, Number(st.size) + 1);
    const buf = Buffer.alloc(want);
    const n = readSync(fd, buf, 0, want, 0);
    return { bytes: buf.subarray(0, n), mtimeNs: st.mtimeNs };
  });
}
