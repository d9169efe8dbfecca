import { describe, expect, it } from "vitest";
import { countToolCalls, readEvents } from "../../src/agents/transcripts/index.ts";
import { findLastSave, isSaveCommand, type ProjectHandoffs } from "../../src/agents/transcripts/last-save.ts";
import type { TranscriptFormat } from "../../src/agents/transcripts/types.ts";

const lastSave = (format: TranscriptFormat, lines: string[], p: ProjectHandoffs) => findLastSave(readEvents(format, lines), p);

// Finding the session's last save of this project's handoff in each format's records
// (docs/decisions/checkpoint-after-last-save.md). Shapes as the real CLIs write them.

const OURS = "a".repeat(64);
const ARCHIVED = "b".repeat(64);
const OTHER = "c".repeat(64);
const project = (savedMs: number | null = Date.parse("2026-12-01T18:10:00Z")): ProjectHandoffs => ({
  accepts: (t) => t === OURS || t === ARCHIVED,
  current: { token: OURS, savedMs },
});
const SAVE_CMD = `node "/home/dev/project/.claude/skills/session-handoff/scripts/memory_io.mjs" write handoff --expected-current-sha256 absent <<'EOF'\n…\nEOF`;
const out = (token: string) => `score: 95/100\nsaved HANDOFF.md\nCURRENT-SHA256: ${token}\n`;
const j = (o: unknown) => JSON.stringify(o);

describe("isSaveCommand", () => {
  it("knows the helper's write handoff, with options before the verb; not read, not write lessons", () => {
    expect(isSaveCommand(SAVE_CMD)).toBe(true);
    expect(isSaveCommand('node "/x/memory_io.mjs" --root "/p" write handoff --expected-current-sha256 absent')).toBe(true);
    expect(isSaveCommand("node scripts/memory_io.mjs write   handoff")).toBe(true);
    expect(isSaveCommand('node "/x/memory_io.mjs" read handoff')).toBe(false);
    expect(isSaveCommand('node "/x/memory_io.mjs" write lessons')).toBe(false);
  });
});

describe("codex rollouts", () => {
  const call = (id: string, cmd: string, ts = "2026-12-01T18:09:00Z") => j({ timestamp: ts, type: "response_item", payload: { type: "function_call", name: "exec_command", arguments: j({ cmd }), call_id: id } });
  const output = (id: string, text: string) => j({ timestamp: "2026-12-01T18:09:01Z", type: "response_item", payload: { type: "function_call_output", call_id: id, output: text } });

  it("function tools: the save's output names the token; a failed exit does not count", () => {
    const lines = [call("c1", "ls"), output("c1", "Process exited with code 0\n"), call("c2", SAVE_CMD), output("c2", `Process exited with code 0\nOutput:\n${out(OURS)}`), call("c3", "npm test")];
    expect(lastSave("codex", lines, project())).toEqual({ token: OURS, line: 3, own: true });
    expect(countToolCalls(readEvents("codex", lines.slice(4)))).toBe(1);
    const refused = [call("c2", SAVE_CMD), output("c2", `Process exited with code 2\nOutput:\n${out(OURS)}`)];
    expect(lastSave("codex", refused, project())).toBeNull();
  });

  it("code mode: the completed CommandExecution item is call and result at once", () => {
    const item = (exit: number, token: string) =>
      j({ timestamp: "2026-12-01T18:09:00Z", type: "event_msg", payload: { type: "item_completed", item: { type: "CommandExecution", command: ["/bin/bash", "-lc", SAVE_CMD], status: exit === 0 ? "completed" : "failed", aggregated_output: out(token), exit_code: exit } } });
    expect(lastSave("codex", [item(0, OURS)], project())).toEqual({ token: OURS, line: 0, own: true });
    expect(lastSave("codex", [item(2, OURS)], project())).toBeNull();
    expect(lastSave("codex", [item(0, OTHER)], project())).toBeNull();
  });
});

describe("gemini chat files", () => {
  const gem = (calls: unknown[], ts = "2026-12-01T18:09:00.000Z") => j({ id: "m", timestamp: ts, type: "gemini", content: "", toolCalls: calls });
  const shell = (command: string, result?: string, status = "success") => ({
    name: "run_shell_command",
    args: { command },
    ...(result === undefined ? {} : { result: [{ functionResponse: { response: { output: result } } }] }),
    status,
    timestamp: "2026-12-01T18:09:00.000Z",
  });

  it("a recorded result with the token counts, an archive's token too; Exit Code 2 does not", () => {
    const ok = (t: string) => `<untrusted_context>\nOutput: ${out(t).trimEnd()}\nExit Code: 0\n</untrusted_context>`;
    expect(lastSave("gemini", [gem([shell(SAVE_CMD, ok(OURS))])], project())).toEqual({ token: OURS, line: 0, own: true });
    expect(lastSave("gemini", [gem([shell(SAVE_CMD, ok(ARCHIVED))])], project())).toEqual({ token: ARCHIVED, line: 0, own: true });
    expect(lastSave("gemini", [gem([shell(SAVE_CMD, ok(OURS).replace("Exit Code: 0", "Exit Code: 2"))])], project())).toBeNull();
  });

  it("a call not answered yet: counts by the handoff's Saved:, at or after the call's second", () => {
    const lines = [gem([shell(SAVE_CMD)])];
    expect(lastSave("gemini", lines, project(Date.parse("2026-12-01T18:09:00Z")))).toEqual({ token: OURS, line: 0, own: false });
    expect(lastSave("gemini", lines, project(Date.parse("2026-12-01T18:08:59Z")))).toBeNull();
    expect(lastSave("gemini", lines, project(null))).toBeNull();
  });
});

describe("claude transcripts", () => {
  const use = (id: string, command: string, ts = "2026-12-01T18:09:57.088Z") => j({ type: "assistant", timestamp: ts, message: { content: [{ type: "tool_use", id, name: "Bash", input: { command } }] } });
  const res = (id: string, text: string, isError = false) => j({ type: "user", timestamp: "2026-12-01T18:09:58Z", message: { content: [{ type: "tool_result", tool_use_id: id, content: text, is_error: isError }] } });

  it("the last successful save wins; a later refused one does not replace it; a sidechain's save is not the session's", () => {
    const lines = [use("t1", SAVE_CMD), res("t1", out(ARCHIVED)), use("t2", SAVE_CMD), res("t2", out(OURS)), use("t3", SAVE_CMD), res("t3", "memory operation refused\nExit code 2", true)];
    expect(lastSave("claude", lines, project())).toEqual({ token: OURS, line: 3, own: true });
    const side = j({ type: "assistant", isSidechain: true, message: { content: [{ type: "tool_use", id: "s1", name: "Bash", input: { command: SAVE_CMD } }] } });
    expect(lastSave("claude", [side, res("s1", out(OURS))], project())).toBeNull();
  });

  it("an unanswered save followed by another tool call is not a save (its result would have come first)", () => {
    expect(lastSave("claude", [use("t1", SAVE_CMD), use("t2", "ls")], project(Date.parse("2026-12-01T18:10:00Z")))).toBeNull();
    expect(lastSave("claude", [use("t1", SAVE_CMD)], project(Date.parse("2026-12-01T18:09:57Z")))).toEqual({ token: OURS, line: 0, own: false });
  });
});
