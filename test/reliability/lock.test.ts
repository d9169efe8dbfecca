import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, tempDir, unstamped } from "../helpers.ts";
import { intervals, overlaps } from "./lock-log.ts";
import { archiveContents, current, currentToken, parkedAt, privateFiles, runAsync, runBounded, seed, SUBJECTS } from "./support.ts";

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

  it("live holders never overlap: many concurrent writes, promotes and recovers, logged", async () => {
    const root = gitRepo();
    seed(root, SUBJECTS.handoff, "base");
    const log = path.join(tempDir("sh-locklog-"), "lock.log");
    const env = { MEMORY_IO_LOCK_LOG: log };
    let ran = 0;
    for (let wave = 0; wave < 3; wave++) {
      const jobs = Array.from({ length: 12 }, (_, i) => {
        const kind = i % 4;
        const token = kind === 0 ? currentToken(SUBJECTS.handoff, root) : "absent";
        const args =
          kind === 0
            ? ["write", "handoff", "--root", root, "--expected-current-sha256", token, "--lock-timeout", "60"]
            : kind === 1
              ? ["write", "lessons", "--root", root, "--expected-current-sha256", currentToken(SUBJECTS.lessons, root), "--lock-timeout", "60"]
              : kind === 2
                ? ["promote", "--root", root, "--target", "CLAUDE.md", "--expected-current-sha256", "absent", "--lock-timeout", "60"]
                : ["recover", "--root", root, "--lock-timeout", "60"];
        const input = kind === 0 ? handoff(`wave ${wave} job ${i}`) : kind === 1 ? `<!-- memory-schema: v1 -->\n# Lessons\n\n- ${wave}/${i}\n` : "- lesson\n";
        return runAsync(args, { input, env, timeoutMs: 120_000 });
      });
      for (const r of await Promise.all(jobs)) {
        ran++;
        expect(r.timedOut).toBe(false);
        expect([0, 2]).toContain(r.code);
        if (r.code === 2) expect(r.stderr).toMatch(/changed since it was read/);
      }
    }
    const ivs = intervals(log);
    // Every process took the lock once and released it.
    expect(ivs).toHaveLength(ran);
    expect(ivs.every((iv) => iv.to !== null)).toBe(true);
    expect(overlaps(ivs)).toEqual([]);
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

  it("a lock granted twice (field report 13) still loses nothing: the token is checked under it and the first holder refuses", async () => {
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
