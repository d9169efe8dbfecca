// Gemini CLI shows a hook's stderr as a chat line whenever its stdout is empty: with --format
// gemini, `hook` and `checkpoint` print JSON on stdout (`{}` when silent) and nothing on stderr, on every path (docs/design.md#integrations).
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, tempDir, type Run } from "../helpers.ts";
import { saveIn, tokenIn } from "../in-process.ts";
import { cpText, hookInput, transcript } from "../verbs/support.ts";

const TOKEN = ["gh", "p_", "R8x2Lq9vT4mN7pK3sW6yZ1aB5cD0eF8gH2jJ"].join("");

function quiet(r: Run): unknown {
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  expect(r.stdout.endsWith("\n")).toBe(true);
  return JSON.parse(r.stdout);
}

const context = (r: Run) => (quiet(r) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? null;

describe("hook --format gemini", () => {
  const hook = (root: string, args: string[] = [], env: Record<string, string> = {}, input = hookInput(root, { hook_event_name: "SessionStart", source: "startup" })) =>
    helper(["hook", "--mode", "session", "--format", "gemini", ...args], { input, env, cwd: root });

  it("nothing to say: {}", () => expect(quiet(hook(gitRepo()))).toEqual({}));

  it("a handoff: the sentence as additionalContext, nothing on stderr", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("goal"));
    expect(context(hook(root))).toContain("parked handoff exists");
  });

  it("paused: the paused sentence, nothing on stderr", () => {
    const root = gitRepo();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(root, ".ai", "memory", "PAUSE"), "");
    expect(context(hook(root))).toContain("paused");
  });

  it.each([
    ["disabled", [], { SESSION_HANDOFF_DISABLE: "1" }],
    ["a bad --mode", ["--mode", "nope"], {}],
    ["an unknown flag", ["--frobnicate"], {}],
    ["a --root that does not exist", ["--root", "/nonexistent/project"], {}],
  ] as [string, string[], Record<string, string>][])("%s: {} and no stderr", (_t, args, env) => {
    const root = gitRepo();
    const r = args[0] === "--mode" ? helper(["hook", "--format=gemini", ...args], { cwd: root }) : hook(root, args, env);
    expect(quiet(r)).toEqual({});
  });

  it("a root found above the start (`using root …` elsewhere) says nothing on stderr", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("goal"));
    mkdirSync(path.join(root, "src"));
    const r = helper(["hook", "--mode", "session", "--format", "gemini", "--root", path.join(root, "src")], { cwd: root, input: "" });
    expect(context(r)).toContain("parked handoff exists");
  });

  it("a linked memory dir (unsafe): the sentence, nothing on stderr", () => {
    const root = gitRepo();
    const elsewhere = tempDir();
    mkdirSync(path.join(root, ".ai"));
    symlinkSync(elsewhere, path.join(root, ".ai", "memory"));
    // The folder's state, no file named behind it (docs/design.md#the-session-start-hook).
    expect(context(hook(root))).toContain("the memory folder .ai/memory failed memory safety or schema checks");
  });
});

describe("checkpoint --format gemini", () => {
  const cp = (root: string, fields: Record<string, unknown> = {}, env: Record<string, string> = {}, input?: string) =>
    helper(["checkpoint", "--format", "gemini"], { input: input ?? hookInput(root, { hook_event_name: "SessionEnd", ...fields }), env });

  it("saved, with a secret redacted: {} and no stderr, the checkpoint written", () => {
    const root = gitRepo();
    const p = transcript(root, "gemini");
    writeFileSync(p, `${JSON.stringify({ id: "z", type: "user", timestamp: "2026-11-30T07:00:00Z", content: [{ text: `my token ${TOKEN}` }] })}\n`, { flag: "a" });
    expect(quiet(cp(root, { transcript_path: p }))).toEqual({});
    expect(cpText(root, "sess-1")).toContain("<redacted: github-token>");
  });

  it.each([
    ["no transcript named", {}, {}],
    ["a missing transcript", { transcript_path: "/nonexistent/t.jsonl" }, {}],
    ["a subagent's input", { agent_id: "a1" }, {}],
    ["paused", {}, { SESSION_HANDOFF_PAUSE: "/" }],
    ["disabled", {}, { SESSION_HANDOFF_DISABLE: "1" }],
    ["an I/O error at publication", {}, { MEMORY_IO_FAILPOINT: "before-publication:fail" }],
  ] as [string, Record<string, unknown>, Record<string, string>][])("%s: {} and no stderr", (_t, fields, env) => {
    expect(quiet(cp(gitRepo(), fields, env))).toEqual({});
  });

  it("input that is not JSON: {} and no stderr", () => {
    const root = gitRepo();
    expect(quiet(helper(["checkpoint", "--format", "gemini", "--root", root], { input: "not json" }))).toEqual({});
  });

  it("the file system's root (no project): {} and no stderr", () => {
    // Not a home folder under the temp dir: a walk up from there may meet another run's memory.
    expect(quiet(helper(["checkpoint", "--format", "gemini"], { input: JSON.stringify({ session_id: "s", cwd: "/", hook_event_name: "SessionEnd" }), cwd: "/" }))).toEqual({});
  });

  it("an unknown flag (a usage error): {} and no stderr", () => {
    expect(quiet(helper(["checkpoint", "--format", "gemini", "--nope"], { input: "" }))).toEqual({});
  });

  it("busy: {} and no stderr", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("goal"));
    const { parkedAt } = await import("../reliability/support.ts");
    const held = await parkedAt(["write", "handoff", "--root", root, "--expected-current-sha256", await tokenIn(root)], "before-publication", handoff("goal 2"));
    expect(held.parked).toBe(true);
    const r = cp(root);
    held.go();
    await held.run;
    expect(quiet(r)).toEqual({});
  });

  it("other formats keep their stderr lines and empty stdout", () => {
    const r = helper(["checkpoint", "--format", "claude"], { input: hookInput(gitRepo(), { hook_event_name: "SessionEnd" }) });
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^checkpoint: /m);
  });
});
