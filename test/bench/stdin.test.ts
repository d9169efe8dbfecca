// The hook waits at most a second for a harness's stdin (docs/design.md#the-session-start-hook); a
// harness that keeps stdin open must not keep the process, and the session start, waiting too.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HELPER, cleanEnv, gitRepo, handoff, helper, save, tempDir } from "../helpers.ts";

/** Waits for a child's end (its streams closed); a hang is killed after 8 s and shows as null. */
function ended(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 8_000);
    child.on("close", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
}

it("hook ends about a second after start when stdin stays open", async () => {
  const root = gitRepo();
  const child = spawn(process.execPath, [HELPER, "hook", "--mode", "session"], { cwd: root, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
  const started = Date.now();
  const code = await ended(child);
  child.stdin.destroy();
  expect(code).toBe(0);
  expect(Date.now() - started).toBeLessThan(5_000);
});

// Bounded stdin (27): an endless producer on a real pipe (`yes | helper …`) must
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

  it("checkpoint ignores an endless stdin past 1 MiB: exit 0, an anchors-only checkpoint", async () => {
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

// How the harness's JSON arrives differs by harness: a socket from Node harnesses (libuv's
// socketpair: Claude Code, Gemini CLI), a pipe from Rust and Python ones (Codex) and from a
// shell, a file when redirected. Each is read until the JSON object ends, stdin closes, or a
// second passes -- never longer, and the harness need not close stdin once the JSON is sent.
describe("the hook's stdin: socket, pipe, file", () => {
  /** A project with a handoff, and another folder to run from: the JSON's cwd must win. */
  function project() {
    const root = gitRepo();
    save(root, handoff("by stdin"));
    const elsewhere = gitRepo();
    const json = JSON.stringify({ session_id: "s1", cwd: root, hook_event_name: "SessionStart", source: "startup" });
    return { root, elsewhere, json };
  }

  /** Runs the hook through bash with `feed` piped into it; returns stdout and the hook's own time (ms). */
  function viaBash(feed: string, cwd: string): { code: number | null; stdout: string; ms: number } {
    const script = `${feed} | ( s=$(date +%s%N); "${process.execPath}" "${HELPER}" hook --mode session; c=$?; e=$(date +%s%N); echo "ms=$(( (e - s) / 1000000 )) code=$c" >&2 )`;
    const r = spawnSync("bash", ["-c", script], { cwd, env: cleanEnv(), encoding: "utf8" });
    const m = /ms=(\d+) code=(\d+)/.exec(r.stderr);
    if (!m) throw new Error(`no timing: ${r.stderr}`);
    return { code: Number(m[2]), stdout: r.stdout, ms: Number(m[1]) };
  }

  it("a pipe that sends the JSON and stays open: the JSON is used, without waiting out the second", () => {
    const { elsewhere, json } = project();
    const sent = viaBash(`(printf '%s\\n' '${json}'; sleep 3)`, elsewhere);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/parked handoff exists/);
    const silent = viaBash("sleep 3", elsewhere);
    expect(silent.code).toBe(0);
    expect(silent.stdout).toBe("");
    // The silent pipe is waited on for the whole second; the one that sent its JSON is not.
    expect(silent.ms).toBeGreaterThanOrEqual(1000);
    expect(silent.ms - sent.ms).toBeGreaterThan(400);
    expect(silent.ms).toBeLessThan(2900);
  });

  it("a pipe closed after the JSON, a pipe closed with nothing, a JSON cut short", () => {
    const { elsewhere, json } = project();
    expect(viaBash(`printf '%s' '${json}'`, elsewhere).stdout).toMatch(/parked handoff exists/);
    expect(viaBash("true", elsewhere).stdout).toBe("");
    const cut = viaBash(`(printf '%s' '${json.slice(0, -1)}'; sleep 3)`, elsewhere);
    expect(cut.code).toBe(0);
    expect(cut.stdout).toBe("");
    expect(cut.ms).toBeGreaterThanOrEqual(1000);
  });

  it("a file redirected to stdin is read at once", () => {
    const { elsewhere, json } = project();
    const file = path.join(tempDir("sh-stdin-"), "input.json");
    writeFileSync(file, json);
    const r = spawnSync("bash", ["-c", `"${process.execPath}" "${HELPER}" hook --mode session < "${file}"`], { cwd: elsewhere, env: cleanEnv(), encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/parked handoff exists/);
  });

  it("a socket that sends the JSON and stays open: the JSON is used, and the hook ends", async () => {
    const { elsewhere, json } = project();
    const child = spawn(process.execPath, [HELPER, "hook", "--mode", "session"], { cwd: elsewhere, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.write(json);
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const code = await ended(child);
    child.stdin.destroy();
    expect(code).toBe(0);
    expect(stdout).toMatch(/parked handoff exists/);
  });

  it("a named pipe held open by a writer with nothing in it: about a second, then the current directory", () => {
    const { root } = project();
    const dir = tempDir("sh-fifo-");
    const fifo = path.join(dir, "in");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // Opened read-write, the FIFO has a writer for as long as this test holds it.
    const fd = openSync(fifo, "r+");
    try {
      const started = Date.now();
      const r = spawnSync(process.execPath, [HELPER, "hook", "--mode", "session"], { cwd: root, env: cleanEnv(), stdio: [fd, "pipe", "pipe"], encoding: "utf8", timeout: 10_000 });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/parked handoff exists/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      closeSync(fd);
    }
  });
});

// `< somedir` opens a directory as stdin: a mistake in the command, refused plainly, no stack.
describe("a directory as stdin", () => {
  it.each([
    ["write handoff", ["write", "handoff", "--expected-current-sha256", "absent"]],
    ["validate --stdin", ["validate", "handoff", "--stdin"]],
    ["redact", ["redact"]],
    ["promote", ["promote", "--target", "AGENTS.md", "--expected-current-sha256", "absent"]],
  ])("%s refuses it with exit 2 and changes nothing", (name, args) => {
    const root = gitRepo();
    const fd = openSync(tempDir("sh-dirin-"), "r");
    try {
      const withRoot = name === "redact" ? args : [...args, "--root", root];
      const r = spawnSync(process.execPath, [HELPER, ...withRoot], { cwd: root, env: cleanEnv(), stdio: [fd, "pipe", "pipe"], encoding: "utf8", timeout: 30_000 });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^memory operation refused: stdin is a directory, not a document: .*\n$/);
      expect(spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: root, encoding: "utf8" }).stdout).toBe("");
    } finally {
      closeSync(fd);
    }
  });
});
