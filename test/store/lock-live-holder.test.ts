// A holder alive on this host keeps the memory lock however long its heartbeat waits (an
// event loop busy for seconds); a pid that a later process reuses is no holder.
import { spawn } from "node:child_process";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, save } from "../helpers.ts";

function plantLock(root: string, pid: number, ageS: number): void {
  const lock = path.join(root, ".ai", "memory", ".lock");
  mkdirSync(lock);
  writeFileSync(path.join(lock, "owner"), JSON.stringify({ pid, host: hostname(), nonce: "0123456789abcdef" }));
  const then = new Date(Date.now() - ageS * 1000);
  utimesSync(lock, then, then);
}

describe("the memory lock of a live holder", () => {
  it("is not taken from a live process on this host whose heartbeat is 60 s old", () => {
    const root = gitRepo();
    const token = save(root, handoff("First."));
    plantLock(root, process.pid, 60);
    const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", token, "--lock-timeout", "0.5"], { input: handoff("Second.") });
    expect(r.stderr).toMatch(/memory is busy: process \d+ holds the lock/);
    expect(r.code).toBe(5);
  });

  it("is taken when its pid now belongs to a process started after the lock was made", async () => {
    const root = gitRepo();
    const token = save(root, handoff("First."));
    const lock = path.join(root, ".ai", "memory", ".lock");
    mkdirSync(lock);
    // Written now and rewritten in place below: the folder's ctime stays the lock's making.
    writeFileSync(path.join(lock, "owner"), JSON.stringify({ pid: 1, host: hostname(), nonce: "0123456789abcdef" }));
    await new Promise((r) => setTimeout(r, 2100));
    const later = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    try {
      writeFileSync(path.join(lock, "owner"), JSON.stringify({ pid: later.pid, host: hostname(), nonce: "0123456789abcdef" }));
      const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", token, "--lock-timeout", "2"], { input: handoff("Second.") });
      expect(r.stderr + r.stdout).toMatch(/saved HANDOFF\.md/);
      expect(r.code).toBe(0);
    } finally {
      later.kill();
    }
  }, 30_000);
});
