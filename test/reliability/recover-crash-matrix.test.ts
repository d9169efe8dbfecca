import { lstatSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, helper, unstamped } from "../helpers.ts";
import { archiveContents, current, currentToken, plantArchives, privateFiles, RECOVER_PHASES, ROLLBACK_PHASES, runBounded, seed, SUBJECTS, type Subject } from "./support.ts";

// A repair can be killed too (docs/design.md#publication-step-by-step): `recover` killed mid-repair, and a
// writer's rollback killed mid-way, must leave a state that the next `recover` finishes —
// never "hard links the helper did not make", never a check stuck at 1. Each phase fires
// just after its step (CONTRIBUTING, "The failpoint seam").

const handoffArchives = (root: string) => [...archiveContents(root).keys()].filter((n) => /^HANDOFF-.*\.md$/.test(n));

/** Every link of every file in the memory dir, the archive and the root's targets is one (no file left hard-linked). */
function singleLinked(root: string): string[] {
  const out: string[] = [];
  for (const dir of [root, path.join(root, ".ai", "memory"), path.join(root, ".ai", "memory", "archive")]) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      const st = lstatSync(path.join(dir, n));
      if (st.isFile() && st.nlink !== 1) out.push(`${path.relative(root, path.join(dir, n))} n${st.nlink}`);
    }
  }
  return out;
}

/**
 * After the last, uncrashed `recover`: the file is the old or the new version, the old one is
 * current or archived exactly once (handoff), nothing is hard-linked, no private file is
 * left, `check` is 0 or 2, `recover` is idempotent, and read and write work.
 */
function expectSettled(root: string, subject: Subject, old: string | null, neu: string, opts: { mustBeOld?: boolean; ancient?: string[] } = {}): void {
  const rec = runBounded(["recover", "--root", root]);
  expect(rec.timedOut).toBe(false);
  expect(rec.code, rec.stderr).toBe(0);
  const now = current(subject, root);
  if (opts.mustBeOld) expect(now).toBe(old);
  else expect(old === null ? [null, neu] : [old, neu]).toContain(now);
  const archived = archiveContents(root);
  if (subject.name === "handoff" && old !== null) {
    const copies = [...archived.values()].filter((c) => c === old).length;
    expect(copies, [...archived.keys()].join(",")).toBe(now === old ? 0 : 1);
  }
  if (subject.name === "handoff") expect(handoffArchives(root).length).toBeLessThanOrEqual(5);
  if (opts.ancient) {
    const lost = opts.ancient.filter((n) => !archived.has(n));
    expect(lost).toEqual(opts.ancient.slice(0, lost.length));
  }
  expect(singleLinked(root)).toEqual([]);
  expect(privateFiles(root)).toEqual([]);
  const check = runBounded(["check", "--root", root]);
  expect([0, 2], check.stdout).toContain(check.code);
  expect(runBounded(["recover", "--root", root]).stdout).toBe("nothing to recover\n");
  if (now !== null) expect(runBounded(subject.readArgs(root)).code).toBe(0);
  const next = helper(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("next", now) });
  expect(next.code, next.stderr).toBe(0);
}

// The write crashes that leave something to repair, then a recover killed at each step.
interface RecoverCase {
  subject: Subject;
  writeCrash: string;
  recoverCrash: (typeof RECOVER_PHASES)[number];
  fullArchive: boolean;
}
// Only the pairs where the repair takes that step: the kill must land (asserted below).
function repairTakes(subject: Subject, writeCrash: string, phase: (typeof RECOVER_PHASES)[number]): boolean {
  const claimOnly = ["after-claim", "after-archive", "before-publication"].includes(writeCrash);
  if (phase === "recover-after-restore") return claimOnly;
  if (phase === "recover-after-unarchive") return subject.name === "handoff" && (writeCrash === "after-archive" || writeCrash === "before-publication");
  if (phase === "recover-after-claim-drop") return true;
  if (phase === "recover-after-temp-drop") return writeCrash === "before-publication" || writeCrash === "after-publication";
  return false;
}
const recoverCases: RecoverCase[] = [];
for (const recoverCrash of RECOVER_PHASES) {
  for (const writeCrash of ["after-claim", "after-archive", "before-publication", "after-publication"]) {
    if (repairTakes(SUBJECTS.handoff, writeCrash, recoverCrash)) recoverCases.push({ subject: SUBJECTS.handoff, writeCrash, recoverCrash, fullArchive: false });
  }
  for (const writeCrash of ["after-claim", "before-publication", "after-publication"]) {
    if (repairTakes(SUBJECTS.lessons, writeCrash, recoverCrash)) recoverCases.push({ subject: SUBJECTS.lessons, writeCrash, recoverCrash, fullArchive: false });
  }
  if (repairTakes(SUBJECTS.promote, "after-claim", recoverCrash)) recoverCases.push({ subject: SUBJECTS.promote, writeCrash: "after-claim", recoverCrash, fullArchive: false });
}

describe("recover killed at each step of its repair: the next recover finishes it", () => {
  it.each(recoverCases.map((c) => [`${c.subject.name}${c.fullArchive ? " (archive full)" : ""}: write killed at ${c.writeCrash}, recover killed at ${c.recoverCrash}`, c] as const))(
    "%s",
    (_title, { subject, writeCrash, recoverCrash, fullArchive }) => {
      const root = gitRepo();
      seed(root, subject, "old version");
      const old = current(subject, root)!;
      const ancient = fullArchive ? plantArchives(root, 5) : [];
      const neu = subject.result("new version", old);
      const w = runBounded(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("new version", old), env: { MEMORY_IO_FAILPOINT: `${writeCrash}:crash` } });
      expect(w.signal, w.stderr).toBe("SIGKILL");
      expect(runBounded(["check", "--root", root]).code).toBe(1);

      const r = runBounded(["recover", "--root", root], { env: { MEMORY_IO_FAILPOINT: `${recoverCrash}:crash` } });
      expect(r.timedOut).toBe(false);
      expect(r.signal, r.stderr).toBe("SIGKILL");
      // Killed mid-repair: an interrupted save (or already whole), never unsafe, and a read
      // never reports a false absence.
      const check = runBounded(["check", "--root", root]);
      expect([1, 2, 0], check.stdout).toContain(check.code);
      const read = runBounded(subject.readArgs(root));
      expect([0, 2]).toContain(read.code);
      if (read.code === 2) expect(read.stderr).toMatch(/run `recover`/);
      expectSettled(root, subject, old, neu, { ancient });
    },
  );

  it("a prior version that lost a race (a claim beside a newer file, no copy archived): recover killed after archiving it", () => {
    const root = gitRepo();
    const subject = SUBJECTS.handoff;
    seed(root, subject, "newer");
    const newer = current(subject, root)!;
    const claim = path.join(subject.dir(root), `.HANDOFF.md.claim-4242-${"ab".repeat(16)}`);
    writeFileSync(claim, subject.doc("loser"), { mode: 0o600 });
    const r = runBounded(["recover", "--root", root], { env: { MEMORY_IO_FAILPOINT: "recover-after-archive:crash" } });
    expect(r.signal, r.stderr).toBe("SIGKILL");
    expect(runBounded(["check", "--root", root]).code).toBe(1);
    const rec = runBounded(["recover", "--root", root]);
    expect(rec.code, rec.stderr).toBe(0);
    expect([...archiveContents(root).values()]).toEqual([unstamped(subject.doc("loser"))]);
    expect(current(subject, root)).toBe(newer);
    expect(singleLinked(root)).toEqual([]);
    expect(privateFiles(root)).toEqual([]);
  });

  it("the three-link state is repaired by the next write too, and read says to recover meanwhile", () => {
    const root = gitRepo();
    const subject = SUBJECTS.handoff;
    seed(root, subject, "old version");
    const old = current(subject, root)!;
    const env = { MEMORY_IO_FAILPOINT: "after-archive:fail,rollback-after-restore:crash" };
    expect(runBounded(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("new version", old), env }).signal).toBe("SIGKILL");
    const read = runBounded(subject.readArgs(root));
    expect(read.code).toBe(2);
    expect(read.stderr).toMatch(/run `recover`/);
    const w = runBounded(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("next", old) });
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).toMatch(/recovered: HANDOFF\.md: rolled back an interrupted save/);
    expect([...archiveContents(root).values()]).toEqual([old]);
    expect(singleLinked(root)).toEqual([]);
    expect(privateFiles(root)).toEqual([]);
  });

  it("a rollback killed between linking the claim back and dropping it (three links: file, claim, archive copy), then recover killed at each step", () => {
    for (const recoverCrash of RECOVER_PHASES) {
      const root = gitRepo();
      const subject = SUBJECTS.handoff;
      seed(root, subject, "old version");
      const old = current(subject, root)!;
      const w = runBounded(subject.writeArgs(root, currentToken(subject, root)), {
        input: subject.input("new version", old),
        env: { MEMORY_IO_FAILPOINT: "before-publication:fail,rollback-after-restore:crash" },
      });
      expect(w.signal, w.stderr).toBe("SIGKILL");
      expect(lstatSync(path.join(subject.dir(root), subject.file)).nlink).toBe(3);
      expect(runBounded(["check", "--root", root]).code).toBe(1);
      const r = runBounded(["recover", "--root", root], { env: { MEMORY_IO_FAILPOINT: `${recoverCrash}:crash` } });
      expect(r.timedOut).toBe(false);
      expect(r.stderr).not.toMatch(/did not make/);
      expectSettled(root, subject, old, subject.result("new version", old), { mustBeOld: true });
    }
  });
});

// A failure after the claim (`<phase>:fail`, as a full disk would) starts the rollback; the
// rollback is killed at each of its steps.
interface RollbackCase {
  subject: Subject;
  failAt: string;
  crashAt: (typeof ROLLBACK_PHASES)[number];
}
const rollbackCases: RollbackCase[] = [];
for (const crashAt of ROLLBACK_PHASES) {
  for (const failAt of ["after-claim", "after-archive", "before-publication"]) rollbackCases.push({ subject: SUBJECTS.handoff, failAt, crashAt });
  for (const failAt of ["after-claim", "before-publication"]) {
    rollbackCases.push({ subject: SUBJECTS.lessons, failAt, crashAt });
    rollbackCases.push({ subject: SUBJECTS.promote, failAt, crashAt });
  }
}

describe("a writer's rollback killed at each step: the prior version stays current, no archive copy stays behind", () => {
  it("without a crash, the failure is refused and changes nothing", () => {
    const root = gitRepo();
    seed(root, SUBJECTS.handoff, "old version");
    const old = current(SUBJECTS.handoff, root)!;
    const r = runBounded(SUBJECTS.handoff.writeArgs(root, currentToken(SUBJECTS.handoff, root)), { input: SUBJECTS.handoff.input("new", old), env: { MEMORY_IO_FAILPOINT: "before-publication:fail" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: cannot save HANDOFF\.md: injected failure at before-publication .*nothing was changed/);
    expect(current(SUBJECTS.handoff, root)).toBe(old);
    expect(archiveContents(root).size).toBe(0);
    expect(privateFiles(root)).toEqual([]);
    expect(runBounded(["check", "--root", root]).code).toBe(2);
  });

  it.each(rollbackCases.map((c) => [`${c.subject.name}: fails at ${c.failAt}, rollback killed at ${c.crashAt}`, c] as const))("%s", (_title, { subject, failAt, crashAt }) => {
    const root = gitRepo();
    seed(root, subject, "old version");
    const old = current(subject, root)!;
    const archivedBefore = archiveContents(root);
    const w = runBounded(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("new version", old), env: { MEMORY_IO_FAILPOINT: `${failAt}:fail,${crashAt}:crash` } });
    expect(w.timedOut).toBe(false);
    // The unarchive step exists only when the save archived (a handoff past after-archive).
    const fires = crashAt !== "rollback-after-unarchive" || (subject.name === "handoff" && failAt !== "after-claim");
    if (fires) expect(w.signal, w.stderr).toBe("SIGKILL");
    else expect(w.code, w.stderr).toBe(2);
    // Right after: the prior version is current or parked in a claim; check says so.
    expect([old, null]).toContain(current(subject, root));
    const left = privateFiles(root).filter((n) => !n.startsWith(".lock"));
    const check = runBounded(["check", "--root", root]);
    expect(check.code, `${check.stdout} left=${left.join(",")}`).toBe(left.length > 0 ? 1 : subject.name === "handoff" ? 2 : 0);
    expectSettled(root, subject, old, subject.result("new version", old), { mustBeOld: true });
    // The next save archived the prior version once; the rollback left no copy of its own.
    const added = [...archiveContents(root)].filter(([n]) => !archivedBefore.has(n)).map(([, c]) => c);
    expect(added).toEqual(subject.name === "handoff" ? [old] : []);
  });
});

// A full disk (inodes out): the link back fails too; the rollback renames the claim back once
// lstat shows the name free (docs/decisions/rollback-rename.md).
describe("a rollback whose link back fails", () => {
  it.each([
    ["handoff", "ENOSPC"],
    ["handoff", "EDQUOT"],
    ["lessons", "EMLINK"],
    ["promote", "ENOSPC"],
  ] as const)("%s, %s: renamed back, and nothing was changed", (name, code) => {
    const subject = SUBJECTS[name];
    const root = gitRepo();
    seed(root, subject, "old version");
    const old = current(subject, root)!;
    const archivedBefore = archiveContents(root);
    const w = runBounded(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("new version", old), env: { MEMORY_IO_FAILPOINT: `before-publication:fail,rollback-before-restore:fail=${code}` } });
    expect(w.code, w.stderr).toBe(2);
    expect(w.stderr).toMatch(/nothing was changed/);
    expect(current(subject, root)).toBe(old);
    expect(singleLinked(root)).toEqual([]);
    expect(privateFiles(root).filter((n) => !n.startsWith(".lock"))).toEqual([]);
    expect(archiveContents(root)).toEqual(archivedBefore);
    expect(runBounded(["check", "--root", root]).code).toBe(name === "handoff" ? 2 : 0);
  });

  it("another error: the claim stays, the refusal says so (never 'nothing was changed'), check says 1, recover puts it back", () => {
    const subject = SUBJECTS.handoff;
    const root = gitRepo();
    seed(root, subject, "old version");
    const old = current(subject, root)!;
    const w = runBounded(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("new version", old), env: { MEMORY_IO_FAILPOINT: "before-publication:fail,rollback-before-restore:fail=EIO" } });
    expect(w.code).toBe(2);
    expect(w.stderr).not.toMatch(/nothing was changed/);
    expect(w.stderr).toMatch(/HANDOFF\.md is kept at a private name until `recover` puts it back: run `recover`/);
    expect(current(subject, root)).toBeNull();
    expect(runBounded(["check", "--root", root]).code).toBe(1);
    expect(runBounded(["recover", "--root", root]).code).toBe(0);
    expect(current(subject, root)).toBe(old);
    expect(singleLinked(root)).toEqual([]);
    expect(handoffArchives(root)).toEqual([]);
  });

  it.each(["rollback-after-unarchive", "rollback-after-restore"] as const)("killed at %s on the rename path: recover settles it, the prior version current", (crashAt) => {
    const subject = SUBJECTS.handoff;
    const root = gitRepo();
    seed(root, subject, "old version");
    const old = current(subject, root)!;
    const w = runBounded(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("new version", old), env: { MEMORY_IO_FAILPOINT: `before-publication:fail,rollback-before-restore:fail=ENOSPC,${crashAt}:crash` } });
    expect(w.signal).toBe("SIGKILL");
    expect([1, 2]).toContain(runBounded(["check", "--root", root]).code);
    expect(runBounded(["recover", "--root", root]).code).toBe(0);
    expect(current(subject, root)).toBe(old);
    expect(singleLinked(root)).toEqual([]);
    expect(handoffArchives(root)).toEqual([]);
    expect(privateFiles(root).filter((n) => !n.startsWith(".lock"))).toEqual([]);
  });
});
