// A project whose path holds a line break: install, init and publish refuse before writing
// anything (the merge driver's command would carry it into git's config; docs/design.md).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, snapshot, tempDir } from "../helpers.ts";

const REFUSAL = /^memory operation refused: the project path "[^"]*proj[^"]*x" holds a line break, which the merge driver's command in git's config cannot carry; move it to a path without one \(nothing was changed\)\n$/;
const OUTSIDE = /^memory operation refused: the project path "[^"]*proj[^"]*x" holds a line break, which install's list of the folders it makes cannot carry; move it to a path without one \(nothing was changed\)\n$/;

function oddProject(git = true) {
  const root = path.join(tempDir(), "proj\nx");
  if (git) cpSync(gitRepo(), root, { recursive: true });
  else mkdirSync(root);
  const home = tempDir("sh-home-");
  mkdirSync(path.join(root, ".claude"));
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  const config = () => (git ? readFileSync(path.join(root, ".git", "config"), "utf8") : "");
  const state = () => ({ files: snapshot(root), home: snapshot(home), config: config() });
  return { root, env, state };
}

describe("a project path with a line break", () => {
  it.each([
    ["install", ["install", "--agent", "claude-code"]],
    ["init", ["init", "--agent", "claude-code"]],
    ["publish", ["publish"]],
  ])("%s refuses in one line, no stack trace, and nothing on disk changes", (_verb, args) => {
    const p = oddProject();
    mkdirSync(path.join(p.root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(p.root, ".ai", "memory", "HANDOFF.md"), handoff("Goal."));
    const before = p.state();
    const r = helper([...args, "--root", p.root], { env: p.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(REFUSAL);
    expect(r.stdout).toBe("");
    expect(p.state()).toEqual(before);
    expect(existsSync(path.join(p.root, ".git", "session-handoff"))).toBe(false);
  });

  // Outside git there is no driver, but install lists the folders it makes a path a line.
  it.each([
    ["install", ["install", "--agent", "claude-code"]],
    ["init", ["init", "--agent", "claude-code"]],
  ])("%s outside git refuses too, and nothing on disk changes", (_verb, args) => {
    const p = oddProject(false);
    const before = p.state();
    const r = helper([...args, "--root", p.root], { env: { ...p.env, GIT_CEILING_DIRECTORIES: path.dirname(p.root) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(OUTSIDE);
    expect(r.stdout).toBe("");
    expect(p.state()).toEqual(before);
  });
});

// Node loads no ES module from a path holding a backslash (ERR_INVALID_MODULE_SPECIFIER): a helper copy there runs
// nothing, so every hook naming it would print a stack trace and exit 1.
describe.skipIf(process.platform === "win32")("a project path with a backslash", () => {
  function project() {
    const root = path.join(tempDir(), "w \\ dir");
    cpSync(gitRepo(), root, { recursive: true });
    const home = tempDir("sh-home-");
    return { root, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } };
  }

  it("init refuses in one line before copying the skill; nothing on disk changes", () => {
    const p = project();
    const before = snapshot(p.root);
    const r = helper(["init", "--agent", "claude-code", "--root", p.root], { env: p.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: the helper path "[^\n]*w \\\\ dir[^\n]*" holds a backslash, from which Node cannot load it \(ERR_INVALID_MODULE_SPECIFIER\), so no hook could run; move it to a path without one \(nothing was changed\)\n$/);
    expect(snapshot(p.root)).toEqual(before);
  });

  it("doctor says hooks running a copy inside it fail; a helper outside installs hooks that run", () => {
    const p = project();
    const r = helper(["install", "--agent", "claude-code", "--root", p.root], { env: p.env });
    expect(r.code, r.stderr).toBe(0);
    const d = helper(["doctor", "--root", p.root], { env: p.env });
    expect(d.stdout + d.stderr).toContain("the project path holds a backslash: Node cannot load a helper copy in it");
  });

  it("a project moved there: every hook prints one line and exits 0, never a stack trace", () => {
    const at = gitRepo();
    const home = tempDir("sh-home-");
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    const r = helper(["init", "--agent", "claude-code", "--agent", "cline", "--root", at], { env });
    expect(r.code, r.stderr).toBe(0);
    const root = path.join(tempDir(), "w \\ dir");
    renameSync(at, root);
    const hooks = JSON.parse(readFileSync(path.join(root, ".claude", "settings.json"), "utf8")).hooks;
    const commands = Object.values(hooks as Record<string, { hooks: { command: string }[] }[]>).map((g) => g[0]!.hooks[0]!.command);
    const runs = [
      ...commands.map((c) => spawnSync("/bin/sh", ["-c", c], { env: { ...process.env, ...env, CLAUDE_PROJECT_DIR: root }, input: "{}", encoding: "utf8" })),
      spawnSync("/bin/sh", [path.join(root, ".clinerules", "hooks", "TaskStart")], { env: { ...process.env, ...env }, input: "{}", encoding: "utf8" }),
    ];
    expect(runs.length).toBe(7);
    for (const run of runs) {
      expect(run.status).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^session-handoff: [^\n]*w \\ dir[^\n]*memory_io\.mjs holds a backslash, from which Node cannot load it; move the project to a path without one\n$/);
    }
  });
});
