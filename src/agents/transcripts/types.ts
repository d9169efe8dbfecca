// Helpers the transcript readers share; the capture they fill is schema/capture.ts.

import type { PlanItem } from "../../schema/capture.ts";
import { orNull } from "../../store/files.ts";

export { emptyCapture } from "../../schema/capture.ts";
export type { Capture, CommandRun, PlanItem, TranscriptFormat } from "../../schema/capture.ts";

/** A transcript record, or any object in one. */
export type Rec = Record<string, unknown>;

/** A record's field as an object, or null: every field of a foreign record is optional. */
export function obj(value: unknown): Rec | null {
  const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
  return isObject ? (value as Rec) : null;
}

export function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** Parses one JSONL line; null for a blank, torn or non-object line (a transcript is tolerated, never trusted). */
export function parseLine(line: string): Rec | null {
  return line.startsWith("{") ? orNull(() => obj(JSON.parse(line))) : null;
}

/** Adds `file` as the most recent edit: an earlier mention moves to the end. */
export function noteEdit(list: string[], file: string): void {
  if (file === "") return;
  const at = list.indexOf(file);
  if (at >= 0) list.splice(at, 1);
  list.push(file);
}

/**
 * `exit N` from the last whole line "Exit code N", "Exit Code: N" or "Process exited with code N" of `part`, or null.
 * `part` is only where the harness writes that line: a command's output may print the same words.
 */
export function exitFromText(part: string): string | null {
  const m = [...part.matchAll(/^(?:Process exited with code|Exit [Cc]ode:?) (-?\d{1,4})\r?$/gm)].at(-1);
  return m ? `exit ${Number(m[1])}` : null;
}

/** A version string as a record gives it (`2.1.332`, `0.171.0`): short, printable, or null. */
export function versionOf(value: unknown): string | null {
  return typeof value === "string" && /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}$/.test(value) ? value : null;
}

/** What a tool call did, as the journal's resume outcome and the checkpoint read it. */
export interface ToolEvent {
  kind: "command" | "edit" | "other";
  command?: string;
  path?: string;
}

/** A tool call's result: `status` is the checkpoint's word for a command (`exit N`, `ok` or `unknown`). */
export interface Result {
  text: string;
  failed: boolean;
  status: string;
}

/** One tool call, or one Codex completed item (`item`: what ran, not a call of its own). */
export interface Call {
  id: string | null;
  ts: string | null;
  cwd: string | null;
  /** What it ran or changed (none, one, or one per file a patch names). */
  events: ToolEvent[];
  /** The text a save of this helper is looked for in: the command, or a tool's raw input. */
  text: string;
  /** Its result when the same record holds it (Gemini, Codex items); null when not recorded there. */
  result: Result | null;
  item?: boolean;
  /** A Codex code-mode script: items that arrive before its output tell what it ran. */
  script?: boolean;
  /** A command's status when the call's own record tells it (Gemini, Codex items). */
  status?: string;
  /** A whole plan written at once (TodoWrite, update_plan, write_todos). */
  plan?: PlanItem[];
  /** Claude Code's task tools: a task created (named by its answer) or one updated by its id. */
  task?: { create: PlanItem } | { update: string; status?: PlanItem["status"]; subject?: string };
}

/** The context in use after one response; the window when the record says it or the model tells it. */
export interface Usage {
  used: number;
  window: number | null;
  model: string | null;
}

/** What one transcript line holds; a format's reader fills it, every consumer reads it. */
export interface LineEvents {
  line: number;
  calls: Call[];
  /** Results recorded here for calls made elsewhere, by call id; `task` is the task id a TaskCreate's answer names. */
  results: (Result & { id: string; task?: string | null })[];
  usage: Usage | null;
  /** A window the line names without a usage (Codex's task_started). */
  window: number | null;
  /** The context was compacted here: usage recorded before says nothing of the context after. */
  compacted: boolean;
  /** Codex: the line is a completed item (items then say what ran). */
  items: boolean;
  /** A complete record of the format, counted by the capture; its timestamp and the version it names. */
  record: boolean;
  ts: string | null;
  version: string | null;
  /** A record's id (Claude's uuid, a Codex item's, a Gemini message's): one written again counts at its last write. */
  id: string | null;
  /** The user's words and the agent's last text; `rank` orders Codex's three copies of them (0 preferred). */
  users: string[];
  claim: string | null;
  rank: number;
}

export function noEvents(line: number): LineEvents {
  return {
    line, calls: [], results: [], usage: null, window: null, compacted: false, items: false,
    record: false, ts: null, version: null, id: null, users: [], claim: null, rank: 0,
  };
}

/** Tool names that edit a file, in every format (the resume outcome's edits). */
export const EDIT_TOOLS = new Set([
  "Edit", "Write", "MultiEdit", "NotebookEdit", "write_file", "replace", "edit", "write", "patch", "smart_edit",
]);

/** The non-empty text parts of a content array (of the `types` given, else any) joined, or the content string. */
export function textOf(content: unknown, types?: ReadonlySet<string>): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts = content.map(obj).filter((b) => types === undefined || types.has(str(b?.type) ?? ""));
  return parts.map((b) => str(b?.text) ?? "").filter((t) => t !== "").join("\n");
}

/** A plan tool's status in any format (Claude's `deleted`, Gemini's `cancelled`: dropped). */
export function planStatus(s: unknown): PlanItem["status"] {
  if (s === "completed") return "done";
  if (s === "in_progress") return "doing";
  return s === "deleted" || s === "cancelled" ? "dropped" : "open";
}

/** A non-negative finite number, else 0. */
export const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
