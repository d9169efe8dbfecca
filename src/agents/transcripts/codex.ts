// Codex CLI's rollout JSONL (harnesses.md, "Transcripts"): `{timestamp, type, payload}` lines.
// Tolerant of unknown records and fields.
import { emptyCapture, exitFromText, noteEdit, obj, parseLine, str, type Capture, type CommandRun, type PlanItem } from "./types.ts";

// Messages the harness wraps around the user's words: environment and instructions blocks.
const SCAFFOLDING = /^\s*(<environment_context>|<user_instructions>|<user_shell_command>|<turn_aborted>|# AGENTS\.md instructions|<INSTRUCTIONS>)/;

function planStatus(s: unknown): PlanItem["status"] {
  return s === "completed" ? "done" : s === "in_progress" ? "doing" : "open";
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c) => {
      const o = obj(c);
      return o !== null && (o.type === "input_text" || o.type === "output_text" || o.type === "text") ? (str(o.text) ?? "") : "";
    })
    .filter((t) => t !== "")
    .join("\n");
}

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

function patchFiles(input: string, files: string[]): void {
  for (const m of input.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)) noteEdit(files, (m[1] ?? m[2] ?? "").trim());
}

/** Extracts a capture from complete Codex rollout lines, oldest first. Pure. */
export function parseCodex(lines: readonly string[]): Capture {
  const cap = emptyCapture("codex");
  const pending = new Map<string, CommandRun>();
  const eventUser: string[] = [];
  const itemUser: string[] = [];
  let eventClaim: string | null = null;
  let itemClaim: string | null = null;
  for (const line of lines) {
    const rec = parseLine(line);
    if (rec === null) continue;
    const payload = obj(rec.payload);
    if (payload === null || typeof rec.type !== "string") continue;
    cap.records++;
    const ts = str(rec.timestamp);
    if (ts !== null && cap.firstTimestamp === null) cap.firstTimestamp = ts;
    if (rec.type === "event_msg") {
      const text = str(payload.message);
      if (payload.type === "user_message" && text !== null && text.trim() !== "" && !SCAFFOLDING.test(text)) eventUser.push(text);
      if (payload.type === "agent_message" && text !== null && text.trim() !== "") eventClaim = text;
      continue;
    }
    if (rec.type !== "response_item") continue;
    const kind = payload.type;
    if (kind === "message") {
      const text = contentText(payload.content);
      if (text.trim() === "") continue;
      if (payload.role === "user" && !SCAFFOLDING.test(text)) itemUser.push(text);
      if (payload.role === "assistant") itemClaim = text;
    } else if (kind === "function_call" || kind === "local_shell_call") {
      const name = str(payload.name) ?? (kind === "local_shell_call" ? "local_shell" : "");
      let args: Record<string, unknown> = {};
      if (typeof payload.arguments === "string") {
        try {
          args = obj(JSON.parse(payload.arguments)) ?? {};
        } catch {
          args = {};
        }
      } else {
        args = obj(payload.arguments) ?? obj(payload.action) ?? {};
      }
      if (name === "update_plan" && Array.isArray(args.plan)) {
        cap.plan = args.plan.map(obj).filter((p) => p !== null).map((p) => ({ text: str(p!.step) ?? "", status: planStatus(p!.status) }));
        cap.planFinal = true;
        continue;
      }
      if (name === "apply_patch" && typeof args.input === "string") {
        patchFiles(args.input, cap.filesEdited);
        continue;
      }
      const command = commandOf(name, args);
      if (command === null) continue;
      const run: CommandRun = { command, status: "unknown" };
      cap.commands.push(run);
      const id = str(payload.call_id) ?? str(payload.id);
      if (id !== null) pending.set(id, run);
    } else if (kind === "custom_tool_call") {
      if (payload.name === "apply_patch" && typeof payload.input === "string") patchFiles(payload.input, cap.filesEdited);
    } else if (kind === "function_call_output") {
      const id = str(payload.call_id);
      const run = id === null ? undefined : pending.get(id);
      if (run !== undefined) {
        run.status = outputStatus(payload.output);
        pending.delete(id!);
      }
    }
  }
  // Newer rollouts record each turn twice (an event and a response item): one source, not both.
  cap.userRequests = eventUser.length > 0 ? eventUser : itemUser;
  cap.lastClaim = eventClaim ?? itemClaim;
  return cap;
}
