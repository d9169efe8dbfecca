// `publish` is a memory writer (docs/design.md#publish): it takes the memory lock, repairs an
// interrupted save first, and never commits a deletion that no one meant. Real git, the built
// helper, the failpoint seam for the crash and the pause, real concurrent processes.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, helperAsync, memFiles, save, tempDir, waitFor } from "../helpers.ts";

const WHO = { GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };

/** A repository with a saved handoff, published once. */
function project(): string {
  const root = gitRepo();
  save(root, handoff("first"), "absent");
  expect(helper(["publish", "--root", root], { env: WHO }).code).toBe(0);
  return root;
}

/** Every memory path any commit deleted. */
const deleted = (root: string) => git(root, "log", "--diff-filter=D", "--name-only", "--format=", "--", ".ai/memory").trim();
const inHead = (root: string, rel: string) => git(root, "ls-tree", "--name-only", "HEAD", "--", rel).trim();

describe("publish is a memory writer", () => {
  it("an interrupted save (killed after its claim) is repaired first: HANDOFF.md is committed, never its deletion", () => {
    const root = project();
    const crash = helper(["write", "handoff", "--root", root, "--expected-current-sha256", tokenOfDisk(root)], {
      input: handoff("second"),
      env: { MEMORY_IO_FAILPOINT: "after-claim:crash" },
    });
    expect(crash.signal).toBe("SIGKILL");
    expect(memFiles(root)).not.toContain("HANDOFF.md");
    const r = helper(["publish", "--root", root], { env: WHO });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^recovered: HANDOFF\.md/m);
    expect(deleted(root)).toBe("");
    expect(inHead(root, ".ai/memory/HANDOFF.md")).toBe(".ai/memory/HANDOFF.md");
  });

  it("a save paused after its claim holds publish off until it finishes; the new handoff is what is committed", async () => {
    const root = project();
    const gate = path.join(tempDir("sh-gate-"), "gate");
    const writer = helperAsync(["write", "handoff", "--root", root, "--expected-current-sha256", tokenOfDisk(root)], {
      input: handoff("second"),
      env: { MEMORY_IO_FAILPOINT: `after-claim:pause=${gate}` },
    });
    await waitFor(`${gate}.ready`);
    const publisher = helperAsync(["publish", "--root", root, "--lock-timeout", "20"], { env: WHO });
    // Publish is waiting for the lock now (or about to): the claim has no HANDOFF.md beside it.
    await new Promise((r) => setTimeout(r, 800));
    writeFileSync(`${gate}.go`, "");
    const [w, p] = await Promise.all([writer, publisher]);
    expect(w.code, w.stderr).toBe(0);
    expect(p.code, p.stderr).toBe(0);
    expect(deleted(root)).toBe("");
    expect(git(root, "show", "HEAD:.ai/memory/HANDOFF.md")).toContain("second");
  });

  it("a publish that cannot have the lock in time is busy (exit 5) and commits nothing", async () => {
    const root = project();
    const head = git(root, "rev-parse", "HEAD");
    const gate = path.join(tempDir("sh-gate-"), "gate");
    const writer = helperAsync(["write", "handoff", "--root", root, "--expected-current-sha256", tokenOfDisk(root)], {
      input: handoff("second"),
      env: { MEMORY_IO_FAILPOINT: `after-claim:pause=${gate}` },
    });
    await waitFor(`${gate}.ready`);
    const p = helper(["publish", "--root", root, "--lock-timeout", "0.2"], { env: WHO });
    writeFileSync(`${gate}.go`, "");
    expect((await writer).code).toBe(0);
    expect(p.code).toBe(5);
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
  });

  // A plain commit takes what publish staged; a commit of given paths leaves it in the index. With --run-hooks the
  // old plain `git commit` parented publish's tree on the user's commit: exit 0, and the tip undid README.md's change.
  // A commit that took what publish staged is named as holding it: "nothing was published" was false there.
  const tookAll = /; that commit already holds what publish was committing \(\.ai\/memory\/HANDOFF\.md, .*\), so publish made no commit of its own and pushed nothing: nothing is left to publish\n$/;
  const tookNone = /: nothing was published and that commit stands; run publish again\n$/;
  it.each([
    ["a plain commit", [], [], tookAll],
    ["a commit of one path", ["--", "user.txt"], [], tookNone],
    ["a `git commit -a`, under --run-hooks,", ["-a"], ["--run-hooks"], tookAll],
  ])("%s the user makes while publish builds its own is never undone: publish refuses, nothing changed", async (_name, only, flags, words) => {
    const root = project();
    save(root, handoff("second"), tokenOfDisk(root));
    const index = git(root, "ls-files", "-s");
    const gate = path.join(tempDir("sh-gate-"), "gate");
    const env = { ...WHO, MEMORY_IO_FAILPOINT: `publish-before-commit:pause=${gate}` };
    const publisher = helperAsync(["publish", "--root", root, ...flags], { env });
    await waitFor(`${gate}.ready`);
    // publish has read HEAD and built its index: the user commits work of their own now.
    writeFileSync(path.join(root, "user.txt"), "mine\n");
    writeFileSync(path.join(root, "README.md"), "changed\n");
    git(root, "add", "user.txt");
    git(root, "commit", "-qm", "user work", ...only);
    const head = git(root, "rev-parse", "HEAD");
    writeFileSync(`${gate}.go`, "");
    const p = await publisher;
    expect(p.code, p.stderr).toBe(2);
    expect(p.stderr).toContain(`HEAD moved to ${head.slice(0, 12)} while publish was committing`);
    expect(p.stderr).toMatch(words);
    expect(p.stderr).not.toContain("cannot lock ref");
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
    // The index is the user's commit's: nothing of publish's is left staged.
    expect(git(root, "diff", "--cached", "--name-only")).toBe("");
    // `commit -a` took it all: the files are as the user's commit holds them, nothing of publish's changed.
    if (only[0] === "-a") expect(git(root, "status", "--porcelain")).toBe("");
    if (only[0] === "--") expect(git(root, "ls-files", "-s").replace(/^.*\tuser\.txt\n/m, "")).toBe(index);
    // Run again, it commits on top of the user's commit, which keeps its file.
    expect(helper(["publish", "--root", root, ...flags], { env: WHO }).code).toBe(0);
    expect(git(root, "show", "HEAD:user.txt")).toBe("mine\n");
    if (only[0] === "-a") expect(git(root, "show", "HEAD:README.md")).toBe("changed\n");
    expect(git(root, "show", "HEAD:.ai/memory/HANDOFF.md")).toContain("second");
  });

  it("HEAD held by another git command, not moved: publish says so in its own words, not git's", async () => {
    const root = project();
    save(root, handoff("second"), tokenOfDisk(root));
    const head = git(root, "rev-parse", "HEAD");
    const gate = path.join(tempDir("sh-gate-"), "gate");
    const env = { ...WHO, MEMORY_IO_FAILPOINT: `publish-before-commit:pause=${gate}` };
    const publisher = helperAsync(["publish", "--root", root], { env });
    await waitFor(`${gate}.ready`);
    writeFileSync(path.join(root, ".git", "HEAD.lock"), "");
    writeFileSync(`${gate}.go`, "");
    const p = await publisher;
    expect(p.code).toBe(2);
    expect(p.stderr).toBe("memory operation refused: git could not update HEAD (another git command held it?), so " +
      "nothing was published; run publish again once that command is done\n");
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
  });

  it("saves and publishes at once: no commit ever deletes a memory file", async () => {
    const root = project();
    // Bounded: 5 rounds of a save (which also appends the journal) beside a publish.
    for (let i = 0; i < 5; i++) {
      const [w, p] = await Promise.all([
        helperAsync(["write", "handoff", "--root", root, "--expected-current-sha256", tokenOfDisk(root)], { input: handoff(`round ${i}`) }),
        helperAsync(["publish", "--root", root, "--message", `round ${i}`], { env: WHO }),
      ]);
      expect(w.code, w.stderr).toBe(0);
      expect(p.code, p.stderr).toBe(0);
    }
    expect(helper(["publish", "--root", root], { env: WHO }).code).toBe(0);
    expect(deleted(root)).toBe("");
    expect(inHead(root, ".ai/memory/HANDOFF.md")).toBe(".ai/memory/HANDOFF.md");
  });
});

/** The token of the handoff on disk, read through the helper. */
function tokenOfDisk(root: string): string {
  const m = /^CURRENT-SHA256: (\S+)$/m.exec(helper(["read", "handoff", "--root", root]).stdout);
  return m ? m[1]! : "absent";
}
