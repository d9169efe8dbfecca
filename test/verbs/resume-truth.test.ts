// Resume tells the truth: each case and its neighbours, on real git
// repositories. The verbs run in this process (test/in-process.ts); the
// first case, the disable switch, a checkpoint and the skill's own folder through the built helper.
import { copyHelper } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DAY, ENV, commit, git, handoff, iso, tempDir, writeTree, type HandoffSpec } from "../git/repo.ts";
import { briefBody, lastingTempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scripts/memory_io.mjs");
const NOW = Date.now();

/**
 * Runs a verb in this process (test/in-process.ts), or through the built bundle with `spawn` or with
 * `bundle` (a copy of it): each case's first run of a verb, the disable switch and the skill's
 * own folder keep the process boundary.
 */
async function run(args: string[], opts: { input?: string; env?: Record<string, string>; cwd?: string; bundle?: string; spawn?: boolean } = {}) {
  const env: Record<string, string | undefined> = { ...ENV, XDG_CONFIG_HOME: "/nonexistent-sh-config", SESSION_HANDOFF_DISABLE: undefined, ...opts.env };
  if (opts.spawn !== true && opts.bundle === undefined) return inProcess(args, { input: opts.input, wholeEnv: env, cwd: opts.cwd });
  const r = spawnSync(process.execPath, [opts.bundle ?? BUNDLE, ...args], { env, input: opts.input ?? "", cwd: opts.cwd, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const templates = new Map<string, string>();

/**
 * A new repository with one commit at `at` (newRepo of test/git/repo.ts): each (time, files) made with git once for
 * this file, then copied; the same commit, without four git runs a case.
 */
function newRepo(at: number, tree: Record<string, string> = { "README.md": "hi\n" }): string {
  const key = JSON.stringify([at, tree]);
  let template = templates.get(key);
  if (template === undefined) {
    template = lastingTempDir("sh-resume-template-");
    git(template, ["init", "-q"]);
    commit(template, "initial", at, tree);
    templates.set(key, template);
  }
  const dir = tempDir();
  cpSync(template, dir, { recursive: true, preserveTimestamps: true });
  return dir;
}

function park(root: string, text: string): string {
  mkdirSync(path.join(root, ".ai", "memory"), { recursive: true, mode: 0o700 });
  const file = path.join(root, ".ai", "memory", "HANDOFF.md");
  writeFileSync(file, text);
  chmodSync(file, 0o600);
  return file;
}

async function drift(root: string, spawn = false) {
  const r = await run(["drift", "--root", root, "--json"], { spawn });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown> & { summary: string; verdict: string };
}

async function brief(root: string, spawn = false): Promise<string[]> {
  const r = await run(["brief", "--root", root], { spawn });
  expect(r.code, r.stderr).toBe(0);
  return briefBody(r.stdout).trimEnd().split("\n");
}

async function hook(root: string, env: Record<string, string> = {}, spawn = false): Promise<string> {
  return (await run(["hook", "--mode", "session", "--root", root], { env, spawn })).stdout;
}

const headOf = (root: string) => git(root, ["rev-parse", "HEAD"]);

/** A handoff saved `daysAgo` days ago at the current HEAD of `root`. */
function savedNow(root: string, daysAgo = 0, extra: HandoffSpec = {}): string {
  return handoff({ saved: iso(NOW - daysAgo * DAY), branch: git(root, ["branch", "--show-current"]) || "(detached)", head: headOf(root), date: iso(NOW - daysAgo * DAY), ...extra });
}

describe("case 2: one age (the state time) for drift, brief and hook", () => {
  it("Saved and Date 20 days back, file written today: all three say 20 days", async () => {
    const root = newRepo(NOW - 30 * DAY);
    park(root, savedNow(root, 20));
    // Through the built bundle: the session bundle's hook and the CLI's drift and brief.
    expect(await hook(root, {}, true)).toContain("saved 20 days ago");
    const d = await drift(root, true);
    // Nothing since the save: old, not stale (docs/decisions/stale-needs-work.md).
    expect(d).toMatchObject({ verdict: "fresh", ageDays: 20 });
    expect((await brief(root, true))[4]).toMatch(/^Drift & lessons: fresh: .*saved 20 days ago; no work since the save/);
  });

  it("the reverse: saved today, file modification time 20 days back (touch -d): today everywhere", async () => {
    const root = newRepo(NOW - 30 * DAY);
    const file = park(root, savedNow(root, 0));
    const old = (NOW - 20 * DAY) / 1000;
    utimesSync(file, old, old);
    expect(await hook(root)).toContain("saved today");
    expect(await drift(root)).toMatchObject({ verdict: "fresh", ageDays: 0 });
  });

  it("zoneless Saved and Date 20 days back: age unknown, never fresh", async () => {
    const root = newRepo(NOW - 30 * DAY);
    const zoneless = iso(NOW - 20 * DAY).replace(/Z$/, "");
    park(root, savedNow(root, 0, { saved: zoneless, date: zoneless }));
    expect(await hook(root)).toContain("(.ai/memory/HANDOFF.md, age unknown)");
    const d = await drift(root);
    expect(d.verdict).toBe("unverifiable");
    expect(d.ageDays).toBeNull();
    expect(d.unverifiable).toContain("date");
    expect(d.summary).toContain("age unknown: the saved time is not a strict ISO-8601 time with a zone, so the handoff cannot be called fresh");
    expect((await brief(root))[4]).toContain("age unknown");
  });

  it.each([
    ["Date in the future (3 days): age unknown", { date: iso(NOW + 3 * DAY), saved: iso(NOW - DAY) }, null, "age unknown"],
    ["no Saved and no Date: age unknown", { date: null, saved: null }, null, "age unknown"],
    ["Date valid, Saved zoneless: Date counts", { date: iso(NOW - 2 * DAY), saved: "2020-01-01T00:00:00" }, 2, "saved 2 days ago"],
    ["Date zoneless, Saved valid: Saved counts", { date: "2020-01-01T00:00:00", saved: iso(NOW - 3 * DAY) }, 3, "saved 3 days ago"],
  ])("%s", async (_name, times, ageDays, words) => {
    const root = newRepo(NOW - 30 * DAY);
    park(root, savedNow(root, 0, times));
    expect(await hook(root)).toContain(words);
    const d = await drift(root);
    expect(d.ageDays).toBe(ageDays);
    if (ageDays === null) expect(d.verdict).not.toBe("fresh");
    else expect(d.summary).toContain(`saved ${ageDays} days ago`);
  });
});

describe("case 3: memory-only commits are not drift", () => {
  it("save, then git add .ai && git commit: fresh, with the commit counted apart", async () => {
    const root = newRepo(NOW - 3 * DAY);
    park(root, savedNow(root));
    git(root, ["add", ".ai"]);
    git(root, ["commit", "-qm", "handoff"], NOW);
    const d = await drift(root);
    expect(d).toMatchObject({ verdict: "fresh", ahead: 0, behind: 0, memoryOnlyCommits: 1 });
    expect(d.summary).toContain("no commits since the saved");
    expect(d.summary).toContain("1 memory-only commit (saves of .ai/memory) not counted");
    expect((await brief(root))[4]).toMatch(/^Drift & lessons: fresh: /);
  });

  it("a commit touching the memory dir and anything else still counts", async () => {
    const root = newRepo(NOW - 3 * DAY);
    park(root, savedNow(root));
    commit(root, "both", NOW, { "src/x.ts": "x\n" });
    expect(await drift(root)).toMatchObject({ verdict: "drifted", ahead: 1, memoryOnlyCommits: 0 });
  });

  it("a teammate who pulls the handoff commit sees it as memory-only, and as not saved in their clone (docs/design.md#verdicts-and-the-brief)", async () => {
    const origin = tempDir();
    git(origin, ["init", "-q", "--bare"]);
    const mine = newRepo(NOW - 3 * DAY);
    git(mine, ["push", "-q", origin, "main"]);
    const theirs = tempDir();
    git(theirs, ["clone", "-q", origin, "."]);
    // Their clone never saved: the handoff's clone mark is not theirs, so it came from elsewhere.
    git(mine, ["config", "user.name", "Me Myself"]);
    git(mine, ["config", "user.email", "test@example.com"]);
    const token = /CURRENT-SHA256: ([0-9a-f]{64})/.exec((await run(["write", "handoff", "--root", mine, "--expected-current-sha256", "absent"], { input: savedNow(mine) })).stdout)![1]!;
    git(mine, ["add", ".ai"]);
    git(mine, ["-c", "user.name=Me Myself", "commit", "-qm", "handoff"], NOW);
    git(mine, ["push", "-q", origin, "main"]);
    git(theirs, ["pull", "-q", "origin", "main"]);
    const before = { committer: '"Me Myself" "test@example.com"', someoneElse: true };
    expect(await drift(theirs)).toMatchObject({ verdict: "fresh", ahead: 0, memoryOnlyCommits: 1, provenance: before });
    // Their clone has saved once (another handoff, since replaced by the pulled one).
    mkdirSync(path.join(theirs, ".git", "session-handoff"), { recursive: true });
    writeFileSync(path.join(theirs, ".git", "session-handoff", "saves"), `${"e".repeat(64)}\n`);
    const d = await drift(theirs);
    expect(d).toMatchObject({ verdict: "fresh", ahead: 0, memoryOnlyCommits: 1, provenance: { committer: '"Me Myself" "test@example.com"', someoneElse: true } });
    expect(d.summary.match(/not saved in this clone/g)).toHaveLength(1);
    expect((await brief(theirs))[4]).toContain('the handoff was not saved in this clone; its last commit is by "Me Myself" "test@example.com"');
    // For me it is my own save: nothing said.
    // The token, then the `Saved:` stamp with the HEAD anchor's first 12 digits.
    expect(readFileSync(path.join(mine, ".git", "session-handoff", "saves"), "utf8")).toMatch(new RegExp(`^${token} @\\S+\\+[0-9a-f]{12}\\n$`));
    const own = await drift(mine);
    expect(own.provenance).toBeNull();
    expect(own.summary).not.toContain("not saved in this clone");
  });

  it("a merge whose first-parent diff touches only the memory dir is memory-only too", async () => {
    const root = newRepo(NOW - 3 * DAY);
    const saved = savedNow(root);
    git(root, ["checkout", "-q", "-b", "notes"]);
    park(root, saved);
    git(root, ["add", ".ai"]);
    git(root, ["commit", "-qm", "handoff on a side branch"], NOW - 1000);
    git(root, ["checkout", "-q", "main"]);
    git(root, ["merge", "-q", "--no-ff", "-m", "merge notes", "notes"], NOW);
    expect(await drift(root)).toMatchObject({ verdict: "fresh", ahead: 0, memoryOnlyCommits: 2 });
  });

  it("31 memory-only commits do not make a handoff stale (the 30-commit rule excludes them)", async () => {
    const root = newRepo(NOW - 3 * DAY);
    const text = savedNow(root);
    for (let i = 0; i < 31; i++) {
      park(root, `${text}\n<!-- ${i} -->\n`);
      git(root, ["add", ".ai"]);
      git(root, ["commit", "-qm", `handoff ${i}`], NOW - 100_000 + i);
    }
    park(root, text);
    expect(await drift(root)).toMatchObject({ verdict: "fresh", ahead: 0, memoryOnlyCommits: 31 });
  });

  it("behind counts leave memory-only commits out as well", async () => {
    const root = newRepo(NOW - 3 * DAY);
    park(root, "x");
    git(root, ["add", ".ai"]);
    git(root, ["commit", "-qm", "handoff"], NOW - 1000);
    git(root, ["tag", "saved"]);
    const text = savedNow(root);
    git(root, ["reset", "-q", "--hard", "HEAD~1"]);
    park(root, text);
    expect(await drift(root)).toMatchObject({ verdict: "fresh", ahead: 0, behind: 0, memoryOnlyCommits: 1 });
  });
});

const NESTED = `<!-- memory-schema: v1 -->
# Session Handoff
Saved: ${iso(NOW)}

## Current goal
Parse it.

## Plan
- [x] Parser
  - [ ] tokens for strings
  - [ ] tokens for numbers
- [~] Printer
  - [x] layout
    - [ ] deep sub-step
- [-] Bytecode backend — dropped: the interpreter is fast enough
- [ ] Docs

## Decisions
- [user-directed] keep the API

## Failed approaches
- none

## Open questions
- none

## Next steps
- run \`npm test\`

## Key files
- README.md — entry

## Environment anchors
`;

describe("case 4: every checkbox counts, at any depth", () => {
  it("open sub-steps under a done step are open; an abandoned step is counted apart", async () => {
    const root = newRepo(NOW - DAY);
    park(root, `${NESTED}- Branch: main\n- HEAD: ${headOf(root)}\n- Dirty files: none\n- Date: ${iso(NOW)}\n`);
    expect((await brief(root))[1]).toBe("Plan status: 2 done, 1 in progress, 4 todo, 1 abandoned; in progress: Printer");
  });

  it("the first open step, when none is in progress, may be a nested one", async () => {
    const root = newRepo(NOW - DAY);
    const text = NESTED.replace("- [~] Printer", "- [x] Printer");
    park(root, `${text}- Branch: main\n- HEAD: ${headOf(root)}\n- Dirty files: none\n- Date: ${iso(NOW)}\n`);
    expect((await brief(root))[1]).toBe("Plan status: 3 done, 0 in progress, 4 todo, 1 abandoned; next: tokens for strings");
  });

  it("write names a nested open step of the previous handoff that the new one dropped", async () => {
    const root = newRepo(NOW - DAY);
    const anchors = `- Branch: main\n- HEAD: ${headOf(root)}\n- Dirty files: none\n- Date: ${iso(NOW)}\n`;
    const first = await run(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: `${NESTED}${anchors}` });
    expect(first.code, first.stderr).toBe(0);
    const token = /CURRENT-SHA256: (\S+)\n$/.exec(first.stdout)![1]!;
    const next = NESTED.replace("  - [ ] tokens for numbers\n", "");
    const second = await run(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: `${next}${anchors}` });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("[Plan] tokens for numbers");
    expect(second.stderr).not.toContain("Bytecode backend");
  });
});

/** A repository whose feature/login conflicts with main on `a.txt`. */
function conflicting(): string {
  const root = newRepo(NOW - 3 * DAY, { "a.txt": "base\n" });
  git(root, ["checkout", "-q", "-b", "feature/login"]);
  commit(root, "feature", NOW - 2 * DAY, { "a.txt": "feature\n" });
  git(root, ["checkout", "-q", "main"]);
  commit(root, "main", NOW - 2 * DAY, { "a.txt": "main\n" });
  return root;
}

function tryGit(root: string, args: string[]): void {
  try {
    git(root, args);
  } catch {
    // a conflict: expected
  }
}

describe("case 5: git operations in progress", () => {
  it("mid-rebase of feature/login: the anchors say so, and after --continue drift sees no branch change", async () => {
    const root = conflicting();
    git(root, ["checkout", "-q", "feature/login"]);
    tryGit(root, ["rebase", "main"]);
    const a = await run(["anchors", "--root", root]);
    expect(a.stdout).toContain("- Branch: (detached)\n");
    expect(a.stdout).toMatch(/\n- In progress: rebase of feature\/login \(1 conflicted files\)\n$/);
    park(root, `${handoff({ saved: iso(NOW), anchors: false })}## Environment anchors\n${a.stdout}`);
    const during = await drift(root);
    expect(during).toMatchObject({ branchChanged: false, inProgress: { saved: "rebase of feature/login", current: "rebase of feature/login" } });
    writeFileSync(path.join(root, "a.txt"), "resolved\n");
    git(root, ["add", "a.txt"]);
    git(root, ["-c", "core.editor=true", "rebase", "--continue"]);
    const after = await drift(root);
    expect(after).toMatchObject({ branchChanged: false, inProgress: { saved: "rebase of feature/login", current: null } });
    expect(after.summary).toContain('on "feature/login"');
    expect(after.summary).toContain("rebase of feature/login was in progress at the save, finished or aborted since");
    expect(after.summary).not.toContain("branch moved");
  });

  it.each([
    ["a merge with conflicts", (root: string) => tryGit(root, ["merge", "-q", "feature/login"]), "merge (1 conflicted files)"],
    ["a cherry-pick with conflicts", (root: string) => tryGit(root, ["cherry-pick", "feature/login"]), "cherry-pick (1 conflicted files)"],
    ["a revert with conflicts", (root: string) => {
      commit(root, "again", NOW - DAY, { "a.txt": "main again\n" });
      tryGit(root, ["revert", "--no-edit", "HEAD~1"]);
    }, "revert (1 conflicted files)"],
    ["a bisect", (root: string) => git(root, ["bisect", "start"]), "bisect (0 conflicted files)"],
  ])("%s is named on the In progress line, and as in progress now by drift", async (_name, act, line) => {
    const root = conflicting();
    act(root);
    const a = await run(["anchors", "--root", root]);
    expect(a.stdout).toContain(`- In progress: ${line}\n`);
    park(root, savedNow(root));
    expect(((await drift(root)).inProgress as { current: string }).current).toBe(line.replace(/ \(.*$/, ""));
  });

  it("an automatic checkpoint taken mid-merge carries the same In progress line", async () => {
    const root = conflicting();
    tryGit(root, ["merge", "-q", "feature/login"]);
    const r = await run(["checkpoint"], { input: JSON.stringify({ cwd: root, session_id: "s1", hook_event_name: "PreCompact" }), spawn: true });
    expect(r.code).toBe(0);
    const text = readFileSync(path.join(root, ".ai", "memory", "checkpoints", "s1.md"), "utf8");
    expect(text).toMatch(/^- Date: \S+\n- In progress: merge \(1 conflicted files\)$/m);
  });

  it("a rebase in a linked worktree is read from the worktree's own git dir", async () => {
    const root = conflicting();
    const wt = path.join(tempDir("sh-wt-"), "login");
    git(root, ["worktree", "add", "-q", wt, "feature/login"]);
    tryGit(wt, ["rebase", "main"]);
    expect((await run(["anchors", "--root", wt])).stdout).toContain("- In progress: rebase of feature/login (1 conflicted files)\n");
    expect((await run(["anchors", "--root", root])).stdout).not.toContain("In progress");
  });
});

describe("case 6: outside git, key-file modification times are compared", () => {
  async function outside(): Promise<{ root: string; text: string }> {
    const root = tempDir("sh-nogit-");
    writeTree(root, { "a.py": "print(1)\n", "README.md": "hi\n" });
    const old = (NOW - 2 * DAY) / 1000;
    utimesSync(path.join(root, "a.py"), old, old);
    utimesSync(path.join(root, "README.md"), old, old);
    const a = await run(["anchors", "--root", root, "--key-file", "a.py", "--key-file", "README.md", "--key-file", "later.txt"]);
    expect(a.stdout).toMatch(/- Key file mtimes: a\.py @ \S+Z, README\.md @ \S+Z, later\.txt @ missing\n$/);
    const text = `${handoff({ saved: iso(NOW), anchors: false, keyFiles: ["a.py — the code"] })}## Environment anchors\n${a.stdout}`;
    return { root, text };
  }

  it("edit a.py, delete README.md: both are changed, README.md is missing", async () => {
    const { root, text } = await outside();
    park(root, text);
    writeFileSync(path.join(root, "a.py"), "print(2)\n");
    rmSync(path.join(root, "README.md"));
    const d = await drift(root);
    expect(d.changedKeyFiles).toEqual(["a.py", "README.md"]);
    expect(d.missingKeyFiles).toContain("README.md");
    // The summary names the deleted one once, as missing (the JSON keeps both lists whole).
    expect(d.summary).toContain('key files changed: "a.py";');
    expect(d.summary).toMatch(/key files missing: [^;]*README\.md/);
  });

  it("nothing touched: nothing changed", async () => {
    const { root, text } = await outside();
    park(root, text);
    expect((await drift(root)).changedKeyFiles).toEqual([]);
  });

  it("a key file missing at the save and created since counts as changed", async () => {
    const { root, text } = await outside();
    park(root, text);
    writeFileSync(path.join(root, "later.txt"), "new\n");
    expect((await drift(root)).changedKeyFiles).toEqual(["later.txt"]);
  });
});

describe("case 7: what moved and what was cleaned", () => {
  it("a key file edited since the save and not committed is named (a newcomer's run: only 'dirty files: 0 then, 2 now')", async () => {
    const root = newRepo(NOW - 3 * DAY, { "src/a.ts": "1\n", "README.md": "r\n", "notes.md": "n\n" });
    writeFileSync(path.join(root, "notes.md"), "dirty at the save\n");
    park(root, savedNow(root, 0, { dirty: "notes.md", keyFiles: ["src/a.ts — the parser", "README.md — entry", "notes.md — notes", "new/x.ts — not yet there"] }));
    writeFileSync(path.join(root, ".git", "info", "exclude"), ".ai/\n");
    writeFileSync(path.join(root, "README.md"), "edited\n");
    writeFileSync(path.join(root, "notes.md"), "still dirty\n");
    mkdirSync(path.join(root, "new"));
    writeFileSync(path.join(root, "new", "x.ts"), "x\n");
    const d = await drift(root);
    // notes.md was dirty at the save already; new/x.ts is in a new untracked folder.
    expect(d.dirtyKeyFiles).toEqual(["README.md", "new/x.ts"]);
    expect(d.changedKeyFiles).toEqual([]);
    expect(d.summary).toContain('key files with uncommitted changes: "README.md", "new/x.ts"');
    expect((await brief(root))[4]).toContain('key files with uncommitted changes: "README.md", "new/x.ts"');
    expect((await run(["drift", "--root", root])).stdout).toContain('key files with uncommitted changes, clean at the save: "README.md", "new/x.ts"\n');
    git(root, ["checkout", "--", "README.md"]);
    rmSync(path.join(root, "new"), { recursive: true });
    expect((await drift(root)).dirtyKeyFiles).toEqual([]);
  });

  it("three commits on a key file and a stash of saved dirty work are named", async () => {
    const root = newRepo(NOW - 3 * DAY, { "src/a.ts": "1\n", "src/b.ts": "1\n", "notes.md": "n\n" });
    writeFileSync(path.join(root, "src/b.ts"), "dirty\n");
    writeFileSync(path.join(root, "notes.md"), "dirty\n");
    park(root, savedNow(root, 0, { dirty: "notes.md, src/b.ts", keyFiles: ["src/a.ts — the parser", "README.md — entry"] }));
    writeFileSync(path.join(root, ".git", "info", "exclude"), ".ai/\n");
    git(root, ["add", "src/b.ts"]);
    git(root, ["commit", "-qm", "b"], NOW - 3000);
    git(root, ["stash", "-q"]);
    for (let i = 0; i < 3; i++) commit(root, `a${i}`, NOW - 2000 + i, { "src/a.ts": `${i + 2}\n` });
    const d = await drift(root);
    expect(d).toMatchObject({ verdict: "drifted", ahead: 4, changedKeyFiles: ["src/a.ts"], cleanedDirty: ["notes.md", "src/b.ts"] });
    expect(d.summary).toContain('key files changed: "src/a.ts"');
    expect(d.summary).toContain('dirty at the save, now in stash@{0}: "notes.md"');
    expect(d.summary).toContain(`dirty at the save, committed in ${git(root, ["rev-parse", "HEAD~3"]).slice(0, 12)}: "src/b.ts"`);
    expect((await brief(root))[4]).toContain('key files changed: "src/a.ts"');
  });

  it("a new folder saved as dirty (`dir/`, as git status lists it) and committed since counts as committed", async () => {
    const root = newRepo(NOW - 3 * DAY, { "src/a.ts": "1\n" });
    mkdirSync(path.join(root, "conf"), { recursive: true });
    writeFileSync(path.join(root, "conf", "settings.json"), "{}\n");
    writeFileSync(path.join(root, "scratch.txt"), "x\n");
    park(root, savedNow(root, 0, { dirty: "conf/, scratch.txt", keyFiles: ["src/a.ts — the parser"] }));
    writeFileSync(path.join(root, ".git", "info", "exclude"), ".ai/\n");
    git(root, ["add", "conf"]);
    git(root, ["commit", "-qm", "conf"], NOW - 3000);
    rmSync(path.join(root, "scratch.txt"));
    const d = await drift(root);
    expect(d.cleanedDirty).toEqual(["conf/", "scratch.txt"]);
    expect(d.summary).toContain(`dirty at the save, committed in ${git(root, ["rev-parse", "HEAD"]).slice(0, 12)}: "conf/"`);
    expect(d.summary).toContain('dirty at the save, reverted (neither committed nor stashed): "scratch.txt"');
  });

  it("commits that touch no key file change none; a revert of dirty work with no commit or stash is 'reverted'", async () => {
    const root = newRepo(NOW - 3 * DAY, { "src/a.ts": "1\n", "notes.md": "n\n" });
    writeFileSync(path.join(root, "notes.md"), "dirty\n");
    park(root, savedNow(root, 0, { dirty: "notes.md", keyFiles: ["src/a.ts — the parser"] }));
    writeFileSync(path.join(root, ".git", "info", "exclude"), ".ai/\n");
    git(root, ["checkout", "--", "notes.md"]);
    const same = await drift(root);
    expect(same).toMatchObject({ changedKeyFiles: [], cleanedDirty: ["notes.md"] });
    expect(same.summary).toContain('dirty at the save, reverted (neither committed nor stashed): "notes.md"');
    commit(root, "other", NOW, { "src/other.ts": "x\n" });
    expect((await drift(root)).changedKeyFiles).toEqual([]);
  });

  it("key files are root-relative when the memory lives below the repository top", async () => {
    const top = newRepo(NOW - 3 * DAY, { "pkg/src/a.ts": "1\n" });
    const root = path.join(top, "pkg");
    park(root, savedNow(top, 0, { keyFiles: ["src/a.ts — the parser"] }));
    writeFileSync(path.join(top, ".git", "info", "exclude"), ".ai/\n");
    commit(top, "edit", NOW, { "pkg/src/a.ts": "2\n" });
    expect((await drift(root)).changedKeyFiles).toEqual(["src/a.ts"]);
  });
});

describe("case 8: the brief shows what blocks the next step", () => {
  function withSections(open: string, failed: string): string {
    return NESTED.replace("## Open questions\n- none", `## Open questions\n${open}`).replace("## Failed approaches\n- none", `## Failed approaches\n${failed}`);
  }

  it("an open question comes first", async () => {
    const root = newRepo(NOW - DAY);
    park(root, `${withSections("- Which API version do we target?\n- minor: naming", "- none")}- Branch: main\n- HEAD: ${headOf(root)}\n- Dirty files: none\n- Date: ${iso(NOW)}\n`);
    expect((await brief(root))[5]).toBe("Proposed next step: run `npm test` (open question first: Which API version do we target?) — Confirm?");
  });

  it("no open question ('- none'): no suffix", async () => {
    const root = newRepo(NOW - DAY);
    park(root, `${NESTED}- Branch: main\n- HEAD: ${headOf(root)}\n- Dirty files: none\n- Date: ${iso(NOW)}\n`);
    expect((await brief(root))[5]).toBe("Proposed next step: run `npm test` — Confirm?");
  });

  it("a Do-not-retry cut for length keeps each cause", async () => {
    const root = newRepo(NOW - DAY);
    const long = (n: number) => `- approach ${n} ${"with many words ".repeat(12)}— cause ${n}: the cache blew up`;
    park(root, `${withSections("- none", [1, 2, 3, 4, 5].map(long).join("\n"))}- Branch: main\n- HEAD: ${headOf(root)}\n- Dirty files: none\n- Date: ${iso(NOW)}\n`);
    const line = (await brief(root))[3]!;
    // Whole items drop from the end first (docs/decisions/brief-cuts.md); each item shown keeps its cause.
    const shown = [1, 2, 3, 4, 5].filter((n) => line.includes(`approach ${n} `));
    expect(shown[0]).toBe(1);
    for (const n of shown) expect(line).toContain(`cause ${n}: the cache blew up`);
    expect(line).toContain(`(+${5 - shown.length} more)`);
    expect(line).not.toMatch(/\b\w+…\w/);
    expect(line.length).toBeLessThanOrEqual(420);
  });
});

describe("case 9: SESSION_HANDOFF_DISABLE", () => {
  it.each(["1", "true", "TRUE", "yes", "on", "anything"])("%j disables: the hook is silent and writes exit 4", async (value) => {
    const root = newRepo(NOW - DAY);
    park(root, savedNow(root));
    // The first value through the built bundle, where the switch comes from the process environment.
    const spawn = value === "1";
    expect(await run(["hook", "--mode", "session", "--root", root], { env: { SESSION_HANDOFF_DISABLE: value }, spawn })).toMatchObject({ code: 0, stdout: "" });
    const w = await run(["write", "lessons", "--root", root, "--expected-current-sha256", "absent"], { input: "<!-- memory-schema: v1 -->\n# Lessons\n", env: { SESSION_HANDOFF_DISABLE: value }, spawn });
    expect(w.code).toBe(4);
    expect(w.stderr).toContain(`SESSION_HANDOFF_DISABLE=${value} from the environment`);
  });

  it.each(["", "0", "false", "FALSE", "no", "off", "Off"])("%j does not disable", async (value) => {
    const root = newRepo(NOW - DAY);
    park(root, savedNow(root));
    const spawn = value === "0";
    expect((await run(["hook", "--mode", "session", "--root", root], { env: { SESSION_HANDOFF_DISABLE: value }, spawn })).stdout).toContain("parked handoff exists");
    const w = await run(["write", "lessons", "--root", root, "--expected-current-sha256", "absent"], { input: "<!-- memory-schema: v1 -->\n# Lessons\n", env: { SESSION_HANDOFF_DISABLE: value }, spawn });
    expect(w.code, w.stderr).toBe(0);
  });
});

describe("also: history wording, the skill's own folder, odd paths", () => {
  it("rewritten history names squash merges among the causes", async () => {
    const root = newRepo(NOW - 3 * DAY);
    git(root, ["checkout", "-q", "-b", "topic"]);
    commit(root, "topic work", NOW - 2 * DAY, { "t.txt": "t\n" });
    // Two commits squashed into one: neither saved patch is on HEAD (one alone would be, as a copy).
    commit(root, "more topic work", NOW - 2 * DAY, { "u.txt": "u\n" });
    const text = savedNow(root);
    git(root, ["checkout", "-q", "main"]);
    git(root, ["merge", "-q", "--squash", "topic"]);
    git(root, ["commit", "-qm", "squashed"], NOW - DAY);
    git(root, ["branch", "-q", "-D", "topic"]);
    park(root, text);
    const d = await drift(root);
    expect(d.verdict).toBe("rewritten");
    expect(d.summary).toContain("(rebase, amend, reset, squash merge or force-push)");
  });

  it("anchors leave out the running skill's folder inside the root, as invoked and through a link", async () => {
    const root = newRepo(NOW - DAY, { ".claude/settings.json": "{}\n" });
    const skill = path.join(root, ".claude", "skills", "session-handoff");
    mkdirSync(path.join(skill, "scripts"), { recursive: true });
    copyHelper(path.join(skill, "scripts", "memory_io.mjs"));
    const inside = path.join(skill, "scripts", "memory_io.mjs");
    writeFileSync(path.join(root, "work.txt"), "dirty\n");
    expect((await run(["anchors", "--root", root], { bundle: inside })).stdout).toContain("- Dirty files: work.txt\n");
    // Other work under the same parent folder is still listed.
    writeFileSync(path.join(root, ".claude", "settings.json"), "{\"x\": 1}\n");
    expect((await run(["anchors", "--root", root], { bundle: inside })).stdout).toContain("- Dirty files: .claude/settings.json, work.txt\n");
    // Invoked through a linked folder outside the root: its real path is excluded.
    const links = tempDir("sh-links-");
    symlinkSync(skill, path.join(links, "session-handoff"));
    const linked = path.join(links, "session-handoff", "scripts", "memory_io.mjs");
    expect((await run(["anchors", "--root", root], { bundle: linked })).stdout).toContain("- Dirty files: .claude/settings.json, work.txt\n");
    // drift compares like with like: the same exclusion, so a fresh save stays unchanged.
    const a = (await run(["anchors", "--root", root], { bundle: inside })).stdout;
    writeFileSync(path.join(root, ".git", "info", "exclude"), ".ai/\n");
    park(root, `${handoff({ saved: iso(NOW), anchors: false })}## Environment anchors\n${a}`);
    const d = JSON.parse((await run(["drift", "--root", root, "--json"], { bundle: inside })).stdout);
    expect(d.dirtyChanged).toBe(false);
    // The helper run from elsewhere lists the skill folder's files as the dirty work they are there.
    expect((await run(["anchors", "--root", root])).stdout).toMatch(/^- Dirty files: \.claude\/settings\.json, \.claude\/skills\/session-handoff\/scripts\/lib\/cli\.mjs, .*\.claude\/skills\/session-handoff\/scripts\/memory_io\.mjs, work\.txt$/m);
  });

  it("write fills the anchors as anchors prints them: the running skill's folder is left out there too (17)", async () => {
    const root = newRepo(NOW - DAY);
    const skill = path.join(root, ".claude", "skills", "session-handoff");
    mkdirSync(path.join(skill, "scripts"), { recursive: true });
    copyHelper(path.join(skill, "scripts", "memory_io.mjs"));
    const inside = path.join(skill, "scripts", "memory_io.mjs");
    writeFileSync(path.join(root, "work.txt"), "dirty\n");
    const w = await run(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { bundle: inside, input: `${handoff({ saved: iso(NOW), anchors: false })}## Environment anchors\n- none\n` });
    expect(w.code, w.stderr).toBe(0);
    const saved = readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8");
    const dirty = (t: string) => /^- Dirty files: .*$/m.exec(t)![0];
    expect(dirty(saved)).toBe("- Dirty files: work.txt");
    expect(dirty(saved)).toBe(dirty((await run(["anchors", "--root", root], { bundle: inside })).stdout));
  });

  it("a skill folder that is the root itself is not excluded (its own repository)", async () => {
    const root = newRepo(NOW - DAY);
    mkdirSync(path.join(root, "scripts"));
    copyHelper(path.join(root, "scripts", "memory_io.mjs"));
    writeFileSync(path.join(root, "work.txt"), "dirty\n");
    expect((await run(["anchors", "--root", root], { bundle: path.join(root, "scripts", "memory_io.mjs") })).stdout).toMatch(/^- Dirty files: scripts\/lib\/cli\.mjs, .*scripts\/memory_io\.mjs, work\.txt$/m);
  });

  it.each([
    ["a comma", "a,b.txt", '"a,b.txt"'],
    ["a quote", 'say "hi".txt', '"say \\"hi\\".txt"'],
    ["a tab", "tab\there.txt", '"tab\\there.txt"'],
    ["a zero-width space", "zero\u200bwidth.txt", '"zero\\342\\200\\213width.txt"'],
    ["a right-to-left override", "evil\u202etxt.exe", '"evil\\342\\200\\256txt.exe"'],
    // A joiner between two letters is a living script's: write accepts it, so it stays as is.
    ["Persian with a half-space (ZWNJ)", "می\u200cخواهم.md", "می\u200cخواهم.md"],
    ["a stray joiner at a name's start", "\u200cstray.md", '"\\342\\200\\214stray.md"'],
    ["plain non-ASCII", "café.md", "café.md"],
  ])("a dirty path with %s is quoted so that drift reads it back exactly", async (_name, file, written) => {
    const root = newRepo(NOW - DAY);
    writeFileSync(path.join(root, file), "x\n");
    const a = await run(["anchors", "--root", root]);
    expect(a.stdout).toContain(`- Dirty files: ${written}\n`);
    writeFileSync(path.join(root, ".git", "info", "exclude"), ".ai/\n");
    park(root, `${handoff({ saved: iso(NOW), anchors: false })}## Environment anchors\n${a.stdout}`);
    const d = await drift(root);
    expect((d.saved as { dirty: string[] }).dirty).toEqual([file]);
    expect(d.dirtyChanged).toBe(false);
  });
});
