import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo } from "../helpers.ts";
import { checkpoint, cpText } from "../verbs/support.ts";

// The 1 MiB first read of checkpoint at its boundary: cases a hostile review found failing
// (a plan tool's first letters just before the boundary threw; a plan record cut by the
// boundary was lost; a first record longer than the head gave a wrong Session-start).

const MiB = 1024 * 1024;
const rec = (o: Record<string, unknown>) => `${JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T01:00:00Z", ...o })}\n`;
const user = (text: string, extra: Record<string, unknown> = {}) => rec({ type: "user", message: { content: text }, ...extra });
const said = (text: string) => rec({ type: "assistant", message: { content: [{ type: "text", text }] } });
const tool = (id: string, name: string, input: Record<string, unknown>) => rec({ type: "assistant", message: { content: [{ type: "tool_use", id, name, input }] } });
const output = (bytes: number, extra: Record<string, unknown> = {}) =>
  rec({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "o".repeat(bytes) }] }, toolUseResult: { stdout: "" }, ...extra });
// Only tool calls make a capture (docs/design.md#checkpoints): each ends with one.
const END = user("one") + user("two") + user("three") + tool("t9", "Read", { file_path: "/x" }) + said("done");

function run(text: string, args: string[] = []) {
  const root = gitRepo();
  const p = path.join(root, "t.jsonl");
  writeFileSync(p, text);
  const r = checkpoint(root, { transcript_path: p }, args);
  expect(r.code).toBe(0);
  return { text: cpText(root, "sess-1")!, stderr: r.stderr };
}

describe("checkpoint: the 1 MiB boundary", () => {
  it.each(["Task", "Todo"])("a plan tool's first four letters (%s) just before the boundary do not lose the transcript", (probe) => {
    const base = user("first") + output(3 * MiB) + END;
    const at = base.length - MiB - probe.length; // ASCII: chars are bytes
    const { text, stderr } = run(base.slice(0, at) + probe + base.slice(at + probe.length));
    // Observed: "the transcript could not be read (ERR_OUT_OF_RANGE)", every section empty.
    expect(stderr).not.toContain("ERR_OUT_OF_RANGE");
    expect(text).toContain('- The user wrote: "three"');
  });

  it.each([0, 60])("the latest plan in the record the boundary cuts (%i bytes before it) is found", (before) => {
    const todo = tool("t1", "TodoWrite", { todos: [{ content: "migrate the schema", status: "in_progress" }] });
    const filler = output(MiB - (todo.length - before) - END.length - output(0).length);
    const { text } = run(user("first") + output(2 * MiB) + todo + filler + END);
    // Observed: "## Plan state\n- none captured" (the 4 MiB read gives the plan).
    expect(text).toContain("- [~] migrate the schema");
  });

  it("Session-start is the file's first record's when that record is longer than the 64 KiB head", () => {
    const ts = (t: string) => ({ timestamp: t });
    const { text } = run(
      user(`please review this pasted log:\n${"L".repeat(70 * 1024)}`, ts("2026-11-29T08:00:00Z")) +
        output(2 * MiB, ts("2026-11-29T09:00:00Z")) +
        user("one", ts("2026-11-29T10:00:00Z")) +
        user("two", ts("2026-11-29T10:00:00Z")) +
        user("three", ts("2026-11-29T10:00:00Z")) +
        tool("t9", "Read", { file_path: "/x" }) +
        said("done"),
      // The 64 KiB head holds no whole record, so the format cannot be sniffed from it.
      ["--format", "claude"],
    );
    // Observed: 2026-11-29T10:00:00Z, the first timestamp of the last 1 MiB (before e93aaaf the
    // whole 2 MiB file was read and this was right).
    expect(text).toContain("Session-start: 2026-11-29T08:00:00Z");
  });
});
