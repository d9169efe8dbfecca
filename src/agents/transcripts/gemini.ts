// Gemini CLI's chat JSONL (harnesses.md, "Transcripts"): a metadata line, then messages
// `{id, timestamp, type, content, toolCalls?}`, plus `$set`/`$rewindTo` lines. Tolerant of
// unknown records and fields.
import { EDIT_TOOLS, emptyCapture, exitFromText, noEvents, noteEdit, obj, parseLine, str, textOf } from "./types.ts";
import { planStatus, type Capture, type LineEvents, type ToolEvent } from "./types.ts";

function resultText(result: unknown): string {
  if (typeof result === "string") return result;
  try {
    return JSON.stringify(result ?? "").slice(0, 4096);
  } catch {
    return "";
  }
}

// The SessionStart hook's context, which Gemini prepends to the first prompt (harnesses.md,
// "Context, hooks, trust"): our text, never the user's words.
const HOOK_CONTEXT = /^\s*<hook_context>[\s\S]*?<\/hook_context>\s*/;

/**
 * Extracts a capture from complete Gemini CLI chat lines, oldest first. Pure. A message
 * written again under the same id (0.61 writes each reply first without, then with its
 * tool calls) counts once, as last written, where it was last written.
 */
export function parseGemini(lines: readonly string[]): Capture {
  const cap = emptyCapture("gemini");
  const recs = lines.map(parseLine);
  const lastOf = new Map<string, number>();
  recs.forEach((r, i) => {
    const id = r !== null && (r.type === "user" || r.type === "gemini") ? str(r.id) : null;
    if (id !== null) lastOf.set(id, i);
  });
  for (let i = 0; i < recs.length; i++) {
    const rec = recs[i]!;
    if (rec === null) continue;
    const id = rec.type === "user" || rec.type === "gemini" ? str(rec.id) : null;
    if (id !== null && lastOf.get(id) !== i) continue;
    const ts = str(rec.timestamp) ?? str(rec.startTime);
    if (rec.type !== "user" && rec.type !== "gemini") {
      if (ts !== null && cap.firstTimestamp === null && "sessionId" in rec) cap.firstTimestamp = ts;
      continue;
    }
    cap.records++;
    if (ts !== null && cap.firstTimestamp === null) cap.firstTimestamp = ts;
    const body = textOf(rec.content);
    if (rec.type === "user") {
      const words = body.replace(HOOK_CONTEXT, "");
      if (words.trim() !== "") cap.userRequests.push(words);
      continue;
    }
    if (body.trim() !== "") cap.lastClaim = body;
    if (!Array.isArray(rec.toolCalls)) continue;
    for (const raw of rec.toolCalls) {
      const call = obj(raw);
      if (call === null) continue;
      const name = str(call.name) ?? "";
      const args = obj(call.args) ?? {};
      if (name === "run_shell_command") {
        const out = resultText(call.result);
        const status = exitFromText(out) ?? (call.status === "success" && !/Exit Code:/i.test(out) ? "ok" : "unknown");
        cap.commands.push({ command: str(args.command) ?? "", status });
      } else if (EDIT_TOOLS.has(name)) {
        noteEdit(cap.filesEdited, str(args.file_path) ?? str(args.absolute_path) ?? "");
      } else if (name === "write_todos" && Array.isArray(args.todos)) {
        const todos = args.todos.map(obj).filter((t) => t !== null);
        cap.plan = todos.map((t) => ({ text: str(t.description) ?? "", status: planStatus(t.status) }));
        cap.planFinal = true;
      }
    }
  }
  return cap;
}

// A call's recorded output: the `functionResponse` outputs, or the result as written; null when none yet.
function recordedResult(result: unknown): string | null {
  if (result === undefined || result === null) return null;
  if (typeof result === "string") return result;
  const outputs = (Array.isArray(result) ? result : [result]).map((r) => {
    const response = obj(obj(obj(r)?.functionResponse)?.response);
    return str(response?.output) ?? str(response?.error) ?? "";
  });
  return outputs.join("\n");
}

/** The tool calls of one Gemini CLI record, each with its result when recorded (one record holds both). */
export function geminiEvents(rec: Record<string, unknown>, line: number): LineEvents {
  const ev = noEvents(line);
  if (rec.type !== "gemini" || !Array.isArray(rec.toolCalls)) return ev;
  for (const call of rec.toolCalls.map(obj)) {
    if (call === null) continue;
    const name = str(call.name) ?? "";
    const args = obj(call.args);
    const command = name === "run_shell_command" ? (str(args?.command) ?? "") : null;
    const path = str(args?.file_path) ?? "";
    const edit: ToolEvent = EDIT_TOOLS.has(name) ? { kind: "edit", path } : { kind: "other" };
    const event: ToolEvent = command !== null ? { kind: "command", command } : edit;
    const out = recordedResult(call.result);
    const failed = call.status === "error" || /Exit Code: [1-9]/.test(out ?? "");
    const ts = str(call.timestamp) ?? str(rec.timestamp);
    const result = out === null ? null : { text: out, failed };
    ev.calls.push({ id: null, ts, cwd: null, events: [event], text: command ?? "", result });
  }
  return ev;
}
