// What a transcript adapter extracts for a checkpoint (docs/design.md#checkpoints). Pure data.

/** One step of the latest plan or todo list, as the harness recorded it. */
export interface PlanItem {
  text: string;
  status: "done" | "doing" | "open" | "dropped";
}

/** One shell command and its outcome as recorded: `exit N`, `ok` (success without a code) or `unknown` (docs/design.md#checkpoints). */
export interface CommandRun {
  command: string;
  status: string;
}

/**
 * What one adapter found in the tail of a transcript, oldest first in every list. Every string
 * is raw transcript text: the checkpoint document redacts, flattens and quotes it.
 */
export interface Capture {
  /** The adapter that read it: `claude`, `codex`, `gemini`. */
  format: TranscriptFormat;
  /** The first record timestamp seen (ISO-8601 as written), for `Session-start:`. */
  firstTimestamp: string | null;
  /** Text typed by the user (scaffolding, tool results and meta records left out). */
  userRequests: string[];
  /** The latest plan/todo state, or null when the tail holds none. */
  plan: PlanItem[] | null;
  /**
   * True when that plan is a whole list written at once (TodoWrite, update_plan, write_todos)
   * with no later plan record: nothing earlier in the transcript can change it.
   */
  planFinal: boolean;
  /** Paths the agent edited or wrote, in the order of their last edit, without repeats. */
  filesEdited: string[];
  commands: CommandRun[];
  /** The last text the assistant wrote: a claim, not a fact. */
  lastClaim: string | null;
  /** Complete records the adapter understood (0 means an anchors-only checkpoint). */
  records: number;
  /**
   * The harness version the records name (Claude Code's `version`, Codex's `cli_version`),
   * the latest seen; null when they name none. Never used to choose or refuse a format:
   * formats are recognised by shape (docs/design.md#checkpoints).
   */
  version?: string | null;
}

/**
 * Most items of one list a checkpoint can show (schema/checkpoint.ts): older ones are only
 * counted, so an adapter may leave their details (a command's status) unread.
 */
export const LISTED_ITEMS = 40;

/** The transcript formats with an adapter. */
export type TranscriptFormat = "claude" | "codex" | "gemini";

/** An empty capture for `format`. */
export function emptyCapture(format: TranscriptFormat): Capture {
  return { format, firstTimestamp: null, userRequests: [], plan: null, planFinal: false, filesEdited: [], commands: [], lastClaim: null, records: 0, version: null };
}

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
