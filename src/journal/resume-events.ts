// The last resume in a transcript part: this helper's `brief` call and the tool calls after it,
// in the terms of every format, for the journal's resume outcome (docs/decisions/journal.md).
// Pure: lines in, events out. A foreign transcript is tolerated, never trusted.
import { obj, parseLine, str, type TranscriptFormat } from "../agents/transcripts/types.ts";
import type { ToolEvent } from "./outcome.ts";

/** A `brief` call of this helper: where it was made and what followed. */
export interface ResumeCall {
  /** Index of the line the call is on. */
  line: number;
  /** Its `--root` argument, unquoted, or null. */
  rootArg: string | null;
  /** The working folder the transcript records for the call (or the session), or null. */
  cwd: string | null;
  /** The call's timestamp as written, or null. */
  ts: string | null;
  /** Tool calls after it, in order (the brief itself left out). */
  events: ToolEvent[];
  /** The token the first `write handoff` after it expected: the handoff the session resumed from. */
  expectedToken: string | null;
}

// `memory_io.mjs … brief` in a shell command, quoted or not; `brief --stdin` (a pasted handoff) is no resume of this
// project.
const BRIEF = /memory_io\.mjs\\?["']?((?:\s+--?[a-z][\w-]*(?:[= ](?:"[^"]*"|'[^']*'|\S+))?)*)\s+brief\b(?![^\n|;&]*--stdin)([^\n|;&]*)/;
const ROOT_ARG = /--root[= ](?:"([^"]*)"|'([^']*)'|(\S+))/;

/** The `--root` of a brief command and whether the command is one; null when it is no brief of this helper. */
export function briefCall(command: string): { rootArg: string | null } | null {
  const m = BRIEF.exec(command);
  if (!m) return null;
  const r = ROOT_ARG.exec(`${m[1]} ${m[2]}`);
  return { rootArg: r ? (r[1] ?? r[2] ?? r[3] ?? null) : null };
}

interface Call {
  event: ToolEvent;
  cwd: string | null;
  ts: string | null;
  /** A Codex completed item (CommandExecution, FileChange) rather than the call that ran it. */
  item?: boolean;
}

const EDIT_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit", "write_file", "replace", "edit", "write", "patch"]);

function claudeCalls(rec: Record<string, unknown>): Call[] {
  if (rec.type !== "assistant" || rec.isSidechain === true || typeof rec.agentId === "string") return [];
  const content = obj(rec.message)?.content;
  if (!Array.isArray(content)) return [];
  const out: Call[] = [];
  for (const raw of content) {
    const b = obj(raw);
    if (b?.type !== "tool_use") continue;
    const input = obj(b.input);
    const name = str(b.name) ?? "";
    const event: ToolEvent =
      name === "Bash" ? { kind: "command", command: str(input?.command) ?? "" } : EDIT_TOOLS.has(name) ? { kind: "edit", path: str(input?.file_path) ?? str(input?.notebook_path) ?? "" } : { kind: "other" };
    out.push({ event, cwd: str(rec.cwd), ts: str(rec.timestamp) });
  }
  return out;
}

function codexArgs(p: Record<string, unknown>): Record<string, unknown> | string | null {
  const raw = p.arguments ?? p.input ?? p.action;
  if (typeof raw === "string" && raw.startsWith("{")) {
    try {
      return obj(JSON.parse(raw));
    } catch {
      return raw;
    }
  }
  return typeof raw === "string" ? raw : obj(raw);
}

function patchPaths(text: string): string[] {
  return [...text.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim());
}

function codexCalls(rec: Record<string, unknown>, state: { cwd: string | null; items: boolean }): Call[] {
  const p = obj(rec.payload);
  if (p === null) return [];
  const ts = str(rec.timestamp);
  if (rec.type === "session_meta") state.cwd = str(p.cwd) ?? state.cwd;
  if (rec.type === "turn_context") state.cwd = str(p.cwd) ?? state.cwd;
  const at = (event: ToolEvent): Call => ({ event, cwd: state.cwd, ts });
  if (rec.type === "event_msg") {
    // Completed items say what ran in every mode (code mode has nothing else): once seen, they
    // are the commands and edits, and the calls that carried them count as other tool calls.
    const item = obj(p.item) ?? p;
    if (item.type === "CommandExecution") {
      state.items = true;
      const cmd = Array.isArray(item.command) ? item.command.filter((c) => typeof c === "string") : [];
      const command = cmd.length >= 3 && /(^|\/)(ba|z)?sh$/.test(cmd[0]!) && cmd[1] === "-lc" ? cmd[2]! : cmd.join(" ") || (str(item.command) ?? "");
      return [{ ...at({ kind: "command", command }), item: true }];
    }
    if (item.type === "FileChange") {
      state.items = true;
      return Object.keys(obj(item.changes) ?? {}).map((file) => ({ ...at({ kind: "edit", path: file }), item: true }));
    }
    return [];
  }
  if (rec.type !== "response_item") return [];
  if (p.type !== "function_call" && p.type !== "custom_tool_call" && p.type !== "local_shell_call") return [];
  const name = str(p.name) ?? "";
  const args = codexArgs(p);
  if (name === "apply_patch") return patchPaths(typeof args === "string" ? args : (str(args?.input) ?? "")).map((file) => at({ kind: "edit", path: file }));
  if (name === "exec_command" || name === "shell" || p.type === "local_shell_call") {
    const o = typeof args === "string" ? null : args;
    const cmd = o?.cmd ?? o?.command;
    const command = typeof cmd === "string" ? cmd : Array.isArray(cmd) ? cmd.filter((c) => typeof c === "string").join(" ") : "";
    return [at({ kind: "command", command })];
  }
  return [at({ kind: "other" })];
}

function geminiCalls(rec: Record<string, unknown>): Call[] {
  if (rec.type !== "gemini" || !Array.isArray(rec.toolCalls)) return [];
  return rec.toolCalls.map((raw) => {
    const call = obj(raw);
    const name = str(call?.name) ?? "";
    const args = obj(call?.args);
    const event: ToolEvent = name === "run_shell_command" ? { kind: "command", command: str(args?.command) ?? "" } : EDIT_TOOLS.has(name) ? { kind: "edit", path: str(args?.file_path) ?? "" } : { kind: "other" };
    return { event, cwd: null, ts: str(call?.timestamp) ?? str(rec.timestamp) };
  });
}

/**
 * Finds the last `brief` call of this helper in `lines` (oldest first) and the tool calls after
 * it. Codex: once its completed items appear, they are the commands and edits (the function
 * calls that carried them count as other calls, so nothing is counted twice).
 * @returns the call, or null when the lines hold none.
 */
export function findLastResume(format: TranscriptFormat, lines: readonly string[]): ResumeCall | null {
  // A brief call names this helper's file: without it on any line there is nothing to parse
  // (the adapter has parsed these lines already; checkpoint runs within 1.5 s).
  if (!lines.some((l) => l.includes("memory_io"))) return null;
  const calls: { call: Call; line: number }[] = [];
  const state = { cwd: null as string | null, items: false };
  for (let i = 0; i < lines.length; i++) {
    const rec = parseLine(lines[i]!);
    if (rec === null) continue;
    const found = format === "claude" ? claudeCalls(rec) : format === "codex" ? codexCalls(rec, state) : geminiCalls(rec);
    for (const call of found) calls.push({ call, line: i });
  }
  let last = -1;
  for (let i = 0; i < calls.length; i++) {
    const e = calls[i]!.call.event;
    if (e.kind === "command" && e.command && briefCall(e.command)) last = i;
  }
  if (last < 0) return null;
  const brief = calls[last]!;
  const events = calls.slice(last + 1).map(({ call }) => (format === "codex" && state.items && call.event.kind !== "other" && call.item !== true ? { kind: "other" as const } : call.event));
  const save = events.find((e) => e.kind === "command" && e.command !== undefined && /\bwrite\s+handoff\b/.test(e.command) && /memory_io\.mjs/.test(e.command));
  const expectedToken = save?.command ? (/--expected-current-sha256[= ]["']?([0-9a-f]{64})\b/.exec(save.command)?.[1] ?? null) : null;
  return { line: brief.line, rootArg: briefCall(brief.call.event.command!)!.rootArg, cwd: brief.call.cwd, ts: brief.call.ts, events, expectedToken };
}
