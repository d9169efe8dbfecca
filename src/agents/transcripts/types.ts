// Helpers the transcript adapters share; the capture they fill is schema/capture.ts.

export { emptyCapture, LISTED_ITEMS, type Capture, type CommandRun, type PlanItem, type TranscriptFormat } from "../../schema/capture.ts";

/** A record's field as an object, or null: every field of a foreign record is optional. */
export function obj(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A field as a string, or null. */
export function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** Parses one JSONL line; null for a blank, torn or non-object line (a transcript is tolerated, never trusted). */
export function parseLine(line: string): Record<string, unknown> | null {
  if (line.length === 0 || line.charCodeAt(0) !== 0x7b /* { */) return null;
  try {
    return obj(JSON.parse(line));
  } catch {
    return null;
  }
}

/** Adds `file` as the most recent edit: an earlier mention moves to the end. */
export function noteEdit(list: string[], file: string): void {
  if (file === "") return;
  const at = list.indexOf(file);
  if (at >= 0) list.splice(at, 1);
  list.push(file);
}

/** `exit N` from the first "Exit code N" / "exit code: N" / "Process exited with code N" in a tool's output, or null. */
export function exitFromText(text: string): string | null {
  const m = /(?:Process exited with code|Exit [Cc]ode:?)\s*(-?\d{1,4})\b/.exec(text.slice(0, 4096));
  return m ? `exit ${Number(m[1])}` : null;
}

/** A version string as a record gives it (`2.1.332`, `0.171.0`): short, printable, or null. */
export function versionOf(value: unknown): string | null {
  return typeof value === "string" && /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}$/.test(value) ? value : null;
}
