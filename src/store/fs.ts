// Small reads that never follow a link or block on a FIFO, for files the helper only peeks at.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readSync, realpathSync,
  type Stats } from "../builtins.ts";
import path from "node:path";
import { orNull } from "./files.ts";
import { hasPrivatePartner } from "./private.ts";

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
