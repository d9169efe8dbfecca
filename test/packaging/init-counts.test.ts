// What newcomers found init and uninstall saying or leaving untrue: the files init counts, the records
// of saves --undo leaves, the agent named on the merge driver's lines, a repeated --agent to uninstall,
// and CLAUDE_CONFIG_DIR under --global. The verbs in this process (inProcess, as the built helper
// runs them), real repositories, a HOME of each test's own.
import { existsSync, mkdirSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

function project(folders: string[], extra: Record<string, string> = {}) {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  for (const f of folders) mkdirSync(path.join(root, f), { recursive: true });
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), CLAUDE_CONFIG_DIR: "", ...extra };
  const cli = (...args: string[]) => inProcess(args, { env, cwd: root });
  return { root, home, env, cli, skill: path.join(root, ".agents", "skills", "session-handoff") };
}

const filesUnder = (dir: string) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;

describe("init's counts", () => {
  it("says as many files as it writes (.init.json too), and --undo as many as it removes", async () => {
    const p = project([".claude"]);
    const r = await p.cli("init");
    expect(r.code, r.stderr).toBe(0);
    const n = filesUnder(p.skill);
    expect(r.stdout).toContain(`copied the skill to .agents/skills/session-handoff (${n} new files)\n`);
    expect(existsSync(path.join(p.skill, ".init.json"))).toBe(true);
    const undo = await p.cli("init", "--undo");
    expect(undo.stdout).toContain(`removed .agents/skills/session-handoff (${n} files)\n`);
    expect(existsSync(p.skill)).toBe(false);
  });
});

describe("init --undo and this clone's records of its saves", () => {
  const saved = async (p: ReturnType<typeof project>) => {
    expect((await p.cli("init")).code).toBe(0);
    const w = await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { env: p.env, cwd: p.root, input: handoff("g") });
    expect(w.code, w.stderr).toBe(0);
    return path.join(p.root, ".git", "session-handoff");
  };

  it("with the saved memory gone, the repository's git dir is as before init", async () => {
    const p = project([".claude"]);
    const before = readdirSync(path.join(p.root, ".git")).sort();
    const records = await saved(p);
    expect(readdirSync(records)).toEqual(expect.arrayContaining(["clone-id", "saves"]));
    const dry = await p.cli("init", "--undo", "--dry-run");
    expect(dry.stdout).toMatch(/^left \.git\/session-handoff\/\{clone-id,saves/m);
    // The user deletes the saved memory, then takes init back.
    rmSync(path.join(p.root, ".ai"), { recursive: true });
    expect((await p.cli("init", "--undo", "--dry-run")).stdout).toMatch(/^would remove \.git\/session-handoff\/\{clone-id,saves/m);
    expect(existsSync(path.join(records, "clone-id"))).toBe(true);
    const undo = await p.cli("init", "--undo");
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/^removed \.git\/session-handoff\/\{clone-id,saves(,saved-by)?,last-save\}: this clone's record of its saves$/m);
    expect(existsSync(records)).toBe(false);
    expect(readdirSync(path.join(p.root, ".git")).sort()).toEqual(before);
  });

  it("with the saved memory there, they stay with it, and --undo says so", async () => {
    const p = project([".claude"]);
    const records = await saved(p);
    const undo = await p.cli("init", "--undo");
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/^left \.git\/session-handoff\/\{clone-id,saves(,saved-by)?,last-save\}: this clone's record of its handoffs in \.ai\/memory$/m);
    expect(readdirSync(records)).toContain("clone-id");
    expect(existsSync(path.join(records, "merge-driver.mjs"))).toBe(false);
  });
});

describe("the merge driver's lines", () => {
  it("name no agent: the driver serves every agent installed here", async () => {
    const p = project([".claude", ".codex"]);
    const r = await p.cli("init");
    expect(r.stdout).toMatch(/^registered the merge driver session-handoff in \.git\/config$/m);
    const undo = await p.cli("init", "--undo");
    expect(undo.stdout).toMatch(/^removed the merge driver session-handoff from \.git\/config$/m);
    expect(`${r.stdout}${undo.stdout}`).not.toMatch(/^[\w-]+: .*merge driver/m);
  });
});

describe("install and uninstall take a repeated --agent, as init does", () => {
  it("uninstall --agent claude-code --agent codex removes both, each line named, the driver once", async () => {
    const p = project([]);
    const i = await p.cli("install", "--agent", "claude-code", "--agent", "codex");
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toContain("claude-code: created .claude/settings.json\n");
    expect(i.stdout).toContain("codex: created .codex/hooks.json\n");
    const u = await p.cli("uninstall", "--agent", "claude-code", "--agent", "codex");
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toContain("claude-code: removed .claude/settings.json\n");
    expect(u.stdout).toContain("codex: removed AGENTS.md\n");
    expect(u.stdout.match(/^removed the merge driver session-handoff from \.git\/config$/gm)).toHaveLength(1);
    expect(git(p.root, "status", "--porcelain")).toBe("");
  });

  it("an unknown name among them is a usage error, nothing changed", async () => {
    const p = project([]);
    const u = await p.cli("install", "--agent", "claude-code", "--agent", "nope");
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/^usage error: install needs --agent .*, got "nope"/);
    expect(existsSync(path.join(p.root, ".claude"))).toBe(false);
  });
});

describe("init --global and CLAUDE_CONFIG_DIR", () => {
  it("finds Claude Code there and links the skill there, where install --global puts its hooks", async () => {
    const cfg = tempDir("sh-claude-");
    const p = project([], {});
    const env = { ...p.env, CLAUDE_CONFIG_DIR: cfg };
    const r = await inProcess(["init", "--global"], { env, cwd: p.root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`linked ${cfg}/skills/session-handoff -> ~/.agents/skills/session-handoff\n`);
    expect(r.stdout).toContain(`claude-code: created ${cfg}/settings.json\n`);
    expect(readlinkSync(path.join(cfg, "skills", "session-handoff"))).toBe(path.relative(path.join(cfg, "skills"), path.join(p.home, ".agents", "skills", "session-handoff")));
    expect(existsSync(path.join(p.home, ".claude"))).toBe(false);
    // doctor finds the link there too: before, it called Claude Code's install one without a skill folder.
    const doctor = JSON.parse((await inProcess(["doctor", "--global", "--json"], { env, cwd: p.root })).stdout);
    expect(doctor.agents["claude-code"].skill).toEqual([path.join(cfg, "skills", "session-handoff")]);
    const undo = await inProcess(["init", "--global", "--undo"], { env, cwd: p.root });
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain(`removed ${cfg}/skills/session-handoff\n`);
    expect(existsSync(path.join(cfg, "settings.json"))).toBe(false);
    expect(existsSync(path.join(p.home, ".agents"))).toBe(false);
  });
});
