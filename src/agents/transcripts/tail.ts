// The bounded transcript reader of ruling 19: read-only, no link followed, never blocking,
// a regular file only, at most its last 4 MiB (a partial first line dropped) and its first
// 64 KiB for choosing the adapter. It never searches for a transcript.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import path from "node:path";
import type { TranscriptFormat } from "./types.ts";

/** Most bytes read from the end of a transcript (ruling 19). */
export const TAIL_BYTES = 4 * 1024 * 1024;
/** Most bytes read from its start to choose the adapter (ruling 19). */
export const HEAD_BYTES = 64 * 1024;

/** What the reader got: complete lines of the tail and of the head, or why there are none. */
export type TailResult =
  | { ok: true; tail: string[]; head: string[]; size: number }
  | { ok: false; reason: string };

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

/**
 * Reads the transcript at `transcriptPath` within the bounds of ruling 19. Never throws:
 * a missing, linked, non-regular or unreadable file gives `{ok: false, reason}`.
 */
export function readTranscriptTail(transcriptPath: string, maxTail = TAIL_BYTES): TailResult {
  if (!path.isAbsolute(transcriptPath) || transcriptPath.includes("\0")) return { ok: false, reason: "the transcript path is not an absolute path" };
  let fd: number;
  try {
    fd = openSync(transcriptPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === "ENOENT" ? "the transcript does not exist" : code === "ELOOP" ? "the transcript is a link" : `the transcript cannot be opened (${code ?? "error"})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, reason: "the transcript is not a regular file" };
    const size = st.size;
    const length = Math.min(size, maxTail);
    const start = size - length;
    const tailBuf = readAt(fd, length, start);
    const headBuf = start === 0 ? tailBuf.subarray(0, HEAD_BYTES) : readAt(fd, Math.min(HEAD_BYTES, size), 0);
    // A head shorter than the file ends mid-record: its last piece is dropped like the tail's.
    const head = completeLines(headBuf.length < size ? headBuf : Buffer.concat([headBuf, Buffer.from("\n")]), true);
    const tail = completeLines(start === 0 ? Buffer.concat([tailBuf, Buffer.from("\n")]) : tailBuf, start === 0);
    return { ok: true, tail, head, size };
  } catch (err) {
    return { ok: false, reason: `the transcript could not be read (${(err as NodeJS.ErrnoException).code ?? "error"})` };
  } finally {
    closeSync(fd);
  }
}

/**
 * Chooses the adapter from the first complete records (ruling 19): Codex rollouts are
 * `{timestamp, type, payload}`; Claude Code entries carry `sessionId`/`uuid` with a `type`;
 * Gemini chat logs carry `projectHash`/`startTime` or `type: "gemini"` messages.
 * @returns null when no record is recognised (compressed, foreign or empty files).
 */
export function sniffFormat(lines: readonly string[]): TranscriptFormat | null {
  let seen = 0;
  for (const line of lines) {
    if (line.length === 0 || line[0] !== "{") continue;
    if (++seen > 50) break;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    if (rec === null || typeof rec !== "object" || Array.isArray(rec)) continue;
    const r = rec as Record<string, unknown>;
    if ("payload" in r && typeof r.type === "string" && ["session_meta", "response_item", "event_msg", "turn_context", "compacted"].includes(r.type)) return "codex";
    if ("projectHash" in r || r.type === "gemini" || ("startTime" in r && "sessionId" in r && !("uuid" in r))) return "gemini";
    if (("sessionId" in r || "uuid" in r) && typeof r.type === "string") return "claude";
  }
  return null;
}
