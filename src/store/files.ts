import {
  type BigIntStats, closeSync, constants, fstatSync, nodeCrypto, openSync, readlinkSync, readSync, writeFileSync,
} from "../builtins.ts";
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
    super(message ?? `${filePath} ${UNSAFE[state]}; ${ONE_LINK} (move it away and retry)`);
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
