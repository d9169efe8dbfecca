// `publish` against a local bare repository as the remote.
import { spawnSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isPublicMemoryPath } from "../../src/git/publish-memory.ts";
import { git, gitRepo, handoff, helper, MARKER, tempDir } from "../helpers.ts";
import { inProcess, saveIn } from "../in-process.ts";

const HANDOFF = `${MARKER}\n# Session Handoff\n\nSaved: 2026-11-30T10:00:00Z\n`;

function project(): { root: string; remote: string } {
  const root = gitRepo();
  const remote = tempDir("sh-remote-");
  git(remote, "init", "-q", "--bare");
  git(root, "remote", "add", "origin", remote);
  git(root, "push", "-q", "-u", "origin", "main");
  const mem = path.join(root, ".ai", "memory");
  mkdirSync(path.join(mem, "archive"), { recursive: true });
  mkdirSync(path.join(mem, "checkpoints"));
  writeFileSync(path.join(mem, "HANDOFF.md"), HANDOFF);
  writeFileSync(path.join(mem, "LESSONS.md"), `${MARKER}\n# Lessons\n`);
  writeFileSync(path.join(mem, "archive", "HANDOFF-2026-11-29T10-00-00.000Z-0123abcd.md"), HANDOFF);
  writeFileSync(path.join(mem, "checkpoints", "abc.md"), "user words\n");
  writeFileSync(path.join(mem, ".scratch"), "private\n");
  return { root, remote };
}

const ENV = { GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };
// The verb runs in this process (test/in-process.ts): git, its hooks and the remote are real.
const run = (root: string, ...args: string[]) => inProcess(["publish", "--root", root, ...args], { env: ENV });

describe("publish", () => {
  it("commits exactly the memory dir's public files; the user's staged change stays staged and out", async () => {
    const { root } = project();
    writeFileSync(path.join(root, "feature.ts"), "staged work\n");
    git(root, "add", "feature.ts");
    writeFileSync(path.join(root, "README.md"), "unstaged edit\n");
    // This one case spawns the built bundle, as users run it; the others run the verb in this process.
    const r = helper(["publish", "--root", root], { env: ENV });
    expect(r.stderr).toBe("");
    expect(r).toMatchObject({ code: 0 });
    // The first publish in a clone registers the merge driver and commits its attributes block
    // (docs/decisions/merge-driver.md).
    expect(r.stdout).toMatch(
      /^registered the merge driver session-handoff in \.git\/config\nadded the merge driver's block to \.gitattributes\npublished 4 file\(s\) in [0-9a-f]{12}\ncommitted \.gitattributes with the merge driver's block [^\n]*\n$/,
    );
    const files = git(root, "show", "--name-only", "--format=", "HEAD").trim().split("\n").sort();
    expect(files).toEqual([".ai/memory/HANDOFF.md", ".ai/memory/LESSONS.md", ".ai/memory/archive/HANDOFF-2026-11-29T10-00-00.000Z-0123abcd.md", ".gitattributes"]);
    expect(git(root, "log", "-1", "--format=%s")).toBe("session-handoff: publish session memory\n");
    expect(git(root, "diff", "--cached", "--name-only")).toBe("feature.ts\n");
    expect(git(root, "diff", "--name-only")).toBe("README.md\n");
  });

  it("the user's own uncommitted .gitattributes lines stay out of the commit and in their file", async () => {
    const { root } = project();
    writeFileSync(path.join(root, ".gitattributes"), "*.txt text\n");
    git(root, "add", ".gitattributes");
    git(root, "commit", "-qm", "attributes");
    const wip = "*.psd filter=lfs diff=lfs merge=lfs -text\n";
    writeFileSync(path.join(root, ".gitattributes"), `*.txt text\n${wip}`);
    const r = await run(root);
    expect(r.code, r.stderr).toBe(0);
    const committed = git(root, "show", "HEAD:.gitattributes");
    expect(committed).toMatch(/^\*\.txt text\n# >>> session-handoff merge driver[^\n]*\n\.ai\/memory\/\*\*\/\*\.md merge=session-handoff eol=lf\n# <<< /);
    expect(committed).not.toContain("psd");
    expect(readFileSync(path.join(root, ".gitattributes"), "utf8")).toBe(`${committed.split("\n")[0]}\n${wip}${committed.slice(11)}`);
    expect(git(root, "diff", "--cached", "--name-only")).toBe("");
    expect(git(root, "diff", "--name-only")).toBe(".gitattributes\n");
  });

  it("a .gitattributes line the user staged stays staged, with our block on it (found by a breaker)", async () => {
    const { root } = project();
    writeFileSync(path.join(root, ".gitattributes"), "*.txt text\n");
    git(root, "add", ".gitattributes");
    git(root, "commit", "-qm", "attributes");
    writeFileSync(path.join(root, ".gitattributes"), "*.txt text\n*.png binary\n");
    git(root, "add", ".gitattributes");
    writeFileSync(path.join(root, ".gitattributes"), "*.txt text\n*.gif binary\n");
    const r = await run(root);
    expect(r.code, r.stderr).toBe(0);
    const committed = git(root, "show", "HEAD:.gitattributes");
    expect(committed).not.toMatch(/png|gif/);
    const staged = git(root, "show", ":.gitattributes");
    expect(staged).toBe(committed.replace("*.txt text\n", "*.txt text\n*.png binary\n"));
    expect(readFileSync(path.join(root, ".gitattributes"), "utf8")).toBe(committed.replace("*.txt text\n", "*.txt text\n*.gif binary\n"));
  });

  it("nothing to publish: exit 0, no commit", async () => {
    const { root } = project();
    await run(root);
    const head = git(root, "rev-parse", "HEAD");
    const r = await run(root);
    expect(r).toMatchObject({ code: 0, stdout: "nothing to publish\n" });
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
  });

  it("no memory file: refused, and nothing changes (no driver, no attributes, no commit)", async () => {
    const root = gitRepo();
    const head = git(root, "rev-parse", "HEAD");
    const config = readFileSync(path.join(root, ".git", "config"), "utf8");
    const r = await run(root);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: nothing to publish: \.ai\/memory\/ holds no memory file/m);
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
    expect(existsSync(path.join(root, ".gitattributes"))).toBe(false);
    expect(readFileSync(path.join(root, ".git", "config"), "utf8")).toBe(config);
    // Only private files and checkpoints: still nothing to publish.
    mkdirSync(path.join(root, ".ai", "memory", "checkpoints"), { recursive: true });
    writeFileSync(path.join(root, ".ai", "memory", "checkpoints", "abc.md"), "user words\n");
    expect((await run(root)).code).toBe(2);
    expect(git(root, "status", "--porcelain")).toBe("?? .ai/\n");
  });

  it("on a detached HEAD: refused before anything changes, with and without --push (found by a breaker)", async () => {
    const { root } = project();
    git(root, "checkout", "-q", "--detach");
    const head = git(root, "rev-parse", "HEAD");
    const config = readFileSync(path.join(root, ".git", "config"), "utf8");
    for (const args of [[], ["--push"]]) {
      const r = await run(root, ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^memory operation refused: HEAD is detached .*`git switch -c <name>`.*nothing was changed\)$/m);
      expect(git(root, "rev-parse", "HEAD")).toBe(head);
      expect(existsSync(path.join(root, ".gitattributes"))).toBe(false);
      expect(readFileSync(path.join(root, ".git", "config"), "utf8")).toBe(config);
    }
  });

  it("on an unborn branch: its commit is memory-only for a save made before it (found by a breaker)", async () => {
    const root = tempDir("sh-unborn-");
    git(root, "init", "-q");
    writeFileSync(path.join(root, "a.txt"), "a\n");
    git(root, "add", "a.txt");
    // The helper fills the empty anchors: `HEAD: none (no commits yet)`.
    const text = handoff("goal");
    const empty = text.slice(0, text.indexOf("## Environment anchors")) + "## Environment anchors\n";
    const w = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: empty, env: ENV });
    expect(w.code, w.stderr).toBe(0);
    expect((await run(root)).code).toBe(0);
    const d = JSON.parse((await inProcess(["drift", "--json", "--root", root], { env: ENV })).stdout);
    expect(d).toMatchObject({ verdict: "fresh", ahead: 0, memoryOnlyCommits: 1 });
  });

  it("a pruned archive's deletion is published too", async () => {
    const { root } = project();
    await run(root);
    const gone = path.join(root, ".ai", "memory", "archive", "HANDOFF-2026-11-29T10-00-00.000Z-0123abcd.md");
    writeFileSync(path.join(root, "other.txt"), "x\n");
    unlinkSync(gone);
    const r = await run(root, "--message", "memory: prune");
    expect(r.code).toBe(0);
    expect(git(root, "show", "--name-status", "--format=", "HEAD")).toBe("D\t.ai/memory/archive/HANDOFF-2026-11-29T10-00-00.000Z-0123abcd.md\n");
  });

  it("--push pushes to the branch's upstream only", async () => {
    const { root, remote } = project();
    const r = await run(root, "--push");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("pushed to origin main");
    expect(git(remote, "rev-parse", "main")).toBe(git(root, "rev-parse", "HEAD"));
  });

  it("a handoff whose saved commit an amend replaced: --push refused before anything, publish warns", { timeout: 60_000 }, async () => {
    const { root, remote } = project();
    writeFileSync(path.join(root, "a.txt"), "one\n");
    git(root, "add", "a.txt");
    git(root, "commit", "-qm", "one");
    // Anchors left to the helper: it records HEAD.
    const doc = handoff("ship a").replace(/- Date: .*\n$/, "");
    await saveIn(root, doc);
    const saved = git(root, "rev-parse", "HEAD").trim();
    writeFileSync(path.join(root, "a.txt"), "two\n");
    git(root, "commit", "-q", "--amend", "-am", "one, amended");
    const amended = git(root, "rev-parse", "HEAD");
    const config = readFileSync(path.join(root, ".git", "config"), "utf8");
    // A push cannot be taken back: refused before the commit, the driver's step and the push, saying both ways out.
    const refused = await run(root, "--push");
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      `memory operation refused: the handoff on this branch was saved at ${saved.slice(0, 12)}, which is not in ` +
        "this branch's history (a rebase or amend since the save?), so a teammate who pulls it gets no commit to " +
        "check it against and their brief says unverifiable; nothing was committed nor pushed: save the handoff " +
        "again on this HEAD (`read handoff`, then `write handoff`) and publish --push again, or, to share it as it " +
        "is, publish without --push and push with `git push` yourself\n",
    );
    expect(git(root, "rev-parse", "HEAD")).toBe(amended);
    expect(git(remote, "rev-parse", "main")).not.toBe(amended);
    expect(readFileSync(path.join(root, ".git", "config"), "utf8")).toBe(config);
    expect(git(root, "status", "--porcelain", "--", ".ai/memory/HANDOFF.md")).toMatch(/^\?\? /);
    // Without --push it is committed, and warned about.
    const r = await run(root);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("pushed");
    expect(r.stderr).toBe(
      `warning: the handoff on this branch was saved at ${saved.slice(0, 12)}, which is not in this branch's ` +
        "history (a rebase or amend since the save?), so a teammate who pulls it gets no commit to check it " +
        "against and their brief says unverifiable: save the handoff again (`read handoff`, then `write handoff`) " +
        "and publish again\n",
    );
    // What the warning foretells, and that its fix works.
    git(root, "push", "-q");
    const mate = path.join(tempDir("sh-mate-"), "mate");
    git(path.dirname(mate), "clone", "-q", remote, mate);
    expect((await inProcess(["brief", "--root", mate])).stdout).toContain(`saved HEAD ${saved.slice(0, 12)} is not in this clone`);
    await saveIn(root, doc);
    const again = await run(root, "--push");
    expect(again.stderr).toBe("");
    git(mate, "pull", "-q");
    expect((await inProcess(["brief", "--root", mate])).stdout).not.toContain("unverifiable");
  });

  it("a handoff saved on a branch already pushed, published on another: no warning, teammates can fetch its commit", { timeout: 60_000 }, async () => {
    const { root } = project();
    git(root, "checkout", "-qb", "feat");
    writeFileSync(path.join(root, "f.txt"), "f\n");
    git(root, "add", "f.txt");
    git(root, "commit", "-qm", "feature");
    git(root, "push", "-q", "-u", "origin", "feat");
    await saveIn(root, handoff("ship f").replace(/- Date: .*\n$/, ""));
    git(root, "checkout", "-q", "main");
    const r = await run(root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
  });

  it("a shallow clone lacking the saved commit publishes with no warning: it cannot tell the commit left the branch", { timeout: 60_000 }, async () => {
    const { root, remote } = project();
    await saveIn(root, handoff("ship s").replace(/- Date: .*\n$/, ""));
    writeFileSync(path.join(root, "later.txt"), "later\n");
    git(root, "add", "later.txt");
    git(root, "commit", "-qm", "later");
    expect((await run(root, "--push")).stderr).toBe("");
    writeFileSync(path.join(root, "b.txt"), "b\n");
    git(root, "add", "b.txt");
    git(root, "commit", "-qm", "b");
    git(root, "push", "-q");
    const shallow = path.join(tempDir("sh-shallow-"), "s");
    git(path.dirname(shallow), "clone", "-q", "--depth", "1", `file://${remote}`, shallow);
    writeFileSync(path.join(shallow, ".ai", "memory", "LESSONS.md"), `${MARKER}\n# Lessons\n\n`);
    const r = await run(shallow);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("warning:");
  });

  it("--push after a plain publish pushes the memory already committed, not \"nothing to publish\" (found by a breaker)", async () => {
    const { root, remote } = project();
    expect((await run(root)).code).toBe(0);
    // The pre-push hook it does not run is said, as after a commit of its own.
    const hook = path.join(root, ".git", "hooks", "pre-push");
    writeFileSync(hook, "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    const r = await run(root, "--push");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("nothing to publish\nran none of the repository's hooks (pre-push): pass --run-hooks to run " +
      "them\npushed to origin main\n");
    expect(git(remote, "rev-parse", "main")).toBe(git(root, "rev-parse", "HEAD"));
    unlinkSync(hook);
    // Once more: the upstream has HEAD, and the line says nothing was sent.
    expect((await run(root, "--push")).stdout).toBe("nothing to publish\npushed to origin main (it had HEAD already: nothing sent)\n");
    // A push git rejects: nothing was committed, so only git's next commands are said.
    const other = gitRepo();
    git(other, "commit", "-q", "--allow-empty", "-m", "a teammate's");
    git(other, "push", "-q", "-f", remote, "main:main");
    const failed = await run(root, "--push");
    expect(failed.code).toBe(2);
    expect(failed.stdout).toBe("nothing to publish\n");
    expect(failed.stderr).toMatch(/^nothing to publish, but the push failed \(git exit 1\):\n[\s\S]*\nnext: `git pull --no-rebase`, then `git push`\n$/);
  });

  it("without --push nothing is pushed", async () => {
    const { root, remote } = project();
    const before = git(remote, "rev-parse", "main");
    expect((await run(root)).code).toBe(0);
    expect(git(remote, "rev-parse", "main")).toBe(before);
  });

  it("--push with no upstream: refused before committing, the fix named, the index as it was", async () => {
    const { root } = project();
    git(root, "checkout", "-q", "-b", "topic");
    const head = git(root, "rev-parse", "HEAD");
    const index = git(root, "ls-files", "-s");
    const r = await run(root, "--push");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no upstream to push to, so nothing was committed[\s\S]*git push -u/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
    expect(git(root, "ls-files", "-s")).toBe(index);
    // Nothing else either: no driver registered, no .gitattributes written (found by a breaker).
    expect(spawnSync("git", ["config", "--get-regexp", "^merge\\."], { cwd: root, encoding: "utf8" }).stdout).toBe("");
    expect(existsSync(path.join(root, ".gitattributes"))).toBe(false);
  });

  it("no git identity: the commit is refused and what publish staged is unstaged", async () => {
    const { root } = project();
    // A file the user staged before stays staged exactly as it was.
    writeFileSync(path.join(root, ".ai", "memory", "LESSONS.md"), `${MARKER}\n# Lessons\n\nstaged by the user\n`);
    git(root, "add", ".ai/memory/LESSONS.md");
    writeFileSync(path.join(root, ".ai", "memory", "LESSONS.md"), `${MARKER}\n# Lessons\n\nedited after\n`);
    git(root, "config", "user.useConfigOnly", "true");
    const head = git(root, "rev-parse", "HEAD");
    const index = git(root, "ls-files", "-s");
    const r = await inProcess(["publish", "--root", root], { env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", EMAIL: "" } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/git commit-tree failed/);
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
    expect(git(root, "ls-files", "-s")).toBe(index);
    expect(git(root, "diff", "--cached", "--name-only")).toBe(".ai/memory/LESSONS.md\n");
  });

  it("--run-hooks runs the commit hooks as `git commit` does; a pre-commit's refusal leaves the index as it was", async () => {
    const { root } = project();
    writeFileSync(path.join(root, "feature.ts"), "staged work\n");
    git(root, "add", "feature.ts");
    const marks = path.join(root, ".git");
    const hook = (name: string, body: string) => writeFileSync(path.join(marks, "hooks", name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    hook("pre-commit", `git diff --cached --name-only > "${marks}/pre-commit.seen"; test ! -e "${marks}/refuse" || { echo "lint says no" >&2; exit 1; }`);
    hook("commit-msg", `echo "Hooked-by: commit-msg" >> "$1"`);
    hook("post-commit", `git rev-parse HEAD > "${marks}/post-commit.seen"; exit 1`);
    writeFileSync(path.join(marks, "refuse"), "");
    const index = git(root, "ls-files", "-s");
    const no = await run(root, "--run-hooks");
    expect(no.code).toBe(2);
    expect(no.stderr).toMatch(/failed \(git exit 1\):\nlint says no\n/);
    expect(git(root, "ls-files", "-s")).toBe(index);
    unlinkSync(path.join(marks, "refuse"));
    const r = await run(root, "--run-hooks");
    expect(r.code, r.stderr).toBe(0);
    // pre-commit saw the commit's index: the memory files, never the user's staged feature.ts.
    expect(readFileSync(path.join(marks, "pre-commit.seen"), "utf8")).toBe(git(root, "show", "--name-only", "--format=", "HEAD"));
    expect(git(root, "log", "-1", "--format=%B")).toBe("session-handoff: publish session memory\nHooked-by: commit-msg\n\n");
    expect(readFileSync(path.join(marks, "post-commit.seen"), "utf8")).toBe(git(root, "rev-parse", "HEAD"));
    expect(git(root, "diff", "--cached", "--name-only")).toBe("feature.ts\n");
  });

  it("a pre-commit hook that edits and re-adds a memory file leaves the index as the commit that landed", async () => {
    const { root } = project();
    writeFileSync(path.join(root, "feature.ts"), "staged work\n");
    git(root, "add", "feature.ts");
    const hook = path.join(root, ".git", "hooks", "pre-commit");
    writeFileSync(hook, "#!/bin/sh\necho '- linted' >> .ai/memory/LESSONS.md && git add .ai/memory/LESSONS.md\n", { mode: 0o755 });
    const r = await run(root, "--run-hooks");
    expect(r.code, r.stderr).toBe(0);
    expect(git(root, "show", "HEAD:.ai/memory/LESSONS.md")).toContain("- linted");
    // Before, the user's index kept LESSONS.md as staged before the hook: a revert of the hook's edit.
    expect(git(root, "diff", "--cached", "--name-only")).toBe("feature.ts\n");
    expect(git(root, "status", "--porcelain", "--", ".ai/memory/LESSONS.md")).toBe("");
  });

  it("--run-hooks commits only memory: a hook's secret is refused, what it staged elsewhere stays staged (tester)", async () => {
    const { root } = project();
    writeFileSync(path.join(root, "a.ts"), "mine\n");
    git(root, "add", "a.ts");
    git(root, "commit", "-qm", "a");
    const hook = path.join(root, ".git", "hooks", "pre-commit");
    const stage = "echo hacked > a.ts && git add a.ts";
    writeFileSync(hook, `#!/bin/sh\n${stage}\necho password=Zx9Qw7Lm2Kp4 >> .ai/memory/HANDOFF.md && git add .ai/memory\n`, { mode: 0o755 });
    const head = git(root, "rev-parse", "HEAD");
    const no = await run(root, "--run-hooks");
    // Before, it said "published 3 file(s)" and the commit held a.ts and the secret line.
    expect(no.code).toBe(2);
    expect(no.stderr).toMatch(/refused: a commit hook added a secret \([^)]+\) to \.ai\/memory\/HANDOFF\.md, so nothing was published/);
    expect(no.stdout + no.stderr).not.toContain("Zx9Qw7Lm2Kp4");
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), HANDOFF);
    writeFileSync(hook, `#!/bin/sh\n${stage}\n`, { mode: 0o755 });
    const r = await run(root, "--run-hooks");
    expect(r.code, r.stderr).toBe(0);
    const files = git(root, "show", "--name-only", "--format=", "HEAD").trim().split("\n");
    expect(files).not.toContain("a.ts");
    expect(r.stdout).toContain(`published ${files.length} file(s)`);
    expect(r.stdout).toMatch(/a hook staged a\.ts outside the memory dir: left staged, not committed/);
    expect(git(root, "diff", "--cached", "--name-only")).toBe("a.ts\n");
  });

  it("a secret edited into a memory file, or a file linked in from outside: refused, nothing committed (breaker)", async () => {
    const { root } = project();
    const mem = path.join(root, ".ai", "memory");
    const head = git(root, "rev-parse", "HEAD");
    const secret = "password=Zx9Qw7Lm2Kp4";
    // Before, each was committed: the hand-edited line, the outside file's text, the link.
    writeFileSync(path.join(mem, "HANDOFF.md"), `${HANDOFF}\n- staging ${secret}\n`);
    const edited = await run(root);
    expect(edited.code).toBe(2);
    expect(edited.stderr).toMatch(/\.ai\/memory\/HANDOFF\.md holds a secret \([a-z-]+ on line 6\), so nothing was published: remove/);
    expect(edited.stdout + edited.stderr).not.toContain("Zx9Qw7Lm2Kp4");
    writeFileSync(path.join(mem, "HANDOFF.md"), HANDOFF);
    const outside = path.join(tempDir("sh-outside-"), "notes.txt");
    writeFileSync(outside, "private notes, no secret\n");
    const archive = path.join(mem, "archive", "HANDOFF-2026-11-28T10-00-00.000Z-0123abce.md");
    for (const make of [() => linkSync(outside, archive), () => symlinkSync(outside, archive)]) {
      make();
      const linked = await run(root);
      expect(linked.code).toBe(2);
      expect(linked.stderr).toMatch(/archive\/HANDOFF-2026-11-28T10-00-00\.000Z-0123abce\.md is a link, hard-linked or not a regular file, so nothing was published/);
      unlinkSync(archive);
    }
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
    expect(git(root, "diff", "--cached", "--name-only")).toBe("");
    expect((await run(root)).code).toBe(0);
  });

  it("a memory file that is not UTF-8 (Notepad's UTF-16, a NUL) is refused: its secret is never committed", async () => {
    const { root } = project();
    const mem = path.join(root, ".ai", "memory");
    const head = git(root, "rev-parse", "HEAD");
    const text = `${MARKER}\n# Lessons\n\n- CI password=Zx9Qw7Lm2Kp4\n`;
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    // Before, the secret scan read these bytes as UTF-8, found nothing, and the commit held the password.
    for (const bytes of [utf16, Buffer.from(text, "utf16le"), Buffer.from(`${text}\0`), Buffer.from([0xc3, 0x28])]) {
      writeFileSync(path.join(mem, "LESSONS.md"), bytes);
      const r = await run(root);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/LESSONS\.md is not UTF-8 text \(UTF-16\? a NUL byte\?\), so nothing was published/);
      expect(git(root, "rev-parse", "HEAD")).toBe(head);
    }
    // A hook that rewrites a memory file as UTF-16 is refused the same way.
    writeFileSync(path.join(mem, "LESSONS.md"), `${MARKER}\n# Lessons\n`);
    const hook = path.join(root, ".git", "hooks", "pre-commit");
    const rewrite = `printf '\\377\\376#\\000 \\000' > .ai/memory/LESSONS.md && git add .ai/memory`;
    writeFileSync(hook, `#!/bin/sh\n${rewrite}\n`, { mode: 0o755 });
    const hooked = await run(root, "--run-hooks");
    expect(hooked.code).toBe(2);
    expect(hooked.stderr).toMatch(/LESSONS\.md is not UTF-8 text/);
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
  });

  it("a refused memory file changes nothing on disk: no driver, no attributes, no helper copy (breaker)", async () => {
    const { root } = project();
    const mem = path.join(root, ".ai", "memory");
    const config = readFileSync(path.join(root, ".git", "config"), "utf8");
    writeFileSync(path.join(mem, "HANDOFF.md"), `${HANDOFF}\n- staging password=Zx9Qw7Lm2Kp4\n`);
    // The built bundle, as users run it: the helper copy is the bundle's own file.
    const r = helper(["publish", "--root", root], { env: ENV });
    expect(r.code).toBe(2);
    // Before, the refused run had registered the driver, written .gitattributes and copied the helper.
    expect(r.stdout + r.stderr).not.toMatch(/registered|added the merge driver/);
    expect(existsSync(path.join(root, ".gitattributes"))).toBe(false);
    expect(readFileSync(path.join(root, ".git", "config"), "utf8")).toBe(config);
    expect(existsSync(path.join(root, ".git", "session-handoff"))).toBe(false);
    expect(git(root, "status", "--porcelain", "--ignored")).toBe("?? .ai/\n");
  });

  it("a hook that commits its own edit: the refusal names only what that commit holds as publish meant (tester)", async () => {
    const { root } = project();
    const hook = path.join(root, ".git", "hooks", "pre-commit");
    const edit = "echo '- hooked' >> .ai/memory/HANDOFF.md && git add .ai/memory/HANDOFF.md";
    writeFileSync(hook, `#!/bin/sh\n${edit} && git commit -q --no-verify -m hooked\n`, { mode: 0o755 });
    const no = await run(root, "--run-hooks");
    expect(no.code).toBe(2);
    // Before: "already holds what publish was committing", though it held the hook's HANDOFF.md, not the saved one.
    expect(no.stderr).toMatch(/that commit already holds [^\n]*the rest was not published/);
    expect(no.stderr).not.toMatch(/already holds[^\n]*HANDOFF\.md/);
    unlinkSync(hook);
    const head = git(root, "rev-parse", "HEAD");
    const r = await run(root);
    // The hook's commit holds every file as on disk now: a count of "published" files would be untrue.
    expect(r).toMatchObject({ code: 0, stdout: "nothing to publish\n" });
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
  });

  it("a push stopped midway is a refusal naming git push, never an internal error", async () => {
    const { root } = project();
    // The pre-push hook kills its git push as a timeout would (--run-hooks lets it run).
    const hook = path.join(root, ".git", "hooks", "pre-push");
    writeFileSync(hook, "#!/bin/sh\nkill -KILL $PPID\n", { mode: 0o755 });
    const r = await run(root, "--push", "--run-hooks");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: committed [0-9a-f]{12}, but git push took longer than 300 s and was stopped\n$/m);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it("git refuses the publish after the merge driver was registered: what was done is said before the refusal", async () => {
    const { root } = project();
    // Another git holds the index: staging for the commit fails, the driver's registration stays done.
    writeFileSync(path.join(root, ".git", "index.lock"), "");
    const r = await run(root);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^registered the merge driver session-handoff in \.git\/config\nadded the merge driver's block to \.gitattributes\nmemory operation refused: git (add|commit) failed \(git exit \d+\):\n/,
    );
    expect(git(root, "config", "--local", "merge.session-handoff.driver")).toMatch(/ merge-driver %O %A %B %P; else .* fi\n$/);
  });

  it("a failed push shows git's own error", async () => {
    const { root, remote } = project();
    // The remote moved on: a non-fast-forward push is rejected by git.
    const other = tempDir();
    git(other, "clone", "-q", remote, ".");
    writeFileSync(path.join(other, "x"), "x\n");
    git(other, "add", "x");
    git(other, "commit", "-qm", "remote work");
    git(other, "push", "-q");
    const r = await run(root, "--push");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rejected|non-fast-forward|fetch first/);
  });

  it("refused while paused (exit 4): nothing committed", async () => {
    const { root } = project();
    writeFileSync(path.join(root, ".ai", "memory", "PAUSE"), "");
    const head = git(root, "rev-parse", "HEAD");
    const r = await run(root);
    expect(r.code).toBe(4);
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
  });

  it("refused when the memory dir is git-ignored", async () => {
    const { root } = project();
    writeFileSync(path.join(root, ".gitignore"), ".ai/\n");
    const head = git(root, "rev-parse", "HEAD");
    const config = tempDir();
    const r = await inProcess(["publish", "--root", root], { env: { ...ENV, XDG_CONFIG_HOME: config } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("memory operation refused: .ai/memory/ is ignored by git (.gitignore); publish only commits a memory dir that git tracks: remove the ignore rule first, or keep memory private and do not publish\n");
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
    // A refusal changes nothing on disk: the merge driver's step comes after this check.
    expect(readFileSync(path.join(root, ".git", "config"), "utf8")).not.toContain("session-handoff");
    expect(existsSync(path.join(root, ".gitattributes"))).toBe(false);
    expect(readdirSync(config)).toEqual([]);
  });

  it("refused outside git", async () => {
    const root = tempDir();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    const r = await run(root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not in a git repository");
    expect(existsSync(path.join(root, ".git"))).toBe(false);
  });

  it.each(["two\nlines", "", " "])("--message %j is refused", async (m) => {
    const { root } = project();
    expect((await run(root, "--message", m)).code).toBe(2);
  });
});

describe("isPublicMemoryPath", () => {
  it.each([
    ["HANDOFF.md", true],
    ["LESSONS.md", true],
    ["SOLUTIONS.md", true],
    ["archive/HANDOFF-2026-11-29T10-00-00.000Z-0123abcd.md", true],
    ["archive/LESSONS-2026-11-29T10-00-00.000Z-0123abcd.md", true],
    ["checkpoints/abc.md", false],
    [".HANDOFF.md.tmp-1-0123abcd", false],
    ["archive/.HANDOFF.md.claim-1-0123abcd", false],
    [".lock/owner", false],
    ["PAUSE", false],
    [".delivered-abc", false],
    ["notes.md", false],
  ])("%s -> %s", (p, want) => {
    expect(isPublicMemoryPath(p)).toBe(want);
  });
});
