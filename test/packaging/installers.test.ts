// The ecosystem's own tools on this repository: the `skills` installer (pinned
// 1.4.9) adds a `git archive` export (never the working tree: it would copy node_modules/)
// into a scratch project for Claude Code and Codex, and the installed helper runs `check`
// there; `skills-ref validate` accepts SKILL.md in a folder named session-handoff.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { gitRepo, tempDir } from "../helpers.ts";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const SKILLS_CLI = path.join(REPO, "node_modules", "skills", "bin", "cli.mjs");
const SKILLS_REF = path.join(REPO, "node_modules", "skills-ref", "dist", "cli.js");

/** An export of the repository: its tracked files as the working tree holds them (uncommitted edits included). */
function exportTo(dir: string): void {
  // Read-only git (no index refresh, no commit): another test's git in this repository can neither block nor change
  // it, as `git stash create` once failed here under the full run.
  const env = { ...process.env, GIT_OPTIONAL_LOCKS: "0" };
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: REPO, env, maxBuffer: 16 * 1024 * 1024 });
  const tar = execFileSync("tar", ["-c", "--null", "-T", "-"], { cwd: REPO, input: files, maxBuffer: 256 * 1024 * 1024 });
  mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["-x", "-C", dir], { input: tar });
}

const offline = { DO_NOT_TRACK: "1", DISABLE_TELEMETRY: "1", npm_config_offline: "true" };

describe("skills@1.4.9 installs an export of this repository", () => {
  beforeAll(() => {
    const pinned = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")).devDependencies.skills;
    expect(pinned).toBe("1.4.9");
    expect(JSON.parse(readFileSync(path.join(REPO, "node_modules", "skills", "package.json"), "utf8")).version).toBe("1.4.9");
  });

  it("for claude-code and codex; the installed helper runs check, and install wires a working hook", () => {
    const source = path.join(tempDir("sh-export-"), "session-handoff");
    exportTo(source);
    expect(existsSync(path.join(source, "node_modules"))).toBe(false);
    const project = gitRepo();
    const home = tempDir("sh-home-");
    const env = { ...process.env, ...offline, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    const add = spawnSync(process.execPath, [SKILLS_CLI, "add", source, "-a", "claude-code", "-a", "codex", "-y"], { cwd: project, env, encoding: "utf8", timeout: 120_000 });
    expect(add.status, add.stdout + add.stderr).toBe(0);
    for (const dir of [".claude/skills/session-handoff", ".agents/skills/session-handoff"]) {
      const helper = path.join(project, dir, "scripts", "memory_io.mjs");
      const check = spawnSync(process.execPath, [helper, "check", "--root", project], { env, encoding: "utf8" });
      expect(check.stdout).toContain("nothing parked: no saved session state exists");
      expect(check.status).toBe(0);
    }
    const helper = path.join(project, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
    const install = spawnSync(process.execPath, [helper, "install", "--agent", "claude-code", "--root", project], { env, encoding: "utf8" });
    expect(install.status, install.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(path.join(project, ".claude", "settings.json"), "utf8"));
    const command = settings.hooks.SessionStart[0].hooks[0].command as string;
    // Inside the project: relative to $CLAUDE_PROJECT_DIR, so the committed file works on every clone.
    expect(command).toContain('"$CLAUDE_PROJECT_DIR"/.agents/skills/session-handoff/scripts/memory_io.mjs');
    const run = spawnSync("sh", ["-c", command], { cwd: project, input: "{}", env: { ...env, CLAUDE_PROJECT_DIR: realpathSync(project) }, encoding: "utf8" });
    expect(run).toMatchObject({ status: 0, stdout: "" });
  });
});

describe("skills-ref validate", () => {
  it("accepts a copy in a folder named session-handoff", () => {
    const dir = path.join(tempDir("sh-ref-"), "session-handoff");
    exportTo(dir);
    const r = spawnSync(process.execPath, [SKILLS_REF, "validate", dir], { encoding: "utf8" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("rejects the same copy under another folder name (the validator can fail)", () => {
    const dir = path.join(tempDir("sh-ref-"), "not-the-name");
    exportTo(dir);
    const r = spawnSync(process.execPath, [SKILLS_REF, "validate", dir], { encoding: "utf8" });
    expect(r.status).not.toBe(0);
  });
});
