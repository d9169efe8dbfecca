// The session's last handoff save, found in the lines a transcript adapter reads
// (docs/design.md#checkpoints): a checkpoint covers only what happened after it, so a session
// that saved and then only said "thanks" leaves none, and the handoff it wrote stays the
// newest word. Pure: the caller says which tokens belong to this project.
import { obj, parseLine, str, type TranscriptFormat } from "./types.ts";

/** What one transcript line holds of tool calls, in the terms of every format. */
interface LineEvents {
  /** Tool calls made on this line (every tool counts, the helper's own included). */
  calls: number;
  /** A `write handoff` call made here: its id (to match its result), its timestamp. */
  saves: { id: string | null; ts: string | null; result: string | null; failed: boolean }[];
  /** Results recorded here, by call id. */
  results: { id: string; text: string; failed: boolean }[];
}

/** The save this capture starts after: the token printed, and the line it was made or answered on. */
export interface LastSave {
  /** `CURRENT-SHA256:` of the save (for a save whose result is not recorded yet: the current handoff's). */
  token: string;
  /** Index of the last line belonging to the save; the capture reads the lines after it. */
  line: number;
}

/** Which tokens count as this project's handoffs, and the current one's state. */
export interface ProjectHandoffs {
  /** True when `token` is the current HANDOFF.md's or the SHA-256 of one of its archives. */
  accepts: (token: string) => boolean;
  /** The current handoff's token and `Saved:` (ms), when there is one. */
  current: { token: string; savedMs: number | null } | null;
}

// The helper's own save: `memory_io.mjs … write handoff` in a shell command, quoted or not.
const SAVE_COMMAND = /memory_io\.mjs\\?["']?(?:\s+--?[a-z][\w-]*(?:[= ](?:"[^"]*"|'[^']*'|\S+))?)*\s+write\s+handoff\b/;
const TOKEN_LINE = /^CURRENT-SHA256: ([0-9a-f]{64})\s*$/m;
// Gemini prefixes the merged output with `Output: `.
const SAVED_LINE = /^(?:Output: )?(?:saved|unchanged) HANDOFF\.md\b/m;

/** True when a shell command is this helper's `write handoff` (any root: the token decides). */
export function isSaveCommand(command: string): boolean {
  return SAVE_COMMAND.test(command);
}

/** The token a save's recorded output prints when it succeeded (`saved`/`unchanged`), else null. */
export function savedToken(output: string, failed: boolean): string | null {
  if (failed || !SAVED_LINE.test(output)) return null;
  return TOKEN_LINE.exec(output)?.[1] ?? null;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => str(obj(b)?.text) ?? "").join("\n");
}

// The prefilters: a line naming none of a format's tool words holds no call and no result.
const WORDS: Record<TranscriptFormat, RegExp> = {
  claude: /"tool_use"|"tool_result"/,
  codex: /_call|CommandExecution|FileChange/,
  gemini: /"toolCalls"/,
};

function claudeEvents(rec: Record<string, unknown>): LineEvents {
  const ev: LineEvents = { calls: 0, saves: [], results: [] };
  if (rec.isSidechain === true || typeof rec.agentId === "string") return ev;
  const content = obj(rec.message)?.content;
  if (!Array.isArray(content)) return ev;
  for (const raw of content) {
    const b = obj(raw);
    if (b === null) continue;
    if (rec.type === "assistant" && b.type === "tool_use") {
      ev.calls++;
      const command = b.name === "Bash" ? str(obj(b.input)?.command) : null;
      if (command !== null && isSaveCommand(command)) ev.saves.push({ id: str(b.id), ts: str(rec.timestamp), result: null, failed: false });
    } else if (rec.type === "user" && b.type === "tool_result") {
      const id = str(b.tool_use_id);
      if (id !== null) ev.results.push({ id, text: textOf(b.content), failed: b.is_error === true });
    }
  }
  return ev;
}

function codexCommand(payload: Record<string, unknown>): string {
  let args: unknown = payload.arguments ?? payload.action ?? payload.input;
  if (typeof args === "string" && args.startsWith("{")) {
    try {
      args = JSON.parse(args);
    } catch {
      // a raw string: searched as it is
    }
  }
  const o = obj(args);
  const cmd = o === null ? args : (o.cmd ?? o.command);
  return typeof cmd === "string" ? cmd : Array.isArray(cmd) ? cmd.filter((c) => typeof c === "string").join(" ") : "";
}

function codexEvents(rec: Record<string, unknown>): LineEvents {
  const ev: LineEvents = { calls: 0, saves: [], results: [] };
  const p = obj(rec.payload);
  if (p === null) return ev;
  const ts = str(rec.timestamp);
  if (rec.type === "response_item") {
    if (p.type === "function_call" || p.type === "custom_tool_call" || p.type === "local_shell_call") {
      ev.calls++;
      if (isSaveCommand(codexCommand(p))) ev.saves.push({ id: str(p.call_id) ?? str(p.id), ts, result: null, failed: false });
    } else if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
      const id = str(p.call_id);
      const out = p.output;
      const text = typeof out === "string" ? out : (str(obj(out)?.content) ?? str(obj(out)?.output) ?? textOf(out));
      if (id !== null) ev.results.push({ id, text, failed: /Process exited with code [1-9]/.test(text) });
    }
  } else if (rec.type === "event_msg") {
    // Code mode records what ran only as a completed item: call and result at once.
    const item = obj(p.item) ?? p;
    if (item.type === "CommandExecution") {
      const command = Array.isArray(item.command) ? item.command.filter((c) => typeof c === "string").join(" ") : (str(item.command) ?? "");
      if (command !== "" && isSaveCommand(command)) {
        const failed = typeof item.exit_code === "number" ? item.exit_code !== 0 : item.status === "failed";
        ev.saves.push({ id: null, ts, result: str(item.aggregated_output) ?? "", failed });
      }
    }
  }
  return ev;
}

// A call's recorded output: the `functionResponse` outputs, or the result as written; null when none yet.
function geminiResult(result: unknown): string | null {
  if (result === undefined || result === null) return null;
  if (typeof result === "string") return result;
  const outputs = (Array.isArray(result) ? result : [result]).map((r) => {
    const response = obj(obj(obj(r)?.functionResponse)?.response);
    return str(response?.output) ?? str(response?.error) ?? "";
  });
  return outputs.join("\n");
}

function geminiEvents(rec: Record<string, unknown>): LineEvents {
  const ev: LineEvents = { calls: 0, saves: [], results: [] };
  if (rec.type !== "gemini" || !Array.isArray(rec.toolCalls)) return ev;
  for (const raw of rec.toolCalls) {
    const call = obj(raw);
    if (call === null) continue;
    ev.calls++;
    const command = call.name === "run_shell_command" ? str(obj(call.args)?.command) : null;
    if (command === null || !isSaveCommand(command)) continue;
    // The call and its result live in one record; a result not recorded yet is absent.
    const result = geminiResult(call.result);
    ev.saves.push({ id: null, ts: str(call.timestamp) ?? str(rec.timestamp), result, failed: call.status === "error" || /Exit Code: [1-9]/.test(result ?? "") });
  }
  return ev;
}

const EVENTS: Record<TranscriptFormat, (rec: Record<string, unknown>) => LineEvents> = { claude: claudeEvents, codex: codexEvents, gemini: geminiEvents };

function eventsOf(format: TranscriptFormat, line: string): LineEvents | null {
  if (!WORDS[format].test(line)) return null;
  const rec = parseLine(line);
  return rec === null ? null : EVENTS[format](rec);
}

/** Floors an ISO time to its second, in ms: `Saved:` has seconds only. */
function secondOf(ts: string | null): number | null {
  if (ts === null) return null;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) * 1000 : null;
}

/**
 * Finds the last `write handoff` of this helper in `lines` (oldest first) that saved this
 * project's handoff: its recorded result printed `saved`/`unchanged` and a `CURRENT-SHA256:`
 * that `project.accepts`. A save whose result is not recorded (the transcript lags the hook,
 * or its line was torn) counts only when no line records a later call of any tool and the
 * current handoff's `Saved:` is at or after the call's second. Ordered by position only.
 * @returns the save, or null when the lines hold none.
 */
export function findLastSave(format: TranscriptFormat, lines: readonly string[], project: ProjectHandoffs): LastSave | null {
  const open = new Map<string, number>();
  let found: LastSave | null = null;
  let unanswered: { line: number; ts: string | null } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const ev = eventsOf(format, lines[i]!);
    if (ev === null) continue;
    for (const r of ev.results) {
      const at = open.get(r.id);
      if (at === undefined) continue;
      open.delete(r.id);
      if (unanswered?.line === at) unanswered = null;
      const token = savedToken(r.text, r.failed);
      if (token !== null && project.accepts(token)) found = { token, line: i };
    }
    if (ev.calls > 0) unanswered = null;
    for (const s of ev.saves) {
      if (s.result !== null) {
        const token = savedToken(s.result, s.failed);
        if (token !== null && project.accepts(token)) found = { token, line: i };
      } else {
        if (s.id !== null) open.set(s.id, i);
        unanswered = { line: i, ts: s.ts };
      }
    }
  }
  // The last call, its result not written yet: the handoff on disk says whether it landed.
  if (unanswered !== null && project.current !== null && project.current.savedMs !== null) {
    const at = secondOf(unanswered.ts);
    if (at !== null && project.current.savedMs >= at) return { token: project.current.token, line: unanswered.line };
  }
  return found;
}

/** How many tool calls `lines` record (every tool, the helper's own included). */
export function countToolCalls(format: TranscriptFormat, lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) n += eventsOf(format, line)?.calls ?? 0;
  return n;
}
