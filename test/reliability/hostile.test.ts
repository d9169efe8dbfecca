import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { gitRepo, handoff, save, sha, snapshot, tempDir, unstamped } from "../helpers.ts";
import { archiveContents, plantArchives, runBounded, seed, SUBJECTS } from "./support.ts";

// every directory and file the helper uses must be a real directory or a
// regular file with one link; anything else is refused (an archive entry: pruning skipped
// with a warning), the helper never hangs (a FIFO, a socket), and what a link points at is
// never changed.

const SHAPES = ["link", "hard link", "fifo", "directory", "socket"] as const;
type Shape = (typeof SHAPES)[number];

async function listenOn(p: string): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(p, resolve);
  });
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** Puts a hostile `shape` at `p`; links point into `outside`. */
async function plant(p: string, shape: Shape, outside: string, asDir: boolean): Promise<void> {
  rmSync(p, { recursive: true, force: true });
  const victimFile = path.join(outside, "victim.md");
  if (shape === "link") symlinkSync(asDir ? outside : victimFile, p);
  if (shape === "hard link") linkSync(victimFile, p);
  if (shape === "fifo") execFileSync("mkfifo", [p]);
  if (shape === "directory") mkdirSync(p);
  if (shape === "socket") await listenOn(p);
}

function outsideDir(): string {
  const outside = tempDir("sh-outside-");
  writeFileSync(path.join(outside, "victim.md"), handoff("outside, must not change"));
  mkdirSync(path.join(outside, "memory"));
  writeFileSync(path.join(outside, "memory", "HANDOFF.md"), handoff("outside memory"));
  mkdirSync(path.join(outside, "archive"));
  return outside;
}

/** Runs a call bound in time and checks it refused (exit 2) or, for `ok`, succeeded. */
function expectRefused(args: string[], input = "", code = 2): string {
  const r = runBounded(args, { input, timeoutMs: 15_000 });
  expect(r.timedOut, `${args[0]} hung`).toBe(false);
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(code);
  if (code === 2) expect(r.stderr).toMatch(/^memory operation refused: /);
  return r.stderr;
}

describe("hostile directories: root, .ai, memory, archive", () => {
  const positions = ["root", ".ai", "memory", "archive"] as const;
  const dirShapes = SHAPES.filter((s) => s !== "directory");
  // A root reached through a link is an ordinary project (docs/design.md#the-root: its real path
  // is taken; links are refused from .ai down, never above): test/verbs/root.test.ts.
  const cases = positions.flatMap((pos) => dirShapes.filter((shape) => !(pos === "root" && shape === "link")).map((shape) => [pos, shape] as const));
  it.each(cases)("%s as a %s", async (pos, shape) => {
    const outside = outsideDir();
    const parent = tempDir("sh-parent-");
    let root = path.join(parent, "project");
    mkdirSync(root);
    if (pos === "root") {
      await plant(root, shape, outside, true);
    } else {
      root = gitRepo();
      seed(root, SUBJECTS.handoff, "prior");
      const rel = { ".ai": ".ai", memory: ".ai/memory", archive: ".ai/memory/archive" }[pos];
      await plant(path.join(root, rel), shape, outside, true);
    }
    const watched = pos === "root" ? parent : root;
    const before = snapshot(watched);
    const outsideBefore = snapshot(outside);
    const token = pos === "root" ? "absent" : sha(handoff("prior"));
    expectRefused(["write", "handoff", "--root", root, "--expected-current-sha256", token], handoff("new"));
    expectRefused(["write", "lessons", "--root", root, "--expected-current-sha256", "absent"], "<!-- memory-schema: v1 -->\n# Lessons\n");
    expectRefused(["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", "absent"], "- lesson\n");
    expectRefused(["recover", "--root", root]);
    // Reads refuse too, archive/ included: the memory dir's folders must be real directories
    // (docs/design.md#the-memory-dir), and the one verdict
    // of check and the hook (docs/design.md#one-verdict-on-a-files-bytes; test/verbs/agreement.test.ts).
    expectRefused(["read", "handoff", "--root", root]);
    const check = runBounded(["check", "--root", root]);
    expect(check.timedOut).toBe(false);
    expect(check.code).not.toBe(0);
    const hook = runBounded(["hook", "--mode", "session", "--root", root]);
    expect(hook.timedOut).toBe(false);
    expect(hook.code).toBe(0);
    if (pos === ".ai" || pos === "memory") expect(hook.stdout).toContain("failed memory safety or schema checks");
    expect(snapshot(watched)).toEqual(before);
    expect(snapshot(outside)).toEqual(outsideBefore);
  });
});

describe("hostile files: each memory file, AGENTS.md and CLAUDE.md", () => {
  const files = [
    { file: "HANDOFF.md", kind: "handoff", inMemory: true },
    { file: "LESSONS.md", kind: "lessons", inMemory: true },
    { file: "SOLUTIONS.md", kind: "solutions", inMemory: true },
    { file: "AGENTS.md", kind: null, inMemory: false },
    { file: "CLAUDE.md", kind: null, inMemory: false },
  ] as const;
  it.each(files.flatMap((f) => SHAPES.map((shape) => [f.file, shape, f] as const)))("%s as a %s", async (_f, shape, f) => {
    const root = gitRepo();
    const outside = outsideDir();
    seed(root, SUBJECTS.handoff, "prior");
    const p = f.inMemory ? path.join(root, ".ai", "memory", f.file) : path.join(root, f.file);
    await plant(p, shape, outside, false);
    const before = snapshot(root);
    const outsideBefore = snapshot(outside);
    // With the outside file's token a followed link would pass the CAS; with `absent` a
    // special file taken as missing would be replaced. Both must be refused.
    for (const token of [sha(handoff("outside, must not change")), "absent"]) {
      if (f.kind !== null) {
        const heading = { handoff: "# Session Handoff", lessons: "# Lessons", solutions: "# Solutions" }[f.kind];
        expectRefused(["write", f.kind, "--root", root, "--expected-current-sha256", token], `<!-- memory-schema: v1 -->\n${heading}\n`);
      } else {
        expectRefused(["promote", "--root", root, "--target", f.file, "--expected-current-sha256", token], "- lesson\n");
      }
    }
    if (f.kind !== null) expectRefused(["read", f.kind, "--root", root]);
    else expectRefused(["read-target", "--root", root, "--target", f.file]);
    const check = runBounded(["check", "--root", root]);
    expect(check.timedOut).toBe(false);
    if (f.inMemory) expect(check.code).toBe(3);
    const hook = runBounded(["hook", "--mode", "session", "--root", root]);
    expect(hook.timedOut).toBe(false);
    expect(hook.code).toBe(0);
    if (f.file === "HANDOFF.md" || f.file === "LESSONS.md") expect(hook.stdout).toContain("failed memory safety or schema checks");
    expect(runBounded(["recover", "--root", root]).code).toBe(0);
    expect(snapshot(root)).toEqual(before);
    expect(snapshot(outside)).toEqual(outsideBefore);
  });
});

describe("a hostile archive entry: pruning is skipped with a warning, the save succeeds, nothing is deleted", () => {
  it.each(SHAPES)("HANDOFF-*.md as a %s", async (shape) => {
    const root = gitRepo();
    const outside = outsideDir();
    const t = seed(root, SUBJECTS.handoff, "prior");
    const ancient = plantArchives(root, 5);
    const hostile = "HANDOFF-2019-01-01T00-00-00.000000Z-0bad0bad.md";
    await plant(path.join(root, ".ai", "memory", "archive", hostile), shape, outside, false);
    const outsideBefore = snapshot(outside);
    const r = runBounded(["write", "handoff", "--root", root, "--expected-current-sha256", t], { input: handoff("new") });
    expect(r.timedOut).toBe(false);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/archive pruning skipped: archive\/HANDOFF-2019-01-01T00-00-00\.000000Z-0bad0bad\.md is a link, hard-linked or not a regular file; nothing was deleted/);
    const names = [...archiveContents(root).keys(), ...(existsSync(path.join(root, ".ai", "memory", "archive", hostile)) ? [] : ["missing"])];
    for (const n of ancient) expect(names).toContain(n);
    expect(names).not.toContain("missing");
    expect([...archiveContents(root).values()]).toContain(unstamped(handoff("prior")));
    // recover does not finish pruning past an unsafe entry either, and never hangs on it.
    const rec = runBounded(["recover", "--root", root]);
    expect(rec.timedOut).toBe(false);
    expect(rec.code).toBe(0);
    for (const n of ancient) expect(existsSync(path.join(root, ".ai", "memory", "archive", n))).toBe(true);
    expect(runBounded(["check", "--root", root]).code).toBe(2);
    expect(snapshot(outside)).toEqual(outsideBefore);
  });
});

describe("a hostile lock: the lock's name holding a link or a file", () => {
  it.each(["link", "file"] as const)("refuses while .lock is a %s, never touching what it points at", (shape) => {
    const root = gitRepo();
    const t = save(root, handoff("prior"), "absent");
    const outside = tempDir("sh-outside-");
    writeFileSync(path.join(outside, "owner"), '{"pid":999999,"host":"elsewhere","nonce":"x"}');
    const lock = path.join(root, ".ai", "memory", ".lock");
    if (shape === "link") symlinkSync(outside, lock);
    else writeFileSync(lock, "not a lock\n");
    const outsideBefore = snapshot(outside);
    const before = snapshot(root);
    const stderr = expectRefused(["write", "handoff", "--root", root, "--expected-current-sha256", t, "--lock-timeout", "1"], handoff("new"));
    expect(stderr).toMatch(/\.lock is (a link|not a directory); it is the helper's private lock: move it away and retry/);
    expect(snapshot(outside)).toEqual(outsideBefore);
    expect(snapshot(root)).toEqual(before);
  });
});
