import { closeSync, openSync, readFileSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseTranscript } from "../../src/agents/transcripts/parsers.ts";
import { closeTranscript, earlierHolds, HEAD_BYTES, openTranscript, OVERLONG_SCAN, TAIL_BYTES, tailPart } from "../../src/agents/transcripts/tail.ts";
import { readTranscriptTail } from "../verbs/support.ts";
import { exitFromText } from "../../src/agents/transcripts/types.ts";
import { sniffFormat } from "../../src/agents/transcripts/index.ts";
import { CHECKPOINT_MAX_BYTES, renderCheckpoint, safeItem, sameCheckpoint, triggerOf } from "../../src/checkpoint/capture.ts";
import { tempDir } from "../helpers.ts";

const parseClaude = (lines: readonly string[]) => parseTranscript("claude", lines);
const parseCodex = (lines: readonly string[]) => parseTranscript("codex", lines);
const parseGemini = (lines: readonly string[]) => parseTranscript("gemini", lines);
import { FIXED_ANCHORS, FIXTURES, GOLDEN, goldenCheckpoint } from "./golden.ts";
import { FAKE_GITHUB_TOKEN, withFakes } from "../fixtures/transcripts/fakes.ts";

// A checkpoint reads each harness's own transcript (docs/design.md#what-is-captured): one adapter
// per transcript format, each pinned by a golden
// checkpoint, tolerant of what it does not know; the tail reader is bounded.

const claudeLine = (o: Record<string, unknown>) => JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T10:00:00Z", ...o });
const userSays = (text: string, extra: Record<string, unknown> = {}) => claudeLine({ type: "user", message: { role: "user", content: text }, ...extra });

describe("golden transcripts give the expected checkpoints", () => {
  it.each(GOLDEN)("%s (%s)", (name, format) => {
    expect(goldenCheckpoint(name, format)).toBe(readFileSync(path.join(FIXTURES, `${name}.expected.md`), "utf8"));
  });

  it("the Claude Code golden skips sidechain records, meta and interrupted entries, and quotes planted text", () => {
    const text = goldenCheckpoint("claude", "claude");
    expect(text).not.toMatch(/SUBAGENT|subagent-only|\/model|Request interrupted|SUMMARY TEXT/);
    // Tool output (where the instruction was planted, and the .env secret) never reaches a checkpoint.
    expect(text).not.toMatch(/Ignore all previous|ghp_/);
    // A heading inside a claim stays inside its quoted line.
    expect(text.split("\n").filter((l) => l === "## Environment anchors")).toHaveLength(1);
  });
});

describe("Claude Code adapter: neighbours of the golden", () => {
  it.each([
    ["a plain typed request", [userSays("do X")], ["do X"]],
    ["text blocks are joined", [claudeLine({ type: "user", message: { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] } })], ["a\nb"]],
    ["isMeta is not the user", [userSays("meta", { isMeta: true })], []],
    ["a compaction summary is not the user", [userSays("sum", { isCompactSummary: true })], []],
    ["an interruption is not the user", [userSays("[Request interrupted by user]")], []],
    ["slash-command scaffolding is not the user", [userSays("<command-name>/clear</command-name>"), userSays("<local-command-stdout>x</local-command-stdout>")], []],
    ["a tool result entry is not the user", [userSays("x", { toolUseResult: { stdout: "" } })], []],
    ["a sidechain entry is skipped", [userSays("sub", { isSidechain: true })], []],
    ["an agentId entry is skipped", [userSays("sub", { agentId: "a1" })], []],
  ])("%s", (_t, lines, expected) => {
    expect(parseClaude(lines).userRequests).toEqual(expected);
  });

  const bash = (id: string, command: string) => claudeLine({ type: "assistant", message: { content: [{ type: "tool_use", id, name: "Bash", input: { command } }] } });
  const result = (id: string, content: string, isError: boolean | undefined, tur: unknown) =>
    claudeLine({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: id, content, ...(isError === undefined ? {} : { is_error: isError }) }] }, toolUseResult: tur });
  it.each([
    ["error with a code", result("t", "Exit code 2\nboom", true, "Error: Exit code 2"), "exit 2"],
    ["error without a code (recorded as failed)", result("t", "permission denied", true, "Error: permission denied"), "failed"],
    ["success without a code", result("t", "fine", undefined, { stdout: "fine", stderr: "", interrupted: false }), "ok"],
    ["interrupted", result("t", "", undefined, { stdout: "", stderr: "", interrupted: true }), "unknown"],
    ["success whose output says an exit code", result("t", "retry\nExit code 1", false, { stdout: "x" }), "ok"],
    ["error whose output says another code", result("t", "Exit code 2\nExit code 0", true, "Error: x"), "exit 2"],
    ["no result yet (the transcript lags)", "", "unknown"],
  ])("Bash status: %s", (_t, res, status) => {
    expect(parseClaude([bash("t", "make"), res].filter(Boolean)).commands).toEqual([{ command: "make", status }]);
  });

  it("files edited keep the order of their last edit, without repeats", () => {
    const edit = (name: string, p: string) => claudeLine({ type: "assistant", message: { content: [{ type: "tool_use", id: "e", name, input: { file_path: p } }] } });
    expect(parseClaude([edit("Edit", "/a"), edit("Write", "/b"), edit("MultiEdit", "/a")]).filesEdited).toEqual(["/b", "/a"]);
  });

  it("the latest TodoWrite wins", () => {
    const todo = (items: [string, string][]) =>
      claudeLine({ type: "assistant", message: { content: [{ type: "tool_use", id: "t", name: "TodoWrite", input: { todos: items.map(([content, status]) => ({ content, status })) } }] } });
    expect(parseClaude([todo([["a", "pending"]]), todo([["a", "completed"], ["b", "in_progress"]])]).plan).toEqual([
      { text: "a", status: "done" },
      { text: "b", status: "doing" },
    ]);
  });

  it("unknown, torn and non-object lines are skipped, never thrown on", () => {
    const lines = ["", "not json", "[1,2]", '{"type":"user","message":', JSON.stringify({ type: "future-kind", sessionId: "s" }), "null", userSays("kept")];
    const cap = parseClaude(lines);
    expect(cap.userRequests).toEqual(["kept"]);
  });
});

describe("Codex adapter: neighbours of the golden", () => {
  const c = (type: string, payload: unknown) => JSON.stringify({ timestamp: "2026-11-30T08:00:00Z", type, payload });
  const call = (name: string, args: unknown, id = "c1") => c("response_item", { type: "function_call", name, arguments: JSON.stringify(args), call_id: id });
  const out = (output: unknown, id = "c1") => c("response_item", { type: "function_call_output", call_id: id, output });
  it.each([
    ["Process exited with code N", "Process exited with code 3\nOutput:", "exit 3"],
    ["Exit code: N", "Exit code: 0\nOutput:", "exit 0"],
    ["metadata.exit_code", JSON.stringify({ output: "x", metadata: { exit_code: 7 } }), "exit 7"],
    ["no code in the output", "some text", "unknown"],
    ["an object output", { content: "Exit code: 4" }, "exit 4"],
    ["a code the output prints", "Process exited with code 0\nOutput:\nProcess exited with code 1\n", "exit 0"],
  ])("exit status: %s", (_t, output, status) => {
    expect(parseCodex([call("exec_command", { cmd: "x" }), out(output)]).commands).toEqual([{ command: "x", status }]);
  });

  it.each([
    ["exec_command cmd", call("exec_command", { cmd: "ls -la" }), "ls -la"],
    ["shell argv through bash -lc", call("shell", { command: ["bash", "-lc", "echo hi"] }), "echo hi"],
    ["shell argv", call("shell", { command: ["ls", "-a"] }), "ls -a"],
  ])("command: %s", (_t, line, command) => {
    expect(parseCodex([line]).commands[0]?.command).toBe(command);
  });

  it("scaffolding user messages are dropped and events are not counted twice", () => {
    const cap = parseCodex([
      c("response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>x</environment_context>" }] }),
      c("response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] }),
      c("event_msg", { type: "user_message", message: "hello" }),
    ]);
    expect(cap.userRequests).toEqual(["hello"]);
  });

  const item = (it: Record<string, unknown>) => c("event_msg", { type: "item_completed", item: it });
  const script = (js: string, id = "s1") => c("response_item", { type: "custom_tool_call", name: "exec", call_id: id, input: js });
  const scriptOut = (id = "s1") => c("response_item", { type: "custom_tool_call_output", call_id: id, output: [{ type: "input_text", text: "Script completed" }] });

  it("a code-mode script's items are its commands and edits; the script's own text is not counted again", () => {
    const cap = parseCodex([
      script('await tools.exec_command({ cmd: "make" });\nawait tools.apply_patch("*** Begin Patch\\n*** Add File: a.txt\\n+x\\n*** End Patch\\n");'),
      item({ type: "CommandExecution", id: "exec-1", command: ["/bin/bash", "-lc", "make"], status: "failed", exit_code: 2 }),
      item({ type: "FileChange", id: "exec-2", changes: { "/p/a.txt": { type: "add", content: "x" } }, status: "completed" }),
      scriptOut(),
    ]);
    expect(cap.commands).toEqual([{ command: "make", status: "exit 2" }]);
    expect(cap.filesEdited).toEqual(["/p/a.txt"]);
  });

  it("a code-mode script with no items (an older or newer build) still names what it ran, status unknown", () => {
    const cap = parseCodex([script("await tools.exec_command({ cmd: 'npm test' });\nawait tools.apply_patch(`*** Begin Patch\n*** Update File: b.ts\n*** End Patch`);"), scriptOut()]);
    expect(cap.commands).toEqual([{ command: "npm test", status: "unknown" }]);
    expect(cap.filesEdited).toEqual(["b.ts"]);
  });

  it("a function call answered by an item of its id counts once, as the item says; a shell apply_patch is an edit", () => {
    const cap = parseCodex([
      call("exec_command", { cmd: "ls" }, "k1"),
      item({ type: "CommandExecution", id: "k1", command: ["/bin/bash", "-lc", "ls"], status: "completed", exit_code: 0 }),
      out("Process exited with code 0", "k1"),
      call("exec_command", { cmd: "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: c.js\n+x\n*** End Patch\nPATCH" }, "k2"),
      out("Exit code: 0", "k2"),
      item({ type: "CommandExecution", id: "u9", command: "git status", status: "completed" }),
    ]);
    expect(cap.commands).toEqual([
      { command: "ls", status: "exit 0" },
      { command: "git status", status: "ok" },
    ]);
    expect(cap.filesEdited).toEqual(["c.js"]);
  });

  it("with no message records, the turn's UserMessage and AgentMessage items give the words", () => {
    const cap = parseCodex([
      item({ type: "UserMessage", content: [{ type: "text", text: "add sub" }] }),
      item({ type: "AgentMessage", content: [{ type: "Text", text: "added" }] }),
    ]);
    expect(cap.userRequests).toEqual(["add sub"]);
    expect(cap.lastClaim).toBe("added");
  });

  it("goals are not a plan", () => {
    expect(parseCodex([script('await tools.create_goal({ objective: "ship" });'), scriptOut()]).plan).toBeNull();
  });

  it("apply_patch as a function call names its files", () => {
    const cap = parseCodex([call("apply_patch", { input: "*** Begin Patch\n*** Delete File: a.txt\n*** Update File: b.txt\n*** Move to: c.txt\n*** End Patch" })]);
    expect(cap.filesEdited).toEqual(["a.txt", "b.txt", "c.txt"]);
  });
});

describe("Gemini adapter", () => {
  it("shell success without an exit code is ok; write_todos is the plan", () => {
    const cap = parseGemini([
      JSON.stringify({ type: "gemini", timestamp: "2026-11-30T07:00:00Z", content: "x", toolCalls: [{ name: "run_shell_command", args: { command: "ls" }, status: "success", result: "listing" }] }),
    ]);
    expect(cap.commands).toEqual([{ command: "ls", status: "ok" }]);
  });
});

describe("Gemini: the exit code is the harness's line after the output", () => {
  const shell = (output: string, status = "success") => JSON.stringify({ type: "gemini", timestamp: "2026-11-30T07:00:00Z", content: "", toolCalls: [{ name: "run_shell_command", args: { command: "t" }, status, result: [{ functionResponse: { response: { output } } }] }] });
  it.each([
    ["exit 1 after an output saying exit 0", "Output: Exit Code: 0\nExit Code: 1\nProcess Group PGID: 5", "exit 1"],
    ["no code line", "Output: fine", "ok"],
  ])("%s", (_t, output, status) => expect(parseGemini([shell(output)]).commands).toEqual([{ command: "t", status }]));
});

describe("Claude Code's queued messages and Gemini's hook context", () => {
  it("a queued prompt is a request in its place; a queued bash command and the queue's own records are not", () => {
    const queued = (prompt: unknown, extra: Record<string, unknown> = {}) => claudeLine({ type: "attachment", attachment: { type: "queued_command", prompt, ...extra } });
    const cap = parseClaude([
      userSays("first"),
      JSON.stringify({ type: "queue-operation", operation: "enqueue", sessionId: "s", content: "second" }),
      queued("second", { commandMode: "prompt" }),
      queued("ls", { commandMode: "bash" }),
      queued([{ type: "text", text: "third" }]),
      userSays("fourth"),
    ]);
    expect(cap.userRequests).toEqual(["first", "second", "third", "fourth"]);
  });

  it("Gemini: a leading <hook_context> block is dropped, text after it kept; one elsewhere is the user's", () => {
    const user = (t: string, id: string) => JSON.stringify({ id, type: "user", timestamp: "2026-11-30T07:00:00Z", content: [{ text: t }] });
    const cap = parseGemini([user("<hook_context>session-handoff: x\ny</hook_context>\n\nfix it", "a"), user("<hook_context>only ours</hook_context>", "b"), user("see <hook_context>z</hook_context>", "c")]);
    expect(cap.userRequests).toEqual(["fix it", "see <hook_context>z</hook_context>"]);
  });
});

describe("exit codes from tool output text", () => {
  it.each([
    ["Exit code 1", "exit 1"],
    ["Exit code: 0", "exit 0"],
    ["Process exited with code 137", "exit 137"],
    ["Exit Code: 2", "exit 2"],
    ["exit status 1", null],
    ["the words inside a line: Exit code 1", null],
    ["Exit code 1\nExit code 0", "exit 0"],
    ["", null],
  ])("%j", (text, want) => expect(exitFromText(text)).toBe(want));
});

describe("format sniffing from the first records", () => {
  it.each([
    ["claude", withFakes(readFileSync(path.join(FIXTURES, "claude.jsonl"), "utf8")), "claude"],
    ["codex", readFileSync(path.join(FIXTURES, "codex.jsonl"), "utf8"), "codex"],
    ["gemini", readFileSync(path.join(FIXTURES, "gemini.jsonl"), "utf8"), "gemini"],
    ["empty", "", null],
    ["prose", "hello\nworld\n", null],
    ["json without known keys", '{"a":1}\n{"b":2}\n', null],
    ["zstd bytes", "\x28\xb5\x2f\xfd binary", null],
  ])("%s", (_t, text, want) => {
    expect(sniffFormat(text.split("\n"))).toBe(want);
  });
});

describe("the bounded tail reader", () => {
  it("reads only the last 4 MiB of a 50 MB transcript and drops the partial first line", () => {
    const dir = tempDir();
    const file = path.join(dir, "big.jsonl");
    const fd = openSync(file, "w");
    const line = `${userSays(`filler ${"x".repeat(1000)}`)}\n`;
    const chunk = Buffer.from(line.repeat(1000));
    for (let written = 0; written < 50 * 1024 * 1024; written += chunk.length) writeSync(fd, chunk);
    writeSync(fd, `${userSays("the last words")}\n`);
    closeSync(fd);
    const r = readTranscriptTail(file);
    if (!r.ok) throw new Error(r.reason);
    expect(r.size).toBeGreaterThan(50 * 1024 * 1024);
    const bytes = r.tail.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    expect(bytes).toBeLessThanOrEqual(TAIL_BYTES);
    // Every line kept is a whole record: the cut one at the start is gone.
    for (const l of r.tail) expect(() => JSON.parse(l)).not.toThrow();
    expect(r.head.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0)).toBeLessThanOrEqual(HEAD_BYTES);
    expect(parseClaude(r.tail).userRequests.at(-1)).toBe("the last words");
  });

  it("finds a plan tool's name in the bytes before the part read, however often its first letters occur", () => {
    const dir = tempDir();
    const check = (earlier: string, markers: readonly string[]) => {
      const file = path.join(dir, `t${Math.random()}.jsonl`);
      // 300 KiB before the last 100 KiB; the marker must be found in the first part only.
      writeFileSync(file, `${earlier.padEnd(300 * 1024, " ")}\n${"z".repeat(100 * 1024)}\n`);
      const opened = openTranscript(file);
      if (!opened.ok) throw new Error(opened.reason);
      try {
        return earlierHolds(opened.file, opened.file.size - (100 * 1024 + 1), markers);
      } finally {
        closeTranscript(opened.file);
      }
    };
    expect(check('{"name":"TodoWrite"}', ["TodoWrite"])).toBe(true);
    expect(check('{"name":"Todo"}', ["TodoWrite"])).toBe(false);
    // A thousand near misses ("Task, ") before the name, or before a name one letter short.
    expect(check(`${"Task, ".repeat(1000)}TaskUpdate`, ["TaskCreate", "TaskUpdate"])).toBe(true);
    expect(check(`${"Task, ".repeat(1000)}TaskUpdat`, ["TaskCreate", "TaskUpdate"])).toBe(false);
    expect(check(`${"Task, ".repeat(100)}TaskCreate`, ["TaskCreate", "TaskUpdate"])).toBe(true);
    // A name in the part read is not "before" it.
    expect(check("nothing", ["zzzz"])).toBe(false);
  });

  it("the 1 MiB read is the end of what the 4 MiB read gives", () => {
    const file = path.join(tempDir(), "t.jsonl");
    writeFileSync(file, Array.from({ length: 6000 }, (_, i) => userSays(`request ${i} ${"r".repeat(900)}`)).join("\n") + "\n");
    const opened = openTranscript(file);
    if (!opened.ok) throw new Error(opened.reason);
    try {
      const small = tailPart(opened.file, 1024 * 1024).lines;
      const whole = tailPart(opened.file, TAIL_BYTES).lines;
      expect(small.length).toBeGreaterThan(100);
      expect(whole.slice(-small.length)).toEqual(small);
      expect(tailPart(opened.file, 100 * TAIL_BYTES).lines).toEqual(whole);
    } finally {
      closeTranscript(opened.file);
    }
  });

  it("a record still being written (no final newline) is not read", () => {
    const file = path.join(tempDir(), "t.jsonl");
    writeFileSync(file, `${userSays("done")}\n${userSays("half").slice(0, 30)}`);
    const r = readTranscriptTail(file);
    if (!r.ok) throw new Error(r.reason);
    expect(parseClaude(r.tail).userRequests).toEqual(["done"]);
  });

  it("a single line longer than the tail gives no record", () => {
    const file = path.join(tempDir(), "t.jsonl");
    writeFileSync(file, `${userSays("x".repeat(5 * 1024 * 1024))}\n`);
    const r = readTranscriptTail(file);
    if (!r.ok) throw new Error(r.reason);
    expect(parseClaude(r.tail).records).toBe(0);
  });

  it.each([
    ["a 5 MB last record", ["x"], "\n"],
    ["two last records over the part, the last still being written", ["x", "y"], ""],
  ])("%s is skipped and counted; the records before it are read", (_t, names, end) => {
    const file = path.join(tempDir(), "t.jsonl");
    const long = names.map((n) => userSays(n.repeat(5 * 1024 * 1024))).join("\n");
    writeFileSync(file, `${userSays("first")}\n${userSays("second")}\n${long}${end}`);
    const opened = openTranscript(file);
    if (!opened.ok) throw new Error(opened.reason);
    try {
      for (const bytes of [256 * 1024, TAIL_BYTES]) {
        const part = tailPart(opened.file, bytes);
        expect(parseClaude(part.lines).userRequests).toEqual(["first", "second"]);
        expect(part.skipped).toBe(names.length);
      }
    } finally {
      closeTranscript(opened.file);
    }
  });

  it("a 5 MB record followed by short ones is skipped and counted; the records on both sides are read", () => {
    const file = path.join(tempDir(), "t.jsonl");
    const after = Array.from({ length: 20 }, (_, i) => userSays(`after ${i}`));
    writeFileSync(file, `${userSays("first")}\n${userSays("x".repeat(5 * 1024 * 1024))}\n${after.join("\n")}\n`);
    const opened = openTranscript(file);
    if (!opened.ok) throw new Error(opened.reason);
    try {
      for (const bytes of [256 * 1024, TAIL_BYTES]) {
        const part = tailPart(opened.file, bytes);
        expect(parseClaude(part.lines).userRequests).toEqual(["first", ...after.map((_, i) => `after ${i}`)]);
        expect(part.skipped).toBe(1);
      }
    } finally {
      closeTranscript(opened.file);
    }
  });

  it("a record under 4 MiB cut by a smaller part is not skipped: the whole 4 MiB holds it", () => {
    const file = path.join(tempDir(), "t.jsonl");
    writeFileSync(file, `${userSays("first")}\n${userSays("x".repeat(2 * 1024 * 1024))}\n${userSays("last")}\n`);
    const opened = openTranscript(file);
    if (!opened.ok) throw new Error(opened.reason);
    try {
      expect(tailPart(opened.file, 1024 * 1024)).toMatchObject({ skipped: 0 });
      expect(parseClaude(tailPart(opened.file, 1024 * 1024).lines).userRequests).toEqual(["last"]);
      expect(parseClaude(tailPart(opened.file, TAIL_BYTES).lines).userRequests).toHaveLength(3);
    } finally {
      closeTranscript(opened.file);
    }
  });

  it("a long last record is searched back only so far: past OVERLONG_SCAN nothing is read", () => {
    const file = path.join(tempDir(), "t.jsonl");
    writeFileSync(file, `${userSays("first")}\n${userSays("x".repeat(OVERLONG_SCAN))}\n`);
    const opened = openTranscript(file);
    if (!opened.ok) throw new Error(opened.reason);
    try {
      expect(tailPart(opened.file, TAIL_BYTES)).toMatchObject({ lines: [], skipped: 0 });
    } finally {
      closeTranscript(opened.file);
    }
  });

  it.each([
    ["missing", (d: string) => path.join(d, "nope.jsonl"), /does not exist/],
    ["a link", (d: string) => (symlinkSync(path.join(FIXTURES, "claude.jsonl"), path.join(d, "l.jsonl")), path.join(d, "l.jsonl")), /is a link/],
    ["a FIFO (never blocks)", (d: string) => (execFileSync("mkfifo", [path.join(d, "f")]), path.join(d, "f")), /not a regular file/],
    ["a directory", (d: string) => d, /not a regular file|cannot be (opened|read)/],
    ["relative", () => "relative/t.jsonl", /not an absolute path/],
  ])("%s gives a reason, never a throw", (_t, make, reason) => {
    const r = readTranscriptTail(make(tempDir()));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});

describe("the checkpoint document", () => {
  const cap = (n: number, size: number) => ({
    format: "claude" as const,
    firstTimestamp: null,
    userRequests: Array.from({ length: n }, (_, i) => `request ${i} ${"r".repeat(size)}`),
    plan: Array.from({ length: n }, (_, i) => ({ text: `step ${i} ${"p".repeat(size)}`, status: "open" as const })),
    filesEdited: Array.from({ length: n * 3 }, (_, i) => `src/file-${i}-${"f".repeat(size)}.ts`),
    commands: Array.from({ length: n * 2 }, (_, i) => ({ command: `cmd ${i} ${"c".repeat(size)}`, status: "ok" })),
    lastClaim: "c".repeat(size * 4),
    planFinal: false,
    records: 1,
  });
  const render = (c: ReturnType<typeof cap> | null, summary: string | null = null) =>
    renderCheckpoint({ saved: "2026-11-30T12:00:00Z", session: "s", sessionStart: null, trigger: "session-end", source: "claude transcript", capture: c, compactSummary: summary, anchorLines: FIXED_ANCHORS, root: "/r" }).text;

  it.each([
    [10, 10],
    [40, 100],
    [100, 300],
    [3, 2000],
  ])("%i items of %i characters stay within 4,096 bytes, anchors whole", (n, size) => {
    const text = render(cap(n, size), "s".repeat(size * 3));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CHECKPOINT_MAX_BYTES);
    expect(text.endsWith(`${FIXED_ANCHORS.join("\n")}\n`)).toBe(true);
  });

  it("over budget, the oldest item of the longest list goes first", () => {
    const text = render(cap(40, 60));
    expect(text).toMatch(/- \(\d+ older left out\)/);
    // Files are the longest list: its newest survive, its oldest go.
    expect(text).toContain("src/file-119-");
    expect(text).not.toContain("src/file-0-");
  });

  it("an anchors-only checkpoint says that nothing was captured", () => {
    const text = render(null);
    expect(text.match(/- none captured/g)).toHaveLength(5);
  });

  it.each([
    ["bidi override", "a\u202Eb", "a<U+202E>b"],
    ["zero-width space", "a\u200Bb", "a<U+200B>b"],
    ["escape control", "a\u001bb", "a<U+001B>b"],
    ["line separator", "a\u2028b", "a<U+2028>b"],
    ["lone CR", "a\rb", "a<U+000D>b"],
    ["newlines flatten", "a\n## Heading\nb", "a ## Heading b"],
    ["tabs flatten", "a\tb", "a b"],
  ])("content is never refused: %s", (_t, raw, want) => {
    expect(safeItem(raw, 400, [])).toBe(want);
  });

  it("secrets are redacted before any cut, so no half of one survives", () => {
    const token = FAKE_GITHUB_TOKEN;
    for (const at of [0, 380, 395, 399]) {
      const out = safeItem(`${"a ".repeat(at / 2)}${token} tail`, 400, []);
      expect(out).not.toMatch(/ghp_|R8x2Lq9v/);
    }
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4Zq3uR8x2Lq9vT4mN7pK3sW6yZ1aB5cD0eF8gH2\n-----END RSA PRIVATE KEY-----";
    expect(safeItem(pem, 400, [])).not.toContain("MIIEow");
  });

  it.each([
    ["PreCompact", "pre-compact"],
    ["PreCompress", "pre-compact"],
    ["PostCompact", "post-compact"],
    ["SessionEnd", "session-end"],
    ["Stop", "stop"],
    ["SessionStart", "unknown"],
    [undefined, "unknown"],
    [42, "unknown"],
  ])("Trigger from hook_event_name %j", (event, want) => expect(triggerOf(event)).toBe(want));

  it("identical apart from Saved: and - Date: is the same checkpoint", () => {
    const a = render(cap(2, 5));
    const b = a.replace("Saved: 2026-11-30T12:00:00Z", "Saved: 2026-11-30T13:00:00Z").replace("- Date: 2026-11-30T12:00:00Z", "- Date: 2026-11-30T13:00:00Z");
    expect(sameCheckpoint(a, b)).toBe(true);
    expect(sameCheckpoint(a, b.replace("request 1", "request 9"))).toBe(false);
  });
});
