// Claude Code's status line of ours: composed with the user's own command, installed and
// uninstalled exactly. The verbs run in this process (test/in-process.ts); the installed command
// (spawned through sh), the hook, a crash and a FIFO spawn the built helper.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, helper, MARKER, tempDir } from "../helpers.ts";
import { gitCalls, loggingGit } from "../git/repo.ts";
import { inProcess, saveIn } from "../in-process.ts";

const USER_SETTINGS = `{\n  "model": "opus",\n  "statusLine": {\n    "type": "command",\n    "command": "echo 'my line'",\n    "padding": 0\n  }\n}\n`;

function statusOf(root: string, pct = 45.2): string {
  const s = JSON.parse(readFileSync(path.join(root, ".claude", "settings.json"), "utf8"));
  const r = spawnSync("sh", ["-c", s.statusLine.command], { input: JSON.stringify({ cwd: root, context_window: { used_percentage: pct } }), encoding: "utf8" });
  return r.stdout;
}

const doc = `<!-- memory-schema: v1 -->\n# Session Handoff\n\n## Current goal\nA goal\n\n## Plan\n- [ ] step\n\n## Decisions\n- none\n\n## Failed approaches\n- none\n\n## Open questions\n- none\n\n## Next steps\n1. step — done when it passes\n\n## Key files\n- none\n\n## Environment anchors\n`;

describe("statusline", () => {
  it("install composes with the user's status line (theirs first), re-install changes no byte, uninstall gives it back exactly", async () => {
    const root = gitRepo();
    mkdirSync(path.join(root, ".claude"));
    const file = path.join(root, ".claude", "settings.json");
    writeFileSync(file, USER_SETTINGS);
    expect((await inProcess(["install", "--agent", "claude-code", "--root", root])).code).toBe(0);
    const installed = readFileSync(file, "utf8");
    expect(JSON.parse(installed).statusLine.padding).toBe(0);
    expect(statusOf(root)).toBe("my line | handoff: none · context 45%\n");
    expect((await inProcess(["install", "--agent", "claude-code", "--root", root])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(installed);
    expect((await inProcess(["uninstall", "--agent", "claude-code", "--root", root])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(USER_SETTINGS);
  });

  it("without a status line of the user's: ours alone, and uninstall removes the file it created", async () => {
    const root = gitRepo();
    expect((await inProcess(["install", "--agent", "claude-code", "--root", root])).code).toBe(0);
    expect(statusOf(root, 12)).toBe("handoff: none · context 12%\n");
    expect((await inProcess(["uninstall", "--agent", "claude-code", "--root", root])).code).toBe(0);
    expect(existsSync(path.join(root, ".claude", "settings.json"))).toBe(false);
  });

  it("a status line in the user's own Claude Code settings is not hidden by one in the project", async () => {
    const root = gitRepo();
    const home = mkdtempSync(path.join(tmpdir(), "sh-home-"));
    mkdirSync(path.join(home, ".claude"));
    writeFileSync(path.join(home, ".claude", "settings.json"), USER_SETTINGS);
    const r = await inProcess(["install", "--agent", "claude-code", "--root", root], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`kept your own status line (${path.join(home, ".claude", "settings.json")})`);
    const project = JSON.parse(readFileSync(path.join(root, ".claude", "settings.json"), "utf8"));
    expect(project.statusLine).toBeUndefined();
    expect(project.hooks.SessionStart).toHaveLength(1);
    // doctor judges it by the same rule: current, not outdated.
    const doctor = (await inProcess(["doctor", "--root", root], { env: { HOME: home } })).stdout;
    expect(doctor).toContain(".claude/settings.json current");
    expect(doctor).not.toContain("outdated");
    expect((await inProcess(["uninstall", "--agent", "claude-code", "--root", root], { env: { HOME: home } })).code).toBe(0);
    expect(existsSync(path.join(root, ".claude", "settings.json"))).toBe(false);
  });

  it("shows the handoff's age and the commits since its HEAD anchor", async () => {
    const root = gitRepo();
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: root })).code).toBe(0);
    writeFileSync(path.join(root, "a.txt"), "a\n");
    git(root, "add", "a.txt");
    git(root, "commit", "-qm", "a");
    const r = await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) });
    expect(r.stdout).toBe("handoff: saved today · 1 commit since\n");
    // `publish`'s commit (memory and its .gitattributes block) is memory-only, as in the brief: not counted.
    const tok = /CURRENT-SHA256: (\S+)/.exec((await inProcess(["read", "handoff"], { cwd: root })).stdout)![1]!;
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", tok], { input: doc, cwd: root })).code).toBe(0);
    expect((await inProcess(["publish"], { cwd: root })).code).toBe(0);
    expect((await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout).toBe("handoff: saved today · 0 commits since\n");
  });

  it("a handoff `git stash -u` took is said as the hook says it, only when a stash since the save holds one", async () => {
    const root = gitRepo();
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: root })).code).toBe(0);
    const line = async () => (await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout;
    git(root, "stash", "-u", "-q");
    expect(await line()).toBe("handoff: in stash@{0} (run check)\n");
    git(root, "stash", "pop", "-q");
    expect(await line()).toBe("handoff: saved today · 0 commits since\n");
    // A stash made since the save that holds no handoff, the memory dir deleted: git's copy, never the stash.
    writeFileSync(path.join(root, "README.md"), "an unrelated edit\n");
    git(root, "stash", "-q");
    rmSync(path.join(root, ".ai", "memory"), { recursive: true });
    expect(await line()).toBe("handoff: none here, newest save lost (run check)\n");
    git(root, "prune", "--expire=now");
    expect(await line()).toBe("handoff: none\n");
  });

  it("a linked worktree's `git stash -u` of its handoff is said though the main worktree saved since", async () => {
    const root = gitRepo();
    const wt = path.join(tempDir("sh-wt-"), "feat");
    git(root, "worktree", "add", "-q", "-b", "feat", wt);
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: wt })).code).toBe(0);
    // Each step in a later second than the one before (a stash of the save's own second counts as since it).
    const nextSecond = () => {
      const next = (Math.floor(Date.now() / 1000) + 1) * 1000;
      while (Date.now() < next) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    };
    nextSecond();
    git(wt, "stash", "-u", "-q");
    nextSecond();
    // The clone's last save is now the main worktree's, a second after the stash.
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: root })).code).toBe(0);
    expect((await inProcess(["statusline"], { input: JSON.stringify({ cwd: wt }) })).stdout).toBe("handoff: in stash@{0} (run check)\n");
    expect(helper(["hook", "--mode", "session", "--root", wt]).stdout).toContain("a handoff is parked in stash@{0}, not in the working tree");
    expect((await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout).toBe("handoff: saved today · 0 commits since\n");
  });

  it("a linked worktree's stash stays its own after moves its reflog does not name (orphan checkout, no reflog)", async () => {
    for (const move of ["orphan", "no reflog"]) {
      const root = gitRepo();
      if (move === "no reflog") git(root, "config", "core.logAllRefUpdates", "false");
      git(root, "branch", "x");
      const wt = path.join(tempDir("sh-wt-"), "x");
      git(root, "worktree", "add", "-q", wt, "x");
      expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: wt })).code).toBe(0);
      git(wt, "stash", "-u", "-q");
      if (move === "orphan") git(wt, "checkout", "-q", "--orphan", "fresh");
      else git(wt, "switch", "-q", "-c", "feat");
      const line = (await inProcess(["statusline"], { input: JSON.stringify({ cwd: wt }) })).stdout;
      expect(line, move).toBe("handoff: in stash@{0} (run check)\n");
      expect((await inProcess(["check", "--root", wt])).stdout, move).toContain("a handoff is parked in stash@{0}");
    }
  });

  it("the main worktree's save in the second of a linked worktree's save and `git stash -u` does not hide that stash", { timeout: 60_000 }, async () => {
    // Both saves run in this process, from the start of a second; the stash is dated with the first save's second, which
    // the linked worktree's own last save keeps.
    const savedAt = (root: string) =>
      Date.parse(/^Saved: (\S+)$/m.exec(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8"))![1]!);
    const attempt = async () => {
      const root = gitRepo();
      const wt = path.join(tempDir("sh-wt-"), "feat");
      git(root, "worktree", "add", "-q", "-b", "feat", wt);
      const env = { HOME: path.join(root, ".git", "home"), GIT_CEILING_DIRECTORIES: path.dirname(root) };
      const write = (dir: string) =>
        inProcess(["write", "handoff", "--expected-current-sha256", "absent", "--root", dir], { input: doc, env });
      const next = Math.ceil(Date.now() / 1000) * 1000;
      while (Date.now() < next) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      expect((await write(wt)).code).toBe(0);
      const first = savedAt(wt);
      execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", "stash", "-q", "-u"],
        { cwd: wt, env: { ...process.env, GIT_COMMITTER_DATE: `@${first / 1000} +0000` } });
      expect((await write(root)).code).toBe(0);
      return { wt, same: savedAt(root) === first };
    };
    let at = await attempt();
    for (let n = 0; n < 3 && !at.same; n++) at = await attempt();
    expect(at.same).toBe(true);
    expect((await inProcess(["statusline"], { input: JSON.stringify({ cwd: at.wt }) })).stdout).toBe("handoff: in stash@{0} (run check)\n");
  });

  it("a stash since the save holding a newer handoff, and a teammate's handoff whose commit is not here, are said", async () => {
    const root = gitRepo();
    const line = async () => (await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout;
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: root })).code).toBe(0);
    expect((await inProcess(["publish"], { cwd: root })).code).toBe(0);
    // A newer save, then `git stash` (the memory tracked): the older, committed handoff is back in the tree.
    const tok = /CURRENT-SHA256: (\S+)/.exec((await inProcess(["read", "handoff"], { cwd: root })).stdout)![1]!;
    const newer = doc.replace("A goal", "A newer goal");
    // A second apart: two saves of one second are told apart by their bytes only, which the edit below changes.
    await new Promise((done) => setTimeout(done, 1000 - (Date.now() % 1000) + 5));
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", tok], { input: newer, cwd: root })).code).toBe(0);
    git(root, "stash", "-q");
    expect(await line()).toBe("handoff: saved today · 0 commits since · a newer save in stash@{0} (run check)\n");
    git(root, "stash", "pop", "-q");
    expect(await line()).toBe("handoff: saved today · 0 commits since\n");
    // A handoff saved at a commit this clone has never had (a teammate's, pasted or pulled without it).
    const text = readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8");
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), text.replace(/- HEAD: [0-9a-f]+/, `- HEAD: ${"1".repeat(40)}`));
    // The edit changed the save's stamp (its `- HEAD:` digits), not its `Saved:` time: no save was lost.
    expect(await line()).toBe("handoff: saved today · saved HEAD not in this clone (run brief)\n");
    expect(JSON.parse((await inProcess(["check", "--json"], { cwd: root })).stdout).lost).toBeUndefined();
  });

  it("a stash made in a save's own second counts as since it, made before the save or after, for drift too", { timeout: 60_000 }, async () => {
    // The reflog's times are whole seconds: the stash is dated the next second, and the save made in this process (no
    // node start to wait for) once that second has begun.
    const attempt = async () => {
      const root = gitRepo();
      const env = { HOME: path.join(root, ".git", "home"), GIT_CEILING_DIRECTORIES: path.dirname(root) };
      const second = Math.floor(Date.now() / 1000) + 1;
      const stash = (...args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com",
        "stash", "-q", ...args], { cwd: root, env: { ...process.env, ...env, GIT_COMMITTER_DATE: `@${second} +0000` } });
      const write = (input: string) =>
        inProcess(["write", "handoff", "--expected-current-sha256", "absent", "--root", root], { input, env });
      expect((await write(doc)).code).toBe(0);
      stash("-u");
      while (Date.now() < second * 1000) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      expect((await write(doc.replace("A goal", "A later goal"))).code).toBe(0);
      const saved = /^Saved: (\S+)$/m.exec(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8"))![1]!;
      return { root, env, stash, same: Date.parse(saved) === second * 1000 };
    };
    let at = await attempt();
    for (let n = 0; n < 3 && !at.same; n++) at = await attempt();
    expect(at.same).toBe(true);
    const { root, env, stash } = at;
    const line = async () => (await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }), env })).stdout;
    const since = async () => JSON.parse((await inProcess(["drift", "--json", "--root", root], { env })).stdout).stashesSince;
    // Whole seconds cannot order it: drift names the stash that took the earlier handoff, once more than it should be;
    // the line, as check, names none, as the tree holds the newest save.
    expect(await line()).toBe("handoff: saved today · 0 commits since\n");
    expect(await since()).toEqual(["stash@{0}"]);
    // Stashes made after the save, in its second: drift names them, and the status line sees the handoff one took.
    writeFileSync(path.join(root, "README.md"), "an edit after the save\n");
    stash();
    expect(await since()).toEqual(["stash@{0}", "stash@{1}"]);
    stash("-u");
    expect(await line()).toBe("handoff: in stash@{0} (run check)\n");
  });

  it("a save a `git reset --hard` discarded is said as check says it; no git of newestSave's while the tree holds it", { timeout: 60_000 }, () => {
    const root = gitRepo();
    expect(helper(["install", "--agent", "claude-code", "--root", root]).code).toBe(0);
    const save = (text: string) => {
      const tok = /CURRENT-SHA256: (\S+)/.exec(helper(["read", "handoff"], { cwd: root }).stdout)![1]!;
      expect(helper(["write", "handoff", "--expected-current-sha256", tok], { input: text, cwd: root }).code).toBe(0);
    };
    save(doc);
    expect(helper(["publish"], { cwd: root }).code).toBe(0);
    writeFileSync(path.join(root, "a.txt"), "work\n");
    git(root, "add", "a.txt");
    git(root, "commit", "-qm", "code");
    save(doc.replace("A goal", "A newer goal"));
    // As installed, every turn: while the tree holds this worktree's newest save, only the count's git runs (its
    // `log`, and the `config` the runner reads first).
    const { bin, log } = loggingGit();
    const s = JSON.parse(readFileSync(path.join(root, ".claude", "settings.json"), "utf8"));
    const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
    const input = JSON.stringify({ cwd: root, context_window: { used_percentage: 45 } });
    const r = spawnSync("sh", ["-c", s.statusLine.command], { input, encoding: "utf8", env });
    expect(r.stdout).toBe("handoff: saved today · 0 commits since · context 45%\n");
    expect(gitCalls(log).map((c) => c[0])).toEqual(["config", "log"]);
    git(root, "reset", "-q", "--hard", "HEAD~1");
    const check = JSON.parse(helper(["check", "--json"], { cwd: root }).stdout);
    expect(check.lost).toMatch(/^\d{4}-/);
    expect(statusOf(root)).toBe("handoff: saved today · 0 commits since · newest save lost (run check) · context 45%\n");
    // Its command brings the save back: nothing is lost, and the commit the reset dropped is said as the brief says it.
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), git(root, "cat-file", "blob", check.restore.split(" ")[3]));
    expect(statusOf(root)).toBe("handoff: saved today · 0 commits since · saved HEAD rewritten, 1 saved commit changed or dropped · context 45%\n");
  });

  it("a save killed after its claim (HANDOFF.md under a private name) is said as the hook says it, not 'none'", async () => {
    const root = gitRepo();
    const line = async () => (await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout;
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: root })).code).toBe(0);
    const tok = /CURRENT-SHA256: (\S+)/.exec((await inProcess(["read", "handoff"], { cwd: root })).stdout)![1]!;
    const crash = helper(["write", "handoff", "--expected-current-sha256", tok], {
      input: doc.replace("A goal", "A second goal"), cwd: root, env: { MEMORY_IO_FAILPOINT: "after-claim:crash" },
    });
    expect(crash.signal).toBe("SIGKILL");
    expect(existsSync(path.join(root, ".ai", "memory", "HANDOFF.md"))).toBe(false);
    expect(await line()).toBe("handoff: an interrupted save (run recover)\n");
    expect((await inProcess(["recover"], { cwd: root })).code).toBe(0);
    expect(await line()).toBe("handoff: saved today · 0 commits since\n");
  });

  it("a commit of the user's .gitattributes alone counts; publish's, adding our block on it, does not", async () => {
    const root = gitRepo();
    expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: root })).code).toBe(0);
    writeFileSync(path.join(root, ".gitattributes"), "*.png binary\n");
    git(root, "add", ".gitattributes");
    git(root, "commit", "-qm", "attributes");
    const line = async () => (await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout;
    expect(await line()).toBe("handoff: saved today · 1 commit since\n");
    expect((await inProcess(["publish"], { cwd: root })).code).toBe(0);
    expect(git(root, "show", "HEAD:.gitattributes")).toMatch(/^\*\.png binary\n# >>> session-handoff merge driver/);
    expect(await line()).toBe("handoff: saved today · 1 commit since\n");
  });

  it("after a cd into a nested repository: roots at the project as the hook does, not at the input's cwd", async () => {
    const root = gitRepo();
    await saveIn(root, doc);
    const nested = path.join(root, "vendor", "lib");
    mkdirSync(nested, { recursive: true });
    git(nested, "init", "-q");
    const input = (ws: object) => JSON.stringify({ cwd: nested, ...ws });
    // The built bundle, as Claude Code runs it. Before, each said "handoff: none" from the nested repository.
    const byVar = helper(["statusline"], { input: input({}), env: { CLAUDE_PROJECT_DIR: root } }).stdout;
    const byInput = helper(["statusline"], { input: input({ workspace: { project_dir: root, current_dir: nested } }) });
    for (const line of [byVar, byInput.stdout]) expect(line).toMatch(/^handoff: saved today/);
    expect(helper(["statusline"], { input: input({}) }).stdout).toBe("handoff: none\n");
  });

  it("reads HANDOFF.md only as a regular file (a FIFO there is unsafe, at once) and takes HEAD from the anchors", async () => {
    const root = gitRepo();
    const mem = path.join(root, ".ai", "memory");
    mkdirSync(mem, { recursive: true });
    execFileSync("mkfifo", [path.join(mem, "HANDOFF.md")]);
    // A FIFO the verb opened would hang this process: spawned, a hang ends at the spawn's timeout.
    const fifo = helper(["statusline"], { input: JSON.stringify({ cwd: root }) });
    expect(fifo.stdout).toBe("handoff: memory unsafe (run check)\n");
    execFileSync("rm", [path.join(mem, "HANDOFF.md")]);
    const head = git(root, "rev-parse", "HEAD").trim();
    writeFileSync(path.join(root, "a.txt"), "a\n");
    git(root, "add", "a.txt");
    git(root, "commit", "-qm", "a");
    const quoted = "- HEAD: " + "0".repeat(40);
    const doc = `${MARKER}\n# Session Handoff\nSaved: 2026-11-30T10:00:00Z\n\n## Decisions\n\n\`\`\`\n${quoted}\n\`\`\`\n\n` +
      `## Environment anchors\n- Branch: main\n- HEAD: ${head}\n- Dirty files: none\n- Date: 2026-11-30T10:00:00Z\n`;
    writeFileSync(path.join(mem, "HANDOFF.md"), doc);
    expect((await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout).toMatch(/ · 1 commit since\n$/);
  });
  it("agrees with the brief when the saved HEAD is off HEAD's history: rebased, amended, mid-merge", async () => {
    const commit = (root: string, file: string, text: string, ...flags: string[]) => {
      writeFileSync(path.join(root, file), text);
      git(root, "add", file);
      git(root, "commit", "-q", ...flags, "-m", file);
    };
    const line = async (root: string) => (await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout;
    const save = async (root: string) =>
      expect((await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, cwd: root })).code).toBe(0);
    // Rebased onto a moved main: the saved commit is on HEAD as a copy, one other commit since (the brief's words).
    const rebased = gitRepo();
    git(rebased, "checkout", "-qb", "feat");
    commit(rebased, "x.txt", "x\n");
    await save(rebased);
    git(rebased, "checkout", "-q", "main");
    commit(rebased, "u.txt", "u\n");
    git(rebased, "checkout", "-q", "feat");
    git(rebased, "rebase", "-q", "main");
    expect(await line(rebased)).toBe("handoff: saved today · 1 commit since · saved HEAD rewritten, patches kept\n");
    // The saved HEAD amended with new content: history rewritten, not one plain commit since.
    const amended = gitRepo();
    commit(amended, "x.txt", "x\n");
    await save(amended);
    commit(amended, "x.txt", "x2\n", "--amend");
    expect(await line(amended)).toBe("handoff: saved today · 1 commit since · saved HEAD rewritten, 1 saved commit changed or dropped\n");
    // Mid-merge, the handoff in the tree came from the other side: HEAD lacks its commit (the brief: 1 behind).
    const merging = gitRepo();
    git(merging, "checkout", "-qb", "other");
    commit(merging, "o.txt", "o\n");
    await save(merging);
    git(merging, "add", "-f", ".ai/memory/HANDOFF.md");
    git(merging, "commit", "-qm", "handoff");
    git(merging, "checkout", "-q", "main");
    git(merging, "merge", "-q", "--no-ff", "--no-commit", "other");
    expect(await line(merging)).toBe("handoff: saved today · 0 commits since · 1 saved commit not on this branch\n");
  });

  it("says memory is conflicted while a merge leaves it so, as the hook and check do, never its age", async () => {
    const root = gitRepo();
    const line = async () => (await inProcess(["statusline"], { input: JSON.stringify({ cwd: root, context_window: { used_percentage: 40 } }) })).stdout;
    const commitHandoff = async (goal: string) => {
      const text = doc.replace("A goal", goal);
      const tok = /CURRENT-SHA256: (\S+)/.exec((await inProcess(["read", "handoff"], { cwd: root })).stdout)![1]!;
      expect((await inProcess(["write", "handoff", "--expected-current-sha256", tok], { input: text, cwd: root })).code).toBe(0);
      git(root, "add", "-f", ".ai/memory/HANDOFF.md");
      git(root, "commit", "-qm", goal);
    };
    git(root, "checkout", "-qb", "other");
    await commitHandoff("Their goal");
    git(root, "checkout", "-q", "main");
    await commitHandoff("My goal");
    // No merge driver in this clone: git writes its markers and holds the file unmerged.
    expect(spawnSync("git", ["merge", "-q", "other"], { cwd: root, encoding: "utf8" }).status).not.toBe(0);
    expect(await line()).toBe("handoff: memory conflicted (run check) · context 40%\n");
    // One side taken without markers: git still holds it unmerged until it is added.
    git(root, "checkout", "--ours", "--", ".ai/memory/HANDOFF.md");
    expect(await line()).toBe("handoff: memory conflicted (run check) · context 40%\n");
    git(root, "add", ".ai/memory/HANDOFF.md");
    git(root, "commit", "-qm", "merged");
    expect(await line()).toMatch(/^handoff: saved today · .* · context 40%\n$/);
  });

  // A teammate's clone, a bare origin: after each rewrite or merge, what the line claims is what brief --json's drift
  // facts give (on HEAD's history or held by any ref: ahead and behind; rewritten: the commits since and the saved
  // commits with no copy), memory-only commits aside.
  describe("agrees with brief --json's drift facts across clones", () => {
    const commit = (root: string, file: string, text: string, ...flags: string[]) => {
      writeFileSync(path.join(root, file), text);
      git(root, "add", file);
      git(root, "commit", "-q", ...flags, "-m", file);
    };
    // A save, then a commit of the memory dir alone (the brief leaves it out).
    const saveAndCommitMemory = async (root: string) => {
      await saveIn(root, doc);
      git(root, "add", "-f", ".ai/memory");
      git(root, "commit", "-qm", "memory");
    };
    const clones = () => {
      const dir = tempDir();
      const [origin, mine, theirs] = ["origin.git", "mine", "theirs"].map((d) => path.join(dir, d)) as [string, string, string];
      git(dir, "init", "-q", "--bare", origin);
      git(dir, "init", "-q", mine);
      commit(mine, "index.js", "v1\n");
      git(mine, "remote", "add", "origin", origin);
      git(mine, "push", "-q", "-u", "origin", "main");
      git(dir, "clone", "-q", origin, theirs);
      return { mine, theirs };
    };
    const claimOf = (line: string) => ({
      commits: Number(/ · (\d+) commits? since/.exec(line)?.[1] ?? NaN),
      lost: Number(/ · (?:saved HEAD rewritten, )?(\d+) saved commits? (?:not on this branch|changed or dropped)/.exec(line)?.[1] ?? 0),
      copied: line.includes(" · saved HEAD rewritten, patches kept"),
    });
    const agree = async (root: string, expected: string) => {
      const line = (await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) })).stdout;
      const d = JSON.parse((await inProcess(["brief", "--json"], { cwd: root })).stdout).drift;
      const facts = d.headReachable === true ? { commits: d.ahead, lost: d.behind, copied: false }
        : { commits: d.sinceSaved, lost: d.savedChanged, copied: d.savedChanged === 0 };
      expect(claimOf(line), `${line} against ${d.summary}`).toEqual(facts);
      expect(line).toBe(expected);
    };

    it("a pull whose conflict was resolved as ours and committed counts the other side and the merge", async () => {
      const { mine, theirs } = clones();
      commit(mine, "index.js", "mine\n");
      await saveAndCommitMemory(mine);
      await saveAndCommitMemory(mine);
      commit(theirs, "index.js", "theirs\n");
      git(theirs, "push", "-q", "origin", "main");
      expect(() => git(mine, "pull", "-q", "--no-rebase", "origin", "main")).toThrow();
      writeFileSync(path.join(mine, "index.js"), "mine\n");
      git(mine, "add", "index.js");
      git(mine, "commit", "-q", "--no-edit");
      await agree(mine, "handoff: saved today · 2 commits since\n");
    });

    it("a squash of pushed commits, a message-only amend of a pushed one: held by origin, so diverged, not rewritten", async () => {
      const { mine } = clones();
      commit(mine, "index.js", "two\n");
      await saveAndCommitMemory(mine);
      git(mine, "push", "-q", "origin", "main");
      git(mine, "reset", "-q", "--soft", "HEAD~2");
      git(mine, "commit", "-qm", "squashed");
      await agree(mine, "handoff: saved today · 1 commit since · 1 saved commit not on this branch\n");
      const amended = clones().mine;
      commit(amended, "index.js", "two\n");
      await saveIn(amended, doc);
      git(amended, "push", "-q", "origin", "main");
      git(amended, "commit", "-q", "--amend", "-m", "reworded");
      await agree(amended, "handoff: saved today · 1 commit since · 1 saved commit not on this branch\n");
      // Unpushed, the same amend is a rewrite whose patch is kept.
      const local = clones().mine;
      commit(local, "index.js", "two\n");
      await saveIn(local, doc);
      git(local, "commit", "-q", "--amend", "-m", "reworded");
      await agree(local, "handoff: saved today · 0 commits since · saved HEAD rewritten, patches kept\n");
      // Unpushed, an amend that changed the content: rewritten, not "not on this branch" (which says behind).
      const changed = clones().mine;
      commit(changed, "index.js", "two\n");
      await saveIn(changed, doc);
      commit(changed, "index.js", "three\n", "--amend");
      await agree(changed, "handoff: saved today · 1 commit since · saved HEAD rewritten, 1 saved commit changed or dropped\n");
    });

    it("a rebase of a pushed branch onto a teammate's work: the saved commit is still origin's, not rewritten", async () => {
      const { mine, theirs } = clones();
      git(mine, "checkout", "-qb", "feat");
      commit(mine, "feature.js", "f\n");
      await saveIn(mine, doc);
      git(mine, "push", "-q", "origin", "feat");
      commit(theirs, "index.js", "theirs\n");
      git(theirs, "push", "-q", "origin", "main");
      git(mine, "fetch", "-q", "origin");
      git(mine, "rebase", "-q", "origin/main");
      await agree(mine, "handoff: saved today · 2 commits since · 1 saved commit not on this branch\n");
      // Once origin's branch follows the rebase, nothing holds the saved commit: rewritten, its patch kept.
      git(mine, "push", "-q", "-f", "origin", "feat");
      await agree(mine, "handoff: saved today · 1 commit since · saved HEAD rewritten, patches kept\n");
    });
  });
});
