// init writes and removes only in the project's own folders: its record beside the copy is never
// written through a link, a linked .agents is refused before anything changes (init and --undo),
// and a folder the record names outside the project is never removed. The verbs run in this
// process (test/in-process.ts) as the helper at scripts/memory_io.mjs; test/packaging/init.test.ts
// runs init through npm.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, snapshot, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

function project() {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  mkdirSync(path.join(root, ".claude"));
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  const run = (...args: string[]) => inProcess(["init", ...args, "--root", root], { env });
  return { root, home, run, record: path.join(root, ".agents", "skills", "session-handoff", ".init.json") };
}

describe("init and links", () => {
  it("a record that is a link (committed by someone else) is refused; its target is not written", async () => {
    const p = project();
    expect((await p.run()).code).toBe(0);
    const victim = path.join(p.home, ".bashrc");
    writeFileSync(victim, "alias ll='ls -l'\n");
    rmSync(p.record);
    symlinkSync(victim, p.record);
    for (const args of [[], ["--replace"], ["--undo"]]) {
      const r = await p.run(...args);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toContain("is not init's record (a link, not a file, or over 1 MB); nothing was changed");
      expect(readFileSync(victim, "utf8")).toBe("alias ll='ls -l'\n");
    }
  });

  it("a linked .agents: init --undo refuses and deletes nothing where it points", async () => {
    const p = project();
    const outside = tempDir("sh-outside-");
    mkdirSync(path.join(outside, "skills", "session-handoff", "references"), { recursive: true });
    writeFileSync(path.join(outside, "skills", "session-handoff", "SKILL.md"), "mine\n");
    symlinkSync(outside, path.join(p.root, ".agents"));
    const before = snapshot(outside);
    for (const args of [["--undo"], []]) {
      const r = await p.run(...args);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toContain(".agents is a link; init writes and removes only in the project's own folders");
    }
    expect(snapshot(outside)).toEqual(before);
  });

  it("a record naming folders outside the project: --undo leaves them", async () => {
    const p = project();
    expect((await p.run()).code).toBe(0);
    const outside = tempDir("sh-empty-");
    const rel = path.relative(p.root, outside);
    const r = JSON.parse(readFileSync(p.record, "utf8"));
    r.createdDirs.push(rel, outside);
    writeFileSync(p.record, JSON.stringify(r));
    expect((await p.run("--undo")).code).toBe(0);
    expect(existsSync(outside)).toBe(true);
  });

  it("a record naming the project's own empty folders: --undo leaves them (it removes only those on its way)", async () => {
    const p = project();
    mkdirSync(path.join(p.root, "docs", "keep-me"), { recursive: true });
    expect((await p.run()).code).toBe(0);
    const r = JSON.parse(readFileSync(p.record, "utf8"));
    r.createdDirs.push("docs/keep-me", "docs");
    writeFileSync(p.record, JSON.stringify(r));
    expect((await p.run("--undo")).code).toBe(0);
    expect(existsSync(path.join(p.root, "docs", "keep-me"))).toBe(true);
    expect(existsSync(path.join(p.root, ".agents"))).toBe(false);
  });

  it("a record of another shape is no record: no crash", async () => {
    const p = project();
    expect((await p.run()).code).toBe(0);
    writeFileSync(p.record, '{"files":{},"createdDirs":[1,{"a":1},null]}');
    const r = await p.run("--undo");
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(0);
  });
});

describe("only the folders install and init made are removed", () => {
  it("a user's own empty folders (.clinerules/hooks, .agents/skills, ~/.gemini) stay after uninstall and init --undo", async () => {
    const p = project();
    const own = [path.join(p.root, ".clinerules", "hooks"), path.join(p.root, ".agents", "skills"), path.join(p.home, ".gemini")];
    for (const d of own) mkdirSync(d, { recursive: true });
    const env = { HOME: p.home, XDG_CONFIG_HOME: path.join(p.home, ".config") };
    const cli = (...args: string[]) => inProcess(args, { env });
    expect((await p.run("--agent", "cline")).code).toBe(0);
    expect(existsSync(path.join(p.root, ".clinerules", "hooks", "TaskStart"))).toBe(true);
    expect((await cli("install", "--agent", "gemini", "--global")).code).toBe(0);
    expect((await cli("install", "--agent", "cursor", "--root", p.root)).code).toBe(0);
    expect((await cli("uninstall", "--agent", "gemini", "--global")).code).toBe(0);
    expect((await cli("uninstall", "--agent", "cursor", "--root", p.root)).code).toBe(0);
    expect((await p.run("--undo", "--agent", "cline")).code).toBe(0);
    expect(own.filter((d) => !existsSync(d))).toEqual([]);
    // The folders they made themselves go.
    for (const made of [".cursor", ".agents/skills/session-handoff", ".clinerules/00-session-handoff.md"]) {
      expect(existsSync(path.join(p.root, made)), made).toBe(false);
    }
  });
});

describe("init --undo changes nothing when it cannot finish", () => {
  it("a .gitattributes over 64 MB: refused before any agent's files or the git config change", async () => {
    const p = project();
    expect((await p.run("--agent", "claude-code", "--agent", "cursor")).code).toBe(0);
    truncateSync(path.join(p.root, ".gitattributes"), 64_000_001);
    const config = path.join(p.root, ".git", "config");
    const before = { files: snapshot(p.root), config: readFileSync(config, "utf8") };
    const r = await p.run("--undo");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the merge driver's block cannot be taken out of it, so nothing was changed");
    expect({ files: snapshot(p.root), config: readFileSync(config, "utf8") }).toEqual(before);
  });
});

describe("the clone's exclude file", () => {
  it("one install created goes when uninstall empties it; one that was there, empty, stays", async () => {
    for (const had of [false, true]) {
      const p = project();
      const exclude = path.join(p.root, ".git", "info", "exclude");
      rmSync(path.dirname(exclude), { recursive: true, force: true });
      if (had) {
        mkdirSync(path.dirname(exclude));
        writeFileSync(exclude, "");
      }
      const env = { HOME: p.home, XDG_CONFIG_HOME: path.join(p.home, ".config") };
      expect((await inProcess(["install", "--agent", "codex", "--root", p.root], { env })).stdout).toContain("added .codex/hooks.json to .git/info/exclude");
      expect((await inProcess(["uninstall", "--agent", "codex", "--root", p.root], { env })).code).toBe(0);
      expect(existsSync(exclude), `had: ${had}`).toBe(had);
      expect(existsSync(path.dirname(exclude)), `had: ${had}`).toBe(had);
      expect(existsSync(path.join(p.root, ".git", "session-handoff"))).toBe(false);
    }
  });
});

describe("linked work trees share one exclude file and one git config", () => {
  it("uninstall in one leaves the line another's .codex/hooks.json still needs; the last one's uninstall takes it", async () => {
    const p = project();
    const other = path.join(tempDir("sh-wt-"), "second");
    git(p.root, "worktree", "add", "-q", other);
    const env = { HOME: p.home, XDG_CONFIG_HOME: path.join(p.home, ".config") };
    const exclude = path.join(p.root, ".git", "info", "exclude");
    for (const root of [p.root, other]) expect((await inProcess(["install", "--agent", "codex", "--root", root], { env })).code).toBe(0);
    expect(readFileSync(exclude, "utf8")).toContain("/.codex/hooks.json\n");
    expect((await inProcess(["uninstall", "--agent", "codex", "--root", p.root], { env })).code).toBe(0);
    expect(readFileSync(exclude, "utf8")).toContain("/.codex/hooks.json\n");
    expect(git(other, "status", "--porcelain")).not.toContain(".codex");
    expect((await inProcess(["uninstall", "--agent", "codex", "--root", other], { env })).stdout).toContain("removed .codex/hooks.json from .git/info/exclude");
    expect(readFileSync(exclude, "utf8")).not.toContain(".codex");
  });

  it("uninstall in one keeps the merge driver (shared config and copy) another still has an agent for", async () => {
    const p = project();
    const other = path.join(tempDir("sh-wt-"), "second");
    git(p.root, "worktree", "add", "-q", other);
    const env = { HOME: p.home, XDG_CONFIG_HOME: path.join(p.home, ".config") };
    const run = (...args: string[]) => inProcess(args, { env });
    const config = path.join(p.root, ".git", "config");
    const copy = path.join(p.root, ".git", "session-handoff", "merge-driver.mjs");
    expect((await run("install", "--agent", "claude-code", "--root", p.root)).code).toBe(0);
    expect((await run("install", "--agent", "cursor", "--root", other)).code).toBe(0);
    const dry = await run("uninstall", "--agent", "claude-code", "--root", p.root, "--dry-run");
    expect(dry.stdout).toContain("would remove the merge driver's block from .gitattributes");
    expect(dry.stdout).not.toContain(".git/config");
    const un = await run("uninstall", "--agent", "claude-code", "--root", p.root);
    expect(un.code, un.stderr).toBe(0);
    expect(un.stdout).not.toContain(".git/config");
    expect(un.stderr).toContain(`the merge driver session-handoff stays in .git/config: the work tree "${other}" shares it and still has an agent installed`);
    expect(existsSync(path.join(p.root, ".gitattributes"))).toBe(false);
    expect(readFileSync(config, "utf8")).toContain('[merge "session-handoff"]');
    expect(existsSync(copy)).toBe(true);
    const doctor = (await run("doctor", "--root", other)).stdout;
    expect(doctor).not.toContain("lacks it");
    expect(doctor).not.toContain("is missing");
    const last = await run("uninstall", "--agent", "cursor", "--root", other);
    expect(last.stdout).toContain("removed the merge driver session-handoff from .git/config");
    expect(readFileSync(config, "utf8")).not.toContain("session-handoff");
    expect(existsSync(copy)).toBe(false);
  });
});
