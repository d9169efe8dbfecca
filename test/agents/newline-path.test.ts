// A project whose path holds a line break: install, init and publish refuse before writing
// anything (the merge driver's command would carry it into git's config; docs/design.md).
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
