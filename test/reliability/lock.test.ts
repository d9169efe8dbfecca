import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, tempDir, unstamped } from "../helpers.ts";
import { archiveContents, current, parkedAt, privateFiles, runAsync, runBounded, seed, SUBJECTS } from "./support.ts";

// one cross-process lock, waited for at most --lock-timeout, taken over from a
// dead holder, never held by two at once, and never a crash from its refresh timer.

const memDir = (root: string) => path.join(root, ".ai", "memory");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the memory lock", () => {
  it.each(["read-opened", "after-claim", "before-publication"])("a holder killed with SIGKILL at %s is taken over within --lock-timeout", async (phase) => {
    const root = gitRepo();
    const t = seed(root, SUBJECTS.handoff, "old version");
    const held = await parkedAt(SUBJECTS.handoff.writeArgs(root, t), phase, handoff("killed before it could finish"));
    expect(held.parked).toBe(true);
    // While it lives, others are busy and told who holds the lock.
    const busy = runBounded(["write", "handoff", "--root", root, "--expected-current-sha256", t, "--lock-timeout", "0.3"], { input: handoff("too early") });
    expect(busy.code).toBe(5);
    const pid = Number(/process (\d+) holds the lock/.exec(busy.stderr)?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    const killed = await held.run;
    expect(killed.signal).toBe("SIGKILL");
    const next = runBounded(["write", "handoff", "--root", root, "--expected-current-sha256", t, "--lock-timeout", "3"], { input: handoff("next") });
    expect(next.code, next.stderr).toBe(0);
    expect(current(SUBJECTS.handoff, root)).toBe(unstamped(handoff("next")));
    expect([...archiveContents(root).values()]).toEqual([unstamped(handoff("old version"))]);
    expect(privateFiles(root)).toEqual([]);
  });

  it("one holder at a time: each of many concurrent writes and promotes, held under the lock, is alone there", async () => {
    const root = gitRepo();
    const subjects = [SUBJECTS.handoff, SUBJECTS.lessons, SUBJECTS.promote];
    const tokens = subjects.map((s) => seed(root, s, "base"));
    const gates = tempDir("sh-gates-");
    // Every job reads its file again under the lock (`read-opened`) and waits there for its gate.
    const runs = Array.from({ length: 9 }, (_, i) => {
      const s = subjects[i % 3]!;
      const args = [...s.writeArgs(root, tokens[i % 3]!).slice(0, -2), "--lock-timeout", "60"];
      const env = { MEMORY_IO_FAILPOINT: `read-opened:pause=${path.join(gates, String(i))}` };
      return runAsync(args, { input: s.input(`job ${i}`, current(s, root)), env, timeoutMs: 120_000 });
    });
    let ended = 0;
    for (const r of runs) void r.then(() => ended++);
    const held: number[] = [];
    const waiting = () => readdirSync(gates).filter((n) => n.endsWith(".ready") && !held.includes(Number(n.slice(0, -6))));
    for (const deadline = Date.now() + 120_000; ended < runs.length && Date.now() < deadline; ) {
      if (waiting().length === 0) {
        await sleep(20);
        continue;
      }
      // Time for any other job to come past its own failpoint, were the lock not exclusive.
      await sleep(300);
      const [one, ...more] = waiting();
      expect(more, "two processes under the lock at once").toEqual([]);
      const pid = Number(readFileSync(path.join(gates, one!), "utf8"));
      expect(JSON.parse(readFileSync(path.join(memDir(root), ".lock", "owner"), "utf8")).pid).toBe(pid);
      held.push(Number(one!.slice(0, -6)));
      writeFileSync(path.join(gates, `${one!.slice(0, -6)}.go`), "");
    }
    const results = await Promise.all(runs);
    expect(held.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // Per file, the first holder saved; the others found it changed since they read it.
    for (const k of [0, 1, 2]) {
      const codes = results.filter((_, i) => i % 3 === k).map((r) => r.code);
      expect(codes.sort(), results.map((r) => r.stderr).join("")).toEqual([0, 2, 2]);
    }
    expect(privateFiles(root)).toEqual([]);
  });

  it("a lock that looks compromised (deleted while a save waits) refuses that save cleanly; its timer never crashes the process", async () => {
    const root = gitRepo();
    const t = seed(root, SUBJECTS.handoff, "old version");
    const held = await parkedAt(SUBJECTS.handoff.writeArgs(root, t), "before-publication", handoff("ours"));
    expect(held.parked).toBe(true);
    rmSync(path.join(memDir(root), ".lock"), { recursive: true, force: true });
    // Past the 2 s refresh: the refresh timer finds the lock gone and reports it.
    await sleep(3_000);
    held.go();
    const r = await held.run;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: lost the memory lock to another process before publishing; nothing was published/);
    expect(r.stderr).not.toMatch(/internal error|ECOMPROMISED|Unhandled/);
    // Nothing lost, nothing left: the old version is current, with no archive copy.
    expect(current(SUBJECTS.handoff, root)).toBe(unstamped(handoff("old version")));
    expect(archiveContents(root).size).toBe(0);
    expect(privateFiles(root)).toEqual([]);
  });

  it("a lock granted twice still loses nothing: the token is checked under it and the first holder refuses", async () => {
    const root = gitRepo();
    const t = seed(root, SUBJECTS.handoff, "old version");
    const a = await parkedAt(SUBJECTS.handoff.writeArgs(root, t), "before-publication", handoff("first holder"));
    rmSync(path.join(memDir(root), ".lock"), { recursive: true, force: true });
    // A second writer now gets a lock of its own.
    const b = runBounded(SUBJECTS.handoff.writeArgs(root, t), { input: handoff("second holder") });
    a.go();
    const ra = await a.run;
    expect(ra.code).toBe(2);
    expect(ra.stderr).toMatch(/lost the memory lock|changed since it was read|written by another program/);
    runBounded(["recover", "--root", root]);
    const now = current(SUBJECTS.handoff, root);
    const archived = [...archiveContents(root).values()];
    if (b.code === 0) {
      expect(now).toBe(unstamped(handoff("second holder")));
      expect(archived).toContain(unstamped(handoff("old version")));
    } else {
      expect(b.code).toBe(2);
      expect([now, ...archived]).toContain(unstamped(handoff("old version")));
    }
    expect(archived).not.toContain(unstamped(handoff("first holder")));
    expect(privateFiles(root)).toEqual([]);
  });

  it("a holder whose lock was taken over refuses, and its release leaves the new holder's lock in place", async () => {
    const root = gitRepo();
    const t = seed(root, SUBJECTS.handoff, "old version");
    const a = await parkedAt(SUBJECTS.handoff.writeArgs(root, t), "before-publication", handoff("first holder"));
    // Another process takes the lock over (as after ours went stale): its own directory and owner.
    const lock = path.join(memDir(root), ".lock");
    renameSync(lock, `${lock}-gone`);
    mkdirSync(lock, { mode: 0o700 });
    const other = JSON.stringify({ pid: process.pid, host: hostname(), nonce: "ffffffffffffffff" });
    writeFileSync(path.join(lock, "owner"), other);
    a.go();
    const ra = await a.run;
    expect(ra.code).toBe(2);
    expect(ra.stderr).toMatch(/lost the memory lock/);
    expect(readFileSync(path.join(lock, "owner"), "utf8")).toBe(other);
    expect(current(SUBJECTS.handoff, root)).toBe(unstamped(handoff("old version")));
  });

  it("a save held longer than the lock's refresh interval still succeeds", async () => {
    const root = gitRepo();
    const t = seed(root, SUBJECTS.handoff, "old version");
    const held = await parkedAt(SUBJECTS.handoff.writeArgs(root, t), "before-publication", handoff("slow save"));
    await sleep(4_500);
    held.go();
    const r = await held.run;
    expect(r.code, r.stderr).toBe(0);
    expect(unstamped(readFileSync(path.join(memDir(root), "HANDOFF.md"), "utf8"))).toBe(unstamped(handoff("slow save")));
  });

  // A dead writer of another machine (or one pulled through a sync tool) whose lock is dated
  // ahead of this clock never goes stale by the wall clock (docs/decisions/lock.md).
  const plantForeign = (root: string, owner: string) => {
    const lock = path.join(memDir(root), ".lock");
    mkdirSync(lock, { mode: 0o700 });
    writeFileSync(path.join(lock, "owner"), owner);
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(lock, future, future);
    return lock;
  };

  it("a dead foreign writer's lock dated an hour ahead: the default 10 s timeout takes it over; a 2 s one says busy naming it and leaves it", async () => {
    const root = gitRepo();
    const t = seed(root, SUBJECTS.handoff, "old version");
    const lock = plantForeign(root, JSON.stringify({ pid: 4242, host: "another-machine.example", nonce: "0123456789abcdef" }));
    const args = ["write", "handoff", "--root", root, "--expected-current-sha256", t];
    const short = runBounded([...args, "--lock-timeout", "2"], { input: handoff("too early") });
    expect(short.code).toBe(5);
    expect(short.stderr).toContain(`process 4242 on "another-machine.example" holds the lock ${lock}`);
    expect(existsSync(path.join(lock, "owner"))).toBe(true);
    const started = Date.now();
    const r = runBounded(args, { input: handoff("after the takeover"), timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    expect(current(SUBJECTS.handoff, root)).toBe(unstamped(handoff("after the takeover")));
    expect(existsSync(lock)).toBe(false);
  }, 60_000);

  it("a lock with an unreadable owner file dated ahead is taken over by recover with the default timeout", async () => {
    const root = gitRepo();
    seed(root, SUBJECTS.handoff, "old version");
    const lock = plantForeign(root, "{not json");
    const r = runBounded(["recover", "--root", root], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(lock)).toBe(false);
  }, 60_000);

  it("a writer killed after its claim, its lock made foreign and future-dated: check says interrupted (never parked), recover repairs it", async () => {
    const root = gitRepo();
    const t = seed(root, SUBJECTS.handoff, "old version");
    const killed = runBounded(SUBJECTS.handoff.writeArgs(root, t), { input: handoff("killed"), env: { MEMORY_IO_FAILPOINT: "after-claim:crash" } });
    expect(killed.signal).toBe("SIGKILL");
    const lock = path.join(memDir(root), ".lock");
    writeFileSync(path.join(lock, "owner"), JSON.stringify({ pid: 4242, host: "another-machine.example", nonce: "0123456789abcdef" }));
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(lock, future, future);
    const doctor = runBounded(["doctor", "--root", root]);
    expect(doctor.stdout).toContain('the memory lock .ai/memory/.lock names process 4242 on "another-machine.example", dated ahead of this clock');
    const check = runBounded(["check", "--root", root]);
    expect(check.stdout).not.toMatch(/parked/);
    expect(check.code, check.stdout).toBe(1);
    const r = runBounded(["recover", "--root", root], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(current(SUBJECTS.handoff, root)).toBe(unstamped(handoff("old version")));
    expect(runBounded(["check", "--root", root]).code).toBe(2);
  }, 60_000);
});
