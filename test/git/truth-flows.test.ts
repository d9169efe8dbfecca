// The everyday flows after a save, each checked statement by statement against git
// (docs/design.md#what-became-of-the-dirty-files): commit the dirty files, stash them, a
// rebase that squashes the saved commit while a stash holds it, another branch, a fresh
// clone, and a teammate's save pulled through the merge driver.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { briefBody, helper, lastingTempDir, tempDir, type Run } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

interface Repo {
  dir: string;
  git(...args: string[]): string;
  /** Runs git with the committer and author dates `seconds` in the past. */
  gitAgo(seconds: number, ...args: string[]): string;
  /** The verb run in this process (test/in-process.ts): what it says of git is the subject here. */
  run(args: string[], input?: string): Promise<Run>;
  /** The session hook, in this process: the sentences are the subject. */
  hook(): Promise<Run>;
  /** The session hook, spawned as a harness runs it: the session bundle, which runs no git. */
  spawnedHook(): Run;
}

function env(home: string): Record<string, string> {
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig") };
}

function person(home: string, dir: string, name: string): Repo {
  mkdirSync(path.join(home, ".config"), { recursive: true });
  writeFileSync(path.join(home, ".gitconfig"), `[user]\n\tname = ${name}\n\temail = ${name.toLowerCase()}@example.com\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[pull]\n\trebase = false\n[protocol "file"]\n\tallow = always\n`);
  const e = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...env(home) } as Record<string, string>;
  return {
    dir,
    git: (...args) => execFileSync("git", args, { cwd: dir, env: e, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim(),
    gitAgo: (seconds, ...args) => {
      const at = `@${Math.floor(Date.now() / 1000) - seconds} +0000`;
      const dated = { ...e, GIT_COMMITTER_DATE: at, GIT_AUTHOR_DATE: at };
      return execFileSync("git", args, { cwd: dir, env: dated, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    },
    run: (args, input) => inProcess([...args, "--root", dir], { input, env: env(home) }),
    hook: () => inProcess(["hook", "--mode", "session", "--root", dir], { env: env(home) }),
    spawnedHook: () => helper(["hook", "--mode", "session", "--root", dir], { env: env(home) }),
  };
}

const DOC = [
  "<!-- memory-schema: v1 -->",
  "# Session Handoff",
  "",
  "## Current goal",
  "Tune the parser.",
  "",
  "## Plan",
  "- [x] read",
  "- [~] tune",
  "",
  "## Decisions",
  "- [user-directed] keep the API",
  "",
  "## Failed approaches",
  "- a global cache — stale reads",
  "",
  "## Open questions",
  "- none",
  "",
  "## Next steps",
  "- tune the lexer",
  "",
  "## Key files",
  "- Ky.ts — the lexer",
  "- a.ts — the parser",
  "",
  "## Environment anchors",
  "",
].join("\n");

let template: string | null = null;

/** A repository with one commit: made with git once for this file, then copied (the same repository, no git runs). */
function newRepo(): { home: string; r: Repo } {
  if (template === null) {
    const dir = path.join(lastingTempDir("sh-truth-template-"), "work");
    mkdirSync(dir);
    const r = person(path.join(dir, "..", "me"), dir, "Alice");
    r.git("init", "-q");
    writeFileSync(path.join(dir, "a.ts"), "a\n");
    writeFileSync(path.join(dir, "Ky.ts"), "k\n");
    r.git("add", "-A");
    r.git("commit", "-qm", "initial");
    template = dir;
  }
  const home = tempDir("sh-truth-");
  const dir = path.join(home, "work");
  cpSync(template, dir, { recursive: true, preserveTimestamps: true });
  return { home, r: person(path.join(home, "me"), dir, "Alice") };
}

async function save(r: Repo): Promise<void> {
  const t = /CURRENT-SHA256: (\S+)/.exec((await r.run(["read", "handoff"])).stdout)![1]!;
  const w = await r.run(["write", "handoff", "--expected-current-sha256", t], DOC);
  expect(w.code, w.stderr).toBe(0);
}

async function drift(r: Repo): Promise<{ summary: string; dirtyFates: { path: string; fate: string; commit?: string; stash?: string; onHead?: boolean }[]; [k: string]: unknown }> {
  const d = await r.run(["drift", "--json"]);
  expect(d.code, d.stderr).toBe(0);
  return JSON.parse(d.stdout);
}

async function brief(r: Repo): Promise<string> {
  const b = await r.run(["brief"]);
  expect(b.code, b.stderr).toBe(0);
  return briefBody(b.stdout);
}

describe("what the brief says after one everyday git command", () => {
  it("1: dirty files committed are committed, in that commit, and never also unchanged", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    await save(r);
    r.git("commit", "-qam", "the parser");
    const id = r.git("rev-parse", "HEAD");
    const d = await drift(r);
    expect(d.dirtyFates).toEqual([{ path: "a.ts", fate: "committed", commit: id, onHead: true }]);
    const b = await brief(r);
    expect(b).toContain(`dirty at the save, committed in ${id.slice(0, 12)}: "a.ts"`);
    expect(b).not.toMatch(/unchanged|stashed|reverted/);
  });

  it("dirty files committed and then reverted: both commits named, told by content, drifted", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    await save(r);
    r.git("commit", "-qam", "the parser");
    const id = r.git("rev-parse", "HEAD");
    // A revert by hand, its message silent on it: the blobs tell it.
    r.git("checkout", "HEAD~1", "--", "a.ts");
    r.git("commit", "-qm", "tidy");
    const undo = r.git("rev-parse", "HEAD");
    const d = await drift(r);
    expect(d.dirtyFates).toEqual([{ path: "a.ts", fate: "committed", commit: id, onHead: true, reverted: undo }]);
    expect(d.verdict).toBe("drifted");
    expect(await brief(r)).toContain(`committed in ${id.slice(0, 12)}, then reverted in ${undo.slice(0, 12)}: "a.ts"`);
    // Committed again after the revert: the newest commit holding it is named, and nothing was undone since.
    r.git("revert", "--no-edit", "HEAD");
    const again = r.git("rev-parse", "HEAD");
    expect((await drift(r)).dirtyFates).toEqual([{ path: "a.ts", fate: "committed", commit: again, onHead: true }]);
  });

  it("dirty files edited further, then committed: changed since in that commit, never reverted", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    await save(r);
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\nand more after the save\n");
    r.git("commit", "-qam", "the parser, finished");
    const id = r.git("rev-parse", "HEAD");
    expect((await drift(r)).dirtyFates).toEqual([{ path: "a.ts", fate: "edited", commit: id }]);
    const b = await brief(r);
    expect(b).toContain(`dirty at the save, changed since in ${id.slice(0, 12)} (no branch, tag or stash holds the saved one at this path): "a.ts"`);
    expect(b).not.toMatch(/reverted/);
  });

  it("an older stash or another branch's commit that touched the file is not where the saved work went", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "a.ts"), "an old edit\n");
    // A stash's time is a whole second: one made in the save's second counts as made since, so
    // this one is dated seconds before it.
    r.gitAgo(10, "stash", "-q");
    r.git("checkout", "-qb", "side");
    writeFileSync(path.join(r.dir, "a.ts"), "a side edit\n");
    r.git("commit", "-qam", "side");
    r.git("checkout", "-q", "-");
    writeFileSync(path.join(r.dir, "a.ts"), "the work\n");
    await save(r);
    r.git("checkout", "-q", "--", "a.ts");
    expect((await drift(r)).dirtyFates).toEqual([{ path: "a.ts", fate: "reverted" }]);
    expect(await brief(r)).toContain('dirty at the save, reverted (neither committed nor stashed): "a.ts"');
  });

  it("a teammate's clone, made before the save and never saving, pulls it: the dirty work stayed in the other clone", { timeout: 60_000 }, async () => {
    const { home, r } = newRepo();
    const bobDir = path.join(home, "bob");
    execFileSync("git", ["clone", "-q", r.dir, bobDir], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
    const bob = person(path.join(home, "bob-home"), bobDir, "Bob");
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    await save(r);
    r.git("add", ".ai/memory/HANDOFF.md");
    r.git("commit", "-qm", "handoff");
    bob.git("pull", "-q");
    expect((await drift(bob)).dirtyFates).toEqual([{ path: "a.ts", fate: "not-here" }]);
    const b = await brief(bob);
    expect(b).toContain('dirty in the clone that saved, not in this one: "a.ts"');
    expect(b).not.toMatch(/reverted/);
  });

  it("a handoff taken by `git stash -u`: the hook says what check says", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    await save(r);
    const hook = () => r.spawnedHook().stdout;
    r.git("stash", "-u", "-q");
    expect(hook()).toBe(
      "session-handoff: a handoff is parked in stash@{0}, not in the working tree: bring it back with `git restore " +
        "--overlay --source=stash@{0}^3 -- .ai/memory`; that entry keeps a copy: run `mv .ai/memory .ai/memory-aside` " +
        "before `git stash pop`. Tell the user before resuming; `check` says the same.\n",
    );
    const c = await r.run(["check"]);
    expect(c.stderr + c.stdout).toContain("stash@{0}");
    r.git("stash", "pop", "-q");
    expect(hook()).toContain("a parked handoff exists");
    // The handoff deleted with no stash: git's copy of the save is named, no stash entry.
    rmSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"));
    expect(hook()).toMatch(/^session-handoff: this clone's newest save .* did; `git cat-file blob /);
  });

  it("a stash made before the save cannot hold it: a handoff deleted is named in git's objects, not in it", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "a.ts"), "an old edit\n");
    // The reflog's times are whole seconds: the stash is dated seconds before the save.
    r.gitAgo(10, "stash", "-q");
    await save(r);
    rmSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"));
    const said = (await r.hook()).stdout;
    expect(said).toContain("`rm`) did; `git cat-file blob ");
    expect(said).not.toContain("stash@");
  });

  it("2: dirty files stashed are said to be in the stash, in brief and drift alike", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    await save(r);
    r.git("stash", "-q");
    expect((await drift(r)).dirtyFates).toEqual([{ path: "a.ts", fate: "stashed", stash: "stash@{0}" }]);
    expect(await brief(r)).toContain('dirty at the save, now in stash@{0}: "a.ts"');
    // Popped and thrown away: reverted, not stashed.
    r.git("stash", "drop", "-q");
    expect((await drift(r)).dirtyFates).toEqual([{ path: "a.ts", fate: "reverted" }]);
  });

  it("the work edited further after the save, then stashed: changed since, in that stash, never reverted", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    await save(r);
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\nand more after the save\n");
    r.git("stash", "-q");
    expect((await drift(r)).dirtyFates).toEqual([{ path: "a.ts", fate: "edited", stash: "stash@{0}" }]);
    const b = await brief(r);
    expect(b).toContain('dirty at the save, changed since, stashed in stash@{0} (no branch, tag or stash holds the saved one at this path): "a.ts"');
    expect(b).not.toMatch(/reverted/);
  });

  it("a file renamed since the save: committed as its new name, or renamed and not committed, never changed or reverted", { timeout: 60_000 }, async () => {
    const body = Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join("");
    const setUp = async () => {
      const { r } = newRepo();
      writeFileSync(path.join(r.dir, "b.ts"), body);
      r.git("add", "b.ts");
      r.git("commit", "-qm", "b");
      writeFileSync(path.join(r.dir, "b.ts"), `${body}the saved work\n`);
      await save(r);
      r.git("mv", "b.ts", "c.ts");
      return r;
    };
    // Staged, not committed.
    const staged = await setUp();
    expect((await drift(staged)).dirtyFates).toEqual([{ path: "b.ts", fate: "renamed", to: "c.ts" }]);
    expect(await brief(staged)).toContain('dirty at the save, renamed to "c.ts", not committed: "b.ts"');
    // The rename committed, the work still only in the tree.
    staged.git("commit", "-qm", "rename only");
    expect((await drift(staged)).dirtyFates).toEqual([{ path: "b.ts", fate: "renamed", to: "c.ts" }]);
    // The rename and the work committed together.
    const done = await setUp();
    done.git("commit", "-qam", "rename, with the work");
    const id = done.git("rev-parse", "HEAD");
    expect((await drift(done)).dirtyFates).toEqual([{ path: "b.ts", fate: "committed", commit: id, onHead: true, as: "c.ts" }]);
    const b = await brief(done);
    expect(b).toContain(`dirty at the save, committed as "c.ts" in ${id.slice(0, 12)}: "b.ts"`);
    expect(b).not.toMatch(/reverted|changed since/);
  });

  it("in a linked worktree, a stash made in the main one since the save is not this worktree's handoff", { timeout: 60_000 }, async () => {
    const { home, r } = newRepo();
    const wtDir = path.join(home, "wt");
    r.git("worktree", "add", "-q", "-b", "feat", wtDir);
    const wt = person(path.join(home, "me"), wtDir, "Alice");
    await save(wt);
    rmSync(path.join(wtDir, ".ai", "memory", "HANDOFF.md"));
    writeFileSync(path.join(r.dir, "a.ts"), "main's own edit\n");
    r.git("stash", "-q");
    const hook = async () => (await wt.hook()).stdout;
    // Deleted, not stashed: git's copy is named, never the main worktree's entry.
    expect(await hook()).toContain("`rm`) did; `git cat-file blob ");
    expect(await hook()).not.toContain("stash@");
    // A stash of this worktree's holding no handoff is nothing either; one holding it is named.
    writeFileSync(path.join(wtDir, "a.ts"), "the worktree's edit\n");
    wt.git("stash", "-q");
    expect(await hook()).not.toContain("stash@");
    await save(wt);
    wt.git("stash", "-u", "-q");
    expect(await hook()).toContain("session-handoff: a handoff is parked in stash@{0}, not in the working tree");
  });

  it("a new file stashed with `stash -u` is in that stash, not reverted", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    // The memory dir stays out of the stash: only the new file goes.
    writeFileSync(path.join(r.dir, ".git", "info", "exclude"), ".ai/\n");
    writeFileSync(path.join(r.dir, "new.ts"), "new\n");
    await save(r);
    r.git("stash", "-u", "-q");
    expect((await drift(r)).dirtyFates).toEqual([{ path: "new.ts", fate: "stashed", stash: "stash@{0}" }]);
    expect(await brief(r)).toContain('dirty at the save, now in stash@{0}: "new.ts"');
  });

  it("3, 4: a rebase squashing the saved commit while a stash holds it; a deleted key file is still named", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "b.ts"), "b\n");
    r.git("add", "b.ts");
    r.git("commit", "-qm", "b");
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    await save(r);
    r.git("stash", "-q");
    r.git("reset", "-q", "--soft", "HEAD~1");
    r.git("rm", "-q", "Ky.ts");
    r.git("commit", "-qm", "squashed, lexer gone");
    const d = await drift(r);
    // refs/stash holds the saved commit: reachable from a ref.
    expect(d.headReachable).toBe(true);
    expect(d.summary).not.toContain("no longer reachable");
    expect(d.missingKeyFiles).toEqual(["Ky.ts"]);
    const b = await brief(r);
    expect(b).toContain('key files missing: "Ky.ts"');
    expect(b).toContain('dirty at the save, now in stash@{0}: "a.ts"');
  });

  it("5: on another branch, key files changed are the diff from the saved commit to HEAD, nothing else", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    writeFileSync(path.join(r.dir, "Ky.ts"), "k dirty\n");
    await save(r);
    r.git("commit", "-qam", "lexer on main");
    r.git("switch", "-q", "-c", "side", "HEAD~1");
    const d = await drift(r);
    const saved = readFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), "utf8");
    const head = /^- HEAD: ([0-9a-f]+)/m.exec(saved)![1]!;
    expect(r.git("diff", "--name-only", head, "HEAD")).toBe("");
    expect(d.changedKeyFiles).toEqual([]);
    expect(d.dirtyFates).toEqual([{ path: "Ky.ts", fate: "committed", commit: r.git("rev-parse", "main"), onHead: false }]);
    expect(await brief(r)).not.toContain("key files changed");
  });

  it("6: a fresh clone says the other machine's untracked folder is not in this clone", { timeout: 60_000 }, async () => {
    const { home, r } = newRepo();
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", remote]);
    mkdirSync(path.join(r.dir, ".codex"));
    writeFileSync(path.join(r.dir, ".codex", "x"), "x\n");
    await save(r);
    r.git("add", ".ai");
    r.git("commit", "-qm", "handoff");
    r.git("push", "-q", remote, "HEAD:main");
    const bob = person(path.join(home, "bob"), path.join(home, "bob-work"), "Bob");
    execFileSync("git", ["clone", "-q", "-b", "main", remote, bob.dir]);
    expect((await drift(bob)).dirtyFates).toEqual([{ path: ".codex/x", fate: "not-here" }]);
    const b = await brief(bob);
    expect(b).toContain('dirty in the clone that saved, not in this one: ".codex/x"');
    expect(b).not.toMatch(/stashed|reverted|committed/);
    // In the saving clone, the folder thrown away is reverted.
    rmSync(path.join(r.dir, ".codex"), { recursive: true });
    expect((await drift(r)).dirtyFates).toEqual([{ path: ".codex/x", fate: "reverted" }]);
  });

  it("7: the saving clone keeps its provenance after a hand edit", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    await save(r);
    const p = path.join(r.dir, ".ai/memory/HANDOFF.md");
    writeFileSync(p, readFileSync(p, "utf8").replace("tune the lexer", "tune the lexer first"));
    expect((await drift(r)).provenance).toBeNull();
    expect(await brief(r)).not.toContain("not saved in this clone");
    expect((await r.hook()).stdout).not.toContain("not saved in this clone");
  });

  it("7: two clones saving in one second on one commit are told apart by the clone mark", { timeout: 60_000 }, async () => {
    const { home, r } = newRepo();
    await save(r);
    const mine = readFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), "utf8");
    expect(mine).toMatch(/^Saved: \S+\n<!-- saved in clone [0-9a-f]{16} -->$/m);
    // Saving the same document again is still `unchanged`.
    const t = /CURRENT-SHA256: (\S+)/.exec((await r.run(["read", "handoff"])).stdout)![1]!;
    expect((await r.run(["write", "handoff", "--expected-current-sha256", t], DOC)).stdout).toMatch(/^unchanged /);
    const bob = person(path.join(home, "bob"), path.join(home, "bob-work"), "Bob");
    execFileSync("git", ["clone", "-q", r.dir, bob.dir]);
    await save(bob);
    const bobs = path.join(bob.dir, ".ai/memory/HANDOFF.md");
    // Bob's save, as if made in the same second as Alice's, reaches Alice's clone.
    const saved = /^Saved: .*$/m.exec(mine)![0];
    const theirs = readFileSync(bobs, "utf8").replace(/^Saved: .*$/m, saved);
    expect(theirs).not.toBe(mine);
    writeFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), theirs);
    expect((await drift(r)).provenance).toMatchObject({ someoneElse: true });
    expect((await r.hook()).stdout).toContain("not saved in this clone");
  });

  it("drift's text says no 'unknown' since-date count beside a known ahead count", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    await save(r);
    writeFileSync(path.join(r.dir, "a.ts"), "a2\n");
    r.git("commit", "-qam", "more");
    const t = (await r.run(["drift"])).stdout;
    expect(t).toContain("ahead: 1, behind: 0\n");
    expect(t).not.toContain("commits since the saved date: unknown");
  });

  it("`stash -u` takes the untracked memory dir: the brief names the entry and brings it back", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    await save(r);
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    r.git("stash", "-u", "-q");
    const b = await r.run(["brief"]);
    expect(b.code, b.stderr).toBe(0);
    const body = briefBody(b.stdout);
    expect(body).not.toContain("No saved session state exists");
    expect(body).toContain("Drift & lessons: no handoff in the working tree: .ai/memory/HANDOFF.md is in stash@{0}");
    const cmd = /with `([^`]+)`/.exec(body)![1]!;
    expect(cmd).toBe("git restore --overlay --source=stash@{0}^3 -- .ai/memory");
    for (const label of ["Goal:", "Plan status:", "Decisions in force:", "Do-not-retry:", "Proposed next step:"]) {
      expect(body).toContain(`\n${label} `.slice(1));
    }
    // The command given brings the handoff back, and leaves the stashed code where it was.
    r.git(...cmd.split(" ").slice(1));
    expect(readFileSync(path.join(r.dir, "a.ts"), "utf8")).toBe("a\n");
    expect(await brief(r)).toContain("Goal: Tune the parser.");
    // After `git clean -fd` no stash holds it: git's copy is named, and once pruned a cold start.
    r.git("stash", "drop", "-q");
    rmSync(path.join(r.dir, ".ai"), { recursive: true });
    expect(briefBody((await r.run(["brief"])).stdout)).toMatch(/bring the handoff back with `git cat-file blob /);
    r.git("prune", "--expire=now");
    const cold = await r.run(["brief"]);
    expect(cold.code).toBe(3);
    expect(cold.stdout).toBe("No saved session state exists.\n");
  });

  it("check says a stashed handoff is parked (2) and gives brief's command; 0 once nothing holds it", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    await save(r);
    r.git("stash", "-u", "-q");
    const c = await r.run(["check"]);
    expect(c.code, c.stderr).toBe(2);
    const cmd = "git restore --overlay --source=stash@{0}^3 -- .ai/memory";
    const pop = "; that entry keeps a copy: run `mv .ai/memory .ai/memory-aside` before `git stash pop`";
    expect(c.stdout).toBe(`a handoff is parked in stash@{0}, not in the working tree: bring it back with \`${cmd}\`${pop}\n`);
    expect(briefBody((await r.run(["brief"])).stdout)).toContain(`\`${cmd}\``);
    const j = JSON.parse((await r.run(["check", "--json"])).stdout);
    expect(j).toMatchObject({ code: 2, state: "parked", parked: "stash", stash: "stash@{0}", restore: cmd });
    expect(j.files.handoff).toBe("missing");
    // A newer stash of other work: the handoff is now in stash@{1}.
    writeFileSync(path.join(r.dir, "a.ts"), "a dirty\n");
    r.git("stash", "-q");
    expect(JSON.parse((await r.run(["check", "--json"])).stdout)).toMatchObject({ code: 2, stash: "stash@{1}" });
    r.git("stash", "clear");
    r.git("prune", "--expire=now");
    const cold = await r.run(["check", "--json"]);
    expect(cold.code).toBe(0);
    expect(JSON.parse(cold.stdout)).not.toHaveProperty("stash");
    expect((await r.run(["check"])).stdout).toBe("nothing parked: no saved session state exists\n");
  });

  it("a staged handoff taken by a plain `git stash` is found in the entry's tree", { timeout: 60_000 }, async () => {
    const { r } = newRepo();
    await save(r);
    r.git("add", ".ai");
    r.git("stash", "-q");
    const b = await r.run(["brief", "--json"]);
    expect(b.code, b.stderr).toBe(0);
    const j = JSON.parse(b.stdout);
    expect(j.brief.source).toBe("stash");
    expect(j.brief.proposedNextStep).toContain("`git restore --source=stash@{0} -- .ai/memory/HANDOFF.md`");
    const c = JSON.parse((await r.run(["check", "--json"])).stdout);
    expect(c).toMatchObject({ code: 2, parked: "stash", restore: "git restore --source=stash@{0} -- .ai/memory/HANDOFF.md" });
  });
});
