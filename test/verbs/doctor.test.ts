// `doctor` (docs/design.md#doctor): read-only, --json, always exit 0, each problem with its fix.
import { copyHelper } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HELPER, MARKER, git, gitRepo, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

// The verbs run in this process as the copied helper (inProcess); spawned: doctor's exit code and
// a helper path holding a newline, the session hook and checkpoint on stdin, git's runs counted and
// git missing from PATH.
function setup() {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const skill = path.join(root, ".claude", "skills", "session-handoff");
  mkdirSync(path.join(skill, "scripts"), { recursive: true });
  writeFileSync(path.join(skill, "SKILL.md"), "---\nname: session-handoff\n---\n");
  const helper = path.join(skill, "scripts", "memory_io.mjs");
  copyHelper(helper);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  delete env.SESSION_HANDOFF_DISABLE;
  delete env.SESSION_HANDOFF_PAUSE;
  const run = (...args: string[]) => inProcess(args, { wholeEnv: env, cwd: root, helperPath: helper });
  // The process as users start it: its exit code at the boundary.
  const spawn = (...args: string[]) => {
    const r = spawnSync(process.execPath, [helper, ...args], { cwd: root, env, encoding: "utf8" });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return { root, home, run, spawn };
}

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = path.join(d, n);
      out.push(`${path.relative(dir, p)} ${lstatSync(p).isDirectory() ? "" : readFileSync(p, "base64")}`);
      if (lstatSync(p).isDirectory() && n !== ".git") walk(p);
    }
  };
  walk(dir);
  return out;
}

const doctor = async (e: Pick<ReturnType<typeof setup>, "root" | "run">) => {
  const r = await e.run("doctor", "--root", e.root, "--json");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as {
    ok: boolean;
    node: string;
    agents: Record<string, { skill: string[]; install: Record<string, string> }>;
    memory: { verdict: string; archives: number; paused: string | null; git: { ignored: boolean; tracked: boolean } | null };
    problems: { what: string; fix: string }[];
  };
};

describe("doctor", () => {
  it("the AGENTS.md block installed for Codex alone is not OpenCode's, current or outdated; installed for both, it is current for both", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "codex", "--root", e.root)).code).toBe(0);
    const one = await doctor(e);
    expect(one.problems.filter((p) => p.what.startsWith("opencode"))).toEqual([]);
    expect(one.agents.opencode!.install["AGENTS.md"]).toBe("absent");
    expect(one.agents.codex!.install["AGENTS.md"]).toBe("current");
    expect((await e.run("install", "--agent", "opencode", "--root", e.root)).code).toBe(0);
    const both = await doctor(e);
    expect(both.agents.opencode!.install["AGENTS.md"]).toBe("current");
    expect(both.agents.codex!.install["AGENTS.md"]).toBe("current");
  });

  it("a settings file linked from a dotfiles folder is judged by what it holds", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "claude-code", "--root", e.root)).code).toBe(0);
    // Where a dotfiles manager keeps it: install refuses to edit through the link, the user merged it by hand.
    const settings = path.join(e.root, ".claude", "settings.json");
    const kept = path.join(tempDir("sh-dotfiles-"), "settings.json");
    writeFileSync(kept, readFileSync(settings));
    rmSync(settings);
    symlinkSync(kept, settings);
    expect((await doctor(e)).agents["claude-code"]!.install[".claude/settings.json"]).toBe("current");
  });

  it("an agent installed without a skill folder where it looks is a problem; the text says which agent's entries a shared file lacks", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "codex", "--root", e.root)).code).toBe(0);
    const d = await doctor(e);
    expect(d.ok).toBe(false);
    expect(d.problems.map((p) => p.what)).toContain("codex: installed, but no session-handoff skill folder where codex looks for skills (.agents/skills/session-handoff)");
    const text = (await e.run("doctor", "--root", e.root)).stdout;
    expect(text).toMatch(/^opencode: skill .*; AGENTS\.md not installed$/m);
    const skill = path.join(e.root, ".agents", "skills", "session-handoff");
    mkdirSync(skill, { recursive: true });
    writeFileSync(path.join(skill, "SKILL.md"), "---\nname: session-handoff\n---\n");
    // SKILL.md alone (an installer that copies only it) is named, with init as the fix.
    const alone = (await doctor(e)).problems.find((p) => p.what.includes("lacks its helper"));
    expect(alone?.what).toMatch(/^codex: the skill folder .*\.agents\/skills\/session-handoff lacks its helper \(scripts\/memory_io\.mjs, scripts\/lib\/cli\.mjs, scripts\/lib\/session\.mjs\)$/);
    expect(alone?.fix).toMatch(/ init --agent codex --root /);
    for (const f of ["scripts/memory_io.mjs", "scripts/lib/cli.mjs", "scripts/lib/session.mjs"]) {
      mkdirSync(path.dirname(path.join(skill, f)), { recursive: true });
      writeFileSync(path.join(skill, f), "// helper\n");
    }
    expect((await doctor(e)).ok).toBe(true);
  });

  it("a clean project: ok, the skill found for Claude Code, nothing installed", async () => {
    const e = setup();
    const d = await doctor(e);
    expect(d.ok).toBe(true);
    expect(d.node).toBe(process.versions.node);
    expect(d.agents["claude-code"]!.skill).toEqual([path.join(e.root, ".claude", "skills", "session-handoff")]);
    expect(d.agents["claude-code"]!.install[".claude/settings.json"]).toBe("absent");
    expect(d.memory).toMatchObject({ verdict: "clean", archives: 0, paused: null, git: { ignored: false, tracked: false } });
  });

  it("installed and current, then outdated: the fix is install", async () => {
    const e = setup();
    await e.run("install", "--agent", "claude-code", "--root", e.root);
    expect((await doctor(e)).agents["claude-code"]!.install[".claude/settings.json"]).toBe("current");
    const file = path.join(e.root, ".claude", "settings.json");
    // Our exact command with another timeout: ours, and not what install writes now.
    writeFileSync(file, readFileSync(file, "utf8").replace('"timeout": 10', '"timeout": 7'));
    const d = await doctor(e);
    expect(d.ok).toBe(false);
    expect(d.agents["claude-code"]!.install[".claude/settings.json"]).toBe("outdated");
    expect(d.problems.find((p) => p.what.includes("outdated"))!.fix).toMatch(/install --agent claude-code/);
  });

  it.each([
    ["paused", (root: string) => writeFileSync(path.join(root, ".ai", "memory", "PAUSE"), ""), /paused/, /^rm /],
    ["foreign handoff", (root: string) => writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "# Session Handoff\n"), /safety or schema/, /by hand/],
    ["interrupted save", (root: string) => writeFileSync(path.join(root, ".ai", "memory", ".HANDOFF.md.claim-999999-0123abcd"), `${MARKER}\n# Session Handoff\n`), /interrupted/, /recover/],
  ])("%s: ok false, the problem and its fix", async (_name, make, what, fix) => {
    const e = setup();
    mkdirSync(path.join(e.root, ".ai", "memory"), { recursive: true });
    make(e.root);
    const d = await doctor(e);
    expect(d.ok).toBe(false);
    const p = d.problems.find((x) => what.test(x.what));
    expect(p).toBeDefined();
    expect(p!.fix).toMatch(fix);
    const text = e.spawn("doctor", "--root", e.root);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/fix: /);
  });

  it("reports a parked handoff, archives and whether .ai/ is ignored", async () => {
    const e = setup();
    const mem = path.join(e.root, ".ai", "memory");
    mkdirSync(path.join(mem, "archive"), { recursive: true });
    writeFileSync(path.join(mem, "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
    writeFileSync(path.join(mem, "archive", "HANDOFF-2026-11-29T10-00-00.000Z-0123abcd.md"), "x");
    writeFileSync(path.join(e.root, ".gitignore"), ".ai/\n");
    expect((await doctor(e)).memory).toMatchObject({ verdict: "parked", archives: 1, git: { ignored: true, tracked: false } });
  });

  it("text output: a skill folder whose name holds a newline is quoted as anchors quote paths, one line each", () => {
    const root = gitRepo();
    const skill = path.join(root, ".claude", "skills", "odd\nname");
    mkdirSync(path.join(skill, "scripts"), { recursive: true });
    writeFileSync(path.join(skill, "SKILL.md"), "---\nname: session-handoff\n---\n");
    copyHelper(path.join(skill, "scripts", "memory_io.mjs"));
    const r = spawnSync(process.execPath, [path.join(skill, "scripts", "memory_io.mjs"), "doctor", "--root", root], { cwd: root, env: { ...process.env, HOME: tempDir("sh-home-") }, encoding: "utf8" });
    expect(r.status).toBe(0);
    const helperLine = r.stdout.split("\n").find((l) => l.startsWith("helper "))!;
    expect(helperLine).toBe(`helper "${path.join(root, ".claude", "skills", "odd\\nname", "scripts", "memory_io.mjs")}"`);
    expect(r.stdout.split("\n").every((l) => !l.startsWith("name"))).toBe(true);
  });

  it("is read-only", async () => {
    const e = setup();
    await e.run("install", "--agent", "codex", "--root", e.root);
    mkdirSync(path.join(e.root, ".ai", "memory"), { recursive: true });
    const before = [...tree(e.root), ...tree(e.home)];
    await doctor(e);
    await e.run("doctor", "--root", e.root);
    expect([...tree(e.root), ...tree(e.home)]).toEqual(before);
  });
});

// Doctor judges our own entries only (docs/design.md#doctor): another tool's SessionStart hook,
// even one naming the helper under a start matcher without fork, is never called outdated.
describe("another tool's hooks in a settings file are not ours to call outdated", () => {
  it.each([
    ["claude-code", ".claude/settings.json"],
    ["codex", ".codex/hooks.json"],
    ["gemini", ".gemini/settings.json"],
  ])("%s: %s with two foreign SessionStart entries beside ours is current; the one naming the helper is reported not ours", async (agent, rel) => {
    const e = setup();
    expect((await e.run("install", "--agent", agent, "--root", e.root)).code).toBe(0);
    const file = path.join(e.root, ...rel.split("/"));
    const s = JSON.parse(readFileSync(file, "utf8"));
    const foreign = "node /opt/other-tool/memory_io.mjs hook --mode session";
    s.hooks.SessionStart.push({ matcher: "startup", hooks: [{ type: "command", command: "other-tool session-start" }] });
    s.hooks.SessionStart.push({ matcher: "startup", hooks: [{ type: "command", command: foreign }] });
    s.hooks.Stop = [{ hooks: [{ type: "command", command: "node /opt/other-tool/memory_io.mjs stop" }] }];
    writeFileSync(file, JSON.stringify(s, null, 2));
    const d = await doctor(e);
    expect(d.agents[agent]!.install[rel]).toBe("current");
    const what = d.problems.map((p) => p.what).join("\n");
    expect(what).not.toContain("outdated");
    expect(what).not.toContain("lacks fork");
    expect(what).toContain(`${rel}: a SessionStart command names memory_io.mjs but is not one install writes (not ours: not run): ${JSON.stringify(foreign)}`);
  });

  it("a settings file holding only another tool's entry naming the helper: not installed, and the entry reported", async () => {
    const e = setup();
    const file = path.join(e.root, ".claude", "settings.json");
    mkdirSync(path.dirname(file), { recursive: true });
    const foreign = "node /opt/other-tool/memory_io.mjs hook --mode session";
    writeFileSync(file, JSON.stringify({ hooks: { SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: foreign }] }] } }, null, 2));
    const d = await doctor(e);
    expect(d.agents["claude-code"]!.install[".claude/settings.json"]).toBe("absent");
    expect(d.problems.map((p) => p.what).join("\n")).not.toContain("outdated");
    expect(d.problems.some((p) => p.what.includes("(not ours: not run)"))).toBe(true);
  });
});

// Install upgrades its own entries in place (docs/design.md#install-and-uninstall), so an entry
// install wrote from another copy of the helper is ours to doctor too: outdated, not "not ours".
describe("install's entry written by another copy of the helper", () => {
  it("install from copy A, doctor from copy B: outdated (another copy), not 'not ours'; B's install rewrites it", async () => {
    const e = setup();
    const copy = (dir: string) => {
      const f = path.join(dir, "scripts", "memory_io.mjs");
      mkdirSync(path.dirname(f));
      copyHelper(f);
      return f;
    };
    const a = copy(tempDir("sh-copy a-"));
    const b = copy(tempDir("sh-copy-b-"));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: e.home, XDG_CONFIG_HOME: path.join(e.home, ".config") };
    const run = (helper: string, ...args: string[]) => inProcess([...args, "--root", e.root], { wholeEnv: env, cwd: e.root, helperPath: helper });
    expect((await run(a, "install", "--agent", "claude-code")).code).toBe(0);
    const rel = ".claude/settings.json";
    const r = await run(b, "doctor", "--json");
    const d = JSON.parse(r.stdout) as { agents: Record<string, { install: Record<string, string> }>; problems: { what: string; fix: string }[] };
    expect(d.agents["claude-code"]!.install[rel]).toBe("outdated");
    const what = d.problems.map((p) => p.what).join("\n");
    expect(what).not.toContain("not ours");
    const p = d.problems.find((x) => x.what.startsWith(`claude-code: ${rel} holds an outdated session-handoff entry`))!;
    expect(p.what).toBe(`claude-code: ${rel} holds an outdated session-handoff entry: its commands run another copy of the helper (${JSON.stringify(a)})`);
    expect(p.fix).toContain("install --agent claude-code");
    expect(p.fix).toContain("(upgrades it in place)");
    expect((await run(b, "install", "--agent", "claude-code")).stdout).toContain(`updated ${rel}`);
    const after = JSON.parse((await run(b, "doctor", "--json")).stdout) as typeof d;
    expect(after.agents["claude-code"]!.install[rel]).toBe("current");
  });
});

// Doctor (docs/design.md#doctor) runs only the exact commands install writes, and changes nothing.
describe("doctor runs only our exact start commands, and uses up no checkpoint notice", () => {
  const settingsWith = (root: string, command: string, prefixOurs = "") => {
    const file = path.join(root, ".claude", "settings.json");
    const s = JSON.parse(readFileSync(file, "utf8"));
    if (prefixOurs) s.hooks.SessionStart[0].hooks[0].command = `${prefixOurs}${s.hooks.SessionStart[0].hooks[0].command}`;
    if (command) s.hooks.SessionStart.push({ matcher: "startup", hooks: [{ type: "command", command }] });
    writeFileSync(file, JSON.stringify(s, null, 2));
  };

  it("a command that only mentions the helper, or ours with a prefix, is not run: reported as not ours; our exact entry still runs", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "claude-code", "--root", e.root)).code).toBe(0);
    const mark1 = path.join(e.home, "PWNED1");
    const mark2 = path.join(e.home, "PWNED2");
    settingsWith(e.root, `touch ${mark2} # memory_io.mjs hook --mode session`, `touch ${mark1}; `);
    const text = await e.run("doctor", "--root", e.root);
    expect(text.code).toBe(0);
    expect(existsSync(mark1)).toBe(false);
    expect(existsSync(mark2)).toBe(false);
    expect(text.stdout).toContain(`.claude/settings.json: a SessionStart command names memory_io.mjs but is not one install writes (not ours: not run): "touch ${mark2} # memory_io.mjs hook --mode session"`);
    expect(text.stdout).toContain(`(not ours: not run): "touch ${mark1}; `);
    expect(text.stdout).not.toMatch(/^ran /m);
    // Reinstalled: ours is added and runs; commands that are not install's stay the user's and do not run.
    expect((await e.run("install", "--agent", "claude-code", "--root", e.root)).code).toBe(0);
    settingsWith(e.root, `touch ${mark2} # memory_io.mjs hook --mode session`);
    const again = await e.run("doctor", "--root", e.root, "--json");
    const d = JSON.parse(again.stdout) as { runs: { file: string; code: number }[]; problems: { what: string }[] };
    expect(d.runs).toEqual([expect.objectContaining({ file: ".claude/settings.json", code: 0 })]);
    expect(d.problems.filter((p) => p.what.includes("not ours: not run"))).toHaveLength(3);
    expect(existsSync(mark2)).toBe(false);
  });

  it("an edited Cline TaskStart script is outdated with install as the fix, and is not run", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "cline", "--root", e.root)).code).toBe(0);
    const mark = path.join(e.home, "RAN");
    const script = path.join(e.root, ".clinerules", "hooks", "TaskStart");
    // A line inside our part (lines after its `exit 0` are the user's and never run).
    writeFileSync(script, readFileSync(script, "utf8").replace(/exit 0\n$/, `touch ${mark}\nexit 0\n`));
    const d = JSON.parse((await e.run("doctor", "--root", e.root, "--json")).stdout) as { agents: Record<string, { install: Record<string, string> }>; runs: unknown[]; problems: { what: string; fix: string }[] };
    expect(d.agents.cline!.install[".clinerules/hooks/TaskStart"]).toBe("outdated");
    expect(d.runs).toEqual([]);
    expect(existsSync(mark)).toBe(false);
    const what = d.problems.map((p) => p.what).join("\n");
    expect(what).toContain("cline: .clinerules/hooks/TaskStart holds an outdated session-handoff entry");
    expect(what).not.toContain("not ours");
  });

  it("after a checkpoint, doctor leaves checkpoints/ byte- and name-identical, and the next session is still told of it", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "claude-code", "--root", e.root)).code).toBe(0);
    const helper = path.join(e.root, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: e.home, XDG_CONFIG_HOME: path.join(e.home, ".config") };
    delete env.SESSION_HANDOFF_DISABLE;
    delete env.SESSION_HANDOFF_PAUSE;
    const pipe = (input: object, ...args: string[]) => spawnSync(process.execPath, [helper, ...args], { cwd: e.root, env, encoding: "utf8", input: JSON.stringify(input) });
    const transcript = path.resolve("test/fixtures/transcripts/claude.jsonl");
    expect(pipe({ session_id: "S1", transcript_path: transcript, cwd: e.root, hook_event_name: "SessionEnd" }, "checkpoint", "--format", "claude").status).toBe(0);
    const dir = path.join(e.root, ".ai", "memory", "checkpoints");
    const snapshot = () => readdirSync(dir).sort().map((n) => `${n} ${createHash("sha256").update(readFileSync(path.join(dir, n))).digest("hex")}`);
    const before = snapshot();
    expect(before.length).toBeGreaterThan(0);
    const d = await e.run("doctor", "--root", e.root);
    expect(d.stdout).toMatch(/^ran \.claude\/settings\.json SessionStart .*exit 0, printed ".*checkpoint/m);
    expect(snapshot()).toEqual(before);
    const next = pipe({ session_id: "S9", cwd: e.root, source: "startup" }, "hook", "--mode", "session");
    expect(next.stdout).toMatch(/checkpoint/);
  });
});

describe("a merge driver registered outside .git/config is there", () => {
  it("doctor and check --json ask git: the global config and an included file count", async () => {
    const { root, home, run } = setup();
    writeFileSync(path.join(root, ".gitattributes"), ".ai/memory/**/*.md merge=session-handoff\n");
    const missing = async () => ({
      check: JSON.parse((await run("check", "--json")).stdout).mergeDriverMissing === true,
      doctor: (await run("doctor")).stdout.includes("this clone's git config lacks it"),
    });
    expect(await missing()).toEqual({ check: true, doctor: true });
    const inc = path.join(home, "driver.gitconfig");
    writeFileSync(inc, '[merge "session-handoff"]\n\tdriver = true\n');
    const gitconfig = path.join(home, ".gitconfig");
    writeFileSync(gitconfig, readFileSync(inc));
    expect(await missing()).toEqual({ check: false, doctor: false });
    writeFileSync(gitconfig, "");
    expect(await missing()).toEqual({ check: true, doctor: true });
    writeFileSync(path.join(root, ".git", "config"), `${readFileSync(path.join(root, ".git", "config"), "utf8")}[include]\n\tpath = ${inc}\n`);
    expect(await missing()).toEqual({ check: false, doctor: false });
  });

  it("check asks git once: `git config` runs no filter, so the filters need no lookup first", () => {
    const { root, home } = setup();
    writeFileSync(path.join(root, ".gitattributes"), ".ai/memory/**/*.md merge=session-handoff\n");
    // A git first on PATH that logs each run, then runs the real one.
    const bin = tempDir("sh-bin-");
    const log = path.join(bin, "log");
    const real = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
    writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho "$*" >> "${log}"\nexec "${real}" "$@"\n`, { mode: 0o755 });
    const helper = path.join(root, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, PATH: `${bin}:${process.env.PATH}` };
    delete env.SESSION_HANDOFF_DISABLE;
    delete env.SESSION_HANDOFF_PAUSE;
    const r = spawnSync(process.execPath, [helper, "check", "--json"], { cwd: root, env, encoding: "utf8" });
    expect(JSON.parse(r.stdout).mergeDriverMissing, r.stderr).toBe(true);
    // Besides the one config run, only the look for a handoff on another branch (none here).
    const runs = readFileSync(log, "utf8").trim().split("\n").filter((l) => !/ for-each-ref | cat-file /.test(l));
    expect(runs, runs.join("\n")).toHaveLength(1);
    expect(runs[0]).toMatch(/ config --get merge\.session-handoff\.driver$/);
  });
});

describe("a file too large to read is said to be too large", () => {
  it("an AGENTS.md or .gitattributes over 1 MB: install, doctor and check say so, not 'not installed' or nothing", async () => {
    const { root, run } = setup();
    const big = `${"x".repeat(80)}\n`.repeat(13_000);
    writeFileSync(path.join(root, "AGENTS.md"), big);
    const inst = await run("install", "--agent", "codex", "--root", root);
    expect(inst.code).toBe(2);
    expect(inst.stderr).toContain("AGENTS.md is larger than 1 MB; install edits only regular files of at most 1 MB");
    const d = await doctor({ root, run });
    expect(d.agents.codex!.install["AGENTS.md"]).toBe("unreadable");
    const said = d.problems.filter((p) => p.what.startsWith("AGENTS.md is larger than 1 MB"));
    expect(said).toHaveLength(1);
    expect(said[0]!.fix).toContain("at most 1 MB");
    rmSync(path.join(root, "AGENTS.md"));
    writeFileSync(path.join(root, ".gitattributes"), `.ai/memory/**/*.md merge=session-handoff\n${big}`);
    const c = await run("check", "--json");
    expect(JSON.parse(c.stdout).mergeDriverMissing).toBeUndefined();
    const sentence = ".gitattributes is larger than 1 MB: session-handoff cannot tell whether it names the merge driver";
    expect(c.stderr).toBe(`${sentence}\n`);
    expect((await doctor({ root, run })).problems.map((p) => p.what)).toContain(sentence);
  });
});

describe("doctor without git on PATH", () => {
  it("says git was not found on PATH, not that the folder is not a repository", () => {
    const { root, home } = setup();
    const bin = tempDir("sh-bin-");
    symlinkSync(process.execPath, path.join(bin, "node"));
    const helper = path.join(root, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, PATH: bin };
    delete env.SESSION_HANDOFF_DISABLE;
    delete env.SESSION_HANDOFF_PAUSE;
    const r = spawnSync(process.execPath, [helper, "doctor", "--root", root], { cwd: root, env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^memory: .*; git: git was not found on PATH$/m);
    const j = spawnSync(process.execPath, [helper, "doctor", "--root", root, "--json"], { cwd: root, env, encoding: "utf8" });
    expect(JSON.parse(j.stdout).memory.git).toBe("git was not found on PATH");
  });
});

describe("doctor in a teammate's clone", () => {
  it("names install for the agents there (not publish) for the merge driver, and Codex's hooks file as a problem", () => {
    const home = tempDir("sh-home-");
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CEILING_DIRECTORIES: path.dirname(home) };
    delete env.SESSION_HANDOFF_DISABLE;
    delete env.SESSION_HANDOFF_PAUSE;
    const run = (cwd: string, helper: string, ...args: string[]) =>
      spawnSync(process.execPath, [helper, ...args], { cwd, env, encoding: "utf8" });
    const a = gitRepo();
    expect(run(a, HELPER, "init", "--agent", "claude-code", "--agent", "codex").status).toBe(0);
    git(a, "add", "-A");
    git(a, "commit", "-qm", "install");
    const b = path.join(tempDir("sh-clone-"), "b");
    git(path.dirname(b), "clone", "-q", a, b);
    const helper = path.join(b, ".agents", "skills", "session-handoff", "scripts", "memory_io.mjs");
    const out = run(b, helper, "doctor").stdout;
    expect(out).toContain("- codex: .codex/hooks.json not installed (its other files are; a clone lacks the files that name the clone's own path)\n");
    expect(out).toContain(`  fix: node ${helper} install --agent codex --root ${b}\n`);
    expect(out).toContain(`  fix: node ${helper} install --agent claude-code --agent codex --root ${b}\n`);
    expect(out).not.toMatch(/publish/);
    expect(run(b, helper, "install", "--agent", "claude-code", "--agent", "codex", "--root", b).status).toBe(0);
    const after = run(b, helper, "doctor").stdout;
    expect(after).not.toContain("not installed (its other files are");
    expect(after).not.toContain("merge driver");
  });
});

describe("doctor run from the clone init was run from", () => {
  it("calls the hooks naming init's identical copy current, and never fixes them to the clone's own path", () => {
    const home = tempDir("sh-home-");
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CEILING_DIRECTORIES: path.dirname(home) };
    delete env.SESSION_HANDOFF_DISABLE;
    delete env.SESSION_HANDOFF_PAUSE;
    const root = gitRepo();
    mkdirSync(path.join(root, ".claude"));
    const run = (...args: string[]) => spawnSync(process.execPath, [HELPER, ...args], { cwd: root, env, encoding: "utf8" });
    expect(run("init").status).toBe(0);
    const same = JSON.parse(run("doctor", "--json").stdout);
    expect(same.agents["claude-code"].install[".claude/settings.json"]).toBe("current");
    expect(same.problems).toEqual([]);
    // Another version of the copy: the fix refreshes it with init, which installs from the copy (its relative path).
    const copied = path.join(root, ".agents", "skills", "session-handoff", "scripts", "lib", "cli.mjs");
    writeFileSync(copied, `${readFileSync(copied, "utf8")}\n// older\n`);
    const other = JSON.parse(run("doctor", "--json").stdout);
    const fixes = other.problems.map((p: { fix: string }) => p.fix).join("\n");
    expect(fixes).toContain(`init --agent claude-code --root ${root}`);
    expect(fixes).not.toMatch(/ install --agent/);
  });
});
