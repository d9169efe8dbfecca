import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, sha, snapshot, tempDir } from "../helpers.ts";
import { inProcess, saveIn } from "../in-process.ts";

const mem = (root: string, ...p: string[]) => path.join(root, ".ai", "memory", ...p);

/**
 * Runs a helper call that must be refused, and proves nothing under `dir` changed. The verb runs in
 * this process (test/in-process.ts); with `spawn`, through the built bundle (stdin's own limits,
 * a fifo, exit codes at the process boundary).
 */
async function refused(
  dir: string, args: string[], input: string | Buffer, pattern: RegExp, code = 2, first = /^memory operation refused: /, spawn = false,
): Promise<void> {
  const before = snapshot(dir);
  const r = spawn ? helper(args, { input }) : await inProcess(args, { input });
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr).toMatch(first);
  expect(r.stderr).toMatch(pattern);
  expect(r.stdout).toBe("");
  expect(snapshot(dir)).toEqual(before);
}

describe("write refuses bad documents and changes nothing", () => {
  const good = handoff("x");
  const cases: [string, string | Buffer, RegExp][] = [
    ["empty stdin", "", /stdin is empty/],
    ["a NUL byte", `${good}\0`, /NUL byte/],
    ["invalid UTF-8", Buffer.concat([Buffer.from(good), Buffer.from([0xff, 0x0a])]), /not valid UTF-8/],
    ["no marker", good.replace("<!-- memory-schema: v1 -->\n", ""), /must begin with the line <!-- memory-schema: v1 -->/],
    ["a wrong marker", good.replace("v1", "v2"), /must begin with the line/],
    ["no heading", good.replace("# Session Handoff", "# Notes"), /heading "# Session Handoff"/],
    ["the heading too late", good.replace("# Session Handoff\n", "\n\n\n\n# Session Handoff\n"), /heading/],
    ["no final newline", good.trimEnd(), /end with a newline/],
    ["over 1,000,000 bytes", `${good}${"a".repeat(1_000_001)}\n`, /stdin is more than 1,000,000 bytes; send at most 1,000,000 bytes/],
    ["a zero-width character", handoff("a\u200Bb"), /invisible/],
  ];
  it.each(cases)("%s", async (_name, input, pattern) => {
    const root = gitRepo();
    // stdin's own limits (empty, too long) through the built bundle, which reads the descriptor.
    const spawn = /stdin/.test(pattern.source);
    await refused(root, ["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], input, pattern, 2, undefined, spawn);
  });

  it.each(cases)("%s, over an existing handoff", async (_name, input, pattern) => {
    const root = gitRepo();
    const t = await saveIn(root, good, "absent");
    await refused(root, ["write", "handoff", "--root", root, "--expected-current-sha256", t], input, pattern);
  });
});

// A wrong command line (a malformed token too) says `usage error: `; an unknown kind is refused like bad input.
describe("usage errors name the flag, exit 2, change nothing", () => {
  it.each([
    [["write", "handoff", "--root", "ROOT", "--expected-current-sha256", "ABSENT"], /--expected-current-sha256 must be `absent` or 64 lowercase hex/],
    [["write", "handoff", "--root", "ROOT", "--expected-current-sha256", "A".repeat(64)], /64 lowercase hex/],
    [["write", "handoff", "--root", "ROOT", "--expected-current-sha256", "abc"], /64 lowercase hex/],
    [["write", "notes", "--root", "ROOT", "--expected-current-sha256", "absent"], /unknown kind "notes"/],
    [["write", "handoff", "--root", "ROOT", "--expected-current-sha256", "absent", "--force"], /--force/],
    [["write", "handoff", "--root", "ROOT"], /--expected-current-sha256 TOKEN is required/],
    [["read", "--root", "ROOT"], /needs an argument/],
    [["read", "handoff", "lessons", "--root", "ROOT"], /at most 1/],
    [["frobnicate"], /unknown verb "frobnicate"/],
    [["write", "handoff", "--root", "ROOT", "--expected-current-sha256", "absent", "--lock-timeout", "soon"], /--lock-timeout/],
  ])("%j", async (args, pattern) => {
    const root = gitRepo();
    const first = /unknown kind/.test(pattern.source) ? /^memory operation refused: / : /^usage error: /;
    await refused(root, args.map((a) => (a === "ROOT" ? root : a)), handoff("x"), pattern, 2, first);
  });

  it("check exits 64 on a usage error, because 2 means parked", async () => {
    // --root is optional: an unknown flag is the usage error here.
    const r = helper(["check", "--bogus"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/--bogus/);
  });

  it("hook exits 0 on a usage error and prints the problem on stderr only", async () => {
    const r = helper(["hook", "--mode", "everything"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/--mode/);
  });
});

describe("hostile roots and trees", () => {
  // A link as --root is followed to its real path: test/verbs/root.test.ts.
  it("refuses a missing root and a file as root", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "file"), "x");
    mkdirSync(path.join(dir, "real"));
    symlinkSync(path.join(dir, "real"), path.join(dir, "link"));
    for (const [root, pattern] of [
      [path.join(dir, "missing"), /does not exist/],
      [path.join(dir, "file"), /not a directory/],
    ] as const) {
      await refused(dir, ["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], handoff("x"), pattern);
      await refused(dir, ["read", "handoff", "--root", root], "", pattern);
    }
  });

  it.each([".ai", ".ai/memory", ".ai/memory/archive"])("refuses %s as a link or a file, leaving the outside untouched", async (rel) => {
    for (const shape of ["link", "file"] as const) {
      const root = gitRepo();
      const outside = tempDir("sh-outside-");
      writeFileSync(path.join(outside, "keep.txt"), "outside\n");
      if (rel !== ".ai") await saveIn(root, handoff("prior"), "absent");
      if (rel === ".ai/memory/archive") {
        // Needs a prior handoff so the write would archive.
      }
      const target = path.join(root, rel);
      execFileSync("rm", ["-rf", target]);
      mkdirSync(path.dirname(target), { recursive: true });
      if (shape === "link") symlinkSync(outside, target);
      else writeFileSync(target, "not a dir\n");
      const outsideBefore = snapshot(outside);
      const token = rel === ".ai" ? "absent" : sha(handoff("prior"));
      await refused(root, ["write", "handoff", "--root", root, "--expected-current-sha256", token], handoff("new"), shape === "link" ? /is a link/ : /not a directory/);
      expect(snapshot(outside)).toEqual(outsideBefore);
    }
  });

  it.each(["link", "hard link", "fifo", "directory"])("refuses HANDOFF.md as a %s on read and write, never hanging", async (shape) => {
    const root = gitRepo();
    await saveIn(root, handoff("x"), "absent");
    const outside = tempDir("sh-outside-");
    const victim = path.join(outside, "victim.md");
    writeFileSync(victim, handoff("outside"));
    const f = mem(root, "HANDOFF.md");
    execFileSync("rm", ["-f", f]);
    if (shape === "link") symlinkSync(victim, f);
    if (shape === "hard link") linkSync(victim, f);
    if (shape === "fifo") execFileSync("mkfifo", [f]);
    if (shape === "directory") mkdirSync(f);
    const pattern = { link: /is a link/, "hard link": /more than one hard link/, fifo: /not a regular file/, directory: /not a regular file/ }[shape]!;
    // A fifo through the built bundle: a hang there ends at the spawn's timeout, not the test run's.
    const spawn = shape === "fifo";
    await refused(root, ["read", "handoff", "--root", root], "", pattern, 2, undefined, spawn);
    await refused(root, ["write", "handoff", "--root", root, "--expected-current-sha256", sha(handoff("outside"))], handoff("new"), pattern, 2, undefined, spawn);
    expect(readFileSync(victim, "utf8")).toBe(handoff("outside"));
  });

  // One verdict on one file (docs/design.md#tokens-and-the-publication-protocol): the same
  // document sent back is not `unchanged` when read refuses the file it would compare with.
  it.each(["the file's token", "absent"])("a hard-linked HANDOFF.md sent back unchanged, token %s: write refuses as read does", async (which) => {
    const root = gitRepo();
    const doc = handoff("x");
    await saveIn(root, doc, "absent");
    const f = mem(root, "HANDOFF.md");
    const bytes = readFileSync(f);
    const other = path.join(tempDir("sh-outside-"), "other-name.md");
    linkSync(f, other);
    const pattern = /HANDOFF\.md has more than one hard link; the helper only uses regular files with one link \(move it away and retry\)$/m;
    await refused(root, ["read", "handoff", "--root", root], "", pattern);
    await refused(root, ["write", "handoff", "--root", root, "--expected-current-sha256", which === "absent" ? "absent" : sha(bytes.toString("utf8"))], bytes, pattern);
    expect(readFileSync(other)).toEqual(bytes);
  });

  it.each(["link", "hard link", "fifo", "directory"])("refuses AGENTS.md as a %s on read-target and promote", async (shape) => {
    const root = gitRepo();
    const outside = tempDir("sh-outside-");
    const victim = path.join(outside, "AGENTS.md");
    writeFileSync(victim, "# outside\n");
    const f = path.join(root, "AGENTS.md");
    if (shape === "link") symlinkSync(victim, f);
    if (shape === "hard link") linkSync(victim, f);
    if (shape === "fifo") execFileSync("mkfifo", [f]);
    if (shape === "directory") mkdirSync(f);
    const pattern = { link: /is a link/, "hard link": /more than one hard link/, fifo: /not a regular file/, directory: /not a regular file/ }[shape]!;
    const spawn = shape === "fifo";
    await refused(root, ["read-target", "--root", root, "--target", "AGENTS.md"], "", pattern, 2, undefined, spawn);
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true, mode: 0o700 });
    await refused(root, ["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", sha("# outside\n")], "- lesson\n", pattern, 2, undefined, spawn);
    expect(readFileSync(victim, "utf8")).toBe("# outside\n");
  });
});

describe("the kill switch", () => {
  it("refuses writes with exit 4 naming the file to remove, while reads keep working", async () => {
    const root = gitRepo();
    const t = await saveIn(root, handoff("x"), "absent");
    writeFileSync(mem(root, "PAUSE"), "");
    await refused(root, ["write", "handoff", "--root", root, "--expected-current-sha256", t], handoff("y"), new RegExp(`memory writes are paused: remove ${mem(root, "PAUSE")} to resume`), 4);
    expect(helper(["read", "handoff", "--root", root]).code).toBe(0);
  });

  it("puts paused before a bad document (usage, paused, busy, the rest)", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("x"), "absent");
    writeFileSync(mem(root, "PAUSE"), "");
    await refused(root, ["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], "garbage", /paused/, 4);
  });

  it("honours SESSION_HANDOFF_PAUSE with ~ expanded, the global PAUSE, and SESSION_HANDOFF_DISABLE=1", async () => {
    const root = gitRepo();
    const home = tempDir("sh-home-");
    writeFileSync(path.join(home, "pause-here"), "");
    const r1 = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], {
      input: handoff("x"),
      env: { HOME: home, SESSION_HANDOFF_PAUSE: "~/pause-here" },
    });
    expect(r1.code).toBe(4);
    expect(r1.stderr).toContain(path.join(home, "pause-here"));
    const xdg = tempDir("sh-xdg-");
    mkdirSync(path.join(xdg, "session-handoff"));
    writeFileSync(path.join(xdg, "session-handoff", "PAUSE"), "");
    const r2 = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("x"), env: { XDG_CONFIG_HOME: xdg } });
    expect(r2.code).toBe(4);
    const r3 = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("x"), env: { SESSION_HANDOFF_DISABLE: "1" } });
    expect(r3.code).toBe(4);
    expect(r3.stderr).toMatch(/SESSION_HANDOFF_DISABLE=1/);
    const hook = helper(["hook", "--mode", "session", "--root", root], { env: { SESSION_HANDOFF_DISABLE: "1" } });
    expect(hook.stdout).toBe("");
  });
});
