// The home folder as os.homedir() finds it (USERPROFILE on Windows, where cmd and PowerShell set
// no HOME), and Windows paths compared as Windows compares them (docs/windows.md). The Windows
// suite (npm run test:windows) runs the same under a Windows Node; these run everywhere.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.ts";
import { posixShell, runStart, startCommands } from "../../src/agents/doctor-checks.ts";
import { installShaped } from "../../src/agents/json-hooks.ts";
import type { Edit } from "../../src/agents/types.ts";
import { homeFolder, samePath } from "../../src/store/home.ts";
import { findRoot, NOT_A_PROJECT } from "../../src/git/root.ts";
import { cleanEnv, HELPER, tempDir } from "../helpers.ts";

const codex = AGENTS.codex;

describe("homeFolder: what os.homedir() would say, read from the verb's environment", () => {
  it.each([
    ["win32", { USERPROFILE: "C:\\Users\\dev" }, "C:\\Users\\dev"],
    ["win32", { USERPROFILE: "C:\\Users\\dev", HOME: "/c/Users/other" }, "C:\\Users\\dev"],
    ["win32", { USERPROFILE: "" }, ""],
    ["linux", { HOME: "/home/dev", USERPROFILE: "C:\\Users\\dev" }, "/home/dev"],
    ["linux", { HOME: "" }, ""],
    ["darwin", { HOME: "/Users/dev" }, "/Users/dev"],
  ] as const)("%s %j", (platform, env, want) => {
    expect(homeFolder(env, platform)).toBe(want);
  });

  it("falls back to os.homedir() when the variable is unset", () => {
    expect(homeFolder({}, "linux")).toBe(homedir());
    expect(homeFolder({ HOME: "/x" }, "win32")).toBe(homedir());
  });
});

describe("samePath: Windows paths in any case and either slash", () => {
  it.each([
    ["C:\\Users\\dev", "c:\\users\\DEV", "win32", true],
    ["C:\\Users\\dev\\", "C:/Users/dev", "win32", true],
    ["C:\\Users\\dev", "C:\\Users\\dev2", "win32", false],
    ["/home/dev", "/home/DEV", "linux", false],
    ["/home/dev", "/home/dev", "linux", true],
  ] as const)("%s vs %s on %s", (a, b, platform, want) => {
    expect(samePath(a, b, platform)).toBe(want);
  });
});

describe("the root walk with HOME unset: the home folder still is no project", () => {
  it("refuses os.homedir() as a start when the environment names no HOME", () => {
    expect(() => findRoot(homedir(), {})).toThrow(NOT_A_PROJECT);
  });
});

describe("install and doctor without HOME, and doctor --global from the home folder", () => {
  it("install works with HOME unset (the home folder as os.homedir() finds it)", () => {
    const proj = tempDir("sh-nohome-");
    // The walk stops at the project: a stray .git above the temp folder is not this test's.
    const env = cleanEnv({ XDG_CONFIG_HOME: path.join(tempDir("sh-nohome-cfg-"), "config"), GIT_CEILING_DIRECTORIES: path.dirname(proj) });
    delete env.HOME;
    const r = spawnSync(process.execPath, [HELPER, "install", "--agent", "claude-code", "--root", proj], { env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("created .claude/settings.json");
  });

  it("doctor --global runs from the home folder (cmd and PowerShell start there)", () => {
    const home = tempDir("sh-home-");
    mkdirSync(path.join(home, ".config"));
    const env = cleanEnv({ HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CEILING_DIRECTORIES: path.dirname(home) });
    const r = spawnSync(process.execPath, [HELPER, "doctor", "--global", "--json"], { cwd: home, env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    // Its report, not a refusal ("not a project"); what it finds depends on the folders above.
    expect(Object.keys(JSON.parse(r.stdout).agents)).toContain("claude-code");
  });
});

describe("doctor and install's own hooks when the helper path is a Windows one", () => {
  const abs = "C:\\Users\\dev\\.codex\\skills\\session-handoff\\scripts\\memory_io.mjs";
  const edit = codex.edits({ abs, rel: null }, false).find((e) => e.kind === "json-hooks") as Extract<Edit, { kind: "json-hooks" }>;
  const start = edit.hooks.find((h) => h.event === "SessionStart")!;
  const settings = JSON.stringify({ hooks: { SessionStart: [{ matcher: start.matcher, hooks: [{ type: "command", command: edit.command(start.args) }] }] } });

  it("install's command naming C:\\…\\memory_io.mjs is install-shaped, never 'not ours'", () => {
    expect(installShaped(edit, edit.command(start.args))).toBe(abs);
    const found = startCommands(edit, settings, "/p/.codex/hooks.json", true);
    expect(found.foreign).toEqual([]);
    expect(found.run).toHaveLength(1);
  });

  it("another tool's command naming the helper stays not ours", () => {
    expect(installShaped(edit, `node ${abs} hook`)).toBeNull();
  });

  it("install's line from another copy is ours only when its path is one word as install quotes it", () => {
    const tail = edit.command(start.args).slice(edit.command(start.args).indexOf("; [ ! -f"));
    expect(installShaped(edit, `f='/opt/it'\\''s/memory_io.mjs'${tail}`)).toBe("/opt/it's/memory_io.mjs");
    expect(installShaped(edit, `f=/opt/x; touch /tmp/y; g=/memory_io.mjs${tail}`)).toBeNull();
    expect(installShaped(edit, `f='/opt/x/memory_io.mjs'${tail}`)).toBeNull();
    expect(installShaped(edit, `f=/opt/x/other.mjs${tail}`)).toBeNull();
  });

  it("on Windows without Git for Windows' sh.exe, a start command is not run, and says why", async () => {
    expect(posixShell({}, "win32")).toBeNull();
    expect(posixShell({}, "linux")).toBe("/bin/sh");
    const r = await runStart(".codex/hooks.json", ["/bin/sh", "-c", "exit 7"], tempDir(), {}, "win32");
    expect(r.code).toBeNull();
    expect(r.notRun).toBe("no POSIX shell (Git for Windows' sh.exe) was found to run it as the harness would");
  });
});
