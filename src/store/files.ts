import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, writeSync } from "node:fs";
import type { BigIntStats } from "node:fs";
import path from "node:path";
import { nodeCrypto } from "../builtins.ts";
import { Refused } from "../errors.ts";
import { failpoint } from "./failpoint.ts";
import { quotedPath } from "../schema/anchor-lines.ts";
import { MAX_DOCUMENT_BYTES, TARGETS } from "./paths.ts";

/** The token of a file: lowercase hex SHA-256 of its exact bytes. */
export function tokenOf(bytes: Uint8Array): string {
  return nodeCrypto().createHash("sha256").update(bytes).digest("hex");
}

/** `absent` or 64 lowercase hex (docs/design.md#tokens-and-the-publication-protocol). */
export const TOKEN_PATTERN = /^(absent|[0-9a-f]{64})$/;

/** 8 random lowercase hex characters, for private and archive names. */
export function randomHex8(): string {
  return nodeCrypto().randomBytes(4).toString("hex");
}

/**
 * Creates `p` (0600) holding `body` only if nothing is at that name, never through a link: of two
 * processes racing, one wins. @returns false when it exists or could not be written.
 */
export function createExclusive(p: string, body: string): boolean {
  let fd: number;
  try {
    fd = openSync(p, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch {
    return false;
  }
  try {
    writeSync(fd, body);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** A regular file read whole, with the fstat taken when it was opened. */
export interface ReadFile {
  bytes: Buffer;
  token: string;
  stat: BigIntStats;
}

const ONE_LINK = "the helper only uses regular files with one link";

/** Why an open was refused, for callers that turn states into messages (hook, check). */
export type FileState = "missing" | "link" | "not-regular" | "hard-linked" | "too-large";

/** What to say about a link where a file must be: where it points and what to do. */
export function describeLink(filePath: string): string {
  let to: string;
  try {
    to = readlinkSync(filePath);
  } catch {
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

/** Thrown by `openRegular` for a file that is there but unsafe to use. */
export class UnsafeFile extends Refused {
  readonly state: FileState;
  readonly stat: BigIntStats | null;
  constructor(state: FileState, filePath: string, stat: BigIntStats | null, message?: string) {
    const what: Record<FileState, string> = {
      missing: "does not exist",
      link: "is a link",
      "not-regular": "is not a regular file",
      "hard-linked": "has more than one hard link",
      "too-large": `is larger than ${MAX_DOCUMENT_BYTES} bytes`,
    };
    super(message ?? `${filePath} ${what[state]}; ${ONE_LINK} (move it away and retry)`);
    this.state = state;
    this.stat = stat;
  }
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens a regular file of at most `maxBytes` for reading, never following a link or blocking on a FIFO; a hard
 * link (a crash mid-publication leaves two) is for the caller to judge. @returns null when it does not exist.
 */
export function openRegular(filePath: string, maxBytes = MAX_DOCUMENT_BYTES): { fd: number; stat: BigIntStats } | null {
  let fd: number;
  try {
    fd = openSync(filePath, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP" || code === "EMLINK") throw new UnsafeFile("link", filePath, null, describeLink(filePath));
    // ENXIO: a socket; EISDIR on some systems; anything else is equally unusable.
    const special = code === "ENXIO" || code === "EISDIR" || code === "EOPNOTSUPP";
    if (special) throw new UnsafeFile("not-regular", filePath, null);
    throw new Refused(`cannot open ${filePath}: ${(err as Error).message}`);
  }
  const stat = fstatSync(fd, { bigint: true });
  if (!stat.isFile()) {
    closeSync(fd);
    throw new UnsafeFile("not-regular", filePath, stat);
  }
  if (stat.size > BigInt(maxBytes)) {
    closeSync(fd);
    throw new UnsafeFile("too-large", filePath, stat);
  }
  return { fd, stat };
}

/** Reads an open descriptor to its end (at most `limit + 1` bytes). */
export function readAll(fd: number, limit = MAX_DOCUMENT_BYTES): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(65536);
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
    if (total > limit) break;
  }
  return Buffer.concat(chunks, total);
}

/** How old a file's mtime must be before its second read, in ms (a torn-read guard). */
const QUIET_MS = 50;

// Up to `limit` bytes from offset 0, by position (the descriptor's offset is not used).
function readAt(fd: number, limit: number): Buffer {
  const buf = Buffer.allocUnsafe(limit);
  let off = 0;
  while (off < limit) {
    const n = readSync(fd, buf, off, limit - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

/** True when two stats describe the same file in the same state (a torn-read guard). */
export function sameVersion(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/**
 * Reads a whole regular file, refusing a torn read: the same inode, size and times after the last byte, and the
 * same bytes on a second read through the descriptor. @returns null when it does not exist.
 */
export async function readStable(filePath: string, opts: { failpoint?: string; maxBytes?: number } = {}) {
  const opened = openRegular(filePath, opts.maxBytes);
  if (opened === null) return null;
  const { fd, stat } = opened;
  try {
    await failpoint(opts.failpoint, "read-opened");
    const bytes = readAll(fd, opts.maxBytes);
    const after = fstatSync(fd, { bigint: true });
    if (!sameVersion(stat, after) || BigInt(bytes.length) !== after.size) {
      throw new Refused(`${filePath} changed while it was read; read it again`);
    }
    await failpoint(opts.failpoint, "read-before-recheck");
    // An in-place rewrite at the same size within one tick of the file system's clock keeps
    // size, mtime and ctime: only a second read through the same descriptor, compared byte
    // for byte (so hash for hash) and stat for stat, shows a torn first one
    // (docs/decisions/torn-reads.md). A writer descheduled in the middle
    // of its write leaves the file torn and still; it resumes within milliseconds, so a file
    // changed less than QUIET_MS ago is read again only once it is that old.
    const age = Date.now() - Number(after.mtimeNs / 1_000_000n);
    if (age >= 0 && age < QUIET_MS) await new Promise((resolve) => setTimeout(resolve, QUIET_MS - age));
    const again = readAt(fd, bytes.length + 1);
    if (!again.equals(bytes) || !sameVersion(after, fstatSync(fd, { bigint: true }))) {
      throw new Refused(`${filePath} changed while it was read; read it again`);
    }
    // The token is computed when first asked for: drift and brief never need it, and
    // hashing loads node:crypto (~3 ms of their start-up, measured).
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
