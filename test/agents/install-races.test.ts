// Races and interrupted runs of install/uninstall around the user's own agent files: two installs
// at once (the install lock), a linked folder under uninstall, --dry-run after a crash, folders of
// a refused write, and runs killed before they published, which must change nothing.
import { copyHelper } from "../helpers.ts";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, tempDir, waitFor } from "../helpers.ts";

/** The user's settings: CRLF, 4-space indent, no final newline (JSON.stringify never writes these bytes). */
const ORIGINAL = '{\r\n    "model": "opus",\r\n    "permissions": {"allow": ["Bash(npm test)"]}\r\n}';
const AGENTS_MD = "# My agents\r\n\r\nBe nice.";

interface P {
  root: string;
  home: string;
  skillHelper: string;
  run(args: string[], extra?: Record<string, string>, helper?: string): { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };
  start(args: string[], extra: Record<string, string>): Promise<{ code: number | null; stderr: string }>;
}

function project(): P {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const skillHelper = path.join(root, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
  mkdirSync(path.dirname(skillHelper), { recursive: true });
  copyHelper(skillHelper);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } as Record<string, string>;
  for (const k of ["SESSION_HANDOFF_PAUSE", "SESSION_HANDOFF_DISABLE", "MEMORY_IO_FAILPOINT", "CLAUDE_PROJECT_DIR"]) delete env[k];
  const argv = (args: string[]) => [...args, ...(args.includes("--global") ? [] : ["--root", root])];
  return {
    root,
    home,
    skillHelper,
    run(args, extra = {}, helper = skillHelper) {
      const r = spawnSync(process.execPath, [helper, ...argv(args)], { cwd: root, env: { ...env, ...extra }, encoding: "utf8", timeout: 60_000 });
      return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
    },
    start(args, extra) {
      return new Promise((resolve) => {
        const c = spawn(process.execPath, [skillHelper, ...argv(args)], { cwd: root, env: { ...env, ...extra } });
        let stderr = "";
        c.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
        c.on("close", (code) => resolve({ code, stderr }));
      });
    },
  };
}

describe("a run that never published changes nothing", () => {
  it("install A paused with its temp written, install B waits for the lock: uninstall restores the original bytes", async () => {
    const p = project();
    const file = path.join(p.root, ".claude", "settings.json");
    writeFileSync(file, ORIGINAL);
    const gate = path.join(tempDir("sh-gate-"), "a");
    const a = p.start(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: `before-publication:pause=${gate}` });
    await waitFor(`${gate}.ready`);
    // B waits for A's install lock, 10 s, then says who holds it.
    const b = p.run(["install", "--agent", "claude-code"]);
    expect(b.code, b.stderr).toBe(5);
    expect(b.stderr).toContain(`another install or uninstall is editing these agent files: process`);
    expect(b.stderr).toContain(path.join(p.root, ".ai", ".install.lock"));
    writeFileSync(`${gate}.go`, "");
    const ra = await a;
    expect(ra.code, ra.stderr).toBe(0);
    const un = p.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code, un.stderr).toBe(0);
    expect(un.stdout).toContain("updated .claude/settings.json");
    expect(readFileSync(file, "utf8")).toBe(ORIGINAL);
  });

  it("codex installed; an opencode install killed before publication (read-opened); uninstall codex restores AGENTS.md byte for byte", () => {
    const p = project();
    const file = path.join(p.root, "AGENTS.md");
    writeFileSync(file, AGENTS_MD);
    expect(p.run(["install", "--agent", "codex"]).code).toBe(0);
    expect(p.run(["install", "--agent", "opencode"], { MEMORY_IO_FAILPOINT: "read-opened:crash" }).signal).toBe("SIGKILL");
    // The file still holds what codex's install wrote; nobody else touched it.
    const un = p.run(["uninstall", "--agent", "codex"]);
    expect(un.code, un.stderr).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(AGENTS_MD);
  });

  it("a re-install (the skill moved, the hook command changes) killed at read-opened: uninstall restores the original", () => {
    const p = project();
    const file = path.join(p.root, ".claude", "settings.json");
    writeFileSync(file, ORIGINAL);
    expect(p.run(["install", "--agent", "claude-code"]).code).toBe(0);
    const moved = path.join(p.root, ".agents", "skills", "session-handoff", "scripts", "memory_io.mjs");
    mkdirSync(path.dirname(moved), { recursive: true });
    copyHelper(moved);
    expect(p.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: "read-opened:crash" }, moved).signal).toBe("SIGKILL");
    const un = p.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code, un.stderr).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(ORIGINAL);
  });

  it("an install killed before publication, then the user edits the file, then install + uninstall: the user's edit comes back byte for byte", () => {
    const p = project();
    const file = path.join(p.root, ".claude", "settings.json");
    writeFileSync(file, ORIGINAL);
    expect(p.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: "read-opened:crash" }).signal).toBe("SIGKILL");
    const edited = '{\r\n    "model": "sonnet",\r\n    "env": {"X": "1"}\r\n}\r\n';
    writeFileSync(file, edited);
    expect(p.run(["install", "--agent", "claude-code"]).code).toBe(0);
    const un = p.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code, un.stderr).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(edited); // before 8f23875: restored exactly
  });
});

describe("installs at once (the install lock, docs/decisions/agent-files-atomic.md)", () => {
  it("codex and opencode installed together, both sharing AGENTS.md: both succeed, the block names both, no lock left", async () => {
    const p = project();
    writeFileSync(path.join(p.root, "AGENTS.md"), AGENTS_MD);
    const runs = await Promise.all([p.start(["install", "--agent", "codex"], {}), p.start(["install", "--agent", "opencode"], {}), p.start(["install", "--agent", "codex"], {})]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(path.join(p.root, "AGENTS.md"), "utf8");
    expect(text).toMatch(/codex/);
    expect(text).toMatch(/opencode/);
    expect(existsSync(path.join(p.root, ".ai", ".install.lock"))).toBe(false);
    const un = await Promise.all([p.start(["uninstall", "--agent", "codex"], {}), p.start(["uninstall", "--agent", "opencode"], {})]);
    for (const r of un) expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(p.root, "AGENTS.md"), "utf8")).toBe(AGENTS_MD);
  });
});

describe("uninstall and a linked folder", () => {
  it("project .claude linked to ~/.claude: project uninstall refuses, as install does, and uninstall --global restores ~/.claude/settings.json", () => {
    const p = project();
    const global = path.join(p.home, ".claude", "settings.json");
    mkdirSync(path.dirname(global), { recursive: true });
    writeFileSync(global, ORIGINAL);
    expect(p.run(["install", "--agent", "claude-code", "--global"]).code).toBe(0);
    renameSync(path.join(p.root, ".claude", "skills"), path.join(p.home, ".claude", "skills"));
    rmdirSync(path.join(p.root, ".claude"));
    symlinkSync(path.join(p.home, ".claude"), path.join(p.root, ".claude"));
    expect(p.run(["install", "--agent", "claude-code"]).code).toBe(2); // refused: a link
    const un = p.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code).toBe(2);
    expect(p.run(["uninstall", "--agent", "claude-code", "--global"]).code).toBe(0);
    expect(readFileSync(global, "utf8")).toBe(ORIGINAL);
  });
});

describe("--dry-run fidelity and folders", () => {
  it("after an install killed after publication, --dry-run succeeds where the real run does", () => {
    const p = project();
    writeFileSync(path.join(p.root, ".claude", "settings.json"), ORIGINAL);
    expect(p.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: "after-publication:crash" }).signal).toBe("SIGKILL");
    const dry = p.run(["install", "--agent", "claude-code", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(p.run(["install", "--agent", "claude-code"]).code).toBe(0);
  });

  it("cursor: a failed write leaves no folder behind that no record names", () => {
    const p = project();
    const r = p.run(["install", "--agent", "cursor"], { MEMORY_IO_FAILPOINT: "before-publication:fail" });
    expect(r.code).toBe(2);
    expect(p.run(["install", "--agent", "cursor"]).code).toBe(0);
    expect(p.run(["uninstall", "--agent", "cursor"]).code).toBe(0);
    expect(readdirSync(p.root).filter((n) => n === ".cursor")).toEqual([]);
  });
});

describe("installs in several projects outside git at once", () => {
  it("each uninstall removes the folders its install made, though all ran at the same moment under one HOME", async () => {
    const home = tempDir("sh-home-");
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } as Record<string, string>;
    for (const k of ["SESSION_HANDOFF_PAUSE", "SESSION_HANDOFF_DISABLE", "MEMORY_IO_FAILPOINT", "CLAUDE_PROJECT_DIR"]) delete env[k];
    const work = tempDir("sh-nogit-");
    env.GIT_CEILING_DIRECTORIES = work;
    const roots = Array.from({ length: 8 }, (_, i) => path.join(work, `p${i}`));
    const helper = path.join(work, "helper", "scripts", "memory_io.mjs");
    mkdirSync(path.dirname(helper), { recursive: true });
    copyHelper(helper);
    for (const r of roots) mkdirSync(r);
    const all = (verb: string) =>
      Promise.all(
        roots.map(
          (root) =>
            new Promise<{ code: number | null; stderr: string }>((resolve) => {
              const c = spawn(process.execPath, [helper, verb, "--agent", "cline", "--root", root], { cwd: root, env });
              let stderr = "";
              c.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
              c.on("close", (code) => resolve({ code, stderr }));
            }),
        ),
      );
    for (let round = 0; round < 3; round++) {
      for (const r of await all("install")) expect(r.code, r.stderr).toBe(0);
      for (const r of await all("uninstall")) expect(r.code, r.stderr).toBe(0);
      for (const root of roots) expect(readdirSync(root), root).toEqual([]);
    }
    expect(readdirSync(path.join(home, ".config")).filter((n) => n !== "session-handoff")).toEqual([]);
  }, 120_000);
});
