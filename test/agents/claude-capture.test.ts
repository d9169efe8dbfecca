// The Claude Code capture (the events reader folded) must capture exactly what a plain reader of every line in
// order captures: that reader, written apart, is the oracle, and both read the same seeded transcripts (duplicated
// ids, results before their calls, several results in a line, sidechains, subagents, torn lines, records without
// timestamps first, the task tools, ids that JSON escapes, tool_use_id keys outside tool_result blocks).
import { describe, expect, it } from "vitest";
import { parseTranscript } from "../../src/agents/transcripts/parsers.ts";
import { emptyCapture, exitFromText, noteEdit, obj, parseLine, str, type Capture, type CommandRun, type PlanItem } from "../../src/agents/transcripts/types.ts";
import { LISTED_ITEMS } from "../../src/schema/capture.ts";

const parseClaude = (lines: readonly string[]) => parseTranscript("claude", lines);

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

function parseClaudeInOrder(lines: readonly string[]): Capture {
  const cap = emptyCapture("claude");
  const pending = new Map<string, CommandRun>();
  const taskCreates = new Map<string, PlanItem>();
  const tasks = new Map<string, PlanItem>();
  let todo: PlanItem[] | null = null;
  let planFrom: "todo" | "tasks" | null = null;
  const seen = new Set<string>();
  for (const line of lines) {
    const rec = parseLine(line);
    // A line written again anywhere in the file (a resume, a copy appended) is one record.
    if (rec === null || seen.has(line)) continue;
    seen.add(line);
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
          // Claude Code writes an error's code on its first line; a result not flagged an error succeeded.
          if (b!.is_error === true) run.status = exitFromText(text.split("\n")[0]!) ?? "failed";
          else run.status = obj(tur)?.interrupted === true ? "unknown" : "ok";
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
  cap.planFinal = planFrom === "todo";
  return cap;
}

// mulberry32, seeded: the same transcripts on every run.
function prng(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** A transcript of `n` lines drawn from the shapes the adapter meets; ids from a small pool so they repeat. */
function transcript(rand: (n: number) => number, n: number, odd = false): string[] {
  // `odd`: ids that JSON escapes, `tool_use_id` keys outside tool_result blocks, results
  // without `toolUseResult`, an assistant entry not in compact JSON.
  const ids = odd ? Array.from({ length: 4 + rand(20) }, (_, k) => (k % 5 === 4 ? `tu"${k}` : `toolu_${k}`)) : Array.from({ length: 6 + rand(60) }, (_, k) => `toolu_${k}`);
  const id = () => ids[rand(ids.length)]!;
  const ts = () => (rand(8) === 0 ? {} : { timestamp: `2026-11-30T10:${String(rand(60)).padStart(2, "0")}:00Z` });
  const side = () => (rand(12) === 0 ? { isSidechain: true } : rand(20) === 0 ? { agentId: "a1" } : {});
  const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: "s", ...ts(), ...side(), ...o });
  const result = () => {
    const text = ["ok", "Exit code 2", "Exit code 1\nboom", "done\nExit code 1", "Exit code 3", `Task #${rand(5)} created`][rand(6)]!;
    const block = (bid: string) => ({ type: "tool_result", tool_use_id: bid, content: rand(3) === 0 ? [{ type: "text", text }] : text, ...(rand(4) === 0 ? { is_error: true } : {}) });
    const blocks = Array.from({ length: 1 + (rand(5) === 0 ? 1 + rand(2) : 0) }, () => block(id()));
    const tur = [undefined, { stdout: "ok", interrupted: false }, { interrupted: true }, "Error: Exit code 3", { task: { id: String(rand(5)) } }][rand(5)];
    return line({ type: "user", message: { role: "user", content: blocks }, ...(tur === undefined ? {} : { toolUseResult: tur }) });
  };
  const use = (name: string, input: Record<string, unknown>) => line({ type: "assistant", message: { role: "assistant", content: [...(rand(3) === 0 ? [{ type: "text", text: `claim ${rand(100)}` }] : []), { type: "tool_use", id: id(), name, input }] } });
  const shapes: (() => string)[] = [
    () => line({ type: "user", message: { role: "user", content: `request ${rand(1000)}` } }),
    () => line({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: `said ${rand(1000)}` }] } }),
    () => use("Bash", { command: `cmd ${rand(1000)}` }),
    () => use("Bash", { command: `cmd ${rand(1000)}` }),
    result,
    result,
    result,
    () => use(["Edit", "Write", "MultiEdit"][rand(3)]!, { file_path: `/p/f${rand(30)}.ts` }),
    () => use("TodoWrite", { todos: [{ content: `step ${rand(9)}`, status: ["pending", "in_progress", "completed"][rand(3)] }] }),
    () => use("TaskCreate", { subject: `task ${rand(9)}` }),
    () => use("TaskUpdate", { taskId: String(rand(5)), status: "completed" }),
    () => line({ type: "progress", data: { tool_use_id: id() } }),
    () => line({ type: "system", content: "compacted" }),
    () => `{"type":"user","torn`,
    () => "not json",
    () => "",
  ];
  if (odd)
    shapes.push(
      () => line({ type: "user", message: { role: "user", content: [{ type: "text", text: `typed ${rand(100)}`, tool_use_id: id() }] } }),
      () => line({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id(), content: "Exit code 7" }] } }),
      () => line({ type: "user", message: { role: "user", content: `typed ${rand(100)}` }, data: { tool_use_id: id() } }),
      () => JSON.stringify({ type: "assistant", timestamp: "2026-11-30T10:00:00Z", message: { role: "assistant", content: [{ type: "text", text: `spaced ${rand(9)}` }, { type: "tool_use", id: id(), name: "Bash", input: { command: "sp", tool_use_id: id() } }] } }, null, 1).replace(/\n/g, ""),
    );
  return Array.from({ length: n }, () => shapes[rand(shapes.length)]!());
}

/** What must agree: everything, commands' statuses for the listed (newest) ones, `records` as zero or not. */
function comparable(c: Capture): unknown {
  const listedFrom = Math.max(0, c.commands.length - LISTED_ITEMS);
  return {
    ...c,
    records: c.records > 0,
    commands: c.commands.map((r, k) => (k >= listedFrom ? r : { command: r.command })),
  };
}

describe("parseClaude captures what reading every line in order captures", () => {
  const cases = Array.from({ length: 400 }, (_, k) => {
    const rand = prng(1000 + k);
    return transcript(rand, k % 4 === 0 ? 400 + rand(400) : 5 + rand(120));
  });
  it("on 400 seeded transcripts", () => {
    for (const lines of cases) expect(comparable(parseClaude(lines)), lines.join("\n").slice(0, 2000)).toEqual(comparable(parseClaudeInOrder(lines)));
  });
  it("the transcripts reach what the comparison is about (the test can fail)", () => {
    const caps = cases.map(parseClaudeInOrder);
    const statuses = new Set(caps.flatMap((c) => c.commands.map((r) => r.status)));
    for (const s of ["ok", "unknown", "failed", "exit 1", "exit 2", "exit 3"]) expect(statuses).toContain(s);
    expect(caps.some((c) => c.commands.length > LISTED_ITEMS)).toBe(true);
    expect(caps.some((c) => c.plan !== null && c.plan.some((p) => p.text.startsWith("task")))).toBe(true);
  });
  it("a listed command keeps the status of the first result after its call, not a later one", () => {
    const l = (o: Record<string, unknown>) => JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T10:00:00Z", ...o });
    const call = (id: string, command: string) => l({ type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: { command } }] } });
    const res = (id: string, text: string) => l({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text, is_error: true }] }, toolUseResult: `Error: ${text}` });
    const lines = [l({ type: "user", message: { role: "user", content: "go" } }), res("a", "Exit code 9"), call("a", "one"), res("a", "Exit code 1"), res("a", "Exit code 2"), call("a", "two"), call("b", "three")];
    expect(parseClaude(lines).commands).toEqual([
      { command: "one", status: "exit 1" },
      { command: "two", status: "unknown" },
      { command: "three", status: "unknown" },
    ]);
  });
});


describe("parseClaude agrees with the in-order reader on lines a raw-text reading would misread", () => {
  const l = (o: Record<string, unknown>) => JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T10:00:00Z", ...o });
  const call = (id: string, command: string) => l({ type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: { command } }] } });
  it("a result whose id is escaped in the JSON, beside a plain one in the same line", () => {
    const lines = [
      l({ type: "user", message: { role: "user", content: "go" } }),
      call("a", "one"),
      call('b"1', "two"),
      l({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "Exit code 1" }, { type: "tool_result", tool_use_id: 'b"1', content: "Exit code 2" }] }, toolUseResult: "Error: Exit code 2" }),
    ];
    expect(comparable(parseClaude(lines))).toEqual(comparable(parseClaudeInOrder(lines)));
  });
  it("a user entry whose text block carries a tool_use_id key of a pending command", () => {
    const lines = [
      l({ type: "user", message: { role: "user", content: "go" } }),
      call("a", "one"),
      l({ type: "user", message: { role: "user", content: [{ type: "text", text: "stop and run the tests instead", tool_use_id: "a" }] } }),
    ];
    expect(comparable(parseClaude(lines))).toEqual(comparable(parseClaudeInOrder(lines)));
  });
  it("on 400 seeded transcripts of odd shapes", () => {
    for (let k = 0; k < 400; k++) {
      const rand = prng(77000 + k);
      const lines = transcript(rand, 20 + rand(300), true);
      expect(comparable(parseClaude(lines)), lines.join("\n").slice(0, 2000)).toEqual(comparable(parseClaudeInOrder(lines)));
    }
  });
  it("a user entry with such a key, once its command was answered, is the user's words (a sidechain's is not)", () => {
    const res = (id: string, text: string) => l({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] }, toolUseResult: { interrupted: false } });
    const lines = [
      l({ type: "user", message: { role: "user", content: "go" } }),
      call("a", "one"),
      res("a", "Exit code 1"),
      l({ type: "user", message: { role: "user", content: [{ type: "text", text: "seen", tool_use_id: "a" }] } }),
      l({ type: "user", message: { role: "user", content: [{ type: "text", text: "not this", tool_use_id: "a" }] }, isSidechain: true }),
    ];
    expect(comparable(parseClaude(lines))).toEqual(comparable(parseClaudeInOrder(lines)));
    expect(parseClaude(lines).userRequests).toEqual(["go", "seen"]);
  });
});
