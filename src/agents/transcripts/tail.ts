// The bounded transcript reader (docs/design.md#checkpoints): no link followed, never blocking, a regular file only.
import { closeSync, constants, fstatSync, openSync, readSync } from "../../builtins.ts";
import { orNull } from "../../store/files.ts";
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

// Complete lines only: a read past byte 0 starts mid-line, and after the last newline a record is being written.
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

/** Opens a transcript and reads its head; never throws. The caller closes it with `closeTranscript`. */
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

// Already closed: nothing held.
export const closeTranscript = (file: TranscriptFile): void => void orNull(() => closeSync(file.fd));

/** Bytes searched back from a transcript's end for where records longer than the part read start. */
export const OVERLONG_SCAN = 32 * 1024 * 1024;

// Where the line holding the byte before `at` starts, searched back from 64 KiB steps; -1 when none.
function lineStart(file: TranscriptFile, at: number, floor: number): number {
  for (let to = at, step = 65536; to > floor; to -= step, step = Math.min(step * 2, FIRST_TAIL_BYTES)) {
    const from = Math.max(floor, to - step);
    const newline = readAt(file.fd, to - from, from).lastIndexOf(0x0a);
    if (newline >= 0) return from + newline + 1;
  }
  return -1;
}

type Part = { lines: string[]; from: number; skipped: number };

/** The complete lines of the last `bytes` before `end`, and the first one's offset; a record longer than TAIL_BYTES
 * is skipped and counted, and the part read on before it so that it hides no earlier record. */
export function tailPart(file: TranscriptFile, bytes: number, end = file.size, skipped = 0): Part {
  const length = Math.min(end, bytes, TAIL_BYTES);
  const start = end - length;
  if (start === 0) return { lines: linesFromStart(file.fd, end, length), from: 0, skipped };
  const peek = length < TAIL_BYTES ? 1 : 0;
  const buf = readAt(file.fd, length + peek, start - peek);
  const lines = completeLines(buf, false);
  const floor = Math.max(0, file.size - OVERLONG_SCAN);
  // No whole line: the last record is cut; from where it starts, the records before it when it is too long.
  const from = lines.length === 0 ? end : start - peek + buf.indexOf(0x0a) + 1;
  const over = from - TAIL_BYTES - 1;
  const long = over > floor && (lines.length === 0 || from > start) && lineStart(file, start - peek, over) === -1;
  const cut = long ? lineStart(file, over, floor) : -1;
  if (cut === -1) return { lines, from, skipped };
  const before = tailPart(file, lines.length === 0 ? bytes : length - (end - from), cut, skipped + 1);
  return { lines: [...before.lines, ...lines], from: before.from, skipped: before.skipped };
}

/** True when the tail's bytes before offset `before` hold any of `markers`: a byte search, no parse. */
export function earlierHolds(file: TranscriptFile, before: number, markers: readonly string[]): boolean {
  const start = file.size - Math.min(file.size, TAIL_BYTES);
  if (before <= start || markers.length === 0) return false;
  const buf = readAt(file.fd, before - start, start);
  return markers.some((marker) => buf.includes(Buffer.from(marker, "latin1")));
}
