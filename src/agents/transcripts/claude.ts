// Claude Code's session JSONL (harnesses.md, "Transcripts"): one entry a line. Tolerant of
// unknown records and fields; subagent (sidechain) entries are skipped.
import { EDIT_TOOLS, emptyCapture, exitFromText, noEvents, noteEdit, num, obj } from "./types.ts";
import { parseLine, planStatus, str, textOf, versionOf } from "./types.ts";
import type { Capture, CommandRun, LineEvents, PlanItem, ToolEvent, Usage } from "./types.ts";
// User-entry text that the harness wrote, not the user: slash-command scaffolding, reminders.
const SCAFFOLDING = new RegExp(
  String.raw`^\s*(<command-name>|<command-message>|<local-command-std(out|err)>|<system-reminder>` +
    "|<bash-input>|<bash-stdout>|Caveat: The messages below)",
);

const TEXT = new Set(["text"]);
const blockText = (content: unknown): string => textOf(content, TEXT);

// What a command's result record says about it (docs/design.md#checkpoints): `exit N` from the output, else
// `ok` for a success the harness recorded, else `unknown` -- never guessed.
function resultStatus(rec: Record<string, unknown>, block: Record<string, unknown>): string {
  const text = blockText(block.content);
  const tur = rec.toolUseResult;
  const failed = block.is_error === true;
  if (failed) return exitFromText(text) ?? exitFromText(typeof tur === "string" ? tur : "") ?? "unknown";
  if (obj(tur) !== null && obj(tur)!.interrupted !== true) return exitFromText(text) ?? "ok";
  return exitFromText(text) ?? "unknown";
}

const RECORD_TYPES = new Set(["user", "assistant", "system", "attachment", "progress", "summary"]);

/** Extracts a capture from complete Claude Code transcript lines, oldest first. Pure. */
export function parseClaude(lines: readonly string[]): Capture {
  const cap = emptyCapture("claude");
  // Shell commands awaiting their result, by tool_use id.
  const pending = new Map<string, CommandRun>();
  const plans: Plans = { todo: null, from: null, taskCreates: new Map(), tasks: new Map() };
  for (const line of lines) {
    // Most of a tail's bytes are results nobody waits for (file reads): such a line is counted, not
    // parsed. The quoted key cannot occur unescaped inside a JSON string, so user text cannot trigger this.
    if (cap.records > 0 && line.includes('"tool_use_id":"') && !line.includes('"type":"assistant"')) {
      const ids = [...line.matchAll(/"tool_use_id":"([^"\\]+)"/g)].map((m) => m[1]!);
      if (ids.length > 0 && !ids.some((id) => pending.has(id) || plans.taskCreates.has(id))) {
        if (!line.includes('"isSidechain":true')) cap.records++;
        continue;
      }
    }
    const rec = parseLine(line);
    if (rec === null || rec.isSidechain === true || typeof rec.agentId === "string") continue;
    const type = rec.type;
    if (typeof type !== "string" || !RECORD_TYPES.has(type)) continue;
    cap.records++;
    cap.firstTimestamp ??= str(rec.timestamp);
    cap.version = versionOf(rec.version) ?? cap.version ?? null;
    // A message typed while the agent works is an attachment, not a user entry (harnesses.md,
    // "Transcript"): the user's words all the same, in the order they were delivered.
    if (type === "attachment") {
      const queued = obj(rec.attachment);
      const prompt = queued?.commandMode === undefined || queued.commandMode === "prompt";
      const text = queued?.type === "queued_command" && prompt ? blockText(queued.prompt) : "";
      if (text.trim() !== "" && !SCAFFOLDING.test(text)) cap.userRequests.push(text);
      continue;
    }
    const content = obj(rec.message)?.content;
    if (content === undefined) continue;
    if (type === "user") {
      const blocks = Array.isArray(content) ? content.map(obj) : [];
      const results = blocks.filter((b) => b?.type === "tool_result");
      for (const b of results) {
        const id = str(b!.tool_use_id);
        if (id === null) continue;
        const run = pending.get(id);
        if (run !== undefined) run.status = resultStatus(rec, b!);
        pending.delete(id);
        taskCreated(plans, id, b!, results.length === 1 ? rec : null);
      }
      if (results.length > 0 || rec.toolUseResult !== undefined || rec.isMeta === true) continue;
      const text = rec.isCompactSummary === true ? "" : blockText(content);
      if (text.trim() !== "" && !text.startsWith("[Request interrupted by user") && !SCAFFOLDING.test(text)) {
        cap.userRequests.push(text);
      }
      continue;
    }
    if (type !== "assistant" || !Array.isArray(content)) continue;
    for (const b of content.map(obj)) {
      const text = b?.type === "text" ? str(b.text) : null;
      if (text !== null && text.trim() !== "") cap.lastClaim = text;
      if (b?.type !== "tool_use") continue;
      const run = toolUse(cap, plans, b);
      const id = str(b.id);
      if (run !== null && id !== null) pending.set(id, run);
    }
  }
  cap.plan = plans.from === "todo" || plans.tasks.size === 0 ? plans.todo : [...plans.tasks.values()];
  // A task list is built from records that may lie further back (TaskCreate before TaskUpdate).
  cap.planFinal = plans.from === "todo";
  return cap;
}

/** The plan tools' state while reading: the last todo list, the tasks created and updated. */
interface Plans {
  todo: PlanItem[] | null;
  from: "todo" | "tasks" | null;
  taskCreates: Map<string, PlanItem>;
  tasks: Map<string, PlanItem>;
}

// A tool call's part of the capture; a shell command is returned, for its result to be found.
function toolUse(cap: Capture, plans: Plans, b: Record<string, unknown>): CommandRun | null {
  const name = str(b.name) ?? "";
  const input = obj(b.input) ?? {};
  if (name === "Bash") {
    const run: CommandRun = { command: str(input.command) ?? "", status: "unknown" };
    cap.commands.push(run);
    return run;
  }
  if (EDIT_TOOLS.has(name)) noteEdit(cap.filesEdited, str(input.file_path) ?? str(input.notebook_path) ?? "");
  else if (name === "TodoWrite" && Array.isArray(input.todos)) {
    const todos = input.todos.map(obj).filter((t) => t !== null);
    plans.todo = todos.map((t) => ({ text: str(t.content) ?? str(t.activeForm) ?? "", status: planStatus(t.status) }));
    plans.from = "todo";
  } else if (name === "TaskCreate") {
    const item: PlanItem = { text: str(input.subject) ?? str(input.description) ?? "", status: "open" };
    const id = str(b.id);
    if (id !== null) plans.taskCreates.set(id, item);
    plans.from = "tasks";
  } else if (name === "TaskUpdate") {
    const task = plans.tasks.get(String(input.taskId ?? ""));
    if (task !== undefined && input.status !== undefined) task.status = planStatus(input.status);
    if (task !== undefined && typeof input.subject === "string") task.text = input.subject;
    plans.from = "tasks";
  }
  return null;
}

// A TaskCreate's answer names its task: one entry may answer several calls, so the block's own
// text first, then the entry's `toolUseResult` when it answers this call alone (`only`).
type Rec = Record<string, unknown>;

function taskCreated(plans: Plans, id: string, block: Rec, only: Rec | null): void {
  const created = plans.taskCreates.get(id);
  if (created === undefined) return;
  const text = blockText(block.content);
  const fromResult = only === null ? null : str(obj(obj(only.toolUseResult)?.task)?.id);
  const taskId = /\bTask #(\w+)/.exec(text)?.[1] ?? fromResult;
  if (taskId !== null) plans.tasks.set(taskId, created);
  plans.taskCreates.delete(id);
}

/** Claude Code's window when nothing says otherwise (harnesses.md, "Context in use"). */
export const CLAUDE_DEFAULT_WINDOW = 200_000;
// Models whose default window is 1M tokens (2.1.332's default); a `[1m]` suffix says so for any.
const ONE_MILLION = new Set(["claude-opus-5-5"]);

/** The window of a Claude model by name: 1,000,000 for `[1m]` models and those that default to it, else 200,000. */
export function claudeWindow(model: string | null): number {
  if (model === null) return CLAUDE_DEFAULT_WINDOW;
  if (/\[1m\]$/i.test(model) || ONE_MILLION.has(model.toLowerCase())) return 1_000_000;
  return CLAUDE_DEFAULT_WINDOW;
}

function claudeUsage(rec: Record<string, unknown>): Usage | null {
  if (rec.type !== "assistant" || rec.isSidechain === true) return null;
  const message = obj(rec.message);
  const usage = obj(message?.usage);
  if (usage === null) return null;
  // Claude Code's own count: input + cache creation + cache read + output of the last response.
  const kinds = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"];
  const used = kinds.reduce((n, k) => n + num(usage[k]), 0);
  const model = str(message?.model);
  // Synthetic records (an interrupted or refused turn) carry zero usage: they say nothing.
  if (used === 0 || model === "<synthetic>") return null;
  // The model asked for keeps a `[1m]` suffix the API's answer drops.
  const asked = str(rec.requestedModel);
  const name = asked !== null && /\[1m\]$/i.test(asked) ? asked : model;
  return { used, window: claudeWindow(name), model: name };
}

/** The tool calls, results and usage of one Claude Code record; subagent records hold none. */
export function claudeEvents(rec: Record<string, unknown>, line: number): LineEvents {
  const ev = noEvents(line);
  ev.usage = claudeUsage(rec);
  if (rec.isSidechain === true || typeof rec.agentId === "string") return ev;
  const content = obj(rec.message)?.content;
  if (!Array.isArray(content)) return ev;
  for (const b of content.map(obj)) {
    if (rec.type === "assistant" && b?.type === "tool_use") {
      const input = obj(b.input);
      const name = str(b.name) ?? "";
      const command = name === "Bash" ? (str(input?.command) ?? "") : null;
      const file = str(input?.file_path) ?? str(input?.notebook_path) ?? "";
      const edit: ToolEvent = EDIT_TOOLS.has(name) ? { kind: "edit", path: file } : { kind: "other" };
      const event: ToolEvent = command !== null ? { kind: "command", command } : edit;
      const at = { id: str(b.id), ts: str(rec.timestamp), cwd: str(rec.cwd) };
      ev.calls.push({ ...at, events: [event], text: command ?? "", result: null });
    } else if (rec.type === "user" && b?.type === "tool_result") {
      const id = str(b.tool_use_id);
      if (id !== null) ev.results.push({ id, text: textOf(b.content), failed: b.is_error === true });
    }
  }
  return ev;
}
