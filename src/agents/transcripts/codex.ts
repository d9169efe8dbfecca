// Codex CLI's rollout JSONL (harnesses.md, "Transcripts"): `{timestamp, type, payload}` lines.
// Tolerant of unknown records and fields.
import { emptyCapture, exitFromText, noEvents, noteEdit, num, obj, parseLine, str, textOf } from "./types.ts";
import { planStatus, versionOf } from "./types.ts";
import type { Call, Capture, CommandRun, LineEvents, ToolEvent, Usage } from "./types.ts";

// Messages the harness wraps around the user's words: environment and instructions blocks.
const SCAFFOLDING = new RegExp(
  String.raw`^\s*(<environment_context>|<user_instructions>|<user_shell_command>|<turn_aborted>` +
    String.raw`|# AGENTS\.md instructions|<INSTRUCTIONS>)`,
);

const TEXT_PARTS = new Set(["input_text", "output_text", "text", "Text"]);

const contentText = (content: unknown): string => textOf(content, TEXT_PARTS);

function commandOf(name: string, args: Record<string, unknown>): string | null {
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
  const fromText = exitFromText(text);
  if (fromText !== null) return fromText;
  // Older builds: a JSON string `{"output": …, "metadata": {"exit_code": N}}`.
  if (text.startsWith("{")) {
    try {
      const code = obj(obj(JSON.parse(text))?.metadata)?.exit_code;
      if (typeof code === "number" && Number.isInteger(code)) return `exit ${code}`;
    } catch {
      // not JSON after all
    }
  }
  return "unknown";
}

function patchFiles(input: string): string[] {
  const files: string[] = [];
  const names = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;
  for (const m of input.matchAll(names)) noteEdit(files, (m[1] ?? m[2] ?? "").trim());
  return files;
}

// `apply_patch` run through the shell (`apply_patch <<'PATCH' … PATCH`): Codex intercepts it
// as an edit, so it is one, never a command (harnesses.md, "Rollout").
function shellPatch(command: string): boolean {
  return /^\s*(?:apply_patch|applypatch)\b/.test(command) && command.includes("*** Begin Patch");
}

// The string literals a code-mode `exec` script passes to `tools.exec_command({cmd: …})` and
// `tools.apply_patch(…)`: a fallback for a build that records no item for them.
function scriptCalls(script: string): { tool: "exec_command" | "apply_patch"; text: string }[] {
  const out: { tool: "exec_command" | "apply_patch"; text: string }[] = [];
  const literal = String.raw`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\x60[^\x60$]*\x60`;
  const re = new RegExp(String.raw`tools\.(exec_command|apply_patch)\(\s*(?:\{[^}]*?\bcmd\s*:\s*)?(${literal})`, "g");
  for (const m of script.slice(0, 65536).matchAll(re)) {
    const raw = m[2]!;
    let text: string | null = null;
    if (raw.startsWith("\x60")) text = raw.slice(1, -1);
    else {
      try {
        const quoted = raw.startsWith("'") ? `"${raw.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"` : raw;
        text = JSON.parse(quoted) as string;
      } catch {
        text = null;
      }
    }
    if (text !== null) out.push({ tool: m[1] as "exec_command" | "apply_patch", text });
  }
  return out;
}

/** What one record says ran or changed, before the rollout's item records are weighed. */
type Step = { kind: "command"; run: CommandRun } | { kind: "edit"; files: string[] };

/**
 * Extracts a capture from complete Codex rollout lines, oldest first. Pure. Commands and edits have two records on
 * 0.171 (harnesses.md, "Rollout"): the tool call and a completed item; in code mode the items alone say what ran.
 * So a call counts only when no item belongs to it: the item whose id is its `call_id`, else any item while a
 * code-mode `exec` awaits its output. Older rollouts, with no items, keep their calls.
 */
export function parseCodex(lines: readonly string[]): Capture {
  const cap = emptyCapture("codex");
  const r: Reading = {
    steps: [], calls: new Set(), itemized: new Set(), openScripts: new Set(),
    users: [[], [], []], claims: [null, null, null],
  };
  const pending = new Map<string, CommandRun>();
  const add = (step: Step, call: string | null) => addStep(r, step, call);
  for (const line of lines) {
    const rec = parseLine(line);
    if (rec === null) continue;
    const payload = obj(rec.payload);
    if (payload === null || typeof rec.type !== "string") continue;
    cap.records++;
    cap.firstTimestamp ??= str(rec.timestamp);
    if (rec.type === "session_meta") {
      cap.version = versionOf(payload.cli_version) ?? cap.version ?? null;
      continue;
    }
    if (rec.type === "event_msg") {
      const text = str(payload.message);
      const words = text !== null && text.trim() !== "";
      if (payload.type === "user_message" && words && !SCAFFOLDING.test(text)) r.users[0].push(text);
      if (payload.type === "agent_message" && words) r.claims[0] = text;
      if (payload.type === "item_completed") itemStep(r, obj(payload.item));
      continue;
    }
    if (rec.type !== "response_item") continue;
    const kind = payload.type;
    const id = str(payload.call_id) ?? str(payload.id);
    if (kind === "message") {
      const text = contentText(payload.content);
      if (text.trim() === "") continue;
      if (payload.role === "user" && !SCAFFOLDING.test(text)) r.users[1].push(text);
      if (payload.role === "assistant") r.claims[1] = text;
    } else if (kind === "function_call" || kind === "local_shell_call") {
      const name = str(payload.name) ?? (kind === "local_shell_call" ? "local_shell" : "");
      const given = callArgs(payload);
      const args = typeof given === "string" ? {} : (given ?? {});
      if (name === "update_plan" && Array.isArray(args.plan)) {
        const steps = args.plan.map(obj).filter((p) => p !== null);
        cap.plan = steps.map((p) => ({ text: str(p.step) ?? "", status: planStatus(p.status) }));
        cap.planFinal = true;
        continue;
      }
      const command = name === "apply_patch" ? str(args.input) : commandOf(name, args);
      if (command === null) continue;
      if (name === "apply_patch" || shellPatch(command)) {
        add({ kind: "edit", files: patchFiles(command) }, id);
        continue;
      }
      const run: CommandRun = { command, status: "unknown" };
      add({ kind: "command", run }, id);
      if (id !== null) pending.set(id, run);
    } else if (kind === "custom_tool_call") {
      const input = str(payload.input);
      if (input === null) continue;
      if (payload.name === "apply_patch") add({ kind: "edit", files: patchFiles(input) }, id);
      else if (payload.name === "exec") {
        // Code mode: a script calling the tools; its items (if any) come before its output.
        if (id !== null) r.openScripts.add(id);
        for (const c of scriptCalls(input)) {
          if (c.tool === "apply_patch" || shellPatch(c.text)) add({ kind: "edit", files: patchFiles(c.text) }, id);
          else add({ kind: "command", run: { command: c.text, status: "unknown" } }, id);
        }
      }
    } else if (kind === "function_call_output" || kind === "custom_tool_call_output") {
      const callId = str(payload.call_id);
      if (callId === null) continue;
      r.openScripts.delete(callId);
      const run = pending.get(callId);
      if (run !== undefined) {
        run.status = outputStatus(payload.output);
        pending.delete(callId);
      }
    }
  }

  for (const { step, call } of r.steps) {
    if (call !== null && r.itemized.has(call)) continue;
    if (step.kind === "command") cap.commands.push(step.run);
    else for (const f of step.files) noteEdit(cap.filesEdited, f);
  }
  // Newer rollouts record each turn twice (an event and a response item): one source, not both.
  cap.userRequests = r.users.find((u) => u.length > 0) ?? [];
  cap.lastClaim = r.claims[0] ?? r.claims[1] ?? r.claims[2];
  return cap;
}

/**
 * What the capture has read: each step with its call (null: an item's own), the calls whose steps items told
 * (`itemized`), the code-mode `exec` calls awaiting output, and the turn's words from events, response items and
 * completed items, in that order of preference.
 */
interface Reading {
  steps: { step: Step; call: string | null }[];
  calls: Set<string>;
  itemized: Set<string>;
  openScripts: Set<string>;
  users: [string[], string[], string[]];
  claims: [string | null, string | null, string | null];
}

function addStep(r: Reading, step: Step, call: string | null): void {
  r.steps.push({ step, call });
  if (call !== null) r.calls.add(call);
}

// An item's step; it marks the call it belongs to as told by items.
function itemStep(r: Reading, item: Record<string, unknown> | null): void {
  if (item === null) return;
  const type = item.type;
  // The turn's words as items: a third source, for a build that writes no other.
  if (type === "UserMessage" || type === "AgentMessage") {
    const text = contentText(item.content);
    if (text.trim() === "") return;
    if (type === "UserMessage" && !SCAFFOLDING.test(text)) r.users[2].push(text);
    if (type === "AgentMessage") r.claims[2] = text;
    return;
  }
  if (type !== "CommandExecution" && type !== "FileChange") return;
  const id = str(item.id);
  if (id !== null && r.calls.has(id)) r.itemized.add(id);
  else for (const open of r.openScripts) r.itemized.add(open);
  if (type === "CommandExecution") {
    const command = commandOf("exec_command", item);
    if (command === null) return;
    const code = item.exit_code;
    const done = item.status === "completed" ? "ok" : "unknown";
    const status = typeof code === "number" && Number.isInteger(code) ? `exit ${code}` : done;
    addStep(r, { kind: "command", run: { command, status } }, null);
    return;
  }
  if (item.status === "failed" || item.status === "declined") return;
  const files: string[] = [];
  const changes = item.changes;
  if (Array.isArray(changes)) {
    for (const c of changes.map(obj)) noteEdit(files, str(c?.path) ?? "");
  } else if (obj(changes) !== null) {
    for (const [file, change] of Object.entries(obj(changes)!)) {
      noteEdit(files, file);
      const moved = str(obj(change)?.move_path);
      if (moved !== null) noteEdit(files, moved);
    }
  }
  addStep(r, { kind: "edit", files }, null);
}

// A command as a call's arguments or an item give it: a string, or an argv joined by spaces.
function argvText(cmd: unknown): string {
  if (typeof cmd === "string") return cmd;
  return Array.isArray(cmd) ? cmd.filter((c) => typeof c === "string").join(" ") : "";
}

/** A call's arguments: the JSON object its string holds, the object given, or the raw string. */
function callArgs(p: Record<string, unknown>): Record<string, unknown> | string | null {
  const raw = p.arguments ?? p.input ?? p.action;
  if (typeof raw !== "string") return obj(raw);
  if (!raw.startsWith("{")) return raw;
  try {
    return obj(JSON.parse(raw));
  } catch {
    return raw;
  }
}

// A completed item: what ran or changed, with its result. Code mode records nothing else.
function itemCall(item: Record<string, unknown>, at: Pick<Call, "id" | "ts" | "cwd">): Call {
  const failed = typeof item.exit_code === "number" ? item.exit_code !== 0 : item.status === "failed";
  const result = { text: str(item.aggregated_output) ?? "", failed };
  if (item.type === "FileChange") {
    const events = Object.keys(obj(item.changes) ?? {}).map((file): ToolEvent => ({ kind: "edit", path: file }));
    return { ...at, events, text: "", result, item: true };
  }
  const command = commandOf("exec_command", { command: item.command }) ?? "";
  return { ...at, events: [{ kind: "command", command }], text: argvText(item.command), result, item: true };
}

function codexUsage(rec: Record<string, unknown>, payload: Record<string, unknown>): Usage | null {
  // 0.171.0 writes `token_usage_record` as soon as a response ends, before its tool runs, and
  // `token_count` (with the window) only after the tool's output: the PostToolUse hook sees the first.
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

/** The tool calls, results and usage of one Codex record; `state.cwd` follows the session's and turn's folder. */
export function codexEvents(rec: Record<string, unknown>, line: number, state: { cwd: string | null }): LineEvents {
  const ev = noEvents(line);
  const p = obj(rec.payload);
  if (p === null) return ev;
  if (rec.type === "session_meta" || rec.type === "turn_context") state.cwd = str(p.cwd) ?? state.cwd;
  ev.usage = codexUsage(rec, p);
  // Each turn starts with the window: the first tool call of a session can be judged by it.
  if (rec.type === "event_msg" && p.type === "task_started" && num(p.model_context_window) > 0) {
    ev.window = num(p.model_context_window);
  }
  const at = { id: null, ts: str(rec.timestamp), cwd: state.cwd };
  if (rec.type === "event_msg") {
    const item = obj(p.item) ?? p;
    if (item.type === "CommandExecution" || item.type === "FileChange") {
      ev.items = true;
      ev.calls.push(itemCall(item, at));
    }
    return ev;
  }
  if (rec.type !== "response_item") return ev;
  if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
    const id = str(p.call_id);
    const out = p.output;
    const text = typeof out === "string" ? out : (str(obj(out)?.content) ?? str(obj(out)?.output) ?? textOf(out));
    if (id !== null) ev.results.push({ id, text, failed: /Process exited with code [1-9]/.test(text) });
    return ev;
  }
  if (p.type !== "function_call" && p.type !== "custom_tool_call" && p.type !== "local_shell_call") return ev;
  const name = str(p.name) ?? "";
  const args = callArgs(p);
  const command = typeof args === "string" ? "" : argvText(args?.cmd ?? args?.command);
  let events: ToolEvent[] = [{ kind: "other" }];
  if (name === "apply_patch") {
    const patch = typeof args === "string" ? args : (str(args?.input) ?? "");
    const files = patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm);
    events = [...files].map((m) => ({ kind: "edit", path: m[1]!.trim() }));
  } else if (name === "exec_command" || name === "shell" || p.type === "local_shell_call") {
    events = [{ kind: "command", command }];
  }
  const text = typeof args === "string" ? args : command;
  ev.calls.push({ ...at, id: str(p.call_id) ?? str(p.id), events, text, result: null });
  return ev;
}
