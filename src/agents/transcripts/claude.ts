// Claude Code's session JSONL; subagent (sidechain) entries are skipped.
import { EDIT_TOOLS, exitFromText, noEvents, num, obj, planStatus, str, textOf, versionOf, type Call, type LineEvents,
  type Rec, type Usage } from "./types.ts";

// User-entry text that the harness wrote, not the user: slash-command scaffolding, reminders.
const SCAFFOLDING = new RegExp(
  String.raw`^\s*(<command-name>|<command-message>|<local-command-std(out|err)>|<system-reminder>` +
    "|<bash-input>|<bash-stdout>|Caveat: The messages below)",
);

const TEXT = new Set(["text"]);
const blockText = (content: unknown): string => textOf(content, TEXT);

// Not flagged an error: `ok` (interrupted: `unknown`). An error: `exit N` from its first line, where Claude Code
// writes the code ("Exit code 7"), else `failed`; the output below it may say "Exit code" of anything.
function resultStatus(rec: Rec, block: Rec): string {
  if (block.is_error !== true) return obj(rec.toolUseResult)?.interrupted === true ? "unknown" : "ok";
  return exitFromText(blockText(block.content).split("\n", 1)[0]!) ?? "failed";
}

const RECORD_TYPES = new Set(["user", "assistant", "system", "attachment", "progress", "summary"]);

/** Claude Code's window when nothing says otherwise. */
export const CLAUDE_DEFAULT_WINDOW = 200_000;
// Models whose default window is 1M tokens (2.1.332's default); a `[1m]` suffix says so for any.
const ONE_MILLION = new Set(["claude-opus-5-5"]);

/** The window of a Claude model by name: 1,000,000 for `[1m]` models and those that default to it, else 200,000. */
export function claudeWindow(model: string | null): number {
  if (model === null) return CLAUDE_DEFAULT_WINDOW;
  if (/\[1m\]$/i.test(model) || ONE_MILLION.has(model.toLowerCase())) return 1_000_000;
  return CLAUDE_DEFAULT_WINDOW;
}

function claudeUsage(rec: Rec): Usage | null {
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

/** What one Claude Code record holds; subagent (sidechain) records hold only their usage. */
export function claudeEvents(rec: Rec, line: number): LineEvents {
  const ev = noEvents(line);
  ev.id = str(rec.uuid);
  ev.usage = claudeUsage(rec);
  const type = rec.type;
  if (rec.isSidechain === true || typeof rec.agentId === "string") return ev;
  ev.compacted = type === "system" && rec.subtype === "compact_boundary";
  if (typeof type !== "string" || !RECORD_TYPES.has(type)) return ev;
  ev.record = true;
  ev.ts = str(rec.timestamp);
  ev.version = versionOf(rec.version);
  // A message typed while the agent works is an attachment: the user's words all the same.
  if (type === "attachment") {
    const queued = obj(rec.attachment);
    const prompt = queued?.commandMode === undefined || queued.commandMode === "prompt";
    const text = queued?.type === "queued_command" && prompt ? blockText(queued.prompt) : "";
    if (text.trim() !== "" && !SCAFFOLDING.test(text)) ev.users.push(text);
    return ev;
  }
  const content = obj(rec.message)?.content;
  if (type === "user" && content !== undefined) {
    const results = (Array.isArray(content) ? content.map(obj) : []).filter((b) => b?.type === "tool_result");
    for (const b of results) {
      const id = str(b!.tool_use_id);
      const task = taskOf(b!, results.length === 1 ? rec : null);
      const result = { text: textOf(b!.content), failed: b!.is_error === true, status: resultStatus(rec, b!) };
      if (id !== null) ev.results.push({ id, ...result, task });
    }
    if (results.length > 0 || rec.toolUseResult !== undefined || rec.isMeta === true) return ev;
    const text = rec.isCompactSummary === true ? "" : blockText(content);
    if (text.trim() !== "" && !text.startsWith("[Request interrupted by user") && !SCAFFOLDING.test(text)) {
      ev.users.push(text);
    }
  }
  if (type !== "assistant" || !Array.isArray(content)) return ev;
  for (const b of content.map(obj)) {
    const text = b?.type === "text" ? str(b.text) : null;
    if (text !== null && text.trim() !== "") ev.claim = text;
    if (b?.type === "tool_use") ev.calls.push(claudeCall(rec, b));
  }
  return ev;
}

function claudeCall(rec: Rec, b: Rec): Call {
  const input = obj(b.input) ?? {};
  const name = str(b.name) ?? "";
  const call: Call = { id: str(b.id), ts: str(rec.timestamp), cwd: str(rec.cwd), events: [], text: "", result: null };
  if (name === "Bash") {
    call.text = str(input.command) ?? "";
    call.events.push({ kind: "command", command: call.text });
  } else if (EDIT_TOOLS.has(name)) {
    call.events.push({ kind: "edit", path: str(input.file_path) ?? str(input.notebook_path) ?? "" });
  } else {
    call.events.push({ kind: "other" });
  }
  if (name === "TodoWrite" && Array.isArray(input.todos)) {
    const todos = input.todos.map(obj).filter((t) => t !== null);
    call.plan = todos.map((t) => ({ text: str(t.content) ?? str(t.activeForm) ?? "", status: planStatus(t.status) }));
  } else if (name === "TaskCreate") {
    call.task = { create: { text: str(input.subject) ?? str(input.description) ?? "", status: "open" } };
  } else if (name === "TaskUpdate") {
    const status = input.status === undefined ? undefined : planStatus(input.status);
    call.task = { update: String(input.taskId ?? ""), status, subject: str(input.subject) ?? undefined };
  }
  return call;
}

// One entry may answer several calls: the block's own text first, the entry's `toolUseResult` only when alone.
function taskOf(block: Rec, only: Rec | null): string | null {
  const fromResult = only === null ? null : str(obj(obj(only.toolUseResult)?.task)?.id);
  return /\bTask #(\w+)/.exec(blockText(block.content))?.[1] ?? fromResult;
}
