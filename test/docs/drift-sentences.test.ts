// Goldens for drift's clauses and the brief's words on drift (docs/design.md#sentences-the-helper-prints):
// each state made for real in a temp git repository with the built helper, its sentence
// asserted word for word (rows of test/docs/sentences.ts).
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, save, tempDir } from "../helpers.ts";

const ID = "[0-9a-f]{12}";

/** A handoff with one open plan step and a next step, its anchors left for write to fill. */
function planned(): string {
  return handoff("Fix the login redirect.")
    .replace("## Plan\n- none", "## Plan\n- [ ] step one")
    .replace("## Next steps\n- none", "## Next steps\n- do step one")
    .replace(/## Environment anchors\n[\s\S]*$/, "## Environment anchors\n");
}

/** A repository with two commits and a handoff saved at the second; returns the root. */
function savedAtSecond(): string {
  const root = gitRepo();
  writeFileSync(path.join(root, "f.txt"), "b\n");
  git(root, "add", "f.txt");
  git(root, "commit", "-qm", "two");
  save(root, planned(), "absent");
  return root;
}

const drift = (root: string, ...args: string[]) => helper(["drift", "--root", root, ...args]);

describe("drift's counting clauses", () => {
  it("behind, then diverged, with the saved commit kept by a branch", () => {
    const root = savedAtSecond();
    git(root, "branch", "keep");
    git(root, "reset", "-q", "--hard", "HEAD~1");
    expect(drift(root).stdout).toMatch(new RegExp(`^summary: drifted: 1 commit behind the saved ${ID}; on "main"; saved 0 days ago$`, "m"));
    writeFileSync(path.join(root, "g.txt"), "c\n");
    git(root, "add", "g.txt");
    git(root, "commit", "-qm", "three");
    const r = drift(root);
    expect(r.stdout).toMatch(new RegExp(`^summary: drifted: diverged from the saved ${ID}: 1 ahead, 1 behind; on "main"; saved 0 days ago$`, "m"));
    expect(helper(["brief", "--root", root]).stdout).toContain("Proposed next step: re-check the steps the drift touches, then: do step one — Confirm?");
  });

  it("rewritten by an amend: unreachable, the commits since counted without rewritten copies, plans unverified", () => {
    const root = savedAtSecond();
    git(root, "commit", "-q", "--amend", "-m", "two, amended");
    const r = drift(root);
    expect(r.stdout).toMatch(
      new RegExp(`^summary: rewritten: saved HEAD ${ID} is no longer reachable from HEAD or any ref \\(rebase, amend, reset, squash merge or force-push\\); 0 commits on HEAD since the save, rewritten copies of saved commits left out; plan statuses are unverified; on "main"`, "m"),
    );
    expect(r.stdout).toMatch(/^commits since the save, rewritten copies left out: 0$/m);
    const b = helper(["brief", "--root", root]).stdout;
    expect(b).toContain("Plan status: UNVERIFIED (history rewritten since the save): 0 done, 0 in progress, 1 todo; next: step one");
    expect(b).toContain("Proposed next step: re-verify every plan step against the current history before acting, then: do step one — Confirm?");
  });

  it("rewritten, the object gone: this clone's reflog names it", () => {
    const root = savedAtSecond();
    const saved = git(root, "rev-parse", "HEAD").trim();
    git(root, "commit", "-q", "--amend", "-m", "two, amended");
    rmSync(path.join(root, ".git", "objects", saved.slice(0, 2), saved.slice(2)));
    expect(drift(root).stdout).toMatch(new RegExp(`^summary: rewritten: saved HEAD ${saved.slice(0, 12)} no longer exists here; this clone's reflog names it \\(history rewritten\\); \\d+ commits? on HEAD since the saved date; plan statuses are unverified`, "m"));
  });

  it("an upstream whose branch is gone", () => {
    const root = savedAtSecond();
    const bare = tempDir("sh-bare-");
    git(bare, "init", "-q", "--bare");
    git(root, "remote", "add", "origin", bare);
    git(root, "push", "-q", "-u", "origin", "main");
    git(root, "update-ref", "-d", "refs/remotes/origin/main");
    expect(drift(root).stdout).toMatch(/^summary: fresh: at the saved commit [0-9a-f]{12}; on "main"; saved 0 days ago; upstream "origin\/main" is gone$/m);
  });
});

describe("drift's unverifiable reasons", () => {
  it("no valid HEAD anchor; and an anchor that failed validation listed", () => {
    const root = gitRepo();
    // No \`- Dirty files:\` line: the dirty set then is unverifiable.
    const pasted = planned().replace("## Environment anchors\n", "## Environment anchors\n- Branch: main\n- HEAD: not-a-commit\n- Date: 2026-11-29T08:00:00Z\n");
    const r = helper(["drift", "--root", root, "--stdin"], { input: pasted });
    expect(r.stdout).toMatch(/^summary: unverifiable: the handoff has no valid HEAD anchor \(a full 40\/64-hex id\), so the saved commit could not be checked; saved [\d.]+ days ago; unverifiable anchors: dirty$/m);
    // A file dirty then, clean now, with no saved commit to compare: how is not told apart.
    const dirty = helper(["drift", "--root", root, "--stdin"], { input: pasted.replace("- Date:", "- Dirty files: notes.txt\n- Date:") });
    expect(dirty.stdout).toMatch(/; dirty files: 1 then, 0 now; dirty at the save, clean now \(committed, stashed or reverted\): "notes\.txt"$/m);
    const b = helper(["brief", "--root", root, "--stdin"], { input: pasted }).stdout;
    expect(b).toContain("Proposed next step: check the repository by hand (the anchors could not be verified), then: do step one — Confirm?");
  });

  it("outside git: not a repository; git missing from PATH", () => {
    const root = tempDir("sh-plain-");
    save(root, handoff("x"), "absent");
    expect(drift(root).stdout).toMatch(/^summary: unverifiable: the root is not in a git repository, so only age and key files were checked; /m);
    const noGit = helper(["drift", "--root", root], { env: { PATH: tempDir("sh-empty-path-") } });
    expect(noGit.stdout).toMatch(/^summary: unverifiable: git is not on PATH, so the repository could not be compared \(outside-git behaviour\); /m);
    expect(noGit.stderr).toMatch(/^note: git was not found on PATH; drift is unverifiable \(outside-git behaviour\)$/m);
  });

  it("a git on PATH that cannot be run", () => {
    const root = gitRepo();
    save(root, planned(), "absent");
    const bin = tempDir("sh-bin-");
    writeFileSync(path.join(bin, "git"), "#!/bin/sh\nexit 0\n", { mode: 0o644 });
    const r = helper(["drift", "--root", root], { env: { PATH: bin } });
    expect(r.stdout).toMatch(/^summary: unverifiable: git could not be used \(spawn git EACCES\); saved 0 days ago$/m);
  });

  it("a saved time in the future: age unknown, never fresh", () => {
    const root = gitRepo();
    const anchors = helper(["anchors", "--root", root]).stdout.replace(/^- Date: .*$/m, "- Date: 2099-01-01T00:00:00Z");
    const pasted = handoff("x").replace("Saved: 2026-11-29T08:00:00Z", "Saved: 2099-01-01T00:00:00Z").replace(/## Environment anchors\n[\s\S]*$/, `## Environment anchors\n${anchors}`);
    const r = helper(["drift", "--root", root, "--stdin"], { input: pasted });
    expect(r.stdout).toMatch(/^summary: unverifiable: age unknown: the saved time is more than 5 minutes in the future, so the handoff cannot be called fresh; /m);
  });

  it("no handoff, and nothing pasted (exit 3)", () => {
    const root = gitRepo();
    const none = drift(root);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain("no handoff at .ai/memory/HANDOFF.md: no saved session state exists");
    const empty = helper(["drift", "--root", root, "--stdin"], { input: "" });
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain("nothing was pasted on stdin: no handoff to compare");
  });
});

describe("drift's dirty-file clauses", () => {
  it("a file dirty at the save and reverted since, at the same commit", () => {
    const root = gitRepo();
    writeFileSync(path.join(root, "README.md"), "edited\n");
    save(root, planned(), "absent");
    git(root, "checkout", "-q", "--", "README.md");
    const r = drift(root);
    expect(r.stdout).toContain('; dirty at the save, reverted (neither committed nor stashed): "README.md"');
  });
});

describe("the brief's words on drift", () => {
  it("a handoff saved 30 days ago: start fresh", () => {
    const root = gitRepo();
    const anchors = helper(["anchors", "--root", root]).stdout.replace(/^- Date: .*$/m, `- Date: ${new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 19)}Z`);
    save(root, handoff("x").replace(/## Environment anchors\n[\s\S]*$/, `## Environment anchors\n${anchors}`), "absent");
    expect(helper(["brief", "--root", root]).stdout).toContain(
      "Proposed next step: start fresh: the handoff is too stale to reconcile line by line, so archive it and re-plan from the current code, keeping its goal, decisions and failed approaches as background (full reconciliation only if you insist) — Confirm?",
    );
  });

  it("a saved HEAD not in this clone: the next step says to fetch", () => {
    const root = savedAtSecond();
    const saved = git(root, "rev-parse", "HEAD").trim();
    git(root, "reset", "-q", "--hard", "HEAD~1");
    git(root, "reflog", "expire", "--expire=now", "--all");
    git(root, "gc", "-q", "--prune=now");
    expect(() => git(root, "cat-file", "-e", saved)).toThrow();
    expect(helper(["brief", "--root", root]).stdout).toContain("Proposed next step: the saved HEAD is not in this clone: fetch, or the history was rewritten; then: do step one — Confirm?");
  });

  it("a ledger the safety checks refuse is counted as refused", () => {
    const root = gitRepo();
    save(root, handoff("x"), "absent");
    writeFileSync(path.join(root, "elsewhere.md"), "x\n");
    symlinkSync(path.join(root, "elsewhere.md"), path.join(root, ".ai", "memory", "LESSONS.md"));
    expect(helper(["brief", "--root", root]).stdout).toContain("ledgers: LESSONS.md refused by the safety checks (run `check`)");
  });
});
