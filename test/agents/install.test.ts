// install / uninstall for six harnesses (docs/design.md#install-and-uninstall), through the
// built helper copied into a scratch project as users install it.
// The verbs run in this process with that copy's path (inProcess); spawned where the process is
// the subject: the path it was started as, exit codes, umask, a failpoint's pause, the hooks.
import { copyHelper, HELPER } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MARKER, git, gitRepo, referenceOf, tempDir, type Run } from "../helpers.ts";
import { inProcess } from "../in-process.ts";
import { gitCalls, loggingGit } from "../git/repo.ts";

const AGENTS = ["claude-code", "codex", "opencode", "cline", "gemini", "cursor"] as const;
type Agent = (typeof AGENTS)[number];

/** Every file under `dir` (not .git) with its bytes and mode; folders too. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name === ".git") continue;
      const p = path.join(d, name);
      const rel = path.relative(dir, p);
      const st = lstatSync(p);
      if (st.isDirectory()) {
        out[`${rel}/`] = "dir";
        walk(p);
      } else {
        // A large file (the helper) by its hash: the same check, without comparing a megabyte of base64 each time.
        const bytes = readFileSync(p);
        const shown = bytes.length > 4096 ? `sha256 ${createHash("sha256").update(bytes).digest("hex")}` : bytes.toString("base64");
        out[rel] = `${(st.mode & 0o777).toString(8)} ${shown}`;
      }
    }
  };
  walk(dir);
  return out;
}

interface Env {
  root: string;
  home: string;
  helper: string;
  /** The verb in this process, run as the helper at `helper` (the hooks install writes name that file). */
  run(args: string[], extra?: Record<string, string>): Promise<Run>;
  /** The helper at `helper` spawned: where the process is the subject (its argv, its exit code). */
  spawn(args: string[], extra?: Record<string, string>): { code: number | null; stdout: string; stderr: string };
}

/**
 * The built helper and its bundles at `dest` as hard links where the file system allows (copyHelper elsewhere): the
 * same files, without writing a megabyte per test. No test here writes to them; one deletes the helper (an unlink).
 */
function linkHelper(dest: string): void {
  const from = path.dirname(HELPER);
  mkdirSync(path.join(path.dirname(dest), "lib"), { recursive: true });
  try {
    linkSync(HELPER, dest);
    for (const f of readdirSync(path.join(from, "lib"))) linkSync(path.join(from, "lib", f), path.join(path.dirname(dest), "lib", f));
  } catch {
    rmSync(path.dirname(dest), { recursive: true, force: true });
    copyHelper(dest);
  }
}

/** A project with the skill at .claude/skills/session-handoff (inside) or elsewhere (outside). */
function setup(where: "inside" | "outside" = "inside"): Env {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const skill = where === "inside" ? path.join(root, ".claude", "skills", "session-handoff") : path.join(tempDir("sh-skill dir-"), "session-handoff");
  mkdirSync(path.join(skill, "scripts"), { recursive: true });
  const helper = path.join(skill, "scripts", "memory_io.mjs");
  linkHelper(helper);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } as Record<string, string>;
  for (const k of ["SESSION_HANDOFF_PAUSE", "SESSION_HANDOFF_DISABLE", "MEMORY_IO_FAILPOINT", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"]) delete env[k];
  return {
    root,
    home,
    helper,
    run: (args, extra = {}) => inProcess(args, { wholeEnv: { ...env, ...extra }, cwd: root, helperPath: helper }),
    spawn(args, extra = {}) {
      const r = spawnSync(process.execPath, [helper, ...args], { cwd: root, env: { ...env, ...extra }, encoding: "utf8", timeout: 60_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

/** Files a user already has, which install must keep byte for byte. */
function userFiles(root: string): void {
  mkdirSync(path.join(root, ".claude"), { recursive: true });
  // Deliberately not in JSON.stringify's layout: restoring must give these bytes back.
  writeFileSync(path.join(root, ".claude", "settings.json"), '{"model": "opus",\n "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo mine"}]}],\n  "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}\n');
  writeFileSync(path.join(root, "AGENTS.md"), "# Rules\n\n- Use tabs.\n");
  mkdirSync(path.join(root, ".clinerules"));
  writeFileSync(path.join(root, ".clinerules", "10-style.md"), "Prefer small functions.\n");
  mkdirSync(path.join(root, ".gemini"));
  writeFileSync(path.join(root, ".gemini", "settings.json"), '{\n  "theme": "dark"\n}\n');
  writeFileSync(path.join(root, "GEMINI.md"), "Gemini rules");
}

describe.each(["fresh", "existing"] as const)("install over a %s project", (kind) => {
  it.each(AGENTS)("%s: installs, re-installs with no byte changed, uninstalls to the original bytes", async (agent) => {
    const e = setup();
    if (kind === "existing") userFiles(e.root);
    const before = snapshot(e.root);
    const first = await e.run(["install", "--agent", agent, "--root", e.root]);
    // Only Codex's hook file names an absolute path, which a teammate's clone cannot run: kept out of git.
    expect(first.stderr).toBe("");
    expect(first.stdout.includes("added .codex/hooks.json to .git/info/exclude")).toBe(agent === "codex");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^(created|updated) /m);
    const installed = snapshot(e.root);
    expect(installed).not.toEqual(before);
    const second = await e.run(["install", "--agent", agent, "--root", e.root]);
    expect(second.code).toBe(0);
    expect(second.stdout.trim().split("\n").every((l) => l.startsWith("unchanged "))).toBe(true);
    expect(snapshot(e.root)).toEqual(installed);
    const un = await e.run(["uninstall", "--agent", agent, "--root", e.root]);
    expect(un.stderr).toBe("");
    expect(un.code).toBe(0);
    expect(snapshot(e.root)).toEqual(before);
    // Nothing of ours is left in HOME but the recorded Node, which other projects' hooks may use.
    expect(readdirSync(path.join(e.home, ".config", "session-handoff"))).toEqual(["node"]);
  });
});

const FENCED = "# Agents\n\nOur template for tools:\n\n```md\n<!-- session-handoff:begin -->\nteam note: keep this example\n" +
  "<!-- session-handoff:end -->\n```\n\nMore user rules.\n";

describe("uninstall gives the user's layout back byte for byte with nothing kept in HOME", () => {
  const LAYOUTS: [string, string, Agent][] = [
    [".claude/settings.json", '{"model":"opus"}', "claude-code"],
    [".claude/settings.json", '{\r\n    "model": "opus",\r\n    "permissions": {"allow": ["Bash(npm test)"]}\r\n}', "claude-code"],
    [".claude/settings.json", '{\n  "statusLine": {"type": "command", "command": "echo hi"}\n}\n', "claude-code"],
    [".gemini/settings.json", '{"theme":"dark","hooks":{"Stop":[]}}\n', "gemini"],
    ["AGENTS.md", "# Rules\r\n\r\nBe nice.", "codex"],
    ["AGENTS.md", "# T\n\nline\n\n\n", "opencode"],
    ["GEMINI.md", "\n", "gemini"],
    // The user's comments inside the containers our entries join: kept, and so are the containers.
    [".claude/settings.json", '{\n  "hooks": {\n    // mine go here\n    "SessionStart": [\n      // off\n    ]\n  },\n  "m": 1\n}\n', "claude-code"],
    [".claude/settings.json", '/* head */\n{\n  // c\n  "hooks": { /* x */ }\n}\n', "claude-code"],
    // Another tool's commands that merely name a memory_io.mjs are the user's, not an older install of ours.
    [".claude/settings.json", '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"node /opt/other/memory_io.mjs something"}]}]}}\n', "claude-code"],
    [".codex/hooks.json", '{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"node ~/tools/memory_io.mjs backup"}]}]}}', "codex"],
    [".claude/settings.json", '{"statusLine":{"type":"command","command":"node ~/tools/memory_io.mjs statusline"}}\n', "claude-code"],
    // A comment beside the user's empty `hooks`: install never writes one, so the container is theirs and stays.
    [".gemini/settings.json", '{\n  "theme": "dark", // my theme\n  "hooks": {}\n}\n', "gemini"],
    [".gemini/settings.json", '\uFEFF{\n  /* c */\n  "hooks": {}\n}\n', "gemini"],
    // Marker lines inside the user's fenced code are their example, not our block.
    ["AGENTS.md", FENCED, "codex"],
    ["AGENTS.md", "# R\n\n~~~\n<!-- session-handoff:end -->\n~~~\n\n````\nnever closed\n", "opencode"],
    // Indented code (4 spaces or a tab after a blank line) is their example too, as CommonMark reads it.
    ["AGENTS.md", "# R\n\nOurs:\n\n    <!-- session-handoff:begin -->\n    Installed by session-handoff for: codex.\n\n    <!-- session-handoff:end -->\n\nEnd.\n", "opencode"],
    ["GEMINI.md", "```\nx\n```\n\t<!-- session-handoff:begin -->\n\t<!-- session-handoff:end -->\n", "gemini"],
    // Right under a heading, too: indented code needs no blank line there.
    ["AGENTS.md", "# Example\n    <!-- session-handoff:begin -->\n    Installed by session-handoff for: codex.\n    <!-- session-handoff:end -->\n", "codex"],
  ];
  it.each(LAYOUTS)("%s %j (%s)", async (file, text, agent) => {
    const e = setup();
    mkdirSync(path.dirname(path.join(e.root, file)), { recursive: true });
    writeFileSync(path.join(e.root, file), text);
    const before = snapshot(e.root);
    expect((await e.run(["install", "--agent", agent, "--root", e.root])).code).toBe(0);
    const theirs = /"command":"(node [^"]*)"/.exec(text)?.[1];
    if (theirs !== undefined) expect(readFileSync(path.join(e.root, file), "utf8")).toContain(theirs);
    // Uninstalled as on another machine: nothing install left in its HOME can help.
    const other = tempDir("sh-home-");
    const un = await e.run(["uninstall", "--agent", agent, "--root", e.root], { HOME: other, XDG_CONFIG_HOME: path.join(other, ".config") });
    expect(un.code, un.stderr).toBe(0);
    expect(snapshot(e.root)).toEqual(before);
  });
});

describe("a file git tracks from before install is the user's: given back byte for byte, never deleted", () => {
  const COMMITTED: [string, string, Agent][] = [
    [".claude/settings.json", "{}", "claude-code"],
    [".claude/settings.json", '{"hooks":{}}\n', "claude-code"],
    [".codex/hooks.json", '{"hooks":{"SessionStart":[]}}', "codex"],
    [".gemini/settings.json", '{\n  "theme": "dark",\n  "hooks": {}\n}\n', "gemini"],
    [".gemini/settings.json", '\uFEFF{ /* c */ "hooks": {"SessionEnd": []} }', "gemini"],
    ["AGENTS.md", "", "codex"],
  ];
  it.each(COMMITTED)("%s %j (%s)", async (file, text, agent) => {
    const e = setup();
    mkdirSync(path.dirname(path.join(e.root, file)), { recursive: true });
    writeFileSync(path.join(e.root, file), text);
    const git = (...args: string[]) => spawnSync("git", ["-C", e.root, ...args], { encoding: "utf8" });
    expect(git("add", "-f", "--", file).status).toBe(0);
    expect(git("commit", "-qm", "theirs").status).toBe(0);
    const before = snapshot(e.root);
    expect((await e.run(["install", "--agent", agent, "--root", e.root])).code).toBe(0);
    const un = await e.run(["uninstall", "--agent", agent, "--root", e.root]);
    expect(un.code, un.stderr).toBe(0);
    expect(snapshot(e.root)).toEqual(before);
    expect(git("status", "--porcelain", "--", file).stdout).toBe("");
  });

  it("changed since install as well: our entries go, the file stays", async () => {
    const e = setup();
    const file = path.join(e.root, ".claude", "settings.json");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "{}\n");
    spawnSync("git", ["-C", e.root, "add", "-f", "--", file]);
    spawnSync("git", ["-C", e.root, "commit", "-qm", "theirs"]);
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    writeFileSync(file, `${readFileSync(file, "utf8")}\n`);
    const un = await e.run(["uninstall", "--agent", "claude-code", "--root", e.root]);
    expect(un.stdout).toContain("updated .claude/settings.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({});
  });
});

describe("an empty settings file", () => {
  // An empty file is no settings, as JSON-with-comments readers take it (docs/decisions/install-records.md).
  it.each([["claude-code", ".claude/settings.json", ""], ["gemini", ".gemini/settings.json", " \n"]])("%s: %s %j gets our hooks; uninstall leaves none", async (agent, file, text) => {
    const e = setup();
    mkdirSync(path.dirname(path.join(e.root, file)), { recursive: true });
    writeFileSync(path.join(e.root, file), text);
    const un = await e.run(["uninstall", "--agent", agent, "--root", e.root]);
    expect(un.code, un.stderr).toBe(0);
    expect(un.stdout).toContain(`unchanged ${file}`);
    const r = await e.run(["install", "--agent", agent, "--root", e.root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`updated ${file}`);
    expect(JSON.parse(readFileSync(path.join(e.root, file), "utf8")).hooks.SessionStart).toHaveLength(1);
    expect((await e.run(["uninstall", "--agent", agent, "--root", e.root])).stdout).toContain(`removed ${file}`);
  });

  it("uninstall refuses JSON that does not parse by saying what to do, with no snippet", async () => {
    const e = setup();
    writeFileSync(path.join(e.root, ".claude", "settings.json"), "{,\n");
    const r = await e.run(["uninstall", "--agent", "claude-code", "--root", e.root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nothing was changed. Fix it and run this again, or take out the hooks of session-handoff by hand.");
    expect(r.stderr).not.toContain("Add this");
  });
});

describe("what install writes", () => {
  it("keeps a file it creates naming this clone's path (Codex) out of git; one git tracks gets a note", async () => {
    const e = setup();
    const exclude = path.join(e.root, ".git", "info", "exclude");
    const before = readFileSync(exclude);
    const codex = await e.run(["install", "--agent", "codex", "--root", e.root]);
    expect(codex.code, codex.stderr).toBe(0);
    expect(codex.stdout).toContain("added .codex/hooks.json to .git/info/exclude: it names this clone's path\n");
    expect(codex.stderr).not.toContain("keep it out of git");
    expect(spawnSync("git", ["status", "--porcelain"], { cwd: e.root, encoding: "utf8" }).stdout).not.toContain(".codex");
    expect((await e.run(["uninstall", "--agent", "codex", "--root", e.root])).stdout).toContain("removed .codex/hooks.json from .git/info/exclude\n");
    expect(readFileSync(exclude)).toEqual(before);
    mkdirSync(path.join(e.root, ".codex"));
    writeFileSync(path.join(e.root, ".codex", "hooks.json"), "{}\n");
    // Tracked (in the index), though gone from the work tree: install creates it, and does not exclude it.
    spawnSync("git", ["add", ".codex/hooks.json"], { cwd: e.root });
    rmSync(path.join(e.root, ".codex", "hooks.json"));
    const tracked = await e.run(["install", "--agent", "codex", "--root", e.root]);
    expect(tracked.stderr).toContain(".codex/hooks.json names this clone's path to the helper: keep it out of git");
    expect(readFileSync(exclude)).toEqual(before);
    const claude = await e.run(["install", "--agent", "claude-code", "--root", e.root]);
    expect(claude.code, claude.stderr).toBe(0);
    expect(claude.stderr).not.toContain("names this clone's path");
  });

  it("claude-code: SessionStart with the matcher and the checkpoint hooks, relative to $CLAUDE_PROJECT_DIR; the user's keys and hooks kept", async () => {
    const e = setup();
    userFiles(e.root);
    await e.run(["install", "--agent", "claude-code", "--root", e.root]);
    const s = JSON.parse(readFileSync(path.join(e.root, ".claude", "settings.json"), "utf8"));
    expect(s.model).toBe("opus");
    expect(s.hooks.Stop).toEqual([{ hooks: [{ type: "command", command: "echo stop" }] }]);
    expect(s.hooks.SessionStart[0].hooks[0].command).toBe("echo mine");
    const ours = s.hooks.SessionStart[1];
    expect(ours.matcher).toBe("startup|resume|clear|compact|fork");
    expect(ours.hooks[0].command).toContain('"$CLAUDE_PROJECT_DIR"/.claude/skills/session-handoff/scripts/memory_io.mjs');
    expect(ours.hooks[0].command).toContain("hook --mode session --format claude");
    for (const ev of ["PreCompact", "PostCompact", "SessionEnd"]) expect(s.hooks[ev][0].hooks[0].command).toContain("checkpoint --format claude");
    // The context-threshold offer: prompt and tool hooks, never Stop (the user's Stop stays alone).
    for (const ev of ["UserPromptSubmit", "PostToolUse"]) expect(s.hooks[ev][0].hooks[0].command).toContain("context --format claude");
    expect(s.hooks.Stop).toHaveLength(1);
  });

  it("codex: absolute quoted path (no project variable known), PreCompact and SessionEnd checkpoints, the context offer", () => {
    const e = setup("outside");
    // Spawned: the path in the hooks is the one the process was started as (its argv).
    e.spawn(["install", "--agent", "codex", "--root", e.root]);
    const s = JSON.parse(readFileSync(path.join(e.root, ".codex", "hooks.json"), "utf8"));
    const cmd = s.hooks.SessionStart[0].hooks[0].command as string;
    expect(cmd).toContain(`'${e.helper}'`);
    expect(cmd).toContain("--format codex");
    expect(Object.keys(s.hooks).sort()).toEqual(["PostToolUse", "PreCompact", "SessionEnd", "SessionStart", "UserPromptSubmit"]);
    for (const ev of ["UserPromptSubmit", "PostToolUse"]) expect(s.hooks[ev][0].hooks[0].command).toContain("context --format codex");
    expect(readFileSync(path.join(e.root, "AGENTS.md"), "utf8")).toContain("Installed by session-handoff for: codex.");
  });

  it("gemini: timeouts in milliseconds, $GEMINI_PROJECT_DIR, SessionEnd (no PreCompress), --format gemini everywhere, the GEMINI.md block", async () => {
    const e = setup();
    await e.run(["install", "--agent", "gemini", "--root", e.root]);
    const s = JSON.parse(readFileSync(path.join(e.root, ".gemini", "settings.json"), "utf8"));
    expect(s.hooks.SessionStart[0].hooks[0].timeout).toBeGreaterThanOrEqual(1000);
    expect(s.hooks.SessionStart[0].hooks[0].command).toContain('"$GEMINI_PROJECT_DIR"/');
    expect(Object.keys(s.hooks).sort()).toEqual(["SessionEnd", "SessionStart"]);
    for (const ev of ["SessionEnd", "SessionStart"]) expect(s.hooks[ev][0].hooks[0].command).toContain("--format gemini");
    expect(readFileSync(path.join(e.root, "GEMINI.md"), "utf8")).toMatch(/^<!-- session-handoff:begin -->\n[\s\S]*<!-- session-handoff:end -->\n$/);
  });

  it("cline: the rule beside the user's siblings, hook files 0755 that run and print Cline's JSON", async () => {
    const e = setup();
    userFiles(e.root);
    await e.run(["install", "--agent", "cline", "--root", e.root]);
    expect(readFileSync(path.join(e.root, ".clinerules", "10-style.md"), "utf8")).toBe("Prefer small functions.\n");
    for (const name of ["TaskStart", "TaskResume"]) {
      const file = path.join(e.root, ".clinerules", "hooks", name);
      expect(statSync(file).mode & 0o777).toBe(0o755);
    }
    mkdirSync(path.join(e.root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(e.root, ".ai", "memory", "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
    // Cline's stdin has no cwd: the script finds the project from its own folder.
    const r = spawnSync(path.join(e.root, ".clinerules", "hooks", "TaskStart"), [], { cwd: "/", input: JSON.stringify({ hookName: "TaskStart", workspaceRoots: [e.root] }), encoding: "utf8", env: { ...process.env, HOME: e.home } });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ cancel: false, errorMessage: "" });
    expect(out.contextModification).toContain("parked handoff exists");
  });

  it("cursor: an always-applied rule", async () => {
    const e = setup();
    await e.run(["install", "--agent", "cursor", "--root", e.root]);
    const text = readFileSync(path.join(e.root, ".cursor", "rules", "session-handoff.mdc"), "utf8");
    expect(text).toMatch(/^---\ndescription: .+\nalwaysApply: true\n---\n<!-- session-handoff:begin -->/);
  });

  it("codex then opencode share one AGENTS.md block listing both; it goes with the last one", async () => {
    const e = setup();
    userFiles(e.root);
    const original = readFileSync(path.join(e.root, "AGENTS.md"), "utf8");
    await e.run(["install", "--agent", "codex", "--root", e.root]);
    await e.run(["install", "--agent", "opencode", "--root", e.root]);
    const both = readFileSync(path.join(e.root, "AGENTS.md"), "utf8");
    expect(both.match(/session-handoff:begin/g)).toHaveLength(1);
    expect(both).toContain("Installed by session-handoff for: codex, opencode.");
    await e.run(["uninstall", "--agent", "codex", "--root", e.root]);
    const one = readFileSync(path.join(e.root, "AGENTS.md"), "utf8");
    expect(one).toContain("Installed by session-handoff for: opencode.");
    await e.run(["uninstall", "--agent", "opencode", "--root", e.root]);
    expect(readFileSync(path.join(e.root, "AGENTS.md"), "utf8")).toBe(original);
  });

  it("all six agents in one project, then all removed: the project is as before", async () => {
    const e = setup();
    userFiles(e.root);
    const before = snapshot(e.root);
    for (const a of AGENTS) expect((await e.run(["install", "--agent", a, "--root", e.root])).code).toBe(0);
    const installed = snapshot(e.root);
    for (const a of AGENTS) expect((await e.run(["install", "--agent", a, "--root", e.root])).stdout).not.toMatch(/^(created|updated)/m);
    expect(snapshot(e.root)).toEqual(installed);
    for (const a of [...AGENTS].reverse()) expect((await e.run(["uninstall", "--agent", a, "--root", e.root])).code).toBe(0);
    expect(snapshot(e.root)).toEqual(before);
  });
});

describe("the installed hook command", () => {
  function commandOf(e: Env): string {
    const s = JSON.parse(readFileSync(path.join(e.root, ".claude", "settings.json"), "utf8"));
    return s.hooks.SessionStart[0].hooks[0].command as string;
  }

  it.each(["inside", "outside"] as const)("skill %s the project: runs the helper and prints the envelope", async (where) => {
    const e = setup(where);
    await e.run(["install", "--agent", "claude-code", "--root", e.root]);
    mkdirSync(path.join(e.root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(e.root, ".ai", "memory", "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
    const r = spawnSync("sh", ["-c", commandOf(e)], { cwd: e.root, input: JSON.stringify({ cwd: e.root, source: "startup" }), encoding: "utf8", env: { ...process.env, CLAUDE_PROJECT_DIR: e.root } });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain("parked handoff exists");
  });

  it.each(["inside", "outside"] as const)("skill %s the project, helper file missing (a branch without the skill): exit 0, nothing printed", async (where) => {
    const e = setup(where);
    await e.run(["install", "--agent", "claude-code", "--root", e.root]);
    rmSync(e.helper);
    const r = spawnSync("sh", ["-c", commandOf(e)], { cwd: e.root, input: "{}", encoding: "utf8", env: { ...process.env, CLAUDE_PROJECT_DIR: e.root } });
    expect(r).toMatchObject({ status: 0, stdout: "", stderr: "" });
  });

  it("cline's hook file with the helper missing: exit 0, nothing printed", async () => {
    const e = setup();
    await e.run(["install", "--agent", "cline", "--root", e.root]);
    rmSync(e.helper);
    const r = spawnSync(path.join(e.root, ".clinerules", "hooks", "TaskStart"), [], { input: "{}", encoding: "utf8" });
    expect(r).toMatchObject({ status: 0, stdout: "", stderr: "" });
  });
});

describe("refusals change nothing", () => {
  const cases: [string, string, string, RegExp][] = [
    ["claude-code", ".claude/settings.json", '{\n  "model": \n}\n', /not valid JSON[\s\S]*"hooks"/],
    ["gemini", ".gemini/settings.json", '{"theme": "dark" "x": 1}\n', /not valid JSON/],
    ["claude-code", ".claude/settings.json", `{"a": ${"[".repeat(64)}${"]".repeat(64)}}\n`, /more than 64 levels deep[\s\S]*"hooks"/],
    ["claude-code", ".claude/settings.json", "[1, 2]\n", /does not hold a JSON object/],
    ["claude-code", ".claude/settings.json", '{"hooks": {"SessionStart": {}}}\n', /is not a list/],
    ["codex", "AGENTS.md", "# Rules\n<!-- session-handoff:begin -->\nhalf a block\n", /malformed session-handoff markers/],
    ["opencode", "AGENTS.md", "<!-- session-handoff:end -->\n<!-- session-handoff:begin -->\n", /malformed/],
    ["gemini", "GEMINI.md", "<!-- session-handoff:begin -->\n<!-- session-handoff:begin -->\n<!-- session-handoff:end -->\n", /malformed/],
    ["codex", "AGENTS.md", "text <!-- session-handoff:begin --> inline\n<!-- session-handoff:end -->\n", /malformed/],
    ["cursor", ".cursor/rules/session-handoff.mdc", "---\nalwaysApply: true\n---\nmy own rule\n", /not written by install/],
    ["cline", ".clinerules/00-session-handoff.md", "my own first rule\n", /not written by install/],
  ];
  it.each(cases)("%s with %s = %j", async (agent, file, text, message) => {
    const e = setup();
    mkdirSync(path.dirname(path.join(e.root, file)), { recursive: true });
    writeFileSync(path.join(e.root, file), text);
    const before = snapshot(e.root);
    const r = await e.run(["install", "--agent", agent, "--root", e.root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(snapshot(e.root)).toEqual(before);
    expect((await e.run(["install", "--agent", agent, "--root", e.root, "--dry-run"])).code).toBe(2);
  });

  it.each([
    ["claude-code", ".claude/settings.json"],
    ["codex", "AGENTS.md"],
    ["gemini", ".gemini/settings.json"],
  ])("%s: %s is a link: refused with a snippet, the link and its target untouched", async (agent, file) => {
    const e = setup();
    const target = path.join(tempDir(), "elsewhere");
    writeFileSync(target, "{}\n");
    mkdirSync(path.dirname(path.join(e.root, file)), { recursive: true });
    symlinkSync(target, path.join(e.root, file));
    const r = await e.run(["install", "--agent", agent, "--root", e.root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`is a link to ${target}`);
    expect(r.stderr).toMatch(/by hand:\n/);
    expect(readFileSync(target, "utf8")).toBe("{}\n");
    expect(lstatSync(path.join(e.root, file)).isSymbolicLink()).toBe(true);
  });

  it("a folder on the way that is a link is refused", async () => {
    const e = setup();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, path.join(e.root, ".cursor"));
    const r = await e.run(["install", "--agent", "cursor", "--root", e.root]);
    expect(r.code).toBe(2);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it.each(["install", "uninstall"])("%s refuses while paused (exit 4) and changes nothing", (verb) => {
    const e = setup();
    mkdirSync(path.join(e.root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(e.root, ".ai", "memory", "PAUSE"), "");
    const before = snapshot(e.root);
    // Spawned: the exit code at the process boundary.
    const r = e.spawn([verb, "--agent", "claude-code", "--root", e.root]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("memory writes are paused");
    expect(snapshot(e.root)).toEqual(before);
  });

  it.each([[["--agent", "vscode"]], [[]], [["--agent", "codex", "--global", "--root", "."]]])("usage %j: exit 2", (args) => {
    const e = setup();
    expect(e.spawn(["install", ...args]).code).toBe(2);
  });
});

describe("--dry-run", () => {
  it.each(AGENTS)("%s: says what would change, changes nothing", async (agent) => {
    const e = setup();
    userFiles(e.root);
    const before = snapshot(e.root);
    const r = await e.run(["install", "--agent", agent, "--root", e.root, "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^would (create|update) /m);
    // The merge driver is part of what install changes, so the preview names it too.
    expect(r.stdout).toContain("would register the merge driver session-handoff in .git/config\n");
    expect(r.stdout).toContain("would add the merge driver's block to .gitattributes\n");
    expect(snapshot(e.root)).toEqual(before);
    expect(readFileSync(path.join(e.root, ".git", "config"), "utf8")).not.toContain("session-handoff");
    expect(existsSync(path.join(e.home, ".config"))).toBe(false);
    await e.run(["install", "--agent", agent, "--root", e.root]);
    const installed = snapshot(e.root);
    const undo = (await e.run(["uninstall", "--agent", agent, "--root", e.root, "--dry-run"])).stdout;
    expect(undo).toMatch(/^would (remove|restore|update) /m);
    expect(undo).toContain("would remove the merge driver session-handoff from .git/config\n");
    expect(snapshot(e.root)).toEqual(installed);
    expect((await e.run(["install", "--agent", agent, "--root", e.root, "--dry-run"])).stdout).not.toContain("merge driver");
  });
});

describe("uninstall after the user changed the file", () => {
  it("claude-code: only our hooks go; the user's later edit stays", async () => {
    const e = setup();
    userFiles(e.root);
    await e.run(["install", "--agent", "claude-code", "--root", e.root]);
    const file = path.join(e.root, ".claude", "settings.json");
    const s = JSON.parse(readFileSync(file, "utf8"));
    s.permissions = { allow: ["Bash(ls)"] };
    writeFileSync(file, `${JSON.stringify(s, null, 2)}\n`);
    expect((await e.run(["uninstall", "--agent", "claude-code", "--root", e.root])).stdout).toContain("updated .claude/settings.json");
    const after = JSON.parse(readFileSync(file, "utf8"));
    expect(after.permissions).toEqual({ allow: ["Bash(ls)"] });
    expect(JSON.stringify(after)).not.toContain("memory_io.mjs");
    expect(after.hooks.SessionStart).toEqual([{ matcher: "startup", hooks: [{ type: "command", command: "echo mine" }] }]);
  });

  it("AGENTS.md: the block goes, the user's new line stays", async () => {
    const e = setup();
    userFiles(e.root);
    await e.run(["install", "--agent", "codex", "--root", e.root]);
    const file = path.join(e.root, "AGENTS.md");
    writeFileSync(file, `${readFileSync(file, "utf8")}\n- Also: no semicolons.\n`);
    await e.run(["uninstall", "--agent", "codex", "--root", e.root]);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("session-handoff");
    expect(text).toContain("- Use tabs.");
    expect(text).toContain("- Also: no semicolons.");
  });

  it("cline, cursor: lines the user added to a file install created stay; a file of only ours goes", async () => {
    const e = setup();
    for (const a of ["cline", "cursor"]) expect((await e.run(["install", "--agent", a, "--root", e.root])).code).toBe(0);
    const mine = { ".clinerules/00-session-handoff.md": "\n- my own rule\n", ".clinerules/hooks/TaskStart": "echo mine\n", ".cursor/rules/session-handoff.mdc": "- my cursor rule" };
    for (const [f, add] of Object.entries(mine)) writeFileSync(path.join(e.root, f), readFileSync(path.join(e.root, f), "utf8") + add);
    // A second install rewrites our part only.
    for (const a of ["cline", "cursor"]) expect((await e.run(["install", "--agent", a, "--root", e.root])).stdout).not.toMatch(/updated/);
    for (const a of ["cline", "cursor"]) expect((await e.run(["uninstall", "--agent", a, "--root", e.root])).code).toBe(0);
    for (const [f, add] of Object.entries(mine)) expect(readFileSync(path.join(e.root, f), "utf8")).toBe(add);
    expect(readdirSync(path.join(e.root, ".clinerules", "hooks")).sort()).toEqual(["TaskStart"]);
  });

  it("a folder install created keeps the user's file that appeared in it", async () => {
    const e = setup();
    await e.run(["install", "--agent", "cursor", "--root", e.root]);
    writeFileSync(path.join(e.root, ".cursor", "rules", "mine.mdc"), "mine\n");
    await e.run(["uninstall", "--agent", "cursor", "--root", e.root]);
    expect(readdirSync(path.join(e.root, ".cursor", "rules"))).toEqual(["mine.mdc"]);
  });

  it("nothing installed: uninstall changes nothing", async () => {
    const e = setup();
    userFiles(e.root);
    const before = snapshot(e.root);
    for (const a of AGENTS) expect((await e.run(["uninstall", "--agent", a, "--root", e.root])).code).toBe(0);
    expect(snapshot(e.root)).toEqual(before);
  });
});

describe("--global", () => {
  const PATHS: [Agent, string[]][] = [
    ["claude-code", [".claude/settings.json"]],
    ["codex", [".codex/AGENTS.md", ".codex/hooks.json"]],
    ["opencode", [".config/opencode/AGENTS.md"]],
    ["gemini", [".gemini/GEMINI.md", ".gemini/settings.json"]],
  ];
  it.each(PATHS)("%s: writes %j under HOME with absolute commands, and uninstall leaves HOME as it was", async (agent, files) => {
    const e = setup();
    mkdirSync(path.join(e.home, ".claude"));
    writeFileSync(path.join(e.home, ".claude", "settings.json"), '{"theme": "light"}');
    const before = snapshot(e.home);
    const projectBefore = snapshot(e.root);
    const r = await e.run(["install", "--agent", agent, "--global"]);
    expect(r.code).toBe(0);
    for (const f of files) {
      const text = readFileSync(path.join(e.home, f), "utf8");
      expect(text).toContain(e.helper);
      expect(text).not.toContain("PROJECT_DIR");
    }
    expect(snapshot(e.root)).toEqual(projectBefore);
    expect((await e.run(["uninstall", "--agent", agent, "--global"])).code).toBe(0);
    const after = snapshot(e.home);
    for (const k of [".config/", ".config/session-handoff/", ".config/session-handoff/node"]) delete after[k];
    expect(after).toEqual(before);
  });

  it.each(["cline", "cursor"])("%s has no global files: refused", async (agent) => {
    const e = setup();
    const r = await e.run(["install", "--agent", agent, "--global"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("has no per-user");
    expect(r.stderr).not.toMatch(/ruling|§/);
    expect(readdirSync(e.home)).toEqual([]);
  });
});

describe("a concurrent edit is never overwritten", () => {
  it("a file changed between install's read and its publication is refused", async () => {
    // Driven in-process through the store: the read token no longer matches the file.
    const { writeAgentFile } = await import("../../src/agents/agent-file.ts");
    const file = path.join(tempDir(), "settings.json");
    writeFileSync(file, "{}\n");
    const stale = "0".repeat(64);
    await expect(writeAgentFile(file, stale, Buffer.from('{"a":1}\n'), 0o644)).rejects.toThrow(/changed since it was read/);
    expect(readFileSync(file, "utf8")).toBe("{}\n");
    await expect(writeAgentFile(file, stale, null, 0o644)).rejects.toThrow(/changed since it was read/);
    expect(existsSync(file)).toBe(true);
  });
});

describe("references/verbs/ says every line install and uninstall print", () => {
  it.each([
    ["install", ["created", "updated", "unchanged", "would create", "would update"]],
    ["uninstall", ["updated", "removed", "unchanged", "absent", "would"]],
  ] as const)("%s", async (verb, words) => {
    const help = `${referenceOf(verb)} ${(await inProcess([verb, "--help"])).stdout.replace(/\s+/g, " ")}`;
    for (const w of words) expect(help).toContain(`"${w} `);
  });
});

describe("a concurrent edit during install (the failpoint seam)", () => {
  it.each(["read-opened"])("an editor's write while install is paused at %s is kept; install is refused", async (phase) => {
    const e = setup();
    userFiles(e.root);
    const file = path.join(e.root, ".claude", "settings.json");
    const gate = path.join(tempDir(), "gate");
    const { spawn } = await import("node:child_process");
    const env = { ...process.env, HOME: e.home, XDG_CONFIG_HOME: path.join(e.home, ".config"), MEMORY_IO_FAILPOINT: `${phase}:pause=${gate}` };
    const child = spawn(process.execPath, [e.helper, "install", "--agent", "claude-code", "--root", e.root], { env });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", resolve));
    for (let i = 0; i < 600 && !existsSync(`${gate}.ready`); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(`${gate}.ready`)).toBe(true);
    // An editor writes in place, as editors do: same inode, new bytes.
    writeFileSync(file, '{"model": "sonnet"}\n');
    writeFileSync(`${gate}.go`, "");
    expect(await done).toBe(2);
    expect(stderr).toContain("changed");
    expect(readFileSync(file, "utf8")).toBe('{"model": "sonnet"}\n');
    expect(readdirSync(path.dirname(file)).filter((n) => n.startsWith("."))).toEqual([]);
  });
});

describe("a re-install after the user's own edit", () => {
  it("uninstall then keeps the user's edit (the original bytes are no longer restored)", async () => {
    const e = setup();
    userFiles(e.root);
    await e.run(["install", "--agent", "claude-code", "--root", e.root]);
    const file = path.join(e.root, ".claude", "settings.json");
    const s = JSON.parse(readFileSync(file, "utf8"));
    s.permissions = { allow: ["Bash(ls)"] };
    // Our entry is an older version's (bare node), so the next install rewrites the file.
    const ours = s.hooks.SessionStart[1].hooks[0];
    ours.command = `${ours.command.slice(0, ours.command.indexOf("|| ") + 3)}node "$f" hook --mode session --format claude`;
    writeFileSync(file, `${JSON.stringify(s, null, 2)}\n`);
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).stdout).toContain("updated .claude/settings.json");
    await e.run(["uninstall", "--agent", "claude-code", "--root", e.root]);
    const after = JSON.parse(readFileSync(file, "utf8"));
    expect(after.permissions).toEqual({ allow: ["Bash(ls)"] });
    expect(JSON.stringify(after)).not.toContain("memory_io.mjs");
    expect(after.model).toBe("opus");
  });
});

describe("modes", () => {
  it.each([0o022, 0o077])("new files follow the user's umask %s", async (mask) => {
    const e = setup();
    const r = spawnSync("sh", ["-c", `umask ${mask.toString(8)} && "${process.execPath}" "${e.helper}" install --agent cline --root "${e.root}"`], { encoding: "utf8", env: { ...process.env, HOME: e.home, XDG_CONFIG_HOME: path.join(e.home, ".config") } });
    expect(r.status, r.stderr).toBe(0);
    expect(statSync(path.join(e.root, ".clinerules", "00-session-handoff.md")).mode & 0o777).toBe(0o644 & ~mask);
    expect(statSync(path.join(e.root, ".clinerules", "hooks", "TaskStart")).mode & 0o777).toBe(0o755 & ~mask);
  });

  it("a replaced file keeps its own mode", async () => {
    const e = setup();
    writeFileSync(path.join(e.root, "AGENTS.md"), "# Rules\n", { mode: 0o600 });
    await e.run(["install", "--agent", "codex", "--root", e.root]);
    expect(statSync(path.join(e.root, "AGENTS.md")).mode & 0o777).toBe(0o600);
  });
});

describe("the merge driver's git config", () => {
  // Each install and uninstall runs it (init, per agent): one read of the section, a write only for what differs.
  it("one git run reads the section; a write only for a key that differs; uninstall reads once and removes it", async () => {
    const e = setup();
    const { bin, log } = loggingGit();
    const PATH = `${bin}${path.delimiter}${process.env.PATH}`;
    const ours = () => gitCalls(log).filter((argv) => argv[0] === "config" && argv.some((a) => a.includes("session-handoff")))
      .map((argv) => argv.slice(1, 3).join(" "));
    const read = "--local -z";
    for (const [verb, calls] of [
      ["install", [read, "--local merge.session-handoff.driver", "--local merge.session-handoff.name"]],
      ["install", [read]],
      ["uninstall", [read, "--local --remove-section"]],
    ] as const) {
      writeFileSync(log, "");
      expect((await e.run([verb, "--agent", "claude-code", "--root", e.root], { PATH })).code).toBe(0);
      expect(ours(), verb).toEqual(calls);
    }
    expect(readFileSync(path.join(e.root, ".git", "config"), "utf8")).not.toContain("session-handoff");
  });
});

describe("uninstall changes nothing when it cannot finish", () => {
  it("a .gitattributes over 64 MB: uninstall refuses before the agent files and the git config change", async () => {
    const e = setup();
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    const attributes = path.join(e.root, ".gitattributes");
    truncateSync(attributes, 64_000_001);
    const config = path.join(e.root, ".git", "config");
    const before = { files: snapshot(e.root), config: readFileSync(config, "utf8") };
    expect(before.config).toContain('[merge "session-handoff"]');
    const un = await e.run(["uninstall", "--agent", "claude-code", "--root", e.root]);
    expect(un.code).toBe(2);
    expect(un.stderr).toContain(".gitattributes is larger than 64000000 bytes: the merge driver's block cannot be taken out of it, so nothing was changed");
    expect({ files: snapshot(e.root), config: readFileSync(config, "utf8") }).toEqual(before);
  });
});

describe("uninstall and a .gitattributes git tracks", () => {
  it("a committed empty .gitattributes is given back empty, never deleted", async () => {
    const e = setup();
    const attributes = path.join(e.root, ".gitattributes");
    writeFileSync(attributes, "");
    git(e.root, "add", ".gitattributes");
    git(e.root, "commit", "-qm", "attributes");
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    expect(readFileSync(attributes, "utf8")).toContain("merge=session-handoff");
    const un = await e.run(["uninstall", "--agent", "claude-code", "--root", e.root]);
    expect(un.code, un.stderr).toBe(0);
    expect(un.stdout).toContain("removed the merge driver's block from .gitattributes");
    expect(readFileSync(attributes, "utf8")).toBe("");
    expect(git(e.root, "status", "--porcelain", "--", ".gitattributes")).toBe("");
  });
});

describe("uninstall and a .gitattributes over 1 MB (which install does not edit)", () => {
  const big = `# ${"x".repeat(78)}\n`.repeat(13_000);

  it("the block that grew past 1 MB is taken out, every other byte kept", async () => {
    const e = setup();
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    const attributes = path.join(e.root, ".gitattributes");
    writeFileSync(attributes, `${big}${readFileSync(attributes, "utf8")}`);
    const un = await e.run(["uninstall", "--agent", "claude-code", "--root", e.root]);
    expect(un.code, un.stderr).toBe(0);
    expect(un.stdout).toContain("removed the merge driver's block from .gitattributes");
    expect(readFileSync(attributes, "utf8")).toBe(big);
    expect(readFileSync(path.join(e.root, ".git", "config"), "utf8")).not.toContain("session-handoff");
  });

  it("one install could not add the block to is left as it was, and uninstall goes on", async () => {
    const e = setup();
    const attributes = path.join(e.root, ".gitattributes");
    writeFileSync(attributes, big);
    const install = await e.run(["install", "--agent", "claude-code", "--root", e.root]);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).toContain(".gitattributes was not changed");
    const un = await e.run(["uninstall", "--agent", "claude-code", "--root", e.root]);
    expect(un.code, un.stderr).toBe(0);
    expect(un.stderr).toBe("");
    expect(readFileSync(attributes, "utf8")).toBe(big);
    expect(readFileSync(path.join(e.root, ".git", "config"), "utf8")).not.toContain("session-handoff");
    expect(existsSync(path.join(e.root, ".claude", "settings.json"))).toBe(false);
  });
});
