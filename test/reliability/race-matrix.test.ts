import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, sha, unstamped } from "../helpers.ts";
import { archiveContents, current, parkedAt, privateFiles, runBounded, seed, SUBJECTS, type Subject } from "./support.ts";

// a non-cooperating writer (an editor, another tool) acting while our save is
// held at a phase is never silently overwritten, and our prior version is never lost once
// we claimed it. The store tests cover a present handoff; these add the absent handoff, the
// ledgers and promote, and reads racing a rename.

const ACTIONS = ["write in place", "rename over", "delete"] as const;
type Action = (typeof ACTIONS)[number];

function act(action: Action, file: string, theirs: string): void {
  if (action === "write in place") writeFileSync(file, theirs);
  if (action === "rename over") {
    const tmp = path.join(path.dirname(file), "editor-save.tmp");
    writeFileSync(tmp, theirs);
    renameSync(tmp, file);
  }
  if (action === "delete") rmSync(file, { force: true });
}

const CLAIMED = new Set(["after-claim", "after-archive", "before-publication", "after-publication", "before-prune"]);

const cases: [string, Subject, boolean, string, Action][] = [];
for (const subject of Object.values(SUBJECTS)) {
  for (const present of [true, false]) {
    // The present handoff is test/store/races.test.ts's.
    if (subject.name === "handoff" && present) continue;
    for (const phase of subject.phases(present)) {
      for (const action of ACTIONS) cases.push([`${subject.name} ${present ? "present" : "absent"}, at ${phase}, ${action}`, subject, present, phase, action]);
    }
  }
}

describe("race matrix: a non-cooperating writer is never silently overwritten", () => {
  it.each(cases)("%s", async (_t, subject, present, phase, action) => {
    const root = gitRepo();
    const old = present ? subject.result("old version", null) : null;
    const token = present ? seed(root, subject, "old version") : "absent";
    const file = path.join(subject.dir(root), subject.file);
    const ours = subject.result("our version", old);
    const theirs = `${subject.doc("the editor's version, by hand")}`;
    const w = await parkedAt(subject.writeArgs(root, token), phase, subject.input("our version", old));
    expect(w.parked).toBe(true);
    // While claimed (or before a first save), there is nothing for a delete to remove.
    const nothingThere = !existsSync(file);
    act(action, file, theirs);
    w.go();
    const r = await w.run;
    expect(r.timedOut).toBe(false);
    expect([0, 2]).toContain(r.code);
    if (r.code === 2) {
      expect(r.stderr).toMatch(/^memory operation refused: .*(changed since it was read|changed while it was read|written by another program)/);
    }
    // Our write is acknowledged only when it was published before the other program acted.
    if (r.code === 0) expect(phase === "after-publication" || (action === "delete" && nothingThere)).toBe(true);
    const rec = runBounded(["recover", "--root", root]);
    expect(rec.code, rec.stderr).toBe(0);
    const now = current(subject, root);
    // Their file is never overwritten: it is current unless they deleted.
    if (action !== "delete") expect(now).toBe(unstamped(theirs));
    else expect(now).toBe(nothingThere ? ours : null);
    const archived = [...archiveContents(root).values()];
    // Our prior version, once claimed and not superseded by our own acknowledged save, is
    // current or archived.
    if (old !== null && CLAIMED.has(phase) && r.code !== 0) expect([now, ...archived]).toContain(old);
    if (old !== null && subject.name === "handoff" && CLAIMED.has(phase)) expect(archived).toContain(old);
    // A refused save never leaves its own version published.
    if (r.code === 2 && action !== "delete") expect(now).not.toBe(ours);
    expect(privateFiles(root)).toEqual([]);
    expect([0, 2]).toContain(runBounded(["check", "--root", root]).code);
  });
});

describe("a read paused after opening never returns a torn or mixed file", () => {
  it.each(Object.values(SUBJECTS).map((s) => [s.name, s] as const))("%s: the file is replaced by rename during the read", async (_n, subject) => {
    const root = gitRepo();
    seed(root, subject, "old version");
    const file = path.join(subject.dir(root), subject.file);
    // The bytes on disk (a handoff carries write's Saved: stamp).
    const old = readFileSync(file, "utf8");
    const theirs = subject.doc("replaced by rename while the read was paused");
    const r0 = await parkedAt(subject.readArgs(root), "read-opened");
    expect(r0.parked).toBe(true);
    act("rename over", file, theirs);
    r0.go();
    const r = await r0.run;
    expect(r.timedOut).toBe(false);
    // Refused (the version it opened was replaced), or else the whole version it opened,
    // with that version's token: never a mix, never the new bytes under the old token.
    if (r.code === 2) {
      expect(r.stderr).toMatch(/changed while it was read; read it again/);
      expect(r.stdout).toBe("");
    } else {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`CURRENT-SHA256: ${sha(old)}\n`);
      expect(r.stdout).toContain(old);
    }
    expect(existsSync(file)).toBe(true);
    // The next read sees the new version whole.
    const again = runBounded(subject.readArgs(root));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`CURRENT-SHA256: ${sha(theirs)}\n`);
  });

  it.each(Object.values(SUBJECTS).map((s) => [s.name, s] as const))("%s: the file is deleted during the read", async (_n, subject) => {
    const root = gitRepo();
    seed(root, subject, "old version");
    const file = path.join(subject.dir(root), subject.file);
    const r0 = await parkedAt(subject.readArgs(root), "read-opened");
    act("delete", file, "");
    r0.go();
    const r = await r0.run;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/changed while it was read/);
  });
});
