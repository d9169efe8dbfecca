// One user, two projects (docs/decisions/driver-copy.md): uninstalling one never breaks the
// other's merge driver, and a driver whose copy is gone leaves git's own conflict, never a crash,
// with `doctor` naming the cause. Real repositories, real installs, real `git merge`.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { helper, tempDir } from "../helpers.ts";

function envFor(home: string): Record<string, string> {
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
}

function gitIn(dir: string, home: string, ...args: string[]): { code: number | null; out: string } {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) base[k] = v;
  const ident = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"];
  const r = spawnSync("git", [...ident, ...args], { cwd: dir, env: { ...base, ...envFor(home) }, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const entry = (id: string, title: string) => `## ${id}: ${title}\n- When: always\n- Lesson: ${title}\n- Why: it broke\n- Source: [user-directed] review\n- Status: active\n`;
const ledger = (...entries: string[]) => `<!-- memory-schema: v1 -->\n# Lessons\n\n${entries.join("\n")}`;
const MARKERS = /^(<<<<<<< |=======$|>>>>>>> )/m;

/** A project with the helper installed and two branches whose LESSONS.md both add an L-0002. */
function project(base: string, home: string, name: string): { dir: string; run: (args: string[]) => ReturnType<typeof helper>; branches: (n: number) => void } {
  const dir = path.join(base, name);
  mkdirSync(path.join(dir, ".ai", "memory"), { recursive: true });
  const g = (...args: string[]) => {
    const r = gitIn(dir, home, ...args);
    expect(r.code, r.out).toBe(0);
  };
  g("init", "-q");
  writeFileSync(path.join(dir, ".ai/memory/LESSONS.md"), ledger(entry("L-0001", "pin the node version")));
  g("add", "-A");
  g("commit", "-qm", "init");
  const run = (args: string[]) => helper([...args, "--root", dir], { env: envFor(home) });
  const inst = run(["install", "--agent", "claude-code"]);
  expect(inst.code, inst.stderr).toBe(0);
  expect(inst.stdout).toContain("registered the merge driver session-handoff");
  g("add", "-A");
  g("commit", "-qm", "install");
  // Round n: a side branch and main each add their own next entry, so a merge needs the driver.
  const branches = (n: number) => {
    const file = path.join(dir, ".ai/memory/LESSONS.md");
    const now = readFileSync(file, "utf8");
    g("checkout", "-q", "-b", `side${n}`);
    writeFileSync(file, `${now}\n${entry(`L-${String(n + 10).padStart(4, "0")}`, `side lesson ${n}`)}`);
    g("commit", "-qam", `side ${n}`);
    g("checkout", "-q", "main");
    writeFileSync(file, `${now}\n${entry(`L-${String(n + 10).padStart(4, "0")}`, `main lesson ${n}`)}`);
    g("commit", "-qam", `main ${n}`);
  };
  return { dir, run, branches };
}

describe("the merge driver's copy of the helper, per clone", () => {
  it("uninstall in one project leaves another's driver working; a missing copy gives git's conflict and doctor says so", { timeout: 240_000 }, () => {
    const base = tempDir("sh-driver-copy-");
    const home = path.join(base, "home");
    mkdirSync(home);
    const a = project(base, home, "project-a");
    const b = project(base, home, "project-b");

    const un = a.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code, un.stderr).toBe(0);
    expect(existsSync(path.join(a.dir, ".git", "session-handoff", "merge-driver.mjs"))).toBe(false);
    expect(existsSync(path.join(b.dir, ".git", "session-handoff", "merge-driver.mjs"))).toBe(true);

    // B merges with its own copy: both entries kept, no markers.
    b.branches(1);
    const m1 = gitIn(b.dir, home, "merge", "--no-edit", "side1");
    expect(m1.code, m1.out).toBe(0);
    const merged = readFileSync(path.join(b.dir, ".ai/memory/LESSONS.md"), "utf8");
    expect(merged).not.toMatch(MARKERS);
    expect(merged).toContain("main lesson 1");
    expect(merged).toContain("side lesson 1");
    expect(b.run(["doctor"]).stdout).not.toContain("merge driver's copy");

    // The copy gone (a hand clean-up, an older version's uninstall): git's conflict, no crash.
    const copy = path.join(b.dir, ".git", "session-handoff", "merge-driver.mjs");
    rmSync(copy);
    const doctor = b.run(["doctor"]);
    expect(doctor.stdout).toContain(`the merge driver's copy of the helper ${copy} is missing: memory files merge as text (conflict markers)`);
    // The fix registers the driver again (install), never a commit of memory (publish).
    expect(doctor.stdout).toMatch(/fix: .* install --agent /);
    expect(doctor.stdout).not.toMatch(/publish/);
    b.branches(2);
    const m2 = gitIn(b.dir, home, "merge", "--no-edit", "side2");
    expect(m2.code).toBe(1);
    expect(m2.out).toContain("CONFLICT (content): Merge conflict in .ai/memory/LESSONS.md");
    expect(m2.out).toContain("session-handoff merge driver: its helper copy or node is missing, git keeps the conflict");
    expect(m2.out).not.toMatch(/node:internal|^\s+at |Error: Cannot find module/m);
    expect(readFileSync(path.join(b.dir, ".ai/memory/LESSONS.md"), "utf8")).toMatch(MARKERS);
    expect(gitIn(b.dir, home, "merge", "--abort").code).toBe(0);

    // The fix doctor names brings the copy back, and the next merge goes through the driver.
    const fix = b.run(["install", "--agent", "claude-code"]);
    expect(fix.code, fix.stderr).toBe(0);
    expect(existsSync(copy)).toBe(true);
    expect(b.run(["doctor"]).stdout).not.toContain("merge driver's copy");
    const m3 = gitIn(b.dir, home, "merge", "--no-edit", "side2");
    expect(m3.code, m3.out).toBe(0);
    expect(readFileSync(path.join(b.dir, ".ai/memory/LESSONS.md"), "utf8")).not.toMatch(MARKERS);
  });

  it("a link planted at the driver's copy is replaced, never written through", { timeout: 120_000 }, () => {
    const base = tempDir("sh-driver-link-");
    const home = path.join(base, "home");
    mkdirSync(home);
    const a = project(base, home, "project-a");
    const copy = path.join(a.dir, ".git", "session-handoff", "merge-driver.mjs");
    const outside = path.join(base, "outside.txt");
    writeFileSync(outside, "mine\n");
    rmSync(copy);
    symlinkSync(outside, copy);
    const again = a.run(["install", "--agent", "claude-code"]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(outside, "utf8")).toBe("mine\n");
    expect(lstatSync(copy).isSymbolicLink()).toBe(false);
    expect(readFileSync(copy, "utf8")).toContain("merge-driver");
    // A FIFO there is replaced too: reading it would block install for ever.
    rmSync(copy);
    execFileSync("mkfifo", [copy]);
    const fifo = a.run(["install", "--agent", "claude-code"]);
    expect(fifo.code, fifo.stderr).toBe(0);
    expect(lstatSync(copy).isFile()).toBe(true);
  });

  it("uninstalling one agent keeps the driver another installed agent needs; the last one removes it", { timeout: 120_000 }, () => {
    const base = tempDir("sh-driver-two-agents-");
    const home = path.join(base, "home");
    mkdirSync(home);
    const a = project(base, home, "project-a");
    const codex = a.run(["install", "--agent", "codex"]);
    expect(codex.code, codex.stderr).toBe(0);
    const copy = path.join(a.dir, ".git", "session-handoff", "merge-driver.mjs");
    const dry = a.run(["uninstall", "--agent", "claude-code", "--dry-run"]);
    expect(dry.stdout).not.toContain("merge driver");
    const first = a.run(["uninstall", "--agent", "claude-code"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toContain("merge driver");
    expect(existsSync(copy)).toBe(true);
    expect(gitIn(a.dir, home, "config", "--get", "merge.session-handoff.driver").code).toBe(0);
    const last = a.run(["uninstall", "--agent", "codex"]);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toContain("removed the merge driver session-handoff from .git/config");
    expect(existsSync(copy)).toBe(false);
  });

  it("a linked .gitattributes is left alone, with a note, by a real run and a dry run", { timeout: 120_000 }, () => {
    const base = tempDir("sh-driver-attrs-");
    const home = path.join(base, "home");
    mkdirSync(home);
    const a = project(base, home, "project-a");
    const outside = path.join(base, "outside-attributes");
    writeFileSync(outside, "*.bin binary\n");
    rmSync(path.join(a.dir, ".gitattributes"));
    symlinkSync(outside, path.join(a.dir, ".gitattributes"));
    for (const args of [["install", "--agent", "codex", "--dry-run"], ["install", "--agent", "codex"], ["uninstall", "--agent", "codex", "--dry-run"]]) {
      const r = a.run(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toContain("internal error");
    }
    expect(readFileSync(outside, "utf8")).toBe("*.bin binary\n");
  });
});
