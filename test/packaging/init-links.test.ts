// init writes and removes only in the project's own folders: its record beside the copy is never
// written through a link, a linked .agents is refused before anything changes (init and --undo),
// and a folder the record names outside the project is never removed.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, helper, snapshot, tempDir } from "../helpers.ts";

function project() {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  mkdirSync(path.join(root, ".claude"));
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  const run = (...args: string[]) => helper(["init", ...args, "--root", root], { env });
  return { root, home, run, record: path.join(root, ".agents", "skills", "session-handoff", ".init.json") };
}

describe("init and links", () => {
  it("a record that is a link (committed by someone else) is refused; its target is not written", () => {
    const p = project();
    expect(p.run().code).toBe(0);
    const victim = path.join(p.home, ".bashrc");
    writeFileSync(victim, "alias ll='ls -l'\n");
    rmSync(p.record);
    symlinkSync(victim, p.record);
    for (const args of [[], ["--replace"], ["--undo"]]) {
      const r = p.run(...args);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toContain("is not init's record (a link, not a file, or over 1 MB); nothing was changed");
      expect(readFileSync(victim, "utf8")).toBe("alias ll='ls -l'\n");
    }
  });

  it("a linked .agents: init --undo refuses and deletes nothing where it points", () => {
    const p = project();
    const outside = tempDir("sh-outside-");
    mkdirSync(path.join(outside, "skills", "session-handoff", "references"), { recursive: true });
    writeFileSync(path.join(outside, "skills", "session-handoff", "SKILL.md"), "mine\n");
    symlinkSync(outside, path.join(p.root, ".agents"));
    const before = snapshot(outside);
    for (const args of [["--undo"], []]) {
      const r = p.run(...args);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toContain(".agents is a link; init writes and removes only in the project's own folders");
    }
    expect(snapshot(outside)).toEqual(before);
  });

  it("a record naming folders outside the project: --undo leaves them", () => {
    const p = project();
    expect(p.run().code).toBe(0);
    const outside = tempDir("sh-empty-");
    const rel = path.relative(p.root, outside);
    const r = JSON.parse(readFileSync(p.record, "utf8"));
    r.createdDirs.push(rel, outside);
    writeFileSync(p.record, JSON.stringify(r));
    expect(p.run("--undo").code).toBe(0);
    expect(existsSync(outside)).toBe(true);
  });

  it("a record naming the project's own empty folders: --undo leaves them (it removes only those on its way)", () => {
    const p = project();
    mkdirSync(path.join(p.root, "docs", "keep-me"), { recursive: true });
    expect(p.run().code).toBe(0);
    const r = JSON.parse(readFileSync(p.record, "utf8"));
    r.createdDirs.push("docs/keep-me", "docs");
    writeFileSync(p.record, JSON.stringify(r));
    expect(p.run("--undo").code).toBe(0);
    expect(existsSync(path.join(p.root, "docs", "keep-me"))).toBe(true);
    expect(existsSync(path.join(p.root, ".agents"))).toBe(false);
  });

  it("a record of another shape is no record: no crash", () => {
    const p = project();
    expect(p.run().code).toBe(0);
    writeFileSync(p.record, '{"files":{},"createdDirs":[1,{"a":1},null]}');
    const r = p.run("--undo");
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(0);
  });
});
