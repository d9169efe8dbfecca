// Regression tests for what a hostile tester found (one block per finding). The verbs run in
// this process (inProcess); the lock's takeover, which is about another process's leftovers,
// spawns the bundle.
import { execFileSync } from "node:child_process";
import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { archives, gitRepo, handoff, helper, memFiles, snapshot, tempDir, unstamped } from "../helpers.ts";
import { inProcess, saveIn } from "../in-process.ts";

const mem = (root: string, ...p: string[]) => path.join(root, ".ai", "memory", ...p);

describe("a claim that is already the current file (a restore that died before its unlink)", () => {
  it.each(["handoff", "lessons"] as const)("recover drops it: %s stays single-linked, readable, unarchived", async (kind) => {
    const root = gitRepo();
    const name = kind === "handoff" ? "HANDOFF.md" : "LESSONS.md";
    const doc = kind === "handoff" ? handoff("v1") : "<!-- memory-schema: v1 -->\n# Lessons\n\n- one\n";
    expect((await inProcess(["write", kind, "--root", root, "--expected-current-sha256", "absent"], { input: doc })).code).toBe(0);
    linkSync(mem(root, name), mem(root, `.${name}.claim-99999-0badc0de`));
    expect((await inProcess(["check", "--root", root])).code).toBe(1);
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(mem(root, name)).nlink).toBe(1);
    expect(archives(root)).toEqual([]);
    expect(memFiles(root).filter((n) => n.startsWith("."))).toEqual([]);
    expect((await inProcess(["read", kind, "--root", root])).code).toBe(0);
    expect(unstamped(readFileSync(mem(root, name), "utf8"))).toBe(unstamped(doc));
  });
});

describe("planted private names are refused, never published", () => {
  it.each([
    ["a link claim for AGENTS.md at the root", (root: string, outside: string) => symlinkSync(path.join(outside, "secret.txt"), path.join(root, ".AGENTS.md.claim-1-deadbeef"))],
    ["a link claim for LESSONS.md", (root: string, outside: string) => symlinkSync(path.join(outside, "secret.txt"), mem(root, ".LESSONS.md.claim-1-00000000"))],
    ["a directory claim for HANDOFF.md", (root: string) => mkdirSync(mem(root, ".HANDOFF.md.claim-1-00000000"))],
    ["a claim hard-linked to an outside file", (root: string, outside: string) => linkSync(path.join(outside, "secret.txt"), mem(root, ".HANDOFF.md.claim-1-00000000"))],
    ["a link temp for HANDOFF.md", (root: string, outside: string) => symlinkSync(path.join(outside, "secret.txt"), mem(root, ".HANDOFF.md.tmp-1-00000000"))],
  ])("%s", async (_name, plant) => {
    const root = gitRepo();
    mkdirSync(mem(root), { recursive: true, mode: 0o700 });
    const outside = tempDir("sh-outside-");
    writeFileSync(path.join(outside, "secret.txt"), "SECRET\n");
    plant(root, outside);
    const before = snapshot(root);
    const outsideBefore = snapshot(outside);
    for (const args of [["recover", "--root", root], ["write", "handoff", "--root", root, "--expected-current-sha256", "absent"]]) {
      const r = await inProcess(args, { input: handoff("x") });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/holds a private name of the helper but is not a file it left; move it away, then retry/);
      expect(snapshot(root)).toEqual(before);
    }
    expect(snapshot(outside)).toEqual(outsideBefore);
    expect(existsSync(path.join(root, "AGENTS.md"))).toBe(false);
  });
});

describe("pruning never deletes the version this save archived", () => {
  it("keeps it even when five archive names carry later times", async () => {
    const root = gitRepo();
    const t = await saveIn(root, handoff("KEEPME"), "absent");
    mkdirSync(mem(root, "archive"), { mode: 0o700 });
    for (let i = 1; i <= 5; i++) writeFileSync(mem(root, "archive", `HANDOFF-2099-01-0${i}T00-00-00.000000Z-0000000${i}.md`), handoff(`future ${i}`));
    const r = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", t], { input: handoff("v2") });
    expect(r.code, r.stderr).toBe(0);
    const name = /archived previous handoff as (\S+)/.exec(r.stdout)![1]!;
    expect(unstamped(readFileSync(mem(root, "archive", name), "utf8"))).toBe(unstamped(handoff("KEEPME")));
    expect(archives(root)).toHaveLength(5);
  });
});

const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    const d = execFileSync("mktemp", ["-d"], { encoding: "utf8" }).trim();
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", d], { stdio: "ignore" });
    execFileSync("umount", [d], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe("a file system error after the claim", () => {
  it.skipIf(!canMount)("a full disk refuses the save and leaves the prior handoff current, nothing behind", async () => {
    const dir = tempDir("sh-full-");
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", dir]);
    onTestFinished(() => {
      execFileSync("umount", ["-l", dir]);
    });
    const root = path.join(dir, "p");
    mkdirSync(root);
    const t = await saveIn(root, handoff("v1"), "absent");
    writeFileSync(path.join(dir, "fill"), Buffer.alloc(200_000, 1));
    const big = handoff(`v2\n${"- filler line of some length\n".repeat(3000)}`);
    const r = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", t], { input: big });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: cannot save HANDOFF\.md: .*nothing was changed/);
    expect(unstamped(readFileSync(mem(root, "HANDOFF.md"), "utf8"))).toBe(unstamped(handoff("v1")));
    expect(memFiles(root).filter((n) => n.startsWith("."))).toEqual([]);
    expect(archives(root)).toEqual([]);
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
  });
});

describe("the lock", () => {
  it("takes over an ownerless lock left by a kill right after mkdir", async () => {
    const root = gitRepo();
    const t = await saveIn(root, handoff("a"), "absent");
    mkdirSync(mem(root, ".lock"), { mode: 0o700 });
    // As proper-lockfile leaves it: mtime a second ahead of the clock; made seconds ago.
    const future = new Date(Date.now() + 1000);
    utimesSync(mem(root, ".lock"), future, future);
    execFileSync("sleep", ["3.2"]);
    const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", t, "--lock-timeout", "2"], { input: handoff("b") });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe("root-level leftovers with no memory dir", () => {
  it("check says 1, recover repairs, read-target then works", async () => {
    const root = gitRepo();
    writeFileSync(path.join(root, ".CLAUDE.md.claim-4242-0123abcd"), "old\n");
    expect((await inProcess(["read-target", "--root", root, "--target", "CLAUDE.md"])).stderr).toMatch(/run `recover`/);
    expect((await inProcess(["check", "--root", root])).code).toBe(1);
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/CLAUDE\.md: rolled back/);
    expect(readFileSync(path.join(root, "CLAUDE.md"), "utf8")).toBe("old\n");
    expect((await inProcess(["read-target", "--root", root, "--target", "CLAUDE.md"])).code).toBe(0);
    expect((await inProcess(["check", "--root", root])).code).toBe(0);
  });
});

describe("a refusal creates nothing", () => {
  it.each([
    ["write with a stale token", (root: string) => ["write", "handoff", "--root", root, "--expected-current-sha256", "0".repeat(64)]],
    ["promote with a stale token", (root: string) => ["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", "0".repeat(64)]],
  ])("%s on a project with no .ai", async (_name, args) => {
    const root = gitRepo();
    const before = snapshot(root);
    const r = await inProcess(args(root), { input: handoff("x") });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/changed since it was read \(expected 0{64}, current absent\)/);
    expect(snapshot(root)).toEqual(before);
  });
});

describe("git runs nothing a repository configures", () => {
  it("anchors does not run core.fsmonitor", async () => {
    const root = gitRepo();
    const marker = path.join(tempDir("sh-fsmon-"), "ran");
    execFileSync("git", ["config", "core.fsmonitor", `touch ${marker}; false`], { cwd: root });
    expect((await inProcess(["anchors", "--root", root])).code).toBe(0);
    expect((await inProcess(["drift", "--root", root])).code).toBe(3);
    expect(existsSync(marker)).toBe(false);
  });
});
