// Codex CLI's rollout JSONL : `{timestamp, type, payload}` lines.
import path from "node:path";
import { orNull } from "../../store/files.ts";
import { windowsShaped } from "../harness-path.ts";
import { exitFromText, noEvents, noteEdit, num, obj, parseLine, planStatus, str, textOf, versionOf, type Call,
  type LineEvents, type Rec, type ToolEvent, type Usage } from "./types.ts";

// Messages the harness wraps around the user's words: environment and instructions blocks.
const SCAFFOLDING = new RegExp(
  String.raw`^\s*(<environment_context>|<user_instructions>|<user_shell_command>|<turn_aborted>` +
    String.raw`|# AGENTS\.md instructions|<INSTRUCTIONS>)`,
);

const TEXT_PARTS = new Set(["input_text", "output_text", "text", "Text"]);

const contentText = (content: unknown): string => textOf(content, TEXT_PARTS);

function commandOf(name: string, args: Rec): string | null {
  const cmd = args.cmd ?? args.command;
  if (typeof cmd === "string") return cmd;
  if (Array.isArray(cmd) && cmd.every((c) => typeof c === "string")) {
    // `["bash", "-lc", "<script>"]`: the script is the command the agent wrote.
    const parts = cmd as string[];
    if (parts.length === 3 && /(^|\/)(ba|z)?sh$/.test(parts[0]!) && /^-l?c$/.test(parts[1]!)) return parts[2]!;
    return parts.join(" ");
  }
  return name === "exec_command" || name === "shell" || name === "local_shell" ? "" : null;
}

function outputStatus(output: unknown): string {
  const o = obj(output);
  const text = typeof output === "string" ? output : o !== null ? (str(o.content) ?? str(o.output) ?? "") : "";
  // The header above `Output:` is Codex's; the command's own output follows it.
  const fromText = exitFromText(text.split(/^Output:$/m, 1)[0]!);
  if (fromText !== null) return fromText;
  // Older builds: a JSON string `{"output": …, "metadata": {"exit_code": N}}`.
  const code = obj(parseLine(text)?.metadata)?.exit_code;
  return typeof code === "number" && Number.isInteger(code) ? `exit ${code}` : "unknown";
}

// A patch names files from the session's folder and an item by absolute path: joined, a file has one name.
function patchEdits(input: string, cwd: string | null): ToolEvent[] {
  const files: string[] = [];
  const names = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;
  for (const m of input.matchAll(names)) noteEdit(files, (m[1] ?? m[2] ?? "").trim());
  const os = cwd === null ? null : windowsShaped(cwd) ? path.win32 : cwd.startsWith("/") ? path.posix : null;
  return files.map((f) => ({ kind: "edit", path: os === null || path.win32.isAbsolute(f) ? f : os.join(cwd!, f) }));
}

// Codex intercepts `apply_patch <<'PATCH' … PATCH` run through the shell as an edit.
function shellPatch(command: string): boolean {
  return /^\s*(?:apply_patch|applypatch)\b/.test(command) && command.includes("*** Begin Patch");
}

// A code-mode script's `tools.exec_command`/`tools.apply_patch` literals, for a build that records no item for them.
function scriptCalls(script: string): { tool: "exec_command" | "apply_patch"; text: string }[] {
  const out: { tool: "exec_command" | "apply_patch"; text: string }[] = [];
  const literal = String.raw`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\x60[^\x60$]*\x60`;
  const re = new RegExp(String.raw`tools\.(exec_command|apply_patch)\(\s*(?:\{[^}]*?\bcmd\s*:\s*)?(${literal})`, "g");
  for (const m of script.slice(0, 65536).matchAll(re)) {
    const raw = m[2]!;
    const quoted = raw.startsWith("'") ? `"${raw.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"` : raw;
    const text = raw.startsWith("\x60") ? raw.slice(1, -1) : orNull(() => JSON.parse(quoted) as string);
    if (text !== null) out.push({ tool: m[1] as "exec_command" | "apply_patch", text });
  }
  return out;
}

/** A call's arguments: the JSON object its string holds, the object given, or the raw string. */
function callArgs(p: Rec): Rec | string | null {
  const raw = p.arguments ?? p.input ?? p.action;
  if (typeof raw !== "string") return obj(raw);
  // A string opening a brace is an object when it parses at all.
  return parseLine(raw) ?? raw;
}

// A completed item: what ran or changed, with its result; it tells for the call it belongs to.
function itemCall(item: Rec, at: Pick<Call, "ts" | "cwd">): Call {
  const code = item.exit_code;
  const failed = typeof code === "number" ? code !== 0 : item.status === "failed";
  const done = item.status === "completed" ? "ok" : item.status === "failed" ? "failed" : "unknown";
  const status = typeof code === "number" && Number.isInteger(code) ? `exit ${code}` : done;
  const result = { text: str(item.aggregated_output) ?? "", failed, status };
  const call: Call = { ...at, id: str(item.id), events: [], text: "", result, status, item: true };
  if (item.type === "CommandExecution") {
    call.text = commandOf("exec_command", item) ?? "";
    call.events.push({ kind: "command", command: call.text });
  } else if (item.status === "failed" || item.status === "declined") {
    call.events.push({ kind: "other" });
  } else if (Array.isArray(item.changes)) {
    for (const c of item.changes.map(obj)) addEdit(call.events, str(c?.path));
  } else {
    for (const [file, change] of Object.entries(obj(item.changes) ?? {})) {
      addEdit(call.events, file);
      addEdit(call.events, str(obj(change)?.move_path));
    }
  }
  return call;
}

const addEdit = (events: ToolEvent[], path: string | null) => path && events.push({ kind: "edit", path });

function codexUsage(rec: Rec, payload: Rec): Usage | null {
  // 0.171.0 writes `token_usage_record` before the tool runs, `token_count` after: PostToolUse sees only the first.
  if (rec.type === "token_usage_record") {
    const usage = obj(payload.usage);
    const used = num(usage?.total_tokens) || num(usage?.input_tokens) + num(usage?.output_tokens);
    return used === 0 ? null : { used, window: null, model: null };
  }
  if (rec.type !== "event_msg" || payload.type !== "token_count") return null;
  const info = obj(payload.info);
  const last = obj(info?.last_token_usage);
  if (info === null || last === null) return null;
  const used = num(last.total_tokens) || num(last.input_tokens) + num(last.output_tokens);
  const window = num(info.model_context_window);
  return used === 0 ? null : { used, window: window > 0 ? window : null, model: null };
}

/** What one Codex record holds; `state.cwd` follows the session's and turn's folder. */
export function codexEvents(rec: Rec, line: number, state: { cwd: string | null }): LineEvents {
  const ev = noEvents(line);
  const p = obj(rec.payload);
  if (p === null || typeof rec.type !== "string") return ev;
  ev.compacted = rec.type === "compacted";
  ev.record = true;
  ev.ts = str(rec.timestamp);
  if (rec.type === "session_meta" || rec.type === "turn_context") state.cwd = str(p.cwd) ?? state.cwd;
  if (rec.type === "session_meta") ev.version = versionOf(p.cli_version);
  ev.usage = codexUsage(rec, p);
  // Each turn starts with the window: the first tool call of a session can be judged by it.
  if (rec.type === "event_msg" && p.type === "task_started" && num(p.model_context_window) > 0) {
    ev.window = num(p.model_context_window);
  }
  const at = { ts: ev.ts, cwd: state.cwd };
  if (rec.type === "event_msg") {
    const item = p.type === "item_completed" ? obj(p.item) : null;
    ev.id = str(item?.id);
    if (item?.type === "UserMessage" || item?.type === "AgentMessage") {
      said(ev, 2, item.type === "UserMessage", contentText(item.content));
    } else if (item?.type === "CommandExecution" || item?.type === "FileChange") {
      ev.items = true;
      ev.calls.push(itemCall(item, at));
    } else if (p.type === "user_message" || p.type === "agent_message") {
      said(ev, 0, p.type === "user_message", str(p.message) ?? "");
    }
    return ev;
  }
  if (rec.type !== "response_item") return ev;
  const id = str(p.call_id) ?? str(p.id);
  if (p.type === "message" && (p.role === "user" || p.role === "assistant")) {
    said(ev, 1, p.role === "user", contentText(p.content));
  } else if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
    const out = p.output;
    const text = typeof out === "string" ? out : (str(obj(out)?.content) ?? str(obj(out)?.output) ?? textOf(out));
    const status = outputStatus(out);
    const failed = /^exit -?[1-9]/.test(status);
    if (str(p.call_id) !== null) ev.results.push({ id: str(p.call_id)!, text, failed, status });
  } else if (p.type === "function_call" || p.type === "custom_tool_call" || p.type === "local_shell_call") {
    ev.calls.push(codexCall(p, { ...at, id }));
  }
  return ev;
}

// The turn's words: a user's (harness scaffolding left out) or the agent's.
function said(ev: LineEvents, rank: number, user: boolean, text: string): void {
  if (text.trim() === "") return;
  ev.rank = rank;
  if (!user) ev.claim = text;
  else if (!SCAFFOLDING.test(text)) ev.users.push(text);
}

function codexCall(p: Rec, at: Pick<Call, "id" | "ts" | "cwd">): Call {
  const name = str(p.name) ?? (p.type === "local_shell_call" ? "local_shell" : "");
  const given = callArgs(p);
  const args = typeof given === "string" ? {} : (given ?? {});
  const raw = typeof given === "string" ? given : null;
  const call: Call = { ...at, events: [{ kind: "other" }], text: raw ?? "", result: null };
  if (name === "update_plan" && Array.isArray(args.plan)) {
    const steps = args.plan.map(obj).filter((s) => s !== null);
    call.plan = steps.map((s) => ({ text: str(s.step) ?? "", status: planStatus(s.status) }));
  } else if (name === "apply_patch") {
    call.events = patchEdits(raw ?? str(args.input) ?? "", at.cwd);
  } else if (name === "exec" && p.type === "custom_tool_call" && raw !== null) {
    // Code mode: a script calling the tools; its items (if any) come before its output.
    call.script = true;
    call.events = scriptCalls(raw).flatMap((c): ToolEvent[] => {
      const patch = c.tool === "apply_patch" || shellPatch(c.text);
      return patch ? patchEdits(c.text, at.cwd) : [{ kind: "command", command: c.text }];
    });
  } else if (p.type !== "custom_tool_call") {
    const command = commandOf(name, args);
    if (command === null) return call;
    call.text = command;
    call.events = shellPatch(command) ? patchEdits(command, at.cwd) : [{ kind: "command", command }];
  }
  return call;
}
