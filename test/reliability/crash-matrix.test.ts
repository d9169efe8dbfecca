import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, helper } from "../helpers.ts";
import { archiveContents, current, currentToken, PHASES, plantArchives, privateFiles, runBounded, seed, SUBJECTS, type Phase, type Subject } from "./support.ts";

// A save must survive a kill anywhere (docs/design.md#publication-step-by-step): kill the writer at
// every step of the protocol and check what a storage engineer would: the file is the old or the
// new version byte for byte, the old version is never lost, `check` tells an interrupted save from
// a clean one, and `recover` leaves no private file and at most five archives.

interface Case {
  subject: Subject;
  phase: Phase;
  present: boolean;
  fullArchive: boolean;
}

const cases: Case[] = [];
for (const phase of PHASES) {
  for (const present of [true, false]) {
    for (const fullArchive of [false, true]) cases.push({ subject: SUBJECTS.handoff, phase, present, fullArchive });
    cases.push({ subject: SUBJECTS.lessons, phase, present, fullArchive: false });
    cases.push({ subject: SUBJECTS.promote, phase, present, fullArchive: false });
  }
}

const handoffArchives = (root: string) => [...archiveContents(root).keys()].filter((n) => /^HANDOFF-.*\.md$/.test(n));

describe("crash matrix: a writer killed at each phase loses nothing", () => {
  it.each(cases.map((c) => [`${c.subject.name} ${c.present ? "present" : "absent"}${c.fullArchive ? ", archive full" : ""}, crash at ${c.phase}`, c] as const))(
    "%s",
    (_title, { subject, phase, present, fullArchive }) => {
      const root = gitRepo();
      const old = present ? subject.result("old version", null) : null;
      const token = present ? seed(root, subject, "old version") : "absent";
      const ancient = fullArchive ? plantArchives(root, 5) : [];
      const neu = subject.result("new version", old);
      const archivedBefore = archiveContents(root);

      const crashed = runBounded(subject.writeArgs(root, token), { input: subject.input("new version", old), env: { MEMORY_IO_FAILPOINT: `${phase}:crash` } });
      expect(crashed.timedOut).toBe(false);
      const fires = subject.phases(present).includes(phase);
      if (fires) expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
      else expect(crashed.code, crashed.stderr).toBe(0);

      // Right after the crash: the file is whole (or parked in a claim, for recover).
      const after = current(subject, root);
      expect([old, neu, null]).toContain(after);

      // check: 1 exactly when a private file was left (one archive too many is no interrupted save).
      const left = privateFiles(root).filter((n) => !n.startsWith(".lock"));
      const check = runBounded(["check", "--root", root]);
      const expectOne = left.length > 0;
      expect(check.code, `${check.stdout} left=${left.join(",")}`).toBe(expectOne ? 1 : subject.name === "handoff" && after !== null ? 2 : 0);
      if (after === null && old !== null) {
        // Never a false cold start: the read says to recover.
        const read = runBounded(subject.readArgs(root));
        expect(read.code).toBe(2);
        expect(read.stderr).toMatch(/run `recover`/);
      }

      const rec = runBounded(["recover", "--root", root]);
      expect(rec.code, rec.stderr).toBe(0);
      const now = current(subject, root);
      if (old === null) expect([null, neu]).toContain(now);
      else expect([old, neu]).toContain(now);
      const archived = archiveContents(root);
      if (subject.name === "handoff") {
        // The prior version is current or archived, exactly once; the ancient ones only
        // leave by pruning, oldest first.
        if (old !== null) {
          const copies = [...archived.values()].filter((c) => c === old).length;
          expect(copies + (now === old ? 1 : 0)).toBeGreaterThanOrEqual(1);
          expect(copies).toBe(now === old ? 0 : 1);
        }
        // A crash after publishing, before pruning, leaves one archive too many: the next save prunes it, not recover.
        const extra = phase === "after-publication" || phase === "before-prune" ? 1 : 0;
        const kept = handoffArchives(root);
        expect(kept.length).toBeLessThanOrEqual(5 + extra);
        const lostAncient = ancient.filter((n) => !archived.has(n));
        expect(lostAncient).toEqual(ancient.slice(0, lostAncient.length));
        expect(lostAncient.length).toBe(Math.max(0, ancient.length + (now === neu && old !== null ? 1 : 0) - 5 - extra));
      } else {
        // Ledgers and AGENTS.md are never archived unless a prior version lost a race.
        expect([...archived.keys()].filter((n) => !archivedBefore.has(n))).toEqual([]);
      }
      expect(privateFiles(root)).toEqual([]);
      const checkAfter = runBounded(["check", "--root", root]);
      expect([0, 2]).toContain(checkAfter.code);
      // Idempotent, and the next save goes through with the token of what is current.
      expect(runBounded(["recover", "--root", root]).stdout).toBe("nothing to recover\n");
      const next = helper(subject.writeArgs(root, currentToken(subject, root)), { input: subject.input("next", now) });
      expect(next.code, next.stderr).toBe(0);
      expect(existsSync(path.join(subject.dir(root), subject.file))).toBe(true);
    },
  );
});
