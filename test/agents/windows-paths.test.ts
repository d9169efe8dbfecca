// Windows paths in what a harness hands us (docs/design.md#integrations): the hook input's
// `cwd` and `transcript_path`, a transcript's recorded `--root`. Parsed with path.win32 whatever
// the OS: used on Windows (golden normalisations), refused by name anywhere else, and never joined
// under the current folder as a relative POSIX path (golden hook inputs run on this machine).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { harnessPath, hookCwd, windowsShaped } from "../../src/agents/harness-path.ts";
import { CHECKPOINT_LINES } from "../../src/checkpoint/capture.ts";
import { gitRepo, helper, MARKER } from "../helpers.ts";

const WIN_CWD = "C:\\Users\\dev\\proj";
const WIN_TRANSCRIPT = "C:\\Users\\dev\\.claude\\projects\\C--Users-dev-proj\\sess-1.jsonl";

describe("harnessPath: Windows-shaped paths through path.win32, whatever the OS", () => {
  it.each([
    // [path, platform, result]
    [WIN_CWD, "win32", { ok: true, path: WIN_CWD }],
    ["C:/Users/dev/proj/../other", "win32", { ok: true, path: "C:\\Users\\dev\\other" }],
    ["c:\\users\\dev\\proj\\", "win32", { ok: true, path: "c:\\users\\dev\\proj\\" }],
    ["\\\\server\\share\\proj", "win32", { ok: true, path: "\\\\server\\share\\proj" }],
    ["\\\\?\\C:\\Users\\dev\\proj", "win32", { ok: true, path: "\\\\?\\C:\\Users\\dev\\proj" }],
    ["C:proj", "win32", { ok: false, reason: "the hook input's cwd is not an absolute path", windows: true }],
    ["proj\\sub", "win32", { ok: false, reason: "the hook input's cwd is not an absolute path", windows: false }],
    [WIN_CWD, "linux", { ok: false, reason: `the hook input's cwd "C:\\\\Users\\\\dev\\\\proj" is a Windows path and this helper runs on linux`, windows: true }],
    ["D:/work/proj", "darwin", { ok: false, reason: `the hook input's cwd "D:/work/proj" is a Windows path and this helper runs on darwin`, windows: true }],
    ["\\\\server\\share\\proj", "linux", { ok: false, reason: `the hook input's cwd "\\\\\\\\server\\\\share\\\\proj" is a Windows path and this helper runs on linux`, windows: true }],
    ["/home/dev/proj", "linux", { ok: true, path: "/home/dev/proj" }],
    ["//home/dev/proj", "linux", { ok: true, path: "//home/dev/proj" }],
    ["proj/sub", "linux", { ok: false, reason: "the hook input's cwd is not an absolute path", windows: false }],
    ["/home/dev/\0proj", "linux", { ok: false, reason: "the hook input's cwd is not an absolute path", windows: false }],
  ] as const)("%j on %s", (p, platform, want) => {
    expect(harnessPath("the hook input's cwd", p, platform)).toEqual(want);
  });

  it("windowsShaped: a drive letter or a leading \\\\, nothing else", () => {
    expect(["C:\\x", "z:/x", "C:x", "x:", "\\\\s\\x", "\\\\?\\C:\\x"].map(windowsShaped)).toEqual([true, true, true, true, true, true]);
    expect(["/x", "//s/x", ":\\x", "1:\\x", "\\x", "x"].map(windowsShaped)).toEqual([false, false, false, false, false, false]);
  });

  it("hookCwd: the path, null when absent, a refusal naming a relative, empty, non-string or (elsewhere) Windows cwd", () => {
    expect(hookCwd(WIN_CWD, "win32")).toBe(WIN_CWD);
    expect(hookCwd("/home/dev/proj", "linux")).toBe("/home/dev/proj");
    expect(hookCwd(undefined, "linux")).toBeNull();
    expect(hookCwd(null, "linux")).toBeNull();
    expect(() => hookCwd("proj", "linux")).toThrow(`the hook input's cwd "proj" is not an absolute path (pass --root <project>)`);
    expect(() => hookCwd(42, "linux")).toThrow("the hook input's cwd is not a string (pass --root <project>)");
    expect(() => hookCwd("", "linux")).toThrow("the hook input's cwd is empty (pass --root <project>)");
    expect(() => hookCwd(WIN_CWD, "linux")).toThrow(`the hook input's cwd "C:\\\\Users\\\\dev\\\\proj" is a Windows path and this helper runs on linux (pass --root <project>)`);
    expect(() => hookCwd("C:proj", "linux")).toThrow("the hook input's cwd is not an absolute path (pass --root <project>)");
  });
});

// A project whose current folder also holds a folder literally named like the Windows cwd, with
// its own parked handoff: joined as a relative POSIX path, the input would find that one.
function trap(): { root: string; decoy: string } {
  const root = gitRepo();
  mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
  writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
  const decoy = path.join(root, WIN_CWD);
  mkdirSync(path.join(decoy, ".ai", "memory"), { recursive: true });
  writeFileSync(path.join(decoy, ".ai", "memory", "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
  return { root, decoy };
}

describe.skipIf(process.platform === "win32")("a Windows-shaped hook input on this machine (golden)", () => {
  const platform = process.platform;
  const refusal = `the hook input's cwd "C:\\\\Users\\\\dev\\\\proj" is a Windows path and this helper runs on ${platform} (pass --root <project>)`;

  it.each(["claude", "codex", "text"])("hook --format %s prints nothing and names the path on stderr", (format) => {
    const { root } = trap();
    const r = helper(["hook", "--mode", "session", "--format", format], { cwd: root, input: JSON.stringify({ session_id: "s1", cwd: WIN_CWD, source: "startup", hook_event_name: "SessionStart" }) });
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: `memory_io hook: ${refusal}; printing nothing\n` });
  });

  it("hook --format gemini prints {} and nothing on stderr", () => {
    const { root } = trap();
    const r = helper(["hook", "--mode", "session", "--format", "gemini"], { cwd: root, input: JSON.stringify({ session_id: "s1", cwd: WIN_CWD, source: "startup" }) });
    expect(r).toMatchObject({ code: 0, stdout: "{}\n", stderr: "" });
  });

  it("hook with --root uses the root and never looks at the Windows cwd", () => {
    const { root } = trap();
    const r = helper(["hook", "--mode", "session", "--format", "text", "--root", root], { cwd: root, input: JSON.stringify({ cwd: WIN_CWD }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("parked handoff exists");
    expect(r.stderr).toBe("");
  });

  it("checkpoint skips, naming the path, and writes nothing in the current folder or the decoy", () => {
    const { root, decoy } = trap();
    const r = helper(["checkpoint"], { cwd: root, input: JSON.stringify({ session_id: "sess-1", cwd: WIN_CWD, transcript_path: WIN_TRANSCRIPT, hook_event_name: "SessionEnd" }) });
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: `${CHECKPOINT_LINES.skipped(refusal)}\n` });
    expect(existsSync(path.join(root, ".ai", "memory", "checkpoints"))).toBe(false);
    expect(existsSync(path.join(decoy, ".ai", "memory", "checkpoints"))).toBe(false);
  });

  it("checkpoint --format gemini prints {} and nothing on stderr, writing nothing", () => {
    const { root } = trap();
    const r = helper(["checkpoint", "--format", "gemini"], { cwd: root, input: JSON.stringify({ session_id: "sess-1", cwd: WIN_CWD, transcript_path: WIN_TRANSCRIPT, hook_event_name: "SessionEnd" }) });
    expect(r).toMatchObject({ code: 0, stdout: "{}\n", stderr: "" });
    expect(existsSync(path.join(root, ".ai", "memory", "checkpoints"))).toBe(false);
  });

  it("checkpoint with a POSIX cwd and a Windows transcript_path: the anchors only, the path named", () => {
    const { root } = trap();
    // A file at the relative POSIX reading of the path, which must not be read.
    mkdirSync(path.join(root, path.dirname(WIN_TRANSCRIPT)), { recursive: true });
    writeFileSync(path.join(root, WIN_TRANSCRIPT), `${JSON.stringify({ type: "user", message: { role: "user", content: "DECOY" } })}\n`);
    const r = helper(["checkpoint"], { cwd: root, input: JSON.stringify({ session_id: "sess-1", cwd: root, transcript_path: WIN_TRANSCRIPT, hook_event_name: "SessionEnd" }) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(CHECKPOINT_LINES.noTranscript(`the transcript path ${JSON.stringify(WIN_TRANSCRIPT)} is a Windows path and this helper runs on ${platform}`));
    const cp = readFileSync(path.join(root, ".ai", "memory", "checkpoints", "sess-1.md"), "utf8");
    expect(cp).toContain("Source: anchors only (transcript path");
    expect(cp).not.toContain("DECOY");
  });
});

describe.skipIf(process.platform === "win32")("a resume whose brief named a Windows --root", () => {
  const rec = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, sessionId: "s", uuid: `u${Math.random()}`, timestamp: "2026-12-01T18:10:30.000Z", ...o });
  it("is not counted for the project the transcript's POSIX cwd names", () => {
    const root = gitRepo();
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], {
      input: `${MARKER}\n# Session Handoff\n\n## Current goal\nShip it\n\n## Plan\n- [~] ship\n\n## Decisions\n- none\n\n## Failed approaches\n- none\n\n## Open questions\n- none\n\n## Next steps\n1. Edit src/a.ts\n\n## Key files\n- none\n\n## Environment anchors\n`,
    });
    expect(w.code, w.stderr).toBe(0);
    const session = (rootArg: string) => [
      rec({ type: "user", message: { role: "user", content: "resume" } }),
      rec({ type: "assistant", cwd: root, message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: `node "/skills/session-handoff/scripts/memory_io.mjs" brief --root ${rootArg}` } }] } }),
      rec({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "Goal: …" }] }, toolUseResult: { stdout: "Goal: …" } }),
      rec({ type: "assistant", cwd: root, message: { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "Edit", input: { file_path: `${root}/src/a.ts`, old_string: "a", new_string: "b" } }] } }),
    ];
    const month = path.join(root, ".ai", "memory", "journal", `${new Date().toISOString().slice(0, 7)}.md`);
    const run = (rootArg: string, id: string) => {
      const t = path.join(root, `t-${id}.jsonl`);
      writeFileSync(t, `${session(rootArg).join("\n")}\n`);
      expect(helper(["checkpoint"], { input: JSON.stringify({ session_id: id, transcript_path: t, cwd: root, hook_event_name: "SessionEnd" }) }).code).toBe(0);
      return existsSync(month) ? (readFileSync(month, "utf8").match(/ resume [0-9a-f]{16}\n/g) ?? []).length : 0;
    };
    // The relative POSIX reading of the path exists, inside the project: joined, it would count.
    mkdirSync(path.join(root, "C:\\proj"));
    expect(run('"C:\\proj"', "win-1")).toBe(0);
    // The same transcript with a relative --root is this project's resume: the test can tell.
    expect(run(".", "posix-1")).toBe(1);
  });
});

// A cwd the hook cannot place (docs/design.md#the-session-start-hook): relative (to what?), empty
// or not a string. Run from a project with a parked handoff, the current folder is not guessed in
// its place: stdout stays empty, stderr names what was ignored and why, checkpoint writes nothing.
describe("a relative, empty or non-string cwd in the hook input (golden)", () => {
  const cases: [string, unknown, string][] = [
    ["relative", "proj/sub", `the hook input's cwd "proj/sub" is not an absolute path (pass --root <project>)`],
    ["dot", ".", `the hook input's cwd "." is not an absolute path (pass --root <project>)`],
    ["empty", "", "the hook input's cwd is empty (pass --root <project>)"],
    ["a number", 42, "the hook input's cwd is not a string (pass --root <project>)"],
  ];
  const parked = () => {
    const root = gitRepo();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
    return root;
  };

  it.each(cases)("hook, %s cwd: nothing on stdout, the reason on stderr", (_what, cwd, reason) => {
    const root = parked();
    for (const format of ["text", "claude"]) {
      const r = helper(["hook", "--mode", "session", "--format", format], { cwd: root, input: JSON.stringify({ session_id: "s1", cwd, source: "startup" }) });
      expect(r).toMatchObject({ code: 0, stdout: "", stderr: `memory_io hook: ${reason}; printing nothing\n` });
    }
    const g = helper(["hook", "--mode", "session", "--format", "gemini"], { cwd: root, input: JSON.stringify({ session_id: "s1", cwd, source: "startup" }) });
    expect(g).toMatchObject({ code: 0, stdout: "{}\n", stderr: "" });
  });

  it.each(cases)("checkpoint, %s cwd: skipped with the reason, nothing written", (_what, cwd, reason) => {
    const root = parked();
    const r = helper(["checkpoint"], { cwd: root, input: JSON.stringify({ session_id: "sess-1", cwd, hook_event_name: "SessionEnd" }) });
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: `${CHECKPOINT_LINES.skipped(reason)}\n` });
    expect(existsSync(path.join(root, ".ai", "memory", "checkpoints"))).toBe(false);
  });

  it("no cwd at all: the current folder serves, as before", () => {
    const root = parked();
    const r = helper(["hook", "--mode", "session"], { cwd: root, input: JSON.stringify({ session_id: "s1", source: "startup" }) });
    expect(r.stdout).toContain("parked handoff exists");
    expect(r.stderr).toBe("");
  });
});
