// The bounded transcript reader (docs/design.md#checkpoints): read-only, no link followed, never blocking, a
// regular file only, at most its last 4 MiB (a partial first line dropped) and its first 64 KiB for the format.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { harnessPath } from "../harness-path.ts";

/** Most bytes read from the end of a transcript. */
export const TAIL_BYTES = 4 * 1024 * 1024;
/** Bytes read from the end first; the whole TAIL_BYTES only when they lack what a checkpoint needs. */
export const FIRST_TAIL_BYTES = 1024 * 1024;
/** Most bytes read from its start to choose the format. */
export const HEAD_BYTES = 64 * 1024;

function readAt(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

// Complete lines only: the piece before the first newline is a partial line when the read
// did not start at byte 0, and the piece after the last one is a record still being written.
function completeLines(buf: Buffer, fromStart: boolean): string[] {
  const first = fromStart ? 0 : buf.indexOf(0x0a) + 1;
  const last = buf.lastIndexOf(0x0a);
  if (last < first) return [];
  return buf.subarray(first, last).toString("utf8").split("\n");
}

// A part shorter than the file ends mid-record, so its last piece is dropped like a tail's.
function linesFromStart(fd: number, size: number, bytes: number): string[] {
  const buf = readAt(fd, Math.min(size, bytes), 0);
  return completeLines(buf.length < size ? buf : Buffer.concat([buf, Buffer.from("\n")]), true);
}

/** Why a transcript could not be read, from the error of the read (its code only). */
export function readFailure(err: unknown): string {
  return `the transcript could not be read (${(err as NodeJS.ErrnoException).code ?? "error"})`;
}

/** An open transcript: its size and its first complete lines. */
export interface TranscriptFile {
  fd: number;
  size: number;
  head: string[];
}

type Opened = { ok: true; file: TranscriptFile } | { ok: false; reason: string };

/**
 * Opens a transcript within the reader's bounds and reads its head. Never throws: a missing, linked, non-regular
 * or unreadable file gives `{ok: false, reason}`. The caller closes it with `closeTranscript`.
 */
export function openTranscript(transcriptPath: string): Opened {
  const where = harnessPath("the transcript path", transcriptPath);
  if (!where.ok) return { ok: false, reason: where.reason };
  let fd: number;
  try {
    fd = openSync(where.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const known: Record<string, string> = { ENOENT: "does not exist", ELOOP: "is a link" };
    return { ok: false, reason: `the transcript ${known[code ?? ""] ?? `cannot be opened (${code ?? "error"})`}` };
  }
  let reason: string;
  try {
    const st = fstatSync(fd);
    if (st.isFile()) return { ok: true, file: { fd, size: st.size, head: linesFromStart(fd, st.size, HEAD_BYTES) } };
    reason = "the transcript is not a regular file";
  } catch (err) {
    reason = readFailure(err);
  }
  closeSync(fd);
  return { ok: false, reason };
}

export function closeTranscript(file: TranscriptFile): void {
  try {
    closeSync(file.fd);
  } catch {
    // Already closed: nothing held.
  }
}

/**
 * The complete lines of the last `bytes` (at most TAIL_BYTES) of an open transcript as it was when opened, and the
 * offset of the first one (the size when none). Below TAIL_BYTES the byte before the part is read too, so that a
 * line starting exactly there is kept whole. Throws the read's error.
 */
export function tailPart(file: TranscriptFile, bytes: number): { lines: string[]; from: number } {
  const length = Math.min(file.size, bytes, TAIL_BYTES);
  const start = file.size - length;
  if (start === 0) return { lines: linesFromStart(file.fd, file.size, length), from: 0 };
  const peek = length < TAIL_BYTES ? 1 : 0;
  const buf = readAt(file.fd, length + peek, start - peek);
  const first = buf.indexOf(0x0a) + 1;
  const lines = completeLines(buf, false);
  return { lines, from: lines.length > 0 ? start - peek + first : file.size };
}

/** The complete lines of the first `bytes` of an open transcript. Throws the read's error. */
export function headLines(file: TranscriptFile, bytes: number): string[] {
  return linesFromStart(file.fd, file.size, bytes);
}

export function tailLines(file: TranscriptFile, bytes: number): string[] {
  return tailPart(file, bytes).lines;
}

/**
 * True when the bytes from TAIL_BYTES before the end up to offset `before` (the partial first line included) hold
 * any of `markers` as written: a byte search, no parse. Throws the read's error.
 */
export function earlierHolds(file: TranscriptFile, before: number, markers: readonly string[]): boolean {
  const start = file.size - Math.min(file.size, TAIL_BYTES);
  if (before <= start || markers.length === 0) return false;
  const buf = readAt(file.fd, before - start, start);
  return markers.some((marker) => buf.includes(Buffer.from(marker, "latin1")));
}
