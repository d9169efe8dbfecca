// Gemini CLI's chat JSONL: a metadata line, messages, `$set`/`$rewindTo` lines.
import { EDIT_TOOLS, exitFromText, noEvents, obj, planStatus, str, textOf, type Call,
  type LineEvents } from "./types.ts";

// Gemini prepends the SessionStart hook's context to the first prompt: our text, never the user's words.
const HOOK_CONTEXT = /^\s*<hook_context>[\s\S]*?<\/hook_context>\s*/;

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

/** What one Gemini CLI record holds; `id` lets the capture count only a growing message's last write (0.61). */
export function geminiEvents(rec: Record<string, unknown>, line: number): LineEvents {
  const ev = noEvents(line);
  const ts = str(rec.timestamp) ?? str(rec.startTime);
  if (rec.type !== "user" && rec.type !== "gemini") {
    if ("sessionId" in rec) ev.ts = ts;
    return ev;
  }
  ev.record = true;
  ev.ts = ts;
  ev.id = str(rec.id);
  const body = textOf(rec.content);
  if (rec.type === "user") {
    const words = body.replace(HOOK_CONTEXT, "");
    if (words.trim() !== "") ev.users.push(words);
    return ev;
  }
  if (body.trim() !== "") ev.claim = body;
  if (!Array.isArray(rec.toolCalls)) return ev;
  for (const call of rec.toolCalls.map(obj)) {
    if (call !== null) ev.calls.push(geminiCall(call, str(call.timestamp) ?? str(rec.timestamp)));
  }
  return ev;
}

function geminiCall(call: Record<string, unknown>, ts: string | null): Call {
  const name = str(call.name) ?? "";
  const args = obj(call.args) ?? {};
  const out = recordedResult(call.result);
  // Gemini writes `Exit Code: N` after the command's output: its last such line is the harness's.
  const code = exitFromText(out ?? "");
  const failed = call.status === "error" || /^exit -?[1-9]/.test(code ?? "");
  const status = code ?? (call.status === "success" ? "ok" : call.status === "error" ? "failed" : "unknown");
  const result = out === null ? null : { text: out, failed, status };
  const made: Call = { id: null, ts, cwd: null, events: [{ kind: "other" }], text: "", result, status };
  if (name === "run_shell_command") {
    made.text = str(args.command) ?? "";
    made.events = [{ kind: "command", command: made.text }];
  } else if (EDIT_TOOLS.has(name)) {
    made.events = [{ kind: "edit", path: str(args.file_path) ?? str(args.absolute_path) ?? "" }];
  } else if (name === "write_todos" && Array.isArray(args.todos)) {
    const todos = args.todos.map(obj).filter((t) => t !== null);
    made.plan = todos.map((t) => ({ text: str(t.description) ?? "", status: planStatus(t.status) }));
  }
  return made;
}
