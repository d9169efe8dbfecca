import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { collectAnchors } from "../../src/git/anchors.ts";
import { measureDrift } from "../../src/git/drift.ts";
import { HELPER } from "../helpers.ts";
import { renderAnchorLines } from "../../src/schema/anchor-lines.ts";
import { checkAnchors, parseHandoff } from "../../src/schema/handoff.ts";
import { DAY, ENV, commit, git, gitCalls, handoff, iso, loggingGit, newRepo, tempDir, writeTree, type HandoffSpec } from "./repo.ts";

const NOW = Date.now();

/** What a scripted history leaves: the root to measure and the handoff saved along the way. */
interface Scripted {
  root: string;
  text: string;
  env?: Record<string, string | undefined>;
}

/** A handoff saved on `branch` at `head`, `daysAgo` days ago. */
function saved(head: string, daysAgo: number, extra: HandoffSpec = {}): string {
  return handoff({ saved: iso(NOW - daysAgo * DAY), branch: "main", head, date: iso(NOW - daysAgo * DAY), ...extra });
}

interface Expect {
  verdict: string;
  ahead: number | null;
  behind: number | null;
  ageDays: number | null;
  missing: string[];
  branchChanged: boolean | null;
  reachable?: boolean | null;
  since?: number | null;
  upstream?: { name: string; ahead: number | null; behind: number | null } | null;
  shallow?: boolean;
  maxProcesses?: number;
  notHere?: "not-fetched" | "shallow" | null;
  /** [savedCopied, savedChanged]: the saved side's commits with and without a patch-identical copy on HEAD. */
  copies?: [number, number];
}

/** A repository whose HEAD is `n` commits ahead of the one a 2-day-old handoff saved. */
// `n` empty commits on main a second apart, as `commit()` makes them, written by one `git fast-import` instead
// of three git processes a commit.
function aheadBy(n: number): () => Scripted {
  return () => {
    const root = newRepo(NOW - 3 * DAY);
    const head = git(root, ["rev-parse", "HEAD"]);
    const stream = Array.from({ length: n }, (_, i) => {
      const sec = Math.floor((NOW - 2 * DAY + i * 1000) / 1000);
      const msg = `c${i}\n`;
      const who = `Test <test@example.com> ${sec} +0000`;
      return `commit refs/heads/main\nauthor ${who}\ncommitter ${who}\ndata ${msg.length}\n${msg}${i === 0 ? `from ${head}\n` : ""}\n`;
    }).join("");
    execFileSync("git", ["fast-import", "--quiet"], { cwd: root, env: ENV, input: stream });
    expect(git(root, ["rev-list", "--count", `${head}..HEAD`])).toBe(String(n));
    return { root, text: saved(head, 2) };
  };
}

const histories: [string, () => Scripted, Expect][] = [
  [
    "fresh: nothing happened since the save",
    () => {
      const root = newRepo(NOW - 2 * DAY);
      return { root, text: saved(git(root, ["rev-parse", "HEAD"]), 1) };
    },
    { verdict: "fresh", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: false, reachable: true, maxProcesses: 2 },
  ],
  [
    "commits ahead: three commits since the save",
    () => {
      const root = newRepo(NOW - 3 * DAY);
      const head = git(root, ["rev-parse", "HEAD"]);
      for (let i = 0; i < 3; i++) commit(root, `c${i}`, NOW - 2 * DAY + i * 1000, { [`f${i}.txt`]: "x" });
      return { root, text: saved(head, 2.5) };
    },
    // status, log, and the changed-key-files diff (the HEAD moved and there are key files to diff)
    { verdict: "drifted", ahead: 3, behind: 0, ageDays: 2.5, missing: [], branchChanged: false, maxProcesses: 3 },
  ],
  [
    "commits ahead, no key files: still the usual two processes",
    () => {
      const root = newRepo(NOW - 3 * DAY);
      const head = git(root, ["rev-parse", "HEAD"]);
      for (let i = 0; i < 3; i++) commit(root, `c${i}`, NOW - 2 * DAY + i * 1000, { [`f${i}.txt`]: "x" });
      return { root, text: saved(head, 2.5, { keyFiles: [] }) };
    },
    { verdict: "drifted", ahead: 3, behind: 0, ageDays: 2.5, missing: [], branchChanged: false, maxProcesses: 2 },
  ],
  [
    "behind: reset back two commits, the saved commit still tagged",
    () => {
      const root = newRepo(NOW - 5 * DAY);
      commit(root, "b", NOW - 4 * DAY);
      const head = commit(root, "c", NOW - 4 * DAY + 1000);
      git(root, ["tag", "keep"]);
      git(root, ["reset", "-q", "--hard", "HEAD~2"]);
      return { root, text: saved(head, 3) };
    },
    { verdict: "drifted", ahead: 0, behind: 2, ageDays: 3, missing: [], branchChanged: false, reachable: true, maxProcesses: 4 },
  ],
  [
    "reset back, the saved commit only in the reflog: rewritten",
    () => {
      const root = newRepo(NOW - 5 * DAY);
      commit(root, "b", NOW - 4 * DAY);
      const head = commit(root, "c", NOW - 4 * DAY + 1000);
      git(root, ["reset", "-q", "--hard", "HEAD~2"]);
      commit(root, "d", NOW - 1 * DAY);
      return { root, text: saved(head, 3) };
    },
    { verdict: "rewritten", ahead: null, behind: null, ageDays: 3, missing: [], branchChanged: false, reachable: false, since: 1 },
  ],
  [
    "diverged: main rebuilt, the saved commit kept on another branch",
    () => {
      const root = newRepo(NOW - 5 * DAY);
      commit(root, "b", NOW - 4 * DAY);
      const head = commit(root, "c", NOW - 4 * DAY + 1000);
      git(root, ["branch", "old-main"]);
      git(root, ["reset", "-q", "--hard", "HEAD~2"]);
      commit(root, "d", NOW - 1 * DAY, { "d.txt": "d" });
      return { root, text: saved(head, 3) };
    },
    { verdict: "drifted", ahead: 1, behind: 2, ageDays: 3, missing: [], branchChanged: false, reachable: true },
  ],
  [
    // git's walk for `--not --all` stops early when older commits sit on top of newer ones (a wrong clock, an imported
    // history): it named such a kept commit unreachable, so an amend after the save read as a rewrite.
    "diverged: the saved commit kept on a branch whose commits carry older dates than it",
    () => {
      const root = newRepo(NOW - 5 * DAY);
      for (const m of ["a", "b", "c", "d", "e", "f"]) commit(root, m, NOW - 3 * DAY);
      const head = commit(root, "saved", NOW - 3 * DAY + 1000);
      git(root, ["switch", "-q", "-c", "skewed"]);
      commit(root, "skewed 1", NOW - 4 * DAY);
      commit(root, "skewed 2", NOW - 4 * DAY);
      git(root, ["switch", "-q", "-"]);
      git(root, ["commit", "-q", "--amend", "--allow-empty", "-m", "amended"], NOW - 3 * DAY + 2000);
      return { root, text: saved(head, 3) };
    },
    { verdict: "drifted", ahead: 1, behind: 1, ageDays: 3, missing: [], branchChanged: false, reachable: true },
  ],
  [
    "branch switched: feature branch with one commit",
    () => {
      const root = newRepo(NOW - 2 * DAY);
      const head = git(root, ["rev-parse", "HEAD"]);
      git(root, ["checkout", "-q", "-b", "feature/x"]);
      commit(root, "f", NOW - DAY / 2);
      return { root, text: saved(head, 1) };
    },
    { verdict: "drifted", ahead: 1, behind: 0, ageDays: 1, missing: [], branchChanged: true },
  ],
  [
    "detached HEAD at the saved commit",
    () => {
      const root = newRepo(NOW - 2 * DAY);
      const head = git(root, ["rev-parse", "HEAD"]);
      git(root, ["checkout", "-q", "--detach"]);
      return { root, text: saved(head, 1) };
    },
    { verdict: "drifted", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: true },
  ],
  [
    "saved detached, still detached at the same commit",
    () => {
      const root = newRepo(NOW - 2 * DAY);
      const head = git(root, ["rev-parse", "HEAD"]);
      git(root, ["checkout", "-q", "--detach"]);
      return { root, text: saved(head, 1, { branch: "(detached)" }) };
    },
    { verdict: "fresh", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: false },
  ],
  [
    "amended: the saved commit replaced by an amend",
    () => {
      const root = newRepo(NOW - 3 * DAY);
      const head = commit(root, "wip", NOW - 2 * DAY, { "a.txt": "1" });
      writeTree(root, { "a.txt": "2" });
      git(root, ["commit", "-q", "-a", "--amend", "-m", "done"], NOW - DAY);
      return { root, text: saved(head, 1.5) };
    },
    { verdict: "rewritten", ahead: null, behind: null, ageDays: 1.5, missing: [], branchChanged: false, reachable: false, since: 1 },
  ],
  [
    "rebased: feature rebased onto a moved main",
    () => {
      const root = newRepo(NOW - 6 * DAY);
      git(root, ["checkout", "-q", "-b", "feat"]);
      commit(root, "f1", NOW - 5 * DAY, { "f1.txt": "1" });
      const head = commit(root, "f2", NOW - 5 * DAY + 1000, { "f2.txt": "2" });
      git(root, ["checkout", "-q", "main"]);
      commit(root, "m1", NOW - 4 * DAY, { "m1.txt": "1" });
      git(root, ["checkout", "-q", "feat"]);
      git(root, ["rebase", "-q", "main"], NOW - 2 * DAY);
      return { root, text: saved(head, 3, { branch: "feat" }) };
    },
    // Both saved commits are on HEAD as patch-identical copies: the work is there, m1 came since.
    { verdict: "drifted", ahead: null, behind: null, ageDays: 3, missing: [], branchChanged: false, reachable: false, since: 2, copies: [2, 0] },
  ],
  [
    "rebased with a conflict resolved: the saved patch changed, rewritten",
    () => {
      const root = newRepo(NOW - 6 * DAY, { "f.txt": "0\n" });
      git(root, ["checkout", "-q", "-b", "feat"]);
      const head = commit(root, "f1", NOW - 5 * DAY, { "f.txt": "feat\n" });
      git(root, ["checkout", "-q", "main"]);
      commit(root, "m1", NOW - 4 * DAY, { "f.txt": "main\n" });
      git(root, ["checkout", "-q", "feat"]);
      spawnSync("git", ["rebase", "-q", "main"], { cwd: root, env: ENV });
      writeTree(root, { "f.txt": "both\n" });
      git(root, ["add", "f.txt"]);
      git(root, ["-c", "core.editor=true", "rebase", "--continue"], NOW - 2 * DAY);
      return { root, text: saved(head, 3, { branch: "feat", keyFiles: ["f.txt — the work"] }) };
    },
    { verdict: "rewritten", ahead: null, behind: null, ageDays: 3, missing: [], branchChanged: false, reachable: false, since: 1, copies: [0, 1] },
  ],
  [
    "a message-only amend keeps the patch: drifted, never fresh (patch ids ignore whitespace)",
    () => {
      const root = newRepo(NOW - 3 * DAY);
      const head = commit(root, "wip", NOW - 2 * DAY, { "a.txt": "1" });
      git(root, ["commit", "-q", "--amend", "-m", "done"], NOW - DAY);
      return { root, text: saved(head, 1.5) };
    },
    { verdict: "drifted", ahead: null, behind: null, ageDays: 1.5, missing: [], branchChanged: false, reachable: false, since: 1, copies: [1, 0] },
  ],
  [
    "saved before the first commit, two commits since: counted from no commit",
    () => {
      const root = tempDir();
      git(root, ["init", "-q"]);
      commit(root, "first", NOW - DAY, { "README.md": "r" });
      commit(root, "second", NOW - DAY / 2, { "b.txt": "b" });
      return { root, text: saved("none (no commits yet)", 2) };
    },
    { verdict: "drifted", ahead: 2, behind: 0, ageDays: 2, missing: [], branchChanged: false, reachable: true },
  ],
  [
    "saved before the first commit, still none: nothing moved",
    () => {
      const root = tempDir();
      git(root, ["init", "-q"]);
      return { root, text: saved("none (no commits yet)", 1, { keyFiles: [] }) };
    },
    { verdict: "fresh", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: false, reachable: true },
  ],
  [
    "force-pushed upstream, local reset to it",
    () => {
      const origin = tempDir();
      git(origin, ["init", "-q", "--bare"]);
      const seed = newRepo(NOW - 5 * DAY);
      git(seed, ["push", "-q", origin, "main"]);
      const root = tempDir();
      git(root, ["clone", "-q", origin, "."]);
      const head = commit(root, "ours", NOW - 4 * DAY, { "o.txt": "o" });
      git(root, ["push", "-q", "origin", "main"]);
      // Someone else rewrites main and force-pushes.
      git(seed, ["commit", "-q", "--amend", "-m", "rewritten"], NOW - 2 * DAY);
      git(seed, ["push", "-q", "--force", origin, "main"]);
      git(root, ["fetch", "-q", "origin"]);
      git(root, ["reset", "-q", "--hard", "origin/main"]);
      return { root, text: saved(head, 3) };
    },
    { verdict: "rewritten", ahead: null, behind: null, ageDays: 3, missing: [], branchChanged: false, reachable: false, since: 1, upstream: { name: "origin/main", ahead: 0, behind: 0 } },
  ],
  [
    "upstream ahead and behind via a second clone",
    // One process more than the others: with the upstream ahead, a diff asks for memory saves a pull would stop on.
    () => {
      const origin = tempDir();
      git(origin, ["init", "-q", "--bare"]);
      const seed = newRepo(NOW - 5 * DAY);
      git(seed, ["push", "-q", origin, "main"]);
      const root = tempDir();
      git(root, ["clone", "-q", origin, "."]);
      const head = git(root, ["rev-parse", "HEAD"]);
      const other = tempDir();
      git(other, ["clone", "-q", origin, "."]);
      commit(other, "t1", NOW - 2 * DAY);
      commit(other, "t2", NOW - 2 * DAY + 1000);
      git(other, ["push", "-q", "origin", "main"]);
      git(root, ["fetch", "-q", "origin"]);
      commit(root, "mine", NOW - DAY);
      return { root, text: saved(head, 3) };
    },
    { verdict: "drifted", ahead: 1, behind: 0, ageDays: 3, missing: [], branchChanged: false, upstream: { name: "origin/main", ahead: 1, behind: 2 }, maxProcesses: 4 },
  ],
  [
    "upstream behind only: reported, verdict stays fresh",
    () => {
      const origin = tempDir();
      git(origin, ["init", "-q", "--bare"]);
      const seed = newRepo(NOW - 5 * DAY);
      git(seed, ["push", "-q", origin, "main"]);
      const root = tempDir();
      git(root, ["clone", "-q", origin, "."]);
      const head = git(root, ["rev-parse", "HEAD"]);
      commit(seed, "t1", NOW - 2 * DAY);
      git(seed, ["push", "-q", origin, "main"]);
      git(root, ["fetch", "-q", "origin"]);
      return { root, text: saved(head, 1) };
    },
    { verdict: "fresh", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: false, upstream: { name: "origin/main", ahead: 0, behind: 1 } },
  ],
  [
    "shallow clone: the saved HEAD beyond the --depth 1 boundary",
    () => {
      const origin = newRepo(NOW - 6 * DAY);
      const head = git(origin, ["rev-parse", "HEAD"]);
      commit(origin, "b", NOW - 5 * DAY);
      commit(origin, "c", NOW - 4 * DAY);
      const root = tempDir();
      git(root, ["clone", "-q", "--depth", "1", `file://${origin}`, "."]);
      return { root, text: saved(head, 5.5) };
    },
    // Absent from a shallow clone is not rewritten: deepen it (docs/design.md#verdicts-and-the-brief).
    { verdict: "unverifiable", ahead: null, behind: null, ageDays: 5.5, missing: [], branchChanged: false, reachable: false, shallow: true, since: 1, maxProcesses: 3, notHere: "shallow" },
  ],
  [
    "saved 20 days ago, nothing since: age alone is not stale",
    () => {
      const root = newRepo(NOW - 21 * DAY);
      return { root, text: saved(git(root, ["rev-parse", "HEAD"]), 20) };
    },
    { verdict: "fresh", ahead: 0, behind: 0, ageDays: 20, missing: [], branchChanged: false },
  ],
  [
    "stale by age and work: saved 20 days ago, a commit since",
    () => {
      const root = newRepo(NOW - 21 * DAY);
      const head = git(root, ["rev-parse", "HEAD"]);
      commit(root, "later", NOW - 5 * DAY);
      return { root, text: saved(head, 20) };
    },
    { verdict: "stale", ahead: 1, behind: 0, ageDays: 20, missing: [], branchChanged: false },
  ],
  [
    "stale by commits: 31 commits ahead in two days",
    aheadBy(31),
    { verdict: "stale", ahead: 31, behind: 0, ageDays: 2, missing: [], branchChanged: false },
  ],
  [
    "30 commits ahead is not yet stale",
    aheadBy(30),
    { verdict: "drifted", ahead: 30, behind: 0, ageDays: 2, missing: [], branchChanged: false },
  ],
  [
    "missing key file: one deleted, one imagined, one in backticks present",
    () => {
      const root = newRepo(NOW - 2 * DAY, { "src/a.ts": "a", "src/gone.ts": "g" });
      const head = git(root, ["rev-parse", "HEAD"]);
      rmSync(path.join(root, "src/gone.ts"));
      return { root, text: saved(head, 1, { keyFiles: ["`src/a.ts` — parser", "src/gone.ts — old", "src/imagined.ts — never existed"] }) };
    },
    // The imagined one, absent from the saved commit and not dirty then, is not yet created, not missing (docs/decisions/first-resume.md).
    { verdict: "drifted", ahead: 0, behind: 0, ageDays: 1, missing: ["src/gone.ts"], branchChanged: false },
  ],
  [
    "worktree: measured from a linked worktree on its own branch",
    () => {
      const main = newRepo(NOW - 2 * DAY);
      const head = git(main, ["rev-parse", "HEAD"]);
      const root = path.join(tempDir(), "wt");
      git(main, ["worktree", "add", "-q", "-b", "wt-branch", root]);
      commit(root, "in worktree", NOW - DAY / 2);
      return { root, text: saved(head, 1) };
    },
    { verdict: "drifted", ahead: 1, behind: 0, ageDays: 1, missing: [], branchChanged: true },
  ],
  [
    "repository with a submodule whose work tree changed",
    () => {
      const lib = newRepo(NOW - 3 * DAY, { "lib.txt": "1" });
      const root = newRepo(NOW - 3 * DAY);
      git(root, ["submodule", "add", "-q", lib, "vendor/lib"]);
      const head = commit(root, "add submodule", NOW - 2 * DAY);
      writeFileSync(path.join(root, "vendor/lib/lib.txt"), "2");
      return { root, text: saved(head, 1) };
    },
    { verdict: "fresh", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: false },
  ],
  [
    "not a repository: unverifiable, key files still checked",
    () => {
      const root = tempDir();
      writeTree(root, { "README.md": "x" });
      return { root, text: saved("a".repeat(40), 1, { keyFiles: ["README.md — here", "gone.md — not here"] }) };
    },
    { verdict: "unverifiable", ahead: null, behind: null, ageDays: 1, missing: ["gone.md"], branchChanged: null, reachable: null },
  ],
  [
    "git missing from PATH: outside-git behaviour",
    () => {
      const root = newRepo(NOW - 2 * DAY);
      return { root, text: saved(git(root, ["rev-parse", "HEAD"]), 1), env: { ...ENV, PATH: path.join(root, "no-such-bin") } };
    },
    { verdict: "unverifiable", ahead: null, behind: null, ageDays: 1, missing: [], branchChanged: null, reachable: null },
  ],
  [
    "empty repository: the saved HEAD does not exist here",
    () => {
      const root = tempDir();
      git(root, ["init", "-q"]);
      return { root, text: saved("b".repeat(40), 1, { keyFiles: [] }) };
    },
    { verdict: "unverifiable", ahead: null, behind: null, ageDays: 1, missing: [], branchChanged: false, reachable: false, since: null, notHere: "not-fetched" },
  ],
  [
    "the saved object gone but named by this clone's reflog: rewritten",
    () => {
      const root = newRepo(NOW - 5 * DAY);
      const head = commit(root, "c", NOW - 4 * DAY, { "c.txt": "c" });
      git(root, ["reset", "-q", "--hard", "HEAD~1"]);
      commit(root, "d", NOW - 1 * DAY, { "d.txt": "d" });
      // The object removed as a gc would, the reflog line kept.
      rmSync(path.join(root, ".git", "objects", head.slice(0, 2), head.slice(2)));
      return { root, text: saved(head, 3) };
    },
    { verdict: "rewritten", ahead: null, behind: null, ageDays: 3, missing: [], branchChanged: false, reachable: false, since: 1, notHere: null },
  ],
  [
    "a saved branch here only as a remote-tracking one: moved from it",
    () => {
      const root = newRepo(NOW - 2 * DAY);
      const head = git(root, ["rev-parse", "HEAD"]);
      git(root, ["update-ref", "refs/remotes/origin/feature/away", head]);
      return { root, text: saved(head, 1, { branch: "feature/away" }) };
    },
    { verdict: "drifted", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: true, reachable: true },
  ],
  [
    "a saved branch named as a glob matches no real branch: not in this clone",
    () => {
      const root = newRepo(NOW - 2 * DAY);
      git(root, ["update-ref", "refs/remotes/origin/feature/away", "HEAD"]);
      return { root, text: saved(git(root, ["rev-parse", "HEAD"]), 1, { branch: "feature/*" }) };
    },
    { verdict: "fresh", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: null, reachable: true },
  ],
  [
    "a saved branch absent from this clone: not in this clone, not drifted",
    () => {
      const root = newRepo(NOW - 2 * DAY);
      return { root, text: saved(git(root, ["rev-parse", "HEAD"]), 1, { branch: "feature/elsewhere" }) };
    },
    { verdict: "fresh", ahead: 0, behind: 0, ageDays: 1, missing: [], branchChanged: null, reachable: true },
  ],
];

describe("drift over scripted histories", () => {
  it.each(histories)("%s", async (_name, script, want) => {
    const { root, text, env } = script();
    const anchors = checkAnchors(parseHandoff(text), NOW);
    // Processes counted by a `git` first on PATH that logs each call; the runner's one reading of
    // the filters to neutralise (`git config`, once per folder) is not drift's own.
    const { bin, log } = loggingGit();
    const report = await measureDrift(root, env ?? { ...ENV, PATH: `${bin}${path.delimiter}${ENV.PATH}` }, anchors, NOW);
    const gitProcesses = gitCalls(log).filter((argv) => argv[0] !== "config").length;
    expect({
      verdict: report.verdict,
      ahead: report.ahead,
      behind: report.behind,
      ageDays: report.ageDays,
      missing: report.missingKeyFiles,
      branchChanged: report.branchChanged,
    }).toEqual({ verdict: want.verdict, ahead: want.ahead, behind: want.behind, ageDays: want.ageDays, missing: want.missing, branchChanged: want.branchChanged });
    if (want.reachable !== undefined) expect(report.headReachable).toBe(want.reachable);
    if (want.since !== undefined) expect(report.commitsSinceDate).toBe(want.since);
    if (want.upstream !== undefined) expect(report.upstream).toEqual(want.upstream);
    if (want.shallow !== undefined) expect(report.shallow).toBe(want.shallow);
    if (want.maxProcesses !== undefined) expect(gitProcesses).toBeLessThanOrEqual(want.maxProcesses);
    if (want.notHere !== undefined) expect(report.notHereReason).toBe(want.notHere);
    if (want.copies !== undefined) expect([report.savedCopied, report.savedChanged]).toEqual(want.copies);
    // With the old object present, the patch-equivalence count and its diff add two (docs/design.md#verdicts-and-the-brief);
    // a saved HEAD no ref holds by rev-list's walk adds a look at the local branches.
    expect(gitProcesses).toBeLessThanOrEqual(report.headReachable === false && report.headPresent ? 7 : report.behind ? 5 : 4);
    expect(report.summary.startsWith(`${report.verdict}: `)).toBe(true);
    expect(report.summary).not.toContain("\n");
  });

  it("after a rebase, a publish commit made after the save is memory-only, not a commit since the save", async () => {
    const root = newRepo(NOW - 6 * DAY);
    git(root, ["checkout", "-q", "-b", "feat"]);
    const head = commit(root, "f1", NOW - 5 * DAY, { "f1.txt": "1" });
    commit(root, "publish", NOW - 5 * DAY + 1000, { ".ai/memory/HANDOFF.md": "saved\n" });
    git(root, ["checkout", "-q", "main"]);
    commit(root, "m1", NOW - 4 * DAY, { "m1.txt": "1" });
    git(root, ["checkout", "-q", "feat"]);
    git(root, ["rebase", "-q", "main"], NOW - 2 * DAY);
    const anchors = checkAnchors(parseHandoff(saved(head, 3, { branch: "feat" })), NOW);
    const report = await measureDrift(root, ENV, anchors, NOW);
    // f1 is on HEAD as a copy: not rewritten work; m1 is the one commit since.
    expect(report.verdict).toBe("drifted");
    expect(report.sinceSaved).toBe(1);
    expect(report.memoryOnlyCommits).toBe(1);
    // m1 was committed before the save: the rebase brought it in, it is no commit since the save.
    expect(report.summary).toContain("with its patches kept (whitespace aside): the saved commit is on HEAD as a new commit; 1 other commit now on HEAD, committed before the save and brought in by the rebase;");
    expect(report.summary).toContain("1 memory-only commit (saves of .ai/memory) not counted");
  });

  it("says git is missing in the summary", async () => {
    const root = newRepo(NOW - 2 * DAY);
    const anchors = checkAnchors(parseHandoff(saved(git(root, ["rev-parse", "HEAD"]), 1)), NOW);
    const report = await measureDrift(root, { ...ENV, PATH: "/nonexistent" }, anchors, NOW);
    expect(report.git.state).toBe("missing");
    expect(report.summary).toMatch(/git is not on PATH/);
  });
});

describe("dirty files then and now", () => {
  it("round-trips awkward paths through anchors and drift: spaces, quotes, commas, newlines, non-ASCII, renames", async () => {
    const root = newRepo(NOW - 2 * DAY, { "README.md": "r", "old name.txt": "x", "keep.txt": "k" });
    writeTree(root, {
      "with space.txt": "1",
      'quo"te.txt': "2",
      "com,ma.txt": "3",
      "new\nline.txt": "4",
      "ünïcödé.txt": "5",
      "back\\slash.txt": "6",
      ".ai/memory/HANDOFF.md": "never listed",
    });
    git(root, ["mv", "old name.txt", "renamed file.txt"]);
    writeFileSync(path.join(root, "keep.txt"), "changed");
    const a = await collectAnchors(root, ENV, NOW, []);
    expect(a.insideGit).toBe(true);
    expect([...a.dirty].sort()).toEqual(
      ["with space.txt", 'quo"te.txt', "com,ma.txt", "new\nline.txt", "ünïcödé.txt", "back\\slash.txt", "renamed file.txt", "keep.txt"].sort(),
    );
    const lines = renderAnchorLines(a);
    // Branch, HEAD, Dirty files, Dirty hashes, Date.
    expect(lines.split("\n")).toHaveLength(6);
    expect(lines).toContain('"new\\nline.txt"');
    expect(lines).toContain('"com,ma.txt"');
    expect(lines).toContain('"quo\\"te.txt"');
    expect(lines).toContain("ünïcödé.txt");
    expect(lines).not.toContain(".ai/");
    const text = handoff({ saved: iso(NOW - DAY), branch: a.branch, head: a.head, dirty: lines.split("\n")[2]!.replace("- Dirty files: ", ""), date: a.date });
    const anchors = checkAnchors(parseHandoff(text), NOW);
    expect(anchors.unverifiable).toEqual([]);
    expect([...(anchors.dirty ?? [])].sort()).toEqual([...a.dirty].sort());
    const report = await measureDrift(root, ENV, anchors, NOW);
    expect(report.verdict).toBe("fresh");
    expect(report.dirtyChanged).toBe(false);
    // Edited further, a dirty file is still work in progress: fresh.
    writeFileSync(path.join(root, "keep.txt"), "edited again\n");
    const edited = await measureDrift(root, ENV, anchors, NOW);
    expect(edited.dirtyChanged).toBe(false);
    expect(edited.verdict).toBe("fresh");
    // Gone from the tree, neither committed nor stashed: the work in progress the plan rested on is lost, which is
    // drift (found by a newcomer, whose brief said fresh).
    renameSync(path.join(root, "with space.txt"), path.join(root, "moved.txt"));
    const again = await measureDrift(root, ENV, anchors, NOW);
    expect(again.dirtyChanged).toBe(true);
    expect(again.dirtyFates.find((x) => x.path === "with space.txt")?.fate).toBe("reverted");
    expect(again.verdict).toBe("drifted");
  });

  it("lists a file beside memory in .ai/ (each untracked file its own entry), never the memory dir", async () => {
    const root = newRepo(NOW - DAY);
    writeTree(root, { ".ai/memory/HANDOFF.md": "x" });
    expect((await collectAnchors(root, ENV, NOW, [])).dirty).toEqual([]);
    writeTree(root, { ".ai/notes.md": "n" });
    expect((await collectAnchors(root, ENV, NOW, [])).dirty).toEqual([".ai/notes.md"]);
    git(root, ["add", ".ai/notes.md"]);
    expect((await collectAnchors(root, ENV, NOW, [])).dirty).toEqual([".ai/notes.md"]);
  });
});

describe("drift under a sticky folder", () => {
  it("asks git for the safe.directory list once, however often its walks reach the folder", () => {
    const sticky = tempDir("sh-sticky-");
    const root = path.join(sticky, "proj");
    mkdirSync(root);
    chmodSync(sticky, 0o1777);
    const { bin, log } = loggingGit();
    const text = saved("0123456789abcdef0123456789abcdef01234567", 1);
    const env = { ...ENV, PATH: `${bin}${path.delimiter}${ENV.PATH}` };
    const r = spawnSync(process.execPath, [HELPER, "drift", "--root", root, "--stdin"], { input: text, env, encoding: "utf8" });
    expect(r.stderr).not.toContain("internal error");
    const asks = gitCalls(log).filter((argv) => argv.includes("safe.directory"));
    expect(asks.length).toBeGreaterThan(0);
    expect(asks).toHaveLength(1);
  });
});
