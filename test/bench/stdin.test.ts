// The hook waits at most a second for a harness's stdin (contract, "Words"); a harness that
// keeps stdin open must not keep the process, and the session start, waiting too.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HELPER, cleanEnv, gitRepo, handoff, helper, save, tempDir } from "../helpers.ts";

it("hook ends about a second after start when stdin stays open", async () => {
  const root = gitRepo();
  const child = spawn(process.execPath, [HELPER, "hook", "--mode", "session"], { cwd: root, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 8_000);
    child.on("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  child.stdin.destroy();
  expect(code).toBe(0);
  expect(Date.now() - started).toBeLessThan(5_000);
});

// Bounded stdin (rulings 20, 27): an endless producer on a real pipe (`yes | helper …`) must
// neither hang the helper nor grow its memory: reading stops just past each verb's cap.

/** Runs the helper with `yes`'s endless output on stdin; returns its exit, stderr and peak RSS (KB). */
async function fromYes(args: string[], cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string; maxRssKb: number; ms: number }> {
  const dir = tempDir("sh-yes-");
  const report = path.join(dir, "rss");
  const preload = path.join(dir, "rss.mjs");
  writeFileSync(preload, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(report)}, String(process.resourceUsage().maxRSS)));\n`);
  const yes = spawn("yes", [], { stdio: ["ignore", "pipe", "ignore"] });
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", preload, HELPER, ...args], { cwd, env: cleanEnv(), stdio: [yes.stdout, "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => {
    // A hang is the failure: the helper must end by itself long before this.
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("close", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  const ms = Date.now() - started;
  yes.kill();
  return { code, stdout, stderr, maxRssKb: Number(readFileSync(report, "utf8")), ms };
}

// Bare node is ~40 MB; reading 1 MB in 64 KiB buffers adds a few. Unbounded, `write` grew to
// 3.4 GB in 5 s.
const RSS_CEILING_KB = 150_000;

describe("stdin is bounded for every verb that reads it", () => {
  it.each([
    ["write handoff", "1,000,000", ["write", "handoff", "--expected-current-sha256", "absent"]],
    ["write lessons", "1,000,000", ["write", "lessons", "--expected-current-sha256", "absent"]],
    ["promote", "64,000", ["promote", "--target", "AGENTS.md", "--expected-current-sha256", "absent"]],
    ["drift --stdin", "1,000,000", ["drift", "--stdin"]],
    ["brief --stdin", "1,000,000", ["brief", "--stdin"]],
  ])("%s refuses an endless stdin past %s bytes, promptly and in bounded memory", async (_name, cap, args) => {
    const root = gitRepo();
    const r = await fromYes([...args, "--root", root]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(`memory operation refused: stdin is more than ${cap} bytes; send at most ${cap} bytes\n`);
    expect(r.maxRssKb).toBeLessThan(RSS_CEILING_KB);
    // Nothing was created: the refusal comes before the memory dir is made.
    expect(helper(["check", "--root", root]).code).toBe(0);
  });

  it("redact (no --root) refuses an endless stdin", async () => {
    const r = await fromYes(["redact"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("memory operation refused: stdin is more than 1,000,000 bytes; send at most 1,000,000 bytes\n");
    expect(r.stdout).toBe("");
    expect(r.maxRssKb).toBeLessThan(RSS_CEILING_KB);
  });

  it("hook ignores an endless stdin past 64 KiB (not refused): exit 0, root from the current directory", async () => {
    const root = gitRepo();
    save(root, handoff("bounded"));
    const r = await fromYes(["hook", "--mode", "session"], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/parked handoff exists/);
    expect(r.stderr).toBe("");
    expect(r.maxRssKb).toBeLessThan(RSS_CEILING_KB);
    // Over the cap it stops at once, without waiting out its one-second window.
    expect(r.ms).toBeLessThan(15_000);
  });

  it("checkpoint ignores an endless stdin past 1 MiB (ruling 20): exit 0, an anchors-only checkpoint", async () => {
    const root = gitRepo();
    const r = await fromYes(["checkpoint", "--root", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/checkpoint: saved checkpoints\/unknown\.md/);
    expect(r.maxRssKb).toBeLessThan(RSS_CEILING_KB);
  });

  it.each([
    ["redact", ["redact"], 1_000_000],
    ["drift --stdin", ["drift", "--stdin", "--json"], 1_000_000],
  ])("%s: exactly the cap is read whole; one byte more is refused", (_name, args, cap) => {
    const root = gitRepo();
    const exact = "x".repeat(cap - 1) + "\n";
    const ok = helper([...args, ...(args[0] === "redact" ? [] : ["--root", root])], { input: exact });
    expect(ok.stderr).not.toMatch(/stdin is more than/);
    if (args[0] === "redact") expect(ok.stdout).toBe(exact);
    const over = helper([...args, ...(args[0] === "redact" ? [] : ["--root", root])], { input: `${exact}y` });
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/stdin is more than 1,000,000 bytes/);
  });

  it("promote: 64,000 bytes are appended, 64,001 refused with nothing created", () => {
    const root = gitRepo();
    const over = helper(["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", "absent"], { input: `${"l".repeat(64_000)}\n` });
    expect(over.code).toBe(2);
    expect(over.stderr).toBe("memory operation refused: stdin is more than 64,000 bytes; send at most 64,000 bytes\n");
    const ok = helper(["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", "absent"], { input: `${"l".repeat(63_999)}\n` });
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(path.join(root, "AGENTS.md"), "utf8")).toHaveLength(64_000);
  });

  it("a too-long stdin comes after the kill switch in the refusal order (usage, paused, busy, the rest)", () => {
    const root = gitRepo();
    const paused = spawnSync(process.execPath, [HELPER, "write", "handoff", "--root", root, "--expected-current-sha256", "absent"], {
      input: "y\n".repeat(600_000),
      env: cleanEnv({ SESSION_HANDOFF_DISABLE: "1" }),
      encoding: "utf8",
    });
    expect(paused.status).toBe(4);
    expect(paused.stderr).toMatch(/memory writes are paused/);
  });
});
