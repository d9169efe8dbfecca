// Claude Code's session JSONL (harnesses.md, "Transcripts"): one entry a line. Tolerant of
// unknown records and fields; subagent (sidechain) entries are skipped.
import { emptyCapture, exitFromText, noteEdit, obj, parseLine, str, type Capture, type CommandRun, type PlanItem } from "./types.ts";

const EDIT_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);
// User-entry text that the harness wrote, not the user: slash-command scaffolding, reminders.
const SCAFFOLDING = /^\s*(<command-name>|<command-message>|<local-command-stdout>|<local-command-stderr>|<system-reminder>|<bash-input>|<bash-stdout>|Caveat: The messages below)/;

function todoStatus(s: unknown): PlanItem["status"] {
  return s === "completed" ? "done" : s === "in_progress" ? "doing" : s === "deleted" ? "dropped" : "open";
}

function blockText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => {
      const o = obj(b);
      return o && o.type === "text" ? (str(o.text) ?? "") : "";
    })
    .filter((t) => t !== "")
    .join("\n");
}

/** Extracts a capture from complete Claude Code transcript lines, oldest first. Pure. */
export function parseClaude(lines: readonly string[]): Capture {
  const cap = emptyCapture("claude");
  const pending = new Map<string, CommandRun>();
  const taskCreates = new Map<string, PlanItem>();
  const tasks = new Map<string, PlanItem>();
  let todo: PlanItem[] | null = null;
  let planFrom: "todo" | "tasks" | null = null;
  for (const line of lines) {
    // Most of a tail's bytes are tool results nobody waits for (file reads, searches): a line
    // answering only calls we do not track is counted, not parsed. The quoted key cannot occur
    // unescaped inside a JSON string, so a user's text cannot trigger this.
    if (cap.records > 0 && line.includes('"tool_use_id":"') && !line.includes('"type":"assistant"')) {
      const ids = [...line.matchAll(/"tool_use_id":"([^"\\]+)"/g)].map((m) => m[1]!);
      if (ids.length > 0 && !ids.some((id) => pending.has(id) || taskCreates.has(id))) {
        if (!line.includes('"isSidechain":true')) cap.records++;
        continue;
      }
    }
    const rec = parseLine(line);
    if (rec === null) continue;
    if (rec.isSidechain === true || typeof rec.agentId === "string") continue;
    const type = rec.type;
    if (type !== "user" && type !== "assistant" && type !== "system" && type !== "attachment" && type !== "progress" && type !== "summary") continue;
    cap.records++;
    const ts = str(rec.timestamp);
    if (ts !== null && cap.firstTimestamp === null) cap.firstTimestamp = ts;
    const message = obj(rec.message);
    if (message === null) continue;
    const content = message.content;
    if (type === "user") {
      const blocks = Array.isArray(content) ? content.map(obj) : [];
      const results = blocks.filter((b) => b?.type === "tool_result");
      for (const b of results) {
        const id = str(b!.tool_use_id);
        if (id === null) continue;
        const text = typeof b!.content === "string" ? b!.content : blockText(b!.content);
        const run = pending.get(id);
        if (run !== undefined) {
          const tur = rec.toolUseResult;
          if (b!.is_error === true) run.status = exitFromText(text) ?? (typeof tur === "string" ? exitFromText(tur) : null) ?? "unknown";
          else if (obj(tur) !== null && obj(tur)!.interrupted !== true) run.status = exitFromText(text) ?? "ok";
          else run.status = exitFromText(text) ?? "unknown";
          pending.delete(id);
        }
        const created = taskCreates.get(id);
        if (created !== undefined) {
          // One entry may answer several calls: the block's own text names its task first.
          const fromText = /\bTask #(\w+)/.exec(text)?.[1] ?? null;
          const taskId = fromText ?? (results.length === 1 ? str(obj(obj(rec.toolUseResult)?.task)?.id) : null);
          if (taskId !== null) tasks.set(taskId, created);
          taskCreates.delete(id);
        }
      }
      if (results.length > 0 || rec.toolUseResult !== undefined || rec.isMeta === true || rec.isCompactSummary === true) continue;
      const text = blockText(content);
      if (text.trim() === "" || text.startsWith("[Request interrupted by user") || SCAFFOLDING.test(text)) continue;
      cap.userRequests.push(text);
      continue;
    }
    if (type !== "assistant" || !Array.isArray(content)) continue;
    for (const raw of content) {
      const b = obj(raw);
      if (b === null) continue;
      if (b.type === "text") {
        const text = str(b.text);
        if (text !== null && text.trim() !== "") cap.lastClaim = text;
        continue;
      }
      if (b.type !== "tool_use") continue;
      const name = str(b.name);
      const input = obj(b.input) ?? {};
      const id = str(b.id);
      if (name === "Bash") {
        const run: CommandRun = { command: str(input.command) ?? "", status: "unknown" };
        cap.commands.push(run);
        if (id !== null) pending.set(id, run);
      } else if (name !== null && EDIT_TOOLS.has(name)) {
        noteEdit(cap.filesEdited, str(input.file_path) ?? str(input.notebook_path) ?? "");
      } else if (name === "TodoWrite" && Array.isArray(input.todos)) {
        todo = input.todos.map(obj).filter((t) => t !== null).map((t) => ({ text: str(t!.content) ?? str(t!.activeForm) ?? "", status: todoStatus(t!.status) }));
        planFrom = "todo";
      } else if (name === "TaskCreate") {
        const item: PlanItem = { text: str(input.subject) ?? str(input.description) ?? "", status: "open" };
        if (id !== null) taskCreates.set(id, item);
        planFrom = "tasks";
      } else if (name === "TaskUpdate") {
        const task = tasks.get(String(input.taskId ?? ""));
        if (task !== undefined && input.status !== undefined) task.status = todoStatus(input.status);
        if (task !== undefined && typeof input.subject === "string") task.text = input.subject;
        planFrom = "tasks";
      }
    }
  }
  cap.plan = planFrom === "todo" ? todo : planFrom === "tasks" && tasks.size > 0 ? [...tasks.values()] : todo;
  return cap;
}
