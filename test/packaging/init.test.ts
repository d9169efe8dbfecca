// The npm package as users get it: `npm pack` of this checkout, then `npx session-handoff init`
// from the tarball (npm exec, offline, with its own HOME and npm cache) and from a local
// `npm i -D`, in temp git projects holding .claude/ and .codex/. The skill lands in
// .agents/skills/session-handoff, Claude Code sees it through .claude/skills, the hooks name
// the copy (never npm's cache or node_modules), doctor run from the copy reports no problem,
// a second run changes no byte, `init --undo` takes it all back, refusals change nothing.
// npm itself runs where it is the subject (npx from the tarball, a local `npm i -D`); init's
// dry run, undo and refusals run in this process (inProcess) as the packed helper, unpacked,
// or this checkout's; the copy's helper and doctor's fix command are spawned.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARKER } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "sh-init-")));
let tarball = "";
/** The helper of the packed tarball, unpacked: what `npm exec` runs, without npm's start. */
let packed = "";
let serial = 0;

beforeAll(() => {
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: REPO, encoding: "utf8", env: npmEnv(path.join(scratch, "pack-home")) });
  tarball = path.join(scratch, JSON.parse(out)[0].filename);
  execFileSync("tar", ["-xzf", tarball, "-C", scratch]);
  packed = path.join(scratch, "package", "scripts", "memory_io.mjs");
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** npm with its own HOME and cache, offline: nothing is fetched from a registry. */
function npmEnv(home: string): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), npm_config_cache: path.join(home, ".npm"), npm_config_offline: "true", npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false", GIT_CONFIG_NOSYSTEM: "1" };
  for (const k of Object.keys(env)) if (k.startsWith("npm_") && !k.startsWith("npm_config_")) delete env[k];
  for (const k of ["npm_config_prefix", "npm_config_global", "npm_config_local_prefix", "npm_config_userconfig"]) delete env[k];
  for (const k of ["SESSION_HANDOFF_DISABLE", "SESSION_HANDOFF_PAUSE", "SESSION_HANDOFF_NODE", "MEMORY_IO_FAILPOINT", "CLAUDE_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE"]) delete env[k];
  return env;
}

/** A temp git project with the given agent folders, its own HOME and npm env. */
function project(folders: string[] = [".claude", ".codex"]): { root: string; env: NodeJS.ProcessEnv } {
  const base = path.join(scratch, `p${++serial}`);
  const root = path.join(base, "project");
  mkdirSync(root, { recursive: true });
  const env = { ...npmEnv(path.join(base, "home")), GIT_CEILING_DIRECTORIES: base };
  execFileSync("git", ["init", "-q", root], { env });
  for (const f of folders) mkdirSync(path.join(root, f));
  return { root, env };
}

function npx(root: string, env: NodeJS.ProcessEnv, args: string[]) {
  return spawnSync("npm", ["exec", "--yes", "--package", tarball, "--", "session-handoff", ...args], { cwd: root, env, encoding: "utf8", timeout: 180_000 });
}

/** The verb in this process, run as the helper at `helperPath` (init copies the skill folder it lies in). */
async function inside(helperPath: string, root: string, env: NodeJS.ProcessEnv, args: string[]) {
  const r = await inProcess(args, { wholeEnv: env, cwd: root, helperPath });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** Every path under `dirs` with its bytes' hash (links by their target): a second run must keep it. */
function snapshot(dirs: string[]): string {
  const lines: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) lines.push(`${p} -> ${readlinkSync(p)}`);
    else if (st.isDirectory()) {
      lines.push(`${p}/ ${st.mode}`);
      for (const n of readdirSync(p).sort()) if (n !== "objects" && n !== "_cacache") walk(path.join(p, n));
    } else lines.push(`${p} ${st.mode} ${st.mtimeMs} ${createHash("sha256").update(readFileSync(p)).digest("hex")}`);
  };
  for (const d of dirs) walk(d);
  return lines.join("\n");
}

const skill = (root: string) => path.join(root, ".agents", "skills", "session-handoff");

describe("npm pack", () => {
  it("gives at most 45 files: the skill's entries, README and the bin; nothing of src/, test/, docs/", () => {
    const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").map((f) => f.replace(/^package\//, ""));
    expect(files.length).toBeLessThanOrEqual(45);
    expect(files).toContain("scripts/memory_io.mjs");
    expect(files).toContain("scripts/lib/cli.mjs");
    expect(files).toContain("SKILL.md");
    expect(files.filter((f) => /^(src|test|docs|tools|bench|demo|node_modules)\//.test(f))).toEqual([]);
    const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8"));
    expect(pkg.private).toBeUndefined();
    expect(pkg.bin).toEqual({ "session-handoff": "scripts/memory_io.mjs" });
    expect(pkg.dependencies ?? {}).toEqual({});
  });
});

describe("npx session-handoff init, from the packed tarball", () => {
  it("copies the skill, links it for Claude Code, installs both agents' hooks naming the copy; doctor says ok; a second run changes no byte", () => {
    const { root, env } = project();
    const r = npx(root, env, ["init"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^copied the skill to \.agents\/skills\/session-handoff \(\d+ new files\)$/m);
    expect(r.stdout).toContain("linked .claude/skills/session-handoff -> .agents/skills/session-handoff\n");
    expect(r.stdout).toContain("claude-code: created .claude/settings.json\n");
    expect(r.stdout).toContain("codex: created .codex/hooks.json\n");
    expect(r.stdout).toContain("check: node .agents/skills/session-handoff/scripts/memory_io.mjs doctor\n");
    // Uncommitted, they would be listed as the user's dirty files in every handoff (found by a newcomer).
    expect(r.stdout).toContain("commit: the skill's copy and the team files above (docs/install.md); each teammate runs `init` once in their own clone too");
    expect(r.stdout).toMatch(/^next: start a new session \(claude-code; codex: approve its hooks in \/hooks first\) and say "write a handoff" .*"resume where we left off"/m);
    expect(realpathSync(path.join(root, ".claude", "skills", "session-handoff"))).toBe(skill(root));
    for (const f of ["SKILL.md", "scripts/memory_io.mjs", "scripts/lib/cli.mjs", "scripts/lib/session.mjs", "references/handoff-schema.md"]) expect(existsSync(path.join(skill(root), f)), f).toBe(true);
    const claude = readFileSync(path.join(root, ".claude", "settings.json"), "utf8");
    const codex = readFileSync(path.join(root, ".codex", "hooks.json"), "utf8");
    expect(JSON.parse(claude).hooks.SessionStart[0].hooks[0].command).toContain('"$CLAUDE_PROJECT_DIR"/.agents/skills/session-handoff/scripts/memory_io.mjs');
    expect(codex).toContain(path.join(skill(root), "scripts", "memory_io.mjs"));
    for (const text of [claude, codex]) expect(text).not.toMatch(/_npx|\.npm|node_modules/);

    const helper = path.join(skill(root), "scripts", "memory_io.mjs");
    const doctor = spawnSync(process.execPath, [helper, "doctor", "--json"], { cwd: root, env, encoding: "utf8" });
    const report = JSON.parse(doctor.stdout);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);

    // The installed SessionStart hook, as Claude Code runs it, announces a parked handoff.
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
    const command = JSON.parse(claude).hooks.SessionStart[0].hooks[0].command as string;
    const hook = spawnSync("/bin/sh", ["-c", command], { cwd: root, input: JSON.stringify({ cwd: root }), env: { ...env, CLAUDE_PROJECT_DIR: root }, encoding: "utf8" });
    expect(hook.status, hook.stderr).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toContain("parked handoff exists");

    const before = snapshot([root, path.join(env.HOME!, ".config")]);
    const again = npx(root, env, ["init"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^unchanged \.agents\/skills\/session-handoff\nunchanged \.claude\/skills\/session-handoff\n/);
    expect(snapshot([root, path.join(env.HOME!, ".config")])).toBe(before);
  }, 300_000);

  it("--dry-run says what it would do and changes nothing; --undo takes back everything init did", async () => {
    const { root, env } = project();
    const before = snapshot([root]);
    const dry = await inside(packed, root, env, ["init", "--agent", "claude-code", "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would copy the skill to \.agents\/skills\/session-handoff \(\d+ new files\)\nwould link \.claude\/skills\/session-handoff -> \.agents\/skills\/session-handoff\nclaude-code: would create \.claude\/settings\.json\n/);
    expect(snapshot([root])).toBe(before);
    expect((await inside(packed, root, env, ["init"])).status).toBe(0);
    const undo = await inside(packed, root, env, ["init", "--undo"]);
    expect(undo.status, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("claude-code: removed .claude/settings.json\n");
    expect(undo.stdout).toContain("removed .claude/skills/session-handoff\n");
    expect(undo.stdout).toMatch(/^removed \.agents\/skills\/session-handoff \(\d+ files\)$/m);
    expect(existsSync(path.join(root, ".agents"))).toBe(false);
    expect(existsSync(path.join(root, ".claude", "skills"))).toBe(false);
    expect(readdirSync(path.join(root, ".claude"))).toEqual([]);
    expect(existsSync(path.join(root, "AGENTS.md"))).toBe(false);
  }, 300_000);

  it("--undo takes back an agent no folder marks (opencode: AGENTS.md alone) and leaves the project as it was", async () => {
    const { root, env } = project([]);
    const before = snapshot([root]);
    expect((await inside(packed, root, env, ["init", "--agent", "opencode"])).status).toBe(0);
    expect(readFileSync(path.join(root, "AGENTS.md"), "utf8")).toContain("session-handoff");
    const dry = await inside(packed, root, env, ["init", "--undo", "--dry-run"]);
    expect(dry.stdout).toContain("opencode: would remove AGENTS.md\n");
    const undo = await inside(packed, root, env, ["init", "--undo"]);
    expect(undo.status, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("opencode: removed AGENTS.md\n");
    expect(undo.stdout).toContain("\nremoved the merge driver session-handoff from .git/config\n");
    expect(snapshot([root]).split("\n").filter((l) => !l.includes("/.git/"))).toEqual(before.split("\n").filter((l) => !l.includes("/.git/")));
    expect(spawnSync("git", ["config", "--get-regexp", "merge"], { cwd: root, env, encoding: "utf8" }).stdout).toBe("");
  }, 300_000);

  it("a teammate's clone, which lacks .codex/ (git does not track it): init finds Codex by AGENTS.md's block", async () => {
    const { root, env } = project([".claude"]);
    expect((await inside(packed, root, env, ["init", "--agent", "claude-code", "--agent", "codex"])).status).toBe(0);
    // What git leaves out of a clone: .codex/hooks.json names this clone's path and is excluded.
    expect(readFileSync(path.join(root, ".git", "info", "exclude"), "utf8")).toContain(".codex/hooks.json");
    rmSync(path.join(root, ".codex"), { recursive: true });
    const again = await inside(packed, root, env, ["init"]);
    expect(again.status, again.stderr).toBe(0);
    expect(existsSync(path.join(root, ".codex", "hooks.json"))).toBe(true);
    expect(again.stdout).not.toContain("opencode");
  }, 300_000);

  it("from a local npm i -D: the hooks name the copy, not node_modules", () => {
    const { root, env } = project([".claude"]);
    writeFileSync(path.join(root, "package.json"), '{ "name": "app", "version": "1.0.0", "private": true }\n');
    const i = spawnSync("npm", ["install", "-D", tarball], { cwd: root, env, encoding: "utf8", timeout: 180_000 });
    expect(i.status, i.stderr).toBe(0);
    const r = spawnSync("npx", ["session-handoff", "init"], { cwd: root, env, encoding: "utf8", timeout: 180_000 });
    expect(r.status, r.stderr).toBe(0);
    const claude = readFileSync(path.join(root, ".claude", "settings.json"), "utf8");
    expect(JSON.parse(claude).hooks.SessionStart[0].hooks[0].command).toContain('"$CLAUDE_PROJECT_DIR"/.agents/skills/session-handoff/scripts/memory_io.mjs');
    expect(claude).not.toContain("node_modules");
    // The bin link itself finds its own skill folder (before, node_modules/scripts/memory_io.mjs).
    const doctor = spawnSync(path.join(root, "node_modules", ".bin", "session-handoff"), ["doctor", "--json"], { cwd: root, env, encoding: "utf8" });
    expect(doctor.stdout).not.toContain(path.join("node_modules", "scripts"));
    expect(doctor.stdout).toContain(path.join("node_modules", "session-handoff", "scripts", "memory_io.mjs"));
  }, 300_000);
});

describe("init --global", () => {
  it("copies into ~/.agents/skills, links ~/.claude/skills, installs the per-user hooks; --undo leaves HOME as it was", async () => {
    const { root, env } = project([]);
    const home = env.HOME!;
    for (const d of [".claude", ".codex"]) mkdirSync(path.join(home, d));
    writeFileSync(path.join(home, ".codex", "config.toml"), "model = \"o3\"\n");
    // The recorded Node stays in the user's config folder: other projects' hooks may use it.
    const mine = (s: string) => s.split("\n").filter((l) => !l.startsWith(path.join(home, ".config"))).join("\n");
    const before = mine(snapshot([home]));
    const helper = path.join(REPO, "scripts", "memory_io.mjs");
    const r = await inside(helper, root, env, ["init", "--global"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^copied the skill to ~\/\.agents\/skills\/session-handoff \(\d+ new files\)\nlinked ~\/\.claude\/skills\/session-handoff -> ~\/\.agents\/skills\/session-handoff\nclaude-code: created ~\/\.claude\/settings\.json\ncodex: created ~\/\.codex\/AGENTS\.md\ncodex: created ~\/\.codex\/hooks\.json\n/);
    const copy = path.join(home, ".agents", "skills", "session-handoff", "scripts", "memory_io.mjs");
    expect(readFileSync(path.join(home, ".codex", "hooks.json"), "utf8")).toContain(realpathSync(copy));
    const doctor = await inside(copy, root, env, ["doctor", "--global", "--json"]);
    expect(JSON.parse(doctor.stdout).problems).toEqual([]);
    const undo = await inside(helper, root, env, ["init", "--global", "--undo"]);
    expect(undo.status, undo.stderr).toBe(0);
    expect(mine(snapshot([home]))).toBe(before);
  });
});

describe("init's refusals change nothing", () => {
  const helper = path.join(REPO, "scripts", "memory_io.mjs");
  const run = (root: string, env: NodeJS.ProcessEnv, args: string[]) => inside(helper, root, env, ["init", ...args]);

  // Spawned: the exit code at the process boundary.
  it("no project: a folder with no .git", () => {
    const { root, env } = project();
    rmSync(path.join(root, ".git"), { recursive: true });
    const before = snapshot([root]);
    const r = spawnSync(process.execPath, [helper, "init"], { cwd: root, env, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no project here: .* has no \.git and no folder above it has one; nothing was changed\. Run init at your project's root \(after `git init`\), or pass --root <project>/);
    expect(snapshot([root])).toBe(before);
  });
  it("an unknown agent, and no agent found", async () => {
    const { root, env } = project([]);
    const before = snapshot([root]);
    const unknown = await run(root, env, ["--agent", "vim"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('init: unknown agent "vim"; name one of claude-code|codex|opencode|cline|gemini|cursor');
    const none = await run(root, env, []);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/nothing was changed\. Name them: node \S+memory_io\.mjs init --agent claude-code --agent codex/);
    expect(snapshot([root])).toBe(before);
  });
  it("a place it cannot write: .agents is a file", async () => {
    const { root, env } = project();
    writeFileSync(path.join(root, ".agents"), "not a folder\n");
    const before = snapshot([root]);
    const r = await run(root, env, []);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`.agents is not a folder; nothing was changed. Fix its permissions, then run init again`);
    expect(snapshot([root])).toBe(before);
  });
  it("a file install refuses (settings that do not parse): nothing is copied either", async () => {
    const { root, env } = project();
    writeFileSync(path.join(root, ".claude", "settings.json"), "{ not json\n");
    const before = snapshot([root]);
    const r = await run(root, env, []);
    expect(r.status).toBe(2);
    expect(snapshot([root])).toBe(before);
    expect(existsSync(path.join(root, ".agents"))).toBe(false);
  });
  it("a skill folder for Claude Code that is something else", async () => {
    const { root, env } = project();
    mkdirSync(path.join(root, ".claude", "skills", "session-handoff"), { recursive: true });
    writeFileSync(path.join(root, ".claude", "skills", "session-handoff", "notes.txt"), "mine\n");
    chmodSync(path.join(root, ".claude", "skills", "session-handoff", "notes.txt"), 0o644);
    const before = snapshot([root]);
    const r = await run(root, env, []);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(".claude/skills/session-handoff is a folder that is not this skill; nothing was changed. Move it away, then run init again");
    expect(snapshot([root])).toBe(before);
  });
});

describe("doctor names a skill folder without its helper, with the command that fixes it", () => {
  it("SKILL.md alone in .claude/skills/session-handoff; init completes it", async () => {
    const { root, env } = project([".claude"]);
    const lone = path.join(root, ".claude", "skills", "session-handoff");
    mkdirSync(lone, { recursive: true });
    writeFileSync(path.join(lone, "SKILL.md"), readFileSync(path.join(REPO, "SKILL.md")));
    const helper = path.join(REPO, "scripts", "memory_io.mjs");
    const d = await inside(helper, root, env, ["doctor", "--json", "--root", root]);
    const problem = (JSON.parse(d.stdout).problems as { what: string; fix: string }[]).find((p) => p.what.includes("lacks its helper"));
    expect(problem?.what).toBe(`claude-code: the skill folder ${lone} lacks its helper (scripts/memory_io.mjs, scripts/lib/cli.mjs, scripts/lib/session.mjs)`);
    expect(problem?.fix).toBe(`node ${helper} init --agent claude-code --root ${root}`);
    const fix = spawnSync("sh", ["-c", problem!.fix], { cwd: root, env, encoding: "utf8" });
    expect(fix.status, fix.stderr).toBe(0);
    expect(existsSync(path.join(lone, "scripts", "lib", "cli.mjs"))).toBe(true);
    const after = await inside(path.join(skill(root), "scripts", "memory_io.mjs"), root, env, ["doctor", "--json"]);
    expect(JSON.parse(after.stdout).problems).toEqual([]);
  });
});
