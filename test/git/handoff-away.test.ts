// A handoff away from the working tree (docs/design.md#a-handoff-away-from-the-working-tree): `publish`
// commits it and a checkout of an older branch leaves it there; `git stash` after `publish` puts the older
// published one back while the newer save sits in the stash; `read` says where a stashed one is.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { briefBody, cleanEnv, copyHelper, helper, HELPER, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";
import { gitCalls, loggingGit } from "./repo.ts";

const DOC = [
  "<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Current goal", "Make the importer fast.", "",
  "## Plan", "- [ ] Dedupe rows", "", "## Decisions", "- [user-directed] Keep the first row: audit log", "",
  "## Failed approaches", "- Sorting first: breaks row order", "", "## Open questions", "- none", "",
  "## Next steps", "1. Bound the seen-set in a.txt — done when tests pass", "", "## Key files", "- `a.txt` — the file",
  "", "## Environment anchors", "",
].join("\n");

function repo(init: string[] = []) {
  const home = tempDir("sh-away-");
  const dir = path.join(home, "p");
  mkdirSync(dir);
  writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = U\n\temail = u@example.com\n[init]\n\tdefaultBranch = main\n");
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), GIT_CEILING_DIRECTORIES: home };
  const gitEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...env };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const run = (args: string[], input?: string, extra: Record<string, string> = {}) =>
    inProcess([...args, "--root", dir], { input, env: { ...env, ...extra } });
  const save = async (text: string) => {
    const t = /CURRENT-SHA256: (\S+)/.exec((await run(["read", "handoff"])).stdout)![1]!;
    const w = await run(["write", "handoff", "--expected-current-sha256", t], text);
    expect(w.code, w.stderr).toBe(0);
  };
  git("init", "-q", ...init);
  writeFileSync(path.join(dir, "a.txt"), "a\n");
  git("add", ".");
  git("commit", "-qm", "init");
  // The session hook, spawned as a harness runs it: the session bundle, whose git use is counted.
  const hook = (extra: Record<string, string> = {}) =>
    helper(["hook", "--mode", "session", "--root", dir], { env: { ...env, ...extra } });
  return { dir, git, run, save, hook, env };
}

// A git whose `cat-file` runs answer only after 1.5 s: past the hook's 1 s and the status
// line's 500 ms a run, within check's 15 s.
function slowGit(): string {
  const bin = path.join(tempDir("sh-slowgit-"), "bin");
  mkdirSync(bin);
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  writeFileSync(path.join(bin, "git"), `#!/bin/sh\ncase "$*" in *" cat-file "*) sleep 1.5;; esac\nexec '${real}' "$@"\n`, { mode: 0o755 });
  return `${bin}${path.delimiter}${process.env.PATH}`;
}

const SECOND = DOC.replace("Make the importer fast.", "Ship the streaming importer.");

// `Saved:` is stamped in whole seconds, and a save stamped in the tree's second reads as the tree's own: in this
// process two saves can fall in one second, so a save meant as later waits for the next one.
const nextSecond = () => new Promise((done) => setTimeout(done, 1000 - (Date.now() % 1000) + 5));

// git 2.45 added reftable repositories (`git init --ref-format=reftable`); an older git cannot make one.
function reftableGit(): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), "sh-reftable-"));
  try {
    execFileSync("git", ["init", "-q", "--ref-format=reftable", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("a handoff away from the working tree", () => {
  // Skipped where git is older than 2.45: it has no reftable to make.
  it.skipIf(!reftableGit())("in a reftable repository, on a nested branch name: git lists the branches", { timeout: 60_000 }, async () => {
    const r = repo(["--ref-format=reftable"]);
    r.git("branch", "team/old");
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    r.git("checkout", "-q", "team/old");
    const c = await r.run(["check", "--json"]);
    expect(c.code, c.stderr).toBe(2);
    expect(JSON.parse(c.stdout)).toMatchObject({ state: "parked", parked: "branch", ref: "main" });
  });

  it("found among many branches, on one whose name needs quoting (found by a breaker)", { timeout: 60_000 }, async () => {
    const r = repo();
    r.git("branch", "old");
    for (let i = 0; i < 60; i++) r.git("branch", `b${String(i).padStart(2, "0")}`);
    r.git("checkout", "-q", "-b", "fix+login");
    await r.save(DOC);
    r.git("add", ".ai");
    r.git("commit", "-qm", "memory");
    r.git("checkout", "-q", "old");
    const c = await r.run(["check"]);
    expect(c.code, c.stderr).toBe(2);
    const cmd = "git restore --source=fix+login -- .ai/memory/HANDOFF.md";
    const note = 'it comes back uncommitted: before checking out "fix+login", put it aside with `git stash -u -- .ai/memory`';
    expect(c.stdout).toBe(`a handoff is parked on branch "fix+login", not in the working tree: bring it back with \`${cmd}\`; ${note}\n`);
    execFileSync("sh", ["-c", cmd], { cwd: r.dir });
    expect(readFileSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"), "utf8")).toContain("Make the importer fast.");
  });

  it("a branch and a project folder named with an apostrophe: the printed commands run in sh", { timeout: 60_000 }, async () => {
    const r = repo();
    const sub = path.join(r.dir, "it's");
    // Its own memory folder makes the subfolder the project root.
    mkdirSync(path.join(sub, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(sub, "a.txt"), "a\n");
    r.git("add", ".");
    r.git("commit", "-qm", "sub");
    r.git("checkout", "-q", "-b", "it's");
    const run = (args: string[], root: string, input?: string) => inProcess([...args, "--root", root], { input, env: r.env });
    const t = /CURRENT-SHA256: (\S+)/.exec((await run(["read", "handoff"], sub)).stdout)![1]!;
    expect((await run(["write", "handoff", "--expected-current-sha256", t], sub, DOC)).code).toBe(0);
    r.git("add", ".");
    r.git("commit", "-qm", "memory");
    r.git("checkout", "-q", "main");
    const sh = (cmd: string, cwd: string) => spawnSync("sh", ["-c", cmd], { cwd, env: cleanEnv(r.env), encoding: "utf8" });
    const cmd = /`(git restore [^`]+)`/.exec((await run(["check"], sub)).stdout)![1]!;
    expect(sh(cmd, sub).status).toBe(0);
    expect(readFileSync(path.join(sub, ".ai", "memory", "HANDOFF.md"), "utf8")).toContain("Make the importer fast.");
    // A clone that never saved it is told to brief it with `git show <rev>:<path>`, the path holding the apostrophe.
    const c = `${r.dir}-c`;
    r.git("clone", "-q", "-b", "main", r.dir, c);
    mkdirSync(path.join(c, "it's", ".ai", "memory"), { recursive: true });
    const show = /`(git show [^`]+)`/.exec((await run(["brief"], path.join(c, "it's"))).stdout)![1]!;
    expect(show).toMatch(/^git show '[0-9a-f]{40}:it'\\''s\/\.ai\/memory\/HANDOFF\.md' \| node /);
    expect(briefBody(sh(show, c).stdout)).toContain("Goal: Make the importer fast.");
  });

  it("the branch's restore brings the handoff back and leaves this branch's other memory files alone (found by a breaker)", { timeout: 60_000 }, async () => {
    const r = repo();
    r.git("checkout", "-q", "-b", "feat");
    await r.save(DOC);
    r.git("add", ".ai");
    r.git("commit", "-qm", "memory");
    r.git("checkout", "-q", "main");
    // This branch's lessons, committed, then one more not yet committed: the whole-folder restore deleted both.
    const lessons = path.join(r.dir, ".ai", "memory", "LESSONS.md");
    const lesson = (n: number, words: string) => `\n## L-000${n}: l${n}\n- When: always\n- Lesson: ${words}\n- Why: speed\n` +
      "- Source: [user-directed], 2026-12-07\n- Status: active\n";
    const head = "<!-- memory-schema: v1 -->\n# Lessons\n";
    expect((await r.run(["write", "lessons", "--expected-current-sha256", "absent"], head + lesson(1, "keep it small"))).code).toBe(0);
    r.git("add", "-f", ".ai/memory/LESSONS.md");
    r.git("commit", "-qm", "lessons");
    const tok = /CURRENT-SHA256: (\S+)/.exec((await r.run(["read", "lessons"])).stdout)![1]!;
    const both = head + lesson(1, "keep it small") + lesson(2, "not yet committed");
    expect((await r.run(["write", "lessons", "--expected-current-sha256", tok], both)).code).toBe(0);
    const c = JSON.parse((await r.run(["check", "--json"])).stdout);
    expect(c).toMatchObject({ parked: "branch", ref: "feat", restore: "git restore --source=feat -- .ai/memory/HANDOFF.md" });
    execFileSync("sh", ["-c", c.restore], { cwd: r.dir, env: { ...process.env, ...r.env } });
    expect(readFileSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"), "utf8")).toContain("Make the importer fast.");
    expect(readFileSync(lessons, "utf8")).toBe(both);
  });

  it("after publish, a checkout of an older branch: check, brief and read name the branch; two git processes; the restore commits nothing and the note gets back to main", { timeout: 90_000 }, async () => {
    const r = repo();
    r.git("branch", "feature");
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    r.git("checkout", "-q", "feature");
    const cmd = "git restore --source=main -- .ai/memory/HANDOFF.md";
    const note = 'it comes back uncommitted: before checking out "main", put it aside with `git stash -u -- .ai/memory`';
    const { bin, log } = loggingGit();
    const c = await r.run(["check", "--json"], undefined, { PATH: `${bin}${path.delimiter}${process.env.PATH}` });
    expect(c.code, c.stderr).toBe(2);
    expect(JSON.parse(c.stdout)).toMatchObject({ state: "parked", parked: "branch", ref: "main", restore: cmd });
    // git lists the branches (ref files, packed-refs or a reftable: only git reads them all), then one look at the
    // stash and the branches; the runner's reading of its filters is not ours.
    expect(gitCalls(log).filter((argv) => argv[0] !== "config").map((argv) => argv[0])).toEqual(["for-each-ref", "cat-file"]);
    expect((await r.run(["check"])).stdout).toBe(`a handoff is parked on branch "main", not in the working tree: bring it back with \`${cmd}\`; ${note}\n`);
    const b = await r.run(["brief"]);
    expect(b.code, b.stderr).toBe(0);
    expect(briefBody(b.stdout)).toContain(`Proposed next step: bring the handoff back with \`${cmd}\` (${note}), then run brief again`);
    const read = await r.run(["read", "handoff"]);
    expect(read.code).toBe(3);
    expect(read.stderr).toContain('note: a handoff is parked on branch "main"');
    // The user's own stash pops over the restored handoff.
    writeFileSync(path.join(r.dir, "a.txt"), "wip\n");
    r.git("stash", "-q");
    r.git(...cmd.split(" ").slice(1));
    r.git("stash", "pop", "-q");
    expect(readFileSync(path.join(r.dir, "a.txt"), "utf8")).toBe("wip\n");
    expect(briefBody((await r.run(["brief"])).stdout)).toContain("Goal: Make the importer fast.");
    // The session saves on; the user's plain commit of their own file takes nothing of the memory.
    await nextSecond();
    await r.save(DOC.replace("Make the importer fast.", "Ship the streaming importer."));
    r.git("add", "a.txt");
    r.git("commit", "-qm", "work");
    expect(r.git("show", "--name-only", "--format=", "HEAD")).toBe("a.txt");
    expect(r.git("status", "--porcelain")).toBe("?? .ai/");
    // The note's way back: the branch checks out, and the brief there finds the newer save in the stash.
    expect(() => r.git("checkout", "-q", "main")).toThrow(/untracked working tree files would be overwritten/);
    r.git("stash", "-u", "-q", "--", ".ai/memory");
    r.git("checkout", "-q", "main");
    const back = "git restore --overlay --source=stash@{0}^3 -- .ai/memory";
    expect(briefBody((await r.run(["brief"])).stdout)).toContain(`a newer save of this clone is in stash@{0}: \`${back}\` brings it back`);
    r.git(...back.split(" ").slice(1));
    expect(briefBody((await r.run(["brief"])).stdout)).toContain("Goal: Ship the streaming importer.");
  });

  it("a teammate's handoff saved after this clone's last save is not called older than a branch holding that save", { timeout: 60_000 }, async () => {
    const r = repo();
    r.git("checkout", "-q", "-b", "feat");
    await r.save(DOC);
    r.git("add", ".ai");
    r.git("commit", "-qm", "memory");
    const file = path.join(r.dir, ".ai", "memory", "HANDOFF.md");
    const mine = readFileSync(file, "utf8");
    r.git("checkout", "-q", "main");
    const theirs = (saved: string) =>
      mine.replace(/^Saved: \S+/m, `Saved: ${saved}`).replace(/^<!-- saved in clone .*\n/m, "").replace("Make the importer fast.", "Theirs.");
    mkdirSync(path.dirname(file), { recursive: true });
    // Merged in after this clone's save (a pull): later, so nothing newer is on feat.
    writeFileSync(file, theirs(new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, "Z")));
    expect(briefBody((await r.run(["brief"])).stdout)).not.toContain("a newer save of this clone");
    // Saved before this clone's save: feat does hold a newer one.
    writeFileSync(file, theirs("2020-01-01T00:00:00Z"));
    expect(briefBody((await r.run(["brief"])).stdout)).toContain('a newer save of this clone is on branch "feat"');
    // The same with an offset: 30 minutes before this clone's save, though its clock reads 30 minutes after.
    const mineMs = Date.parse(/^Saved: (\S+)/m.exec(mine)![1]!);
    const offset = new Date(mineMs + 30 * 60_000).toISOString().replace(/\.\d+Z$/, "+01:00");
    writeFileSync(file, theirs(offset));
    expect(briefBody((await r.run(["brief"])).stdout)).toContain('a newer save of this clone is on branch "feat"');
  });

  it("a cold start with no save recorded and no other branch runs one git process for it", { timeout: 60_000 }, async () => {
    const r = repo();
    const { bin, log } = loggingGit();
    const c = await r.run(["check"], undefined, { PATH: `${bin}${path.delimiter}${process.env.PATH}` });
    expect(c.stdout).toBe("nothing parked: no saved session state exists\n");
    expect(gitCalls(log).filter((argv) => argv[0] !== "config").map((argv) => argv[0])).toEqual(["for-each-ref"]);
  });

  it("a clone with a save on record, its handoff deleted by hand: check and brief list the branches once", { timeout: 60_000 }, async () => {
    const r = repo();
    r.git("branch", "other");
    await r.save(DOC);
    rmSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"));
    for (const verb of ["check", "brief"]) {
      const { bin, log } = loggingGit();
      await r.run([verb], undefined, { PATH: `${bin}${path.delimiter}${process.env.PATH}` });
      // Where this clone's save went (a stash, a branch), then whether another branch holds anyone's: one list.
      const calls = gitCalls(log).map((argv) => argv[0]).filter((v) => v === "for-each-ref" || v === "cat-file");
      expect(calls, verb).toEqual(["for-each-ref", "cat-file", "cat-file"]);
    }
  });

  // Found by a newcomer: a clone that never saved called a teammate's handoff on another branch a cold start.
  it("a teammate's handoff on another branch of a fresh clone: brief, check, read and the status line name it; exit 3 kept", { timeout: 90_000 }, async () => {
    const a = repo();
    const remote = `${a.dir}.git`;
    a.git("init", "-q", "--bare", remote);
    a.git("remote", "add", "origin", remote);
    a.git("push", "-q", "origin", "main");
    a.git("checkout", "-q", "-b", "feat/underscore");
    await a.save(DOC);
    expect((await a.run(["publish"])).code).toBe(0);
    a.git("push", "-q", "origin", "feat/underscore");
    const c = `${a.dir}-c`;
    a.git("clone", "-q", "-b", "feat/underscore", remote, c);
    const cgit = (...args: string[]) => a.git("-C", c, ...args);
    cgit("switch", "-q", "main");
    const home = path.dirname(a.dir);
    const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), GIT_CEILING_DIRECTORIES: home };
    const run = (...args: string[]) => inProcess([...args, "--root", c], { env });
    // The helper as it was started: outside the project, by its absolute path.
    const show = `git show feat/underscore:.ai/memory/HANDOFF.md | node ${HELPER} brief --stdin`;
    // The local branch and its remote-tracking twin hold one handoff: named once.
    const note = `a handoff is committed on branch "feat/underscore", not on this one: brief it with \`${show}\`, or check that branch out`;
    const b = await run("brief");
    expect(b.code, b.stderr).toBe(3);
    expect(b.stdout).toBe(`No saved session state exists.\nnote: ${note}\n`);
    expect(JSON.parse((await run("brief", "--json")).stdout)).toMatchObject({ brief: null, elsewhere: ["feat/underscore"] });
    const ck = await run("check", "--json");
    expect(ck.code).toBe(0);
    expect(JSON.parse(ck.stdout)).toMatchObject({ state: "clean", elsewhere: ["feat/underscore"] });
    expect((await run("check")).stdout).toBe(`nothing parked: no saved session state exists; ${note}\n`);
    const read = await run("read", "handoff");
    expect(read.code).toBe(3);
    expect(read.stderr).toContain(`note: ${note}`);
    const line = await inProcess(["statusline"], { env, input: JSON.stringify({ cwd: c }) });
    expect(line.stdout).toBe('handoff: none here, one on branch "feat/underscore" (run brief)\n');
    // The command the note gives briefs it as it stands, run from the project root.
    const sh = (cmd: string) => spawnSync("sh", ["-c", cmd], { cwd: c, env: cleanEnv(env), encoding: "utf8" }).stdout;
    expect(briefBody(sh(show))).toContain("Goal: Make the importer fast.");
    // A helper inside the project is named relative to the root (found by a newcomer: `node memory_io.mjs` failed).
    const inside = ".agents/skills/session-handoff/scripts/memory_io.mjs";
    copyHelper(path.join(c, inside));
    const rel = sh(`node ${inside} brief`);
    expect(rel).toContain(`| node ${inside} brief --stdin\``);
    expect(briefBody(sh(/`(git show [^`]+)`/.exec(rel)![1]!))).toContain("Goal: Make the importer fast.");
    rmSync(path.join(c, ".agents"), { recursive: true });
    // Only fetched, in a clone whose own record of saves lacks it: the remote-tracking branch is named.
    cgit("branch", "-q", "-D", "feat/underscore");
    const token = /CURRENT-SHA256: (\S+)/.exec((await run("read", "handoff")).stdout)![1]!;
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", token, "--root", c], { env, input: DOC })).code).toBe(0);
    rmSync(path.join(c, ".ai", "memory", "HANDOFF.md"));
    // git's copy of that save pruned: nothing of this clone's to bring back.
    cgit("prune", "--expire=now");
    expect((await run("brief")).stdout).toContain('a handoff is committed on branch "origin/feat/underscore", not on this one');
  });

  // Branch names are the repository's: git takes an invisible letter (U+3164, which `branchRefs` lets through) and a
  // bidi override (U+202E, which it does not) in one.
  it("branch names in these sentences are quoted, an invisible letter marked; a bidi override is never printed", { timeout: 60_000 }, async () => {
    const r = repo();
    const file = path.join(r.dir, ".ai", "memory", "HANDOFF.md");
    // Both branches are looked at; the newest, named first, is the one with the invisible letter.
    for (const name of ["x\u202Ey", "fix\u3164login"]) {
      if (name !== "x\u202Ey") Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
      r.git("checkout", "-q", "-b", name, "main");
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, DOC);
      r.git("add", ".ai");
      r.git("commit", "-qm", "a teammate's handoff");
    }
    r.git("checkout", "-q", "main");
    const shown = '"fix<U+3164>login"';
    const line = await inProcess(["statusline"], { env: { HOME: path.dirname(r.dir) }, input: JSON.stringify({ cwd: r.dir }) });
    expect(line.stdout).toBe(`handoff: none here, one on branch ${shown} (run brief)\n`);
    const check = await r.run(["check"]);
    expect(check.stdout).toContain(`; a handoff is committed on branch ${shown}, not on this one: brief it with`);
    // This clone's own save left on a branch: "parked on branch".
    r.git("checkout", "-q", "fix\u3164login");
    await r.save(DOC.replace("Make the importer fast.", "Mine."));
    r.git("commit", "-qam", "my save");
    r.git("checkout", "-q", "main");
    const parked = await r.run(["check"]);
    expect(parked.code, parked.stderr).toBe(2);
    expect(parked.stdout).toContain(`a handoff is parked on branch ${shown}, not in the working tree: `);
    expect(parked.stdout).toContain(`before checking out ${shown}, put it aside`);
    for (const out of [line.stdout, check.stdout, parked.stdout, (await r.run(["brief"])).stdout]) expect(out).not.toContain("\u202E");
  });

  it("in a linked worktree, the handoff it stashed is named, never the other worktree's newer stash", { timeout: 60_000 }, async () => {
    const r = repo();
    const wt = path.join(path.dirname(r.dir), "wt");
    r.git("worktree", "add", "-q", "-b", "feat", wt);
    const inWt = (args: string[], input?: string) => inProcess([...args, "--root", wt], {
      input, env: { HOME: path.dirname(r.dir), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(path.dirname(r.dir), ".gitconfig"), GIT_CEILING_DIRECTORIES: path.dirname(r.dir) },
    });
    const t = /CURRENT-SHA256: (\S+)/.exec((await inWt(["read", "handoff"])).stdout)![1]!;
    expect((await inWt(["write", "handoff", "--expected-current-sha256", t], DOC.replace("Make the importer fast.", "The worktree's goal."))).code).toBe(0);
    const wtGit = (...args: string[]) => execFileSync("git", args, { cwd: wt, env: { ...cleanEnv(), HOME: path.dirname(r.dir), GIT_CONFIG_GLOBAL: path.join(path.dirname(r.dir), ".gitconfig") } });
    wtGit("stash", "-u", "-q");
    await r.save(DOC.replace("Make the importer fast.", "The main worktree's goal."));
    r.git("stash", "-u", "-q");
    // stash@{0} is the main worktree's (newer), stash@{1} the linked one's.
    const check = await inWt(["check"]);
    expect(check.stdout).toContain("a handoff is parked in stash@{1}, not in the working tree");
    expect(check.stdout).not.toContain("stash@{0}");
    const mine = await r.run(["check"]);
    expect(mine.stdout).toContain("a handoff is parked in stash@{0}, not in the working tree");
  });

  it("a handoff deleted here by hand that HEAD's commit holds is not named on the branches that share it", { timeout: 60_000 }, async () => {
    const r = repo();
    r.git("checkout", "-q", "-b", "feat");
    writeFileSync(path.join(r.dir, "b.txt"), "b\n");
    mkdirSync(path.join(r.dir, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"), DOC);
    r.git("add", ".");
    r.git("commit", "-qm", "handoff");
    r.git("branch", "copy");
    rmSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"));
    const b = await r.run(["brief"]);
    expect(b.code).toBe(3);
    expect(b.stdout).toBe("No saved session state exists.\n");
  });

  it("`git stash` after publish: the brief of the older published handoff names the newer save's entry", { timeout: 60_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    await r.save(DOC.replace("Make the importer fast.", "Ship the streaming importer."));
    writeFileSync(path.join(r.dir, "a.txt"), "wip\n");
    r.git("stash", "-q");
    const body = briefBody((await r.run(["brief"])).stdout);
    expect(body).toContain("Goal: Make the importer fast.");
    expect(body).toContain("a newer save of this clone is in stash@{0}: `git restore --source=stash@{0} -- .ai/memory/HANDOFF.md` brings it back; that entry keeps a copy: run `git restore -- .ai/memory/HANDOFF.md` before `git stash pop`");
    expect(body).toContain("Proposed next step: bring this clone's newer save back with " +
      "`git restore --source=stash@{0} -- .ai/memory/HANDOFF.md`, then run brief again");
    r.git("stash", "pop", "-q");
    expect(briefBody((await r.run(["brief"])).stdout)).not.toContain("a newer save");
  });

  it("a save a `git reset --hard` discarded: check, brief and the hook say so and name git's copy; no git for the hook when the tree holds the newest save", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    writeFileSync(path.join(r.dir, "a.txt"), "work\n");
    r.git("commit", "-qam", "code");
    await nextSecond();
    await r.save(DOC.replace("Make the importer fast.", "Ship the streaming importer."));
    const saved = /^Saved: (\S+)$/m.exec(readFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), "utf8"))![1]!;
    // No git process at a session start while the tree holds this clone's newest save.
    const { bin, log } = loggingGit();
    const hook = (extra: Record<string, string> = {}) => r.hook(extra).stdout;
    expect(hook({ PATH: `${bin}${path.delimiter}${process.env.PATH}` })).toContain("a parked handoff exists");
    expect(gitCalls(log)).toEqual([]);
    r.git("reset", "-q", "--hard", "HEAD~1");
    const c = await r.run(["check", "--json"]);
    expect(c.code, c.stderr).toBe(2);
    const j = JSON.parse(c.stdout);
    expect(j).toMatchObject({ state: "parked", parked: "handoff", lost: saved });
    expect(j.restore).toMatch(/^git cat-file blob [0-9a-f]{40} > \.ai\/memory\/HANDOFF\.md$/);
    const said = `this clone's newest save (Saved: ${saved}) is in neither the working tree, a stash nor another branch: ` +
      `a \`git reset --hard\` or a checkout of .ai/memory/HANDOFF.md put another one in its place; \`${j.restore}\` brings it back`;
    expect(j.message).toBe(`a handoff is parked and can be resumed; but ${said}`);
    expect(hook()).toContain(`\nsession-handoff: ${said}. Tell the user before resuming; \`check\` says the same.\n`);
    const lostBrief = briefBody((await r.run(["brief"])).stdout);
    expect(lostBrief).toContain(`Drift & lessons: ${said}; `);
    // The older handoff's own step is not proposed: the newer save comes back first.
    expect(lostBrief).toContain(`Proposed next step: bring this clone's newer save back with \`${j.restore}\`, then run ` +
      "brief again (the fields above are from the older handoff) — Confirm?");
    // The command brings back the very bytes, and then all is said to be well.
    writeFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), r.git("cat-file", "blob", j.restore.split(" ")[3]) + "\n");
    expect(readFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), "utf8")).toContain("Ship the streaming importer.");
    expect((await r.run(["check"])).stdout).toBe("a handoff is parked and can be resumed\n");
    // An older handoff put back on purpose keeps the newest in archive/: no alarm.
    const older = (await r.run(["archives", "list"])).stdout.match(/HANDOFF-\S+\.md/)![0];
    expect((await r.run(["archives", "restore", older, "--expected-current-sha256",
      /CURRENT-SHA256: (\S+)/.exec((await r.run(["read", "handoff"])).stdout)![1]!])).code).toBe(0);
    expect((await r.run(["check"])).stdout).toBe("a handoff is parked and can be resumed\n");
  });

  it("a reset past the publish commit takes the handoff away: check, brief, the hook and the status line name git's copy; a deletion by hand is named too (found by a newcomer)", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    writeFileSync(path.join(r.dir, "a.txt"), "work\n");
    r.git("commit", "-qam", "code");
    expect((await r.run(["publish"])).code).toBe(0);
    await nextSecond();
    await r.save(SECOND);
    // Deleted by hand, HEAD's commit holding an older handoff: git's copy of the newest save is named.
    rmSync(path.join(r.dir, ".ai/memory/HANDOFF.md"));
    expect(JSON.parse((await r.run(["check", "--json"])).stdout)).toMatchObject({ code: 2, parked: "lost" });
    r.git("checkout", "-q", "--", ".ai/memory/HANDOFF.md");
    await r.save(SECOND.replace("streaming", "chunked"));
    await nextSecond();
    // Undo the code commit and the publish: the tracked handoff goes with them, the newest save with it.
    r.git("reset", "-q", "--hard", "HEAD~2");
    const c = await r.run(["check", "--json"]);
    expect(c.code, c.stderr).toBe(2);
    const j = JSON.parse(c.stdout);
    expect(j).toMatchObject({ state: "parked", parked: "lost" });
    expect(j.restore).toMatch(/^git cat-file blob [0-9a-f]{40} > \.ai\/memory\/HANDOFF\.md$/);
    const said = `this clone's newest save (Saved: ${j.lost}) is in neither the working tree, a stash nor another branch: ` +
      "a `git reset --hard` or a checkout of .ai/memory/HANDOFF.md took it away, or a deletion (`git clean -fd`, `rm`) did; " +
      `\`${j.restore}\` brings it back`;
    expect(j.message).toBe(said);
    expect(r.hook().stdout).toContain(`session-handoff: ${said}.`);
    const b = await r.run(["brief"]);
    expect(b.stdout).toContain(`Proposed next step: bring the handoff back with \`${j.restore}\``);
    const line = helper(["statusline", "--root", r.dir], { env: r.env, input: "{}" }).stdout;
    expect(line).toBe("handoff: none here, newest save lost (run check)\n");
    expect(r.git("cat-file", "blob", j.restore.split(" ")[3])).toContain("chunked");
  });

  it("two saves in one second on one commit share a stamp: the older one put back is told from the newer", { timeout: 90_000 }, async () => {
    const file = (r: { dir: string }) => path.join(r.dir, ".ai/memory/HANDOFF.md");
    // Both saves in one second: retried, as a loaded machine can cross a second between them.
    const attempt = async () => {
      const r = repo();
      await nextSecond();
      await r.save(DOC);
      const older = readFileSync(file(r));
      await r.save(DOC.replace("Make the importer fast.", "Ship the streaming importer."));
      const stamps = readFileSync(path.join(r.dir, ".git/session-handoff/saves"), "utf8").match(/@\S+/g) ?? [];
      return { r, older, same: stamps.length === 2 && stamps[0] === stamps[1] };
    };
    let at = await attempt();
    for (let n = 0; n < 4 && !at.same; n++) at = await attempt();
    expect(at.same).toBe(true);
    const { r, older } = at;
    const saved = /^Saved: (\S+)$/m.exec(readFileSync(file(r), "utf8"))![1]!;
    // `git stash -u` takes the newer save; the older one put back by hand (its copy is in archive/ too).
    r.git("stash", "-u", "-q");
    writeFileSync(file(r), older);
    const c = await r.run(["check", "--json"]);
    expect(JSON.parse(c.stdout)).toMatchObject({ state: "parked", parked: "handoff", stash: "stash@{0}" });
    expect(r.hook().stdout).toContain("session-handoff: a newer save of this clone is in stash@{0}: ");
    rmSync(path.join(r.dir, ".ai"), { recursive: true });
    r.git("stash", "pop", "-q");
    expect((await r.run(["check"])).stdout).toBe("a handoff is parked and can be resumed\n");
    // The older one in its place, as a checkout of the file puts it: the newer save is lost.
    writeFileSync(file(r), older);
    const j = JSON.parse((await r.run(["check", "--json"])).stdout);
    expect(j).toMatchObject({ state: "parked", parked: "handoff", lost: saved });
    expect(r.hook().stdout).toContain(`session-handoff: this clone's newest save (Saved: ${saved}) is in neither`);
  });

  it("a teammate's handoff stamped in this clone's save's second is told apart by its clone mark (found by a breaker)", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    await nextSecond();
    await r.save(SECOND);
    const file = path.join(r.dir, ".ai/memory/HANDOFF.md");
    const mine = readFileSync(file, "utf8");
    // Bob's save of the same second, from his clone, committed over this clone's unpublished one.
    const bob = mine.replace(/<!-- saved in clone [0-9a-f]{16} -->/, "<!-- saved in clone 0123456789abcdef -->")
      .replace("Ship the streaming importer.", "Bob's own goal.");
    expect(bob).not.toBe(mine.replace("Ship the streaming importer.", "Bob's own goal."));
    writeFileSync(file, bob);
    r.git("commit", "-qm", "bob's handoff", "--", ".ai/memory/HANDOFF.md");
    const c = await r.run(["check", "--json"]);
    expect(c.code, c.stderr).toBe(2);
    expect(JSON.parse(c.stdout).restore).toMatch(/^git cat-file blob [0-9a-f]{40} > \.ai\/memory\/HANDOFF\.md$/);
    expect(r.hook().stdout).toContain("put another one in its place");
  });

  it("this clone's handoff on another branch: the hook says what check says, and an unrelated stash changes neither", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    r.git("switch", "-q", "-c", "old", "HEAD~1");
    const check = () => r.run(["check"]);
    const hook = () => r.hook().stdout;
    const said = 'a handoff is parked on branch "main", not in the working tree: bring it back with ' +
      '`git restore --source=main -- .ai/memory/HANDOFF.md`; it comes back uncommitted: before checking out "main", put it aside ' +
      "with `git stash -u -- .ai/memory`";
    expect((await check()).stdout).toBe(`${said}\n`);
    expect(hook()).toBe(`session-handoff: ${said}. Tell the user before resuming; \`check\` says the same.\n`);
    // A stash entry holding an archive only: the handoff is still on main, and both say so.
    mkdirSync(path.join(r.dir, ".ai/memory/archive"), { recursive: true });
    writeFileSync(path.join(r.dir, ".ai/memory/archive/HANDOFF-2026-01-01T00-00-00.000000Z-1-0a1b2c3d.md"), DOC);
    r.git("stash", "-u", "-q");
    expect((await check()).stdout).toBe(`${said}\n`);
    expect(hook()).toBe(`session-handoff: ${said}. Tell the user before resuming; \`check\` says the same.\n`);
  });

  it("`read` of a stashed handoff says where it is on stderr and still exits 3", { timeout: 60_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    r.git("stash", "-u", "-q");
    const read = await r.run(["read", "handoff"]);
    expect(read.code).toBe(3);
    expect(read.stdout).toBe("CURRENT-SHA256: absent\n");
    const cmd = "git restore --overlay --source=stash@{0}^3 -- .ai/memory";
    expect(read.stderr).toContain(`note: a handoff is parked in stash@{0}, not in the working tree: bring it back with \`${cmd}\``);
    expect(read.stderr).toContain("that entry keeps a copy: run `mv .ai/memory .ai/memory-aside` before `git stash pop`");
    // The advice is whole: after the restore, the pop refuses until the memory is moved aside.
    r.git(...cmd.split(" ").slice(1));
    expect(() => r.git("stash", "pop", "-q")).toThrow();
    renameSync(path.join(r.dir, ".ai/memory"), path.join(r.dir, ".ai/memory-aside"));
    r.git("stash", "pop", "-q");
    expect(readFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), "utf8")).toContain("Make the importer fast.");
  });
  it("a git run past its time limit is no answer: the hook and the status line never say the save is gone (found by a breaker)", { timeout: 120_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    await nextSecond();
    await r.save(SECOND);
    // The newest save in stash@{0}, the published one back in the tree; check, with 15 s a run, finds it.
    r.git("stash", "-q");
    const PATH = slowGit();
    expect((await r.run(["check"], undefined, { PATH })).stdout).toContain("; but a newer save of this clone is in stash@{0}: ");
    const line = () => helper(["statusline", "--root", r.dir], { env: { ...r.env, PATH }, input: "{}" }).stdout;
    expect(r.hook({ PATH }).stdout).toMatch(/^session-handoff: a parked handoff exists \([^)]*\)[^\n]*\n$/);
    expect(line()).toBe("handoff: saved today\n");
    // Discarded by a reset: git's copy is there, but the look at it answers late.
    r.git("stash", "drop", "-q");
    const said = (await r.run(["check"], undefined, { PATH })).stdout;
    expect(said).toContain("is in neither the working tree, a stash nor another branch");
    expect(said).toMatch(/`git cat-file blob [0-9a-f]{40} > \.ai\/memory\/HANDOFF\.md` brings it back/);
    const hook = r.hook({ PATH }).stdout;
    expect(hook).not.toContain("in neither");
    expect(hook).not.toContain("git keeps no copy");
    expect(line()).toBe("handoff: saved today\n");
  });

  it("a git that fails every run (an extension it does not know) is no answer: nothing says the save is lost (found by a breaker)", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    await nextSecond();
    await r.save(SECOND);
    r.git("stash", "-q");
    // Every git run now exits 128: the stash entry is still on disk, git just cannot read the repository.
    r.git("config", "core.repositoryformatversion", "1");
    r.git("config", "extensions.noSuchExtension", "true");
    const said = (await r.run(["check"])).stdout;
    expect(said).not.toContain("in neither");
    expect(said).not.toContain("git keeps no copy");
    expect(r.hook().stdout).not.toContain("in neither");
    const line = helper(["statusline", "--root", r.dir], { env: r.env, input: "{}" }).stdout;
    expect(line).not.toContain("lost");
  });

  it("a checkout of the file from HEAD~1 while HEAD's commit holds the newest save: check, brief and the hook say so (found by a breaker)", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    await nextSecond();
    await r.save(SECOND);
    expect((await r.run(["publish"])).code).toBe(0);
    r.git("checkout", "HEAD~1", "--", ".ai/memory/HANDOFF.md");
    const j = JSON.parse((await r.run(["check", "--json"])).stdout);
    expect(j).toMatchObject({ state: "parked", parked: "handoff", lost: expect.any(String) });
    const said = "is in neither the working tree, a stash nor another branch: a `git reset --hard` or a checkout of " +
      `.ai/memory/HANDOFF.md put another one in its place; \`${j.restore}\` brings it back`;
    expect(j.message).toContain(said);
    expect(briefBody((await r.run(["brief"])).stdout)).toContain(said);
    expect(r.hook().stdout).toContain(said);
    r.git("checkout", "HEAD", "--", ".ai/memory/HANDOFF.md");
    expect((await r.run(["check"])).stdout).toBe("a handoff is parked and can be resumed\n");
  });

  it("a reset onto a teammate's later handoff: this clone's uncommitted save is named, unless a stash or their save holds it (found by a breaker)", { timeout: 150_000 }, async () => {
    const a = repo();
    const remote = `${a.dir}.git`;
    a.git("init", "-q", "--bare", remote);
    a.git("remote", "add", "origin", remote);
    await a.save(DOC);
    expect((await a.run(["publish"])).code).toBe(0);
    a.git("push", "-q", "-u", "origin", "main");
    const mate = `${a.dir}-mate`;
    a.git("clone", "-q", remote, mate);
    const m = (...args: string[]) => inProcess([...args, "--root", mate], { env: a.env });
    const mateSave = async (goal: string) => {
      await nextSecond();
      const t = /CURRENT-SHA256: (\S+)/.exec((await m("read", "handoff")).stdout)![1]!;
      const w = await inProcess(["write", "handoff", "--expected-current-sha256", t, "--root", mate], { env: a.env, input: DOC.replace("Make the importer fast.", goal) });
      expect(w.code, w.stderr).toBe(0);
      expect((await m("publish")).code).toBe(0);
      a.git("-C", mate, "push", "-q", "origin", "main");
    };
    const quiet = "a handoff is parked and can be resumed\n";
    // This clone's save pushed, the teammate's later one made from it: it holds it, nothing is said.
    await nextSecond();
    await a.save(SECOND);
    expect((await a.run(["publish"])).code).toBe(0);
    a.git("push", "-q", "origin", "main");
    a.git("-C", mate, "pull", "-q");
    await mateSave("Theirs, made from mine.");
    a.git("pull", "-q");
    expect((await a.run(["check"])).stdout).toBe(quiet);
    // A save never committed, then a reset onto the teammate's later one, made without it.
    await nextSecond();
    await a.save(DOC.replace("Make the importer fast.", "Mine, never committed."));
    await mateSave("Theirs, made without mine.");
    a.git("fetch", "-q");
    a.git("stash", "-q");
    a.git("reset", "-q", "--hard", "origin/main");
    // The user stashed it first: on file there, and the teammate's handoff chosen.
    expect((await a.run(["check"])).stdout).toBe(quiet);
    a.git("stash", "drop", "-q");
    const j = JSON.parse((await a.run(["check", "--json"])).stdout);
    expect(j.message).toContain("; but this clone's newest save (Saved: ");
    expect(j.message).toContain("put one saved after it in its place; `git cat-file blob ");
    expect(a.hook().stdout).toContain("session-handoff: this clone's newest save (Saved: ");
    expect(a.git("cat-file", "blob", j.restore.split(" ")[3])).toContain("Mine, never committed.");
  });

  it("after a reset, a checkpoint of work after the discarded save is newer than the older handoff put back, never \"saved later\" (found by a breaker)", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(DOC);
    expect((await r.run(["publish"])).code).toBe(0);
    await nextSecond();
    await r.save(SECOND);
    const since = /CURRENT-SHA256: (\S+)/.exec((await r.run(["read", "handoff"])).stdout)![1]!;
    await nextSecond();
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    mkdirSync(path.join(r.dir, ".ai/memory/checkpoints"));
    writeFileSync(path.join(r.dir, ".ai/memory/checkpoints/s1.md"), ["<!-- memory-schema: v1 -->", "# Session Checkpoint",
      `Saved: ${now}`, "Session: s1", "Session-start: unknown", `Since-handoff: ${since}`, "Trigger: session-end",
      "Source: planted", "", "## Plan state", "- [~] a step after the save", "", "## Environment anchors", `- Date: ${now}`, ""].join("\n"));
    r.git("reset", "-q", "--hard");
    const hook = r.hook().stdout;
    expect(hook).toContain("and is newer than the parked handoff: it holds a plan of 1 step from after the handoff was saved");
    expect(hook).not.toContain("saved later");
    const note = (await r.run(["read", "handoff"])).stderr;
    expect(note).toContain("note: an automatic checkpoint newer than this handoff exists (checkpoints/s1.md");
    expect(note).not.toContain("saved later");
  });

  it("a branch another worktree has checked out: check and the hook name that worktree, not a checkout git refuses (found by a breaker)", { timeout: 90_000 }, async () => {
    const r = repo();
    const wt = path.join(path.dirname(r.dir), "w 1");
    r.git("worktree", "add", "-q", "-b", "w1", wt);
    const t = /CURRENT-SHA256: (\S+)/.exec((await inProcess(["read", "handoff", "--root", wt], { env: r.env })).stdout)![1]!;
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", t, "--root", wt], { env: r.env, input: DOC })).code).toBe(0);
    expect((await inProcess(["publish", "--root", wt], { env: r.env })).code).toBe(0);
    const c = await r.run(["check", "--json"]);
    expect(c.code, c.stderr).toBe(2);
    expect(JSON.parse(c.stdout)).toMatchObject({ parked: "branch", ref: "w1", worktree: wt });
    const said = `"w1" is checked out in the worktree at "${wt}": resume it there instead`;
    expect(JSON.parse(c.stdout).message).toContain(said);
    expect(JSON.parse(c.stdout).message).not.toContain("before checking out");
    expect(r.hook().stdout).toContain(said);
    expect(() => r.git("switch", "w1")).toThrow(/already (checked out|used by worktree)/);
  });

  it("a teammate's handoff on a branch another worktree has checked out: the note names that worktree", { timeout: 60_000 }, async () => {
    const r = repo();
    const wt = path.join(path.dirname(r.dir), "w 2");
    r.git("worktree", "add", "-q", "-b", "feat", wt);
    mkdirSync(path.join(wt, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(wt, ".ai", "memory", "HANDOFF.md"), DOC);
    r.git("-C", wt, "add", ".ai");
    r.git("-C", wt, "commit", "-qm", "a handoff committed by hand");
    const b = await r.run(["brief"]);
    expect(b.code).toBe(3);
    expect(b.stdout).toContain(`a handoff is committed on branch "feat", not on this one: brief it with `);
    expect(b.stdout).toContain(`, or resume it in the worktree at "${wt}"\n`);
    expect(b.stdout).not.toContain("check that branch out");
  });
});
