// Several agents in one install, uninstall or init --undo: a file one of them refuses stops the run before
// any agent's file is written, so "nothing was changed" is true; a write that fails later says on stderr
// what was done before it. The verbs in this process, real repositories, a HOME of each test's own.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

function project(folders: string[] = []) {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  for (const f of folders) mkdirSync(path.join(root, f), { recursive: true });
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), CLAUDE_CONFIG_DIR: "" };
  const cli = (...args: string[]) => inProcess(args, { env, cwd: root });
  return { root, cli, at: (rel: string) => path.join(root, rel) };
}

// The file moved out of the project and a link left in its place (a dotfiles manager's way).
function linkAway(file: string, text = "{}\n"): string {
  const away = path.join(tempDir("sh-away-"), path.basename(file));
  mkdirSync(path.dirname(file), { recursive: true });
  if (existsSync(file)) renameSync(file, away);
  else writeFileSync(away, text);
  symlinkSync(away, file);
  return away;
}

const BOTH = ["--agent", "claude-code", "--agent", "codex"];

describe("a refusal for one of several agents comes before any agent's file is written", () => {
  it("install: codex's linked hooks.json leaves claude-code's settings, the driver and git's files untouched", async () => {
    const p = project();
    linkAway(p.at(".codex/hooks.json"));
    const r = await p.cli("install", ...BOTH);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("links are never followed or replaced, so nothing was changed. Add this to its target by hand:\n");
    expect(r.stdout).toBe("");
    expect(existsSync(p.at(".claude"))).toBe(false);
    expect(readFileSync(p.at(".git/config"), "utf8")).not.toContain("session-handoff");
    expect(git(p.root, "status", "--porcelain", "--untracked-files=all")).toBe("?? .codex/hooks.json\n");
  });

  it("uninstall: claude-code's settings stay, and the refusal asks to take the entries out, not to add them", async () => {
    const p = project();
    expect((await p.cli("install", ...BOTH)).code).toBe(0);
    const settings = readFileSync(p.at(".claude/settings.json"), "utf8");
    const away = linkAway(p.at(".codex/hooks.json"));
    const r = await p.cli("uninstall", ...BOTH);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("so nothing was changed. Take these entries out of its target by hand:\n{");
    expect(r.stderr).not.toMatch(/add this/i);
    expect(readFileSync(p.at(".claude/settings.json"), "utf8")).toBe(settings);
    expect(readFileSync(away, "utf8")).toContain("memory_io.mjs");
  });

  it("init --undo: the same link stops it before claude-code's uninstall", async () => {
    const p = project([".claude", ".codex"]);
    expect((await p.cli("init")).code).toBe(0);
    const settings = readFileSync(p.at(".claude/settings.json"), "utf8");
    linkAway(p.at(".codex/hooks.json"));
    const r = await p.cli("init", "--undo");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nothing was changed");
    expect(readFileSync(p.at(".claude/settings.json"), "utf8")).toBe(settings);
    expect(existsSync(p.at(".agents/skills/session-handoff/SKILL.md"))).toBe(true);
  });
});

describe("a write that fails after others says what was done", () => {
  it("install: .git/info a file, so the exclude line cannot be written after claude-code's settings were", async () => {
    const p = project();
    rmSync(p.at(".git/info"), { recursive: true, force: true });
    writeFileSync(p.at(".git/info"), "");
    const r = await p.cli("install", ...BOTH);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("internal error");
    const [before, refusal] = r.stderr.split("memory operation refused: ");
    expect(before).toMatch(/^claude-code: created \.claude\/settings\.json$/m);
    expect(before).toMatch(/^registered the merge driver session-handoff in \.git\/config$/m);
    expect(refusal).toMatch(/^file system error: /);
    expect(refusal).not.toContain("nothing was changed");
  });
});
