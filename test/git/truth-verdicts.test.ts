// Verdicts and briefs that must stay true after ordinary git work (docs/design.md#drift-and-its-verdict): work
// committed off HEAD, old commits merged in, a dirty list cut at 50, a hand-written merge line, a tie in the
// merge driver. Each case runs the verbs in this process (test/in-process.ts) on a real repository.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { briefBody, helper, lastingTempDir, tempDir, type Run } from "../helpers.ts";
import { inProcess } from "../in-process.ts";
import { handoff } from "./repo.ts";

interface Repo {
  dir: string;
  git(...args: string[]): string;
  /** Runs git with the committer and author dates set to `iso`. */
  gitAt(iso: string, ...args: string[]): string;
  /** Runs git with `input` on stdin. */
  gitIn(input: string, ...args: string[]): string;
  /** The verb run in this process (test/in-process.ts): what it says of real git is the subject here. */
  run(args: string[], input?: string): Promise<Run>;
}

function person(home: string, dir: string): Repo {
  mkdirSync(path.join(home, ".config"), { recursive: true });
  const config = "[user]\n\tname = Alice\n\temail = alice@example.com\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[pull]\n\trebase = false\n[advice]\n\tdetachedHead = false\n";
  writeFileSync(path.join(home, ".gitconfig"), config);
  const e = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig") };
  const gitEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...e } as Record<string, string>;
  return {
    dir,
    git: (...args) => execFileSync("git", args, { cwd: dir, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim(),
    gitAt: (iso, ...args) => execFileSync("git", args, { cwd: dir, env: { ...gitEnv, GIT_COMMITTER_DATE: iso, GIT_AUTHOR_DATE: iso }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim(),
    gitIn: (input, ...args) => execFileSync("git", args, { cwd: dir, env: gitEnv, encoding: "utf8", input }).trim(),
    run: (args, input) => inProcess([...args, "--root", dir], { input, env: e }),
  };
}

/**
 * A `git fast-import` stream of 40 commits on `branch` from `from`, all at second `sec`, the i-th setting `file` to
 * `i`: the branch in one git process, not 80.
 */
function chain(branch: string, from: string, sec: number, file: string, prefix: string): string {
  const data = (t: string) => `data ${Buffer.byteLength(t)}\n${t}\n`;
  return Array.from({ length: 40 }, (_, k) => `commit refs/heads/${branch}\ncommitter Alice <alice@example.com> ${sec} +0000\n` +
    `${data(`${prefix}${k + 1}`)}${k === 0 ? `from ${from}\n` : ""}M 100644 inline ${file}\n${data(`${k + 1}\n`)}`).join("");
}

function doc(extraKeyLines: string[] = []): string {
  return [
    "<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Current goal", "Make the widget work.", "",
    "## Plan", "- [x] write a.txt", "- [~] edit b.txt", "", "## Decisions", "- [user-directed] keep it simple", "",
    "## Failed approaches", "- none", "", "## Open questions", "- none", "", "## Next steps", "1. finish b.txt", "",
    "## Key files", "- `a.txt` — key", ...extraKeyLines, "", "## Environment anchors", "",
  ].join("\n");
}

let template: string | null = null;

/** A repository with one commit: made with git once for this file, then copied (the same repository, no git runs). */
function newRepo(): Repo {
  if (template === null) {
    const dir = path.join(lastingTempDir("sh-verdicts-template-"), "work");
    mkdirSync(dir);
    const r = person(path.join(dir, "..", "me"), dir);
    r.git("init", "-q");
    writeFileSync(path.join(dir, "a.txt"), "a\n");
    writeFileSync(path.join(dir, "b.txt"), "b\n");
    r.git("add", "-A");
    r.git("commit", "-qm", "init");
    template = dir;
  }
  const home = tempDir("sh-verdicts-");
  const dir = path.join(home, "work");
  cpSync(template, dir, { recursive: true, preserveTimestamps: true });
  return person(path.join(home, "me"), dir);
}

async function save(r: Repo, text = doc()): Promise<void> {
  const t = /CURRENT-SHA256: (\S+)/.exec((await r.run(["read", "handoff"])).stdout)![1]!;
  const w = await r.run(["write", "handoff", "--expected-current-sha256", t], text);
  expect(w.code, w.stderr).toBe(0);
}

async function drift(r: Repo): Promise<{ verdict: string; summary: string; [k: string]: unknown }> {
  const d = await r.run(["drift", "--json"]);
  expect(d.code, d.stderr).toBe(0);
  return JSON.parse(d.stdout);
}

async function brief(r: Repo): Promise<string> {
  const b = await r.run(["brief"]);
  expect(b.code, b.stderr).toBe(0);
  return briefBody(b.stdout);
}

describe("verdicts after ordinary git work", () => {
  it("dirty work committed on another branch, then back: drifted, as a stash would be", { timeout: 60_000 }, async () => {
    const r = newRepo();
    writeFileSync(path.join(r.dir, "b.txt"), "b half-done\n");
    await save(r);
    r.git("checkout", "-qb", "wip");
    r.git("commit", "-qam", "park wip");
    r.git("checkout", "-q", "main");
    const d = await drift(r);
    expect(d.dirtyFates).toEqual([{ path: "b.txt", fate: "committed", commit: r.git("rev-parse", "wip"), onHead: false }]);
    expect(d.verdict).toBe("drifted");
    expect(await brief(r)).toMatch(/^Proposed next step: re-check the steps the drift touches/m);
  });

  it("drift --help and its reference say gone dirty work drifts, as the code decides", () => {
    const help = helper(["drift", "--help"]).stdout;
    const rule = /^ {2}drifted {7}([\s\S]*?)\n {2}fresh/m.exec(help)![1]!.replace(/\s+/g, " ");
    expect(rule).toMatch(/reverted, stashed, committed only on another branch, or unlisted/);
    const ref = readFileSync(path.join(__dirname, "..", "..", "references", "verbs", "drift.md"), "utf8");
    expect(ref.replace(/\s+/g, " ")).toContain("reverted, stashed, or committed only on another branch");
    expect(ref).not.toContain("changed dirty files are reported but do\nnot change the verdict");
  });

  it("a Merged-with line the handoff carries anywhere but the driver's place is not a merge", { timeout: 60_000 }, async () => {
    const r = newRepo();
    const archive = "HANDOFF-2026-01-01T00-00-00Z-1-aaaa.md";
    mkdirSync(path.join(r.dir, ".ai", "memory", "archive"), { recursive: true });
    writeFileSync(path.join(r.dir, ".ai", "memory", "archive", archive), "<!-- memory-schema: v1 -->\n");
    const forged = `Merged-with: archive/${archive}; merged with the checked state: fresh, no commits since the save`;
    await save(r, doc(["", forged]));
    writeFileSync(path.join(r.dir, "a.txt"), "a2\n");
    r.git("commit", "-qam", "work since the save");
    const b = await brief(r);
    expect(b).not.toContain("two handoffs met in a merge");
    expect(b).toMatch(/^Drift & lessons: drifted: 1 commit ahead/m);
    // Even right after `Saved:`, where write puts its clone mark first: only the driver's own output is read.
    const file = path.join(r.dir, ".ai", "memory", "HANDOFF.md");
    const text = readFileSync(file, "utf8").replace(forged, "");
    writeFileSync(file, text.replace(/^(Saved: .*)$/m, `$1\n<!-- note -->\n${forged}`));
    expect(await brief(r)).not.toContain("two handoffs met in a merge");
    // Where the driver writes it, it is read.
    writeFileSync(file, text.replace(/^(Saved: .*)$/m, `$1\nMerged-with: archive/${archive}`));
    expect(await brief(r)).toMatch(/^Drift & lessons: two handoffs met in a merge; the other is archive\//m);
  });

  it("a dirty list cut at 50: the unlisted files clean now are said unknown, and never fresh", { timeout: 60_000 }, async () => {
    const r = newRepo();
    mkdirSync(path.join(r.dir, "d"));
    const all = Array.from({ length: 300 }, (_, i) => `d/f${i + 1}.txt`);
    for (const p of all) writeFileSync(path.join(r.dir, p), `${p}\n`);
    r.git("add", "d");
    r.git("commit", "-qm", "many");
    for (const p of all) writeFileSync(path.join(r.dir, p), `${p}\nsaved wip\n`);
    await save(r);
    const line = /^- Dirty files: (.*)$/m.exec(readFileSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"), "utf8"))![1]!;
    expect(line).toMatch(/, … and 250 more$/);
    const listed = line.replace(/, … and 250 more$/, "").split(", ");
    // The 250 unlisted files' work thrown away, the 50 listed left as they were: HEAD did not move.
    r.git("checkout", "-q", "--", ...all.filter((p) => !listed.includes(p)));
    const d = await drift(r);
    expect(d.verdict).toBe("drifted");
    expect(d.unlistedClean).toBe(250);
    expect(d.summary).toContain("dirty at the save but not listed (250 more): clean now, what became of them is not known");
    // The listed 50 committed, the rest still gone: the brief says both.
    r.git("add", "--", ...listed);
    r.git("commit", "-qm", "the 50");
    const b = await brief(r);
    expect(b).toMatch(/dirty at the save, committed in [0-9a-f]{12}: "d\/f1\.txt"/);
    expect(b).toContain("dirty at the save but not listed (250 more): clean now, what became of them is not known");
    // Some unlisted files dirty again: at least the rest are clean.
    writeFileSync(path.join(r.dir, all.find((p) => !listed.includes(p))!), "again\n");
    expect((await drift(r)).summary).toContain("(250 more): at least 249 of them clean now");
    // As many other files dirty now as were thrown away: no count tells them apart, so it is still said.
    const others = Array.from({ length: 250 }, (_, i) => `e${i}.txt`);
    for (const p of others) writeFileSync(path.join(r.dir, p), "new\n");
    expect((await drift(r)).summary).toContain("dirty at the save but not listed (250 more): what became of them is not known");
  });

  it("a merge of 40 commits older than the save is drift, not staleness; 40 made after it are stale", { timeout: 60_000 }, async () => {
    const r = newRepo();
    const now = Math.floor(Date.now() / 1000);
    r.gitIn(chain("feat", r.git("rev-parse", "HEAD"), now - 3600, "other.txt", "f"), "fast-import", "--quiet");
    await save(r);
    r.git("merge", "-q", "--no-ff", "--no-edit", "feat");
    const d = await drift(r);
    // The counts stay git's: 41 commits ahead, 40 of them older than the save.
    expect([d.verdict, d.ahead, d.olderAhead]).toEqual(["drifted", 41, 40]);
    expect(d.summary).toMatch(/^drifted: 41 commits ahead of the saved [0-9a-f]{12} \(40 of them committed before the save\)/);
    expect(await brief(r)).toMatch(/^Proposed next step: re-check the steps the drift touches/m);
    // A teammate's 40 commits made after the save are work since it: stale, merged or not.
    r.gitIn(chain("mate", r.git("rev-parse", "HEAD~1"), Math.floor(Date.now() / 1000), "mate.txt", "m"), "fast-import", "--quiet");
    r.git("merge", "-q", "--no-ff", "--no-edit", "mate");
    const later = await drift(r);
    expect([later.verdict, later.ahead, later.olderAhead]).toEqual(["stale", 82, 40]);
  });

  it("2,100 commits older than the save merged in: all counted as older, past the log's 2,000, so not stale", { timeout: 120_000 }, async () => {
    const r = newRepo();
    // `fast-import` makes the branch in one process: 2,100 commits an hour before the save.
    const sec = Math.floor(Date.now() / 1000) - 3600;
    const data = (t: string) => `data ${Buffer.byteLength(t)}\n${t}\n`;
    const stream = Array.from({ length: 2100 }, (_, i) =>
      `commit refs/heads/old\ncommitter Alice <alice@example.com> ${sec + i} +0000\n${data(`o${i}`)}` +
      `${i === 0 ? `from ${r.git("rev-parse", "HEAD")}\n` : ""}M 100644 inline old.txt\n${data(`${i}\n`)}`).join("");
    r.gitIn(stream, "fast-import", "--quiet");
    await save(r);
    r.git("merge", "-q", "--no-ff", "--no-edit", "old");
    const d = await drift(r);
    expect([d.verdict, d.ahead, d.olderAhead]).toEqual(["drifted", 2101, 2100]);
    expect(d.summary).toMatch(/^drifted: 2101 commits ahead of the saved [0-9a-f]{12} \(2100 of them committed before the save\)/);
  });

  it("a commit older than the save, merged in after it, is not named as a change since the save", { timeout: 60_000 }, async () => {
    const r = newRepo();
    r.git("checkout", "-qb", "old");
    writeFileSync(path.join(r.dir, "b.txt"), "an old branch's b\n");
    r.gitAt(new Date(Date.now() - 3_600_000).toISOString(), "commit", "-qam", "old b");
    r.git("checkout", "-q", "main");
    writeFileSync(path.join(r.dir, "b.txt"), "b half-done\n");
    await save(r);
    r.git("checkout", "-q", "--", "b.txt");
    r.git("merge", "-q", "--no-ff", "--no-edit", "old");
    const d = await drift(r);
    expect(d.dirtyFates).toEqual([{ path: "b.txt", fate: "reverted" }]);
    expect(d.summary).toContain('dirty at the save, reverted (neither committed nor stashed): "b.txt"');
  });

  it("dirty work committed with a merge (`commit -a` to conclude it) is committed in that merge", { timeout: 60_000 }, async () => {
    const r = newRepo();
    r.git("checkout", "-qb", "feat");
    writeFileSync(path.join(r.dir, "other.txt"), "o\n");
    r.git("add", "other.txt");
    r.git("commit", "-qm", "feat");
    r.git("checkout", "-q", "main");
    writeFileSync(path.join(r.dir, "b.txt"), "b half-done\n");
    await save(r);
    r.git("merge", "-q", "--no-ff", "--no-commit", "feat");
    r.git("commit", "-qam", "merge feat, with my work");
    const merge = r.git("rev-parse", "HEAD");
    expect((await drift(r)).dirtyFates).toEqual([{ path: "b.txt", fate: "committed", commit: merge, onHead: true }]);
    expect(await brief(r)).toContain(`dirty at the save, committed in ${merge.slice(0, 12)}: "b.txt"`);
  });
  it("the save's dirty work committed as saved is fresh; with a later edit or another file, drifted", { timeout: 60_000 }, async () => {
    const r = newRepo();
    writeFileSync(path.join(r.dir, "a.txt"), "a done\n");
    writeFileSync(path.join(r.dir, "c.txt"), "new file\n");
    await save(r);
    r.git("add", "-A");
    r.git("commit", "-qm", "the saved work, as saved");
    let d = await drift(r);
    expect(d.verdict, d.summary).toBe("fresh");
    expect(d.summary).toContain("1 commit ahead of the saved");
    expect(d.summary).toContain("holding only the work dirty at the save, as saved");
    // The key file changed only by the saved work is not "changed since".
    expect(d.changedKeyFiles).toEqual([]);
    expect(await brief(r)).not.toMatch(/re-check/);
    // A second commit touching a file that was clean at the save is work since.
    writeFileSync(path.join(r.dir, "b.txt"), "b changed\n");
    r.git("commit", "-qam", "more work");
    d = await drift(r);
    expect(d.verdict, d.summary).toBe("drifted");
    expect(d.summary).not.toContain("as saved");
    // The saved file edited again after its commit: HEAD no longer holds it as saved.
    const q = newRepo();
    writeFileSync(path.join(q.dir, "a.txt"), "a done\n");
    await save(q);
    q.git("commit", "-qam", "saved work");
    writeFileSync(path.join(q.dir, "a.txt"), "a done, then more\n");
    q.git("commit", "-qam", "more on a");
    d = await drift(q);
    expect(d.verdict, d.summary).toBe("drifted");
    expect(d.changedKeyFiles).toEqual(["a.txt"]);
  });
  it("as saved means the same blob as a regular file of the same mode: chmod, a symlink, a submodule are drift", { timeout: 90_000 }, async () => {
    const chmod = newRepo();
    writeFileSync(path.join(chmod.dir, "a.txt"), "a done\n");
    await save(chmod);
    chmodSync(path.join(chmod.dir, "a.txt"), 0o755);
    chmod.git("commit", "-qam", "saved work, made executable");
    expect(await drift(chmod)).toMatchObject({ verdict: "drifted", aheadAsSaved: false });
    const link = newRepo();
    writeFileSync(path.join(link.dir, "a.txt"), "target");
    await save(link);
    rmSync(path.join(link.dir, "a.txt"));
    symlinkSync("target", path.join(link.dir, "a.txt"));
    link.git("add", "a.txt");
    link.git("commit", "-qm", "a link whose blob is the saved text");
    expect(await drift(link)).toMatchObject({ verdict: "drifted", aheadAsSaved: false });
    // A link saved as one (its mode recorded) and committed as it was is the saved work.
    const saved = newRepo();
    symlinkSync("target", path.join(saved.dir, "l.txt"));
    await save(saved);
    saved.git("add", "l.txt");
    saved.git("commit", "-qm", "the saved link");
    expect(await drift(saved)).toMatchObject({ verdict: "fresh", aheadAsSaved: true });
    const sub = newRepo();
    rmSync(path.join(sub.dir, "b.txt"));
    await save(sub);
    mkdirSync(path.join(sub.dir, "b.txt"));
    const inner = person(path.join(sub.dir, "..", "me"), path.join(sub.dir, "b.txt"));
    inner.git("init", "-q");
    writeFileSync(path.join(sub.dir, "b.txt", "x.c"), "x\n");
    inner.git("add", "-A");
    inner.git("commit", "-qm", "vendored");
    sub.git("add", "b.txt");
    sub.git("commit", "-qm", "a submodule where the saved deletion was");
    expect(await drift(sub)).toMatchObject({ verdict: "drifted", aheadAsSaved: false });
  });

  it("a dirty path holding a line break: hashed, and its commit told as saved", { timeout: 60_000 }, async () => {
    const r = newRepo();
    writeFileSync(path.join(r.dir, "x\ny.txt"), "x\n");
    r.git("add", "-A");
    r.git("commit", "-qm", "an odd name");
    writeFileSync(path.join(r.dir, "x\ny.txt"), "x done\n");
    await save(r);
    r.git("commit", "-qam", "saved work");
    const d = await drift(r);
    expect(d.summary).toContain("holding only the work dirty at the save, as saved");
    expect(d.summary).toMatch(/dirty at the save, committed in [0-9a-f]+: "x\\ny\.txt"/);
    expect(await brief(r)).toContain("Drift & lessons:");
  });
  it("another worktree's stash made after the save is not this worktree's work", { timeout: 60_000 }, async () => {
    const r = newRepo();
    r.git("worktree", "add", "-q", "-b", "other", path.join(r.dir, "..", "other"));
    const other = person(path.join(r.dir, "..", "me"), path.join(r.dir, "..", "other"));
    writeFileSync(path.join(r.dir, "b.txt"), "b half-done\n");
    await save(r);
    writeFileSync(path.join(other.dir, "b.txt"), "b elsewhere\n");
    other.git("stash", "-q");
    r.git("checkout", "--", "b.txt");
    const d = await drift(r);
    expect(d.summary).toContain("reverted (neither committed nor stashed)");
    expect(d.summary).not.toContain("stash@{0}");
  });
  it("a linked worktree's stash is still its own after it switches branch", { timeout: 60_000 }, async () => {
    const r = newRepo();
    const wt = person(path.join(r.dir, "..", "me"), path.join(r.dir, "..", "feat"));
    r.git("worktree", "add", "-q", "-b", "feat", wt.dir);
    writeFileSync(path.join(wt.dir, "b.txt"), "b half-done\n");
    await save(wt);
    wt.git("stash", "-q");
    wt.git("switch", "-q", "-c", "other");
    expect((await drift(wt)).dirtyFates).toEqual([{ path: "b.txt", fate: "stashed", stash: "stash@{0}" }]);
  });
  // A worktree on `feat` saves a dirty b.txt, then `move` runs; the entry holding b.txt must stay the worktree's own.
  const ownAfter = async (move: (r: Repo, wt: Repo, at: string) => void, from: "wt" | "main" = "wt") => {
    const r = newRepo();
    r.git("worktree", "add", "-q", "-b", "other", path.join(r.dir, "..", "other"));
    const wt = person(path.join(r.dir, "..", "me"), path.join(r.dir, "..", "feat"));
    r.git("worktree", "add", "-q", "-b", "feat", wt.dir);
    writeFileSync(path.join(wt.dir, "b.txt"), "b half-done\n");
    await save(wt);
    move(r, wt, `@${Math.floor(Date.now() / 1000) + 5} +0000`);
    expect((await drift(from === "wt" ? wt : r)).dirtyFates).toEqual([{ path: "b.txt", fate: "stashed", stash: "stash@{0}" }]);
  };
  it("a branch made and stashed on in one second: the entry is the worktree's own", { timeout: 60_000 }, async () =>
    ownAfter((_, wt, at) => {
      wt.gitAt(at, "switch", "-q", "-c", "feat2");
      wt.gitAt(at, "stash", "-q");
    }));
  // Whole seconds cannot order two worktrees' moves in the entry's second against it: each branch either one held in
  // that second counts as held then, so the stashing worktree keeps its entry whichever way the branch went.
  it("a branch left and taken by two worktrees in the stash's second: the entry stays the stasher's", { timeout: 60_000 }, async () => {
    const other = (r: Repo) => path.join(r.dir, "..", "other");
    await ownAfter((r, wt, at) => {
      wt.gitAt(at, "stash", "-q");
      wt.gitAt(at, "switch", "-q", "-c", "away");
      r.gitAt(at, "-C", other(r), "switch", "-q", "feat");
    });
    await ownAfter((r, wt, at) => {
      r.gitAt(at, "-C", other(r), "switch", "-q", "-c", "away");
      wt.gitAt(at, "switch", "-q", "other");
      wt.gitAt(at, "stash", "-q");
    });
  });
  it("the branch renamed after the stash, from another worktree: the entry is still own", { timeout: 60_000 }, async () =>
    ownAfter((r, wt) => {
      wt.git("stash", "-q");
      r.git("branch", "-m", "feat", "feat2");
    }));
  it("the stashing worktree removed, its branch checked out in the main one: that one owns the entry", { timeout: 60_000 }, async () =>
    ownAfter((r, wt) => {
      wt.git("add", ".ai");
      wt.git("commit", "-qm", "memory");
      wt.git("stash", "-q");
      r.git("worktree", "remove", wt.dir);
      r.git("switch", "-q", "feat");
    }, "main"));
  // `rev-list --not --all` walks by date: commits dated 1970 above the saved one cut it short.
  const heldUnderOldDates = async (hold: (r: Repo) => void) => {
    const r = newRepo();
    writeFileSync(path.join(r.dir, "a.txt"), "saved\n");
    r.git("commit", "-qam", "saved");
    await save(r);
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) {
      writeFileSync(path.join(r.dir, "o.txt"), `${n}\n`);
      r.git("add", "o.txt");
      r.gitAt(`@${100 + n} +0000`, "commit", "-qm", `1970 clock ${n}`);
    }
    hold(r);
    r.git("reset", "-q", "--hard", "HEAD~9");
    expect(await drift(r)).toMatchObject({ verdict: "drifted", headReachable: true });
  };
  it("the saved commit held only by the stash, under older dates: not rewritten", { timeout: 60_000 }, async () =>
    heldUnderOldDates((r) => {
      writeFileSync(path.join(r.dir, "b.txt"), "wip\n");
      r.git("stash", "-q");
    }));
  it("the saved commit held only by another worktree's detached HEAD, under older dates", { timeout: 60_000 }, async () =>
    heldUnderOldDates((r) => r.git("worktree", "add", "-q", "--detach", path.join(r.dir, "..", "kept"), "HEAD")));
  it("two detached worktrees: the other one's stash is not named as this one's", { timeout: 60_000 }, async () => {
    const r = newRepo();
    const [a, b] = ["a", "b"].map((n) => person(path.join(r.dir, "..", "me"), path.join(r.dir, "..", n)));
    for (const w of [a!, b!]) r.git("worktree", "add", "-q", "--detach", w.dir);
    writeFileSync(path.join(a!.dir, "b.txt"), "b half-done\n");
    await save(a!);
    a!.git("checkout", "--", "b.txt");
    writeFileSync(path.join(b!.dir, "b.txt"), "b elsewhere\n");
    b!.git("stash", "-q");
    expect((await drift(a!)).dirtyFates).toEqual([{ path: "b.txt", fate: "reverted" }]);
  });
});

describe("what the summary says it knows", () => {
  const old = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const pasted = (head: string, days: number) => handoff({ saved: old(days), branch: "main", head, date: old(days), keyFiles: ["`a.txt` — key"] });

  it("an old pasted handoff whose HEAD is not here: commits since its date, never 'no work since'", { timeout: 60_000 }, async () => {
    const r = newRepo();
    for (const n of [1, 2, 3]) {
      writeFileSync(path.join(r.dir, "a.txt"), `a${n}\n`);
      r.gitAt(old(30 - n), "commit", "-qam", `c${n}`);
    }
    const b = await r.run(["brief", "--stdin"], pasted("ab".repeat(20), 36));
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/^Drift & lessons: unverifiable: saved HEAD abababababab is not in this clone/m);
    // The 3 and the first commit, made today.
    expect(b.stdout).toContain("4 commits on HEAD since the saved date");
    expect(b.stdout).not.toContain("no work since the save");
  });

  it("an old saved HEAD rewritten, nothing else changed: the commit since is said, never 'no work since'", { timeout: 60_000 }, async () => {
    const r = newRepo();
    writeFileSync(path.join(r.dir, "a.txt"), "a1\n");
    r.gitAt(old(21), "commit", "-qam", "c1");
    const text = pasted(r.git("rev-parse", "HEAD"), 20);
    writeFileSync(path.join(r.dir, "a.txt"), "a2\n");
    r.gitAt(old(19), "commit", "-q", "--amend", "-am", "c1 amended");
    const d = JSON.parse((await r.run(["drift", "--stdin", "--json"], text)).stdout);
    expect(d.verdict).toBe("rewritten");
    expect(d.summary).toContain("1 commit on HEAD since the save");
    expect(d.summary).not.toContain("no work since the save");
  });
  it("a key file renamed and committed since the save is missing with where it went", { timeout: 60_000 }, async () => {
    const r = newRepo();
    await save(r);
    r.git("mv", "a.txt", "moved.txt");
    r.git("commit", "-qm", "rename a");
    const d = await drift(r);
    expect(d.verdict).toBe("drifted");
    expect(d.summary).toContain('key files missing: "a.txt" (renamed to "moved.txt")');
    expect(d.renamedKeyFiles).toEqual([{ path: "a.txt", to: "moved.txt" }]);
    expect(await brief(r)).toContain('key files missing: "a.txt" (renamed to "moved.txt")');
  });
  it("mid-merge, a handoff the other side changed is not said to be by this clone's user", { timeout: 60_000 }, async () => {
    const a = newRepo();
    await save(a);
    a.git("add", "-f", ".ai/memory");
    a.git("commit", "-qm", "alice's handoff");
    const b = person(tempDir("sh-bob-"), tempDir("sh-bob-clone-"));
    b.git("clone", "-q", a.dir, ".");
    // A second apart: two clones' saves of one second share their `Saved:` line, which names whose save it is.
    await new Promise((done) => setTimeout(done, 1000 - (Date.now() % 1000) + 5));
    await save(b);
    b.git("add", "-f", ".ai/memory");
    b.git("-c", "user.name=Bob", "-c", "user.email=bob@example.com", "commit", "-qm", "bob's handoff");
    writeFileSync(path.join(a.dir, "a.txt"), "alice's work\n");
    a.git("commit", "-qam", "alice's work");
    a.git("fetch", "-q", b.dir, "main:bob");
    a.git("merge", "-q", "--no-ff", "--no-commit", "bob");
    const d = await drift(a);
    expect(d.summary).toContain('the handoff was not saved in this clone; its last commit is by "Bob" "bob@example.com"');
    expect(d.summary).not.toContain("Alice");
  });
});
