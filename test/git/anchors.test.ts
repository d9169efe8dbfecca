import { utimesSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { collectAnchors } from "../../src/git/anchors.ts";
import { renderAnchorLines } from "../../src/schema/anchor-lines.ts";
import { DAY, ENV, git, newRepo, tempDir, writeTree } from "./repo.ts";

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe("anchors", () => {
  it("renders exactly the handoff schema's four anchor lines", async () => {
    const root = newRepo(NOW - DAY);
    const head = git(root, ["rev-parse", "HEAD"]);
    const a = await collectAnchors(root, ENV, NOW, []);
    expect(renderAnchorLines(a)).toBe(`- Branch: main\n- HEAD: ${head}\n- Dirty files: none\n- Date: 2026-01-15T12:00:00Z\n`);
  });

  it("says (detached) for a detached HEAD", async () => {
    const root = newRepo(NOW - DAY);
    git(root, ["checkout", "-q", "--detach"]);
    expect((await collectAnchors(root, ENV, NOW, [])).branch).toBe("(detached)");
  });

  it("handles an empty repository (no commits)", async () => {
    const root = tempDir();
    git(root, ["init", "-q"]);
    writeTree(root, { "a.txt": "a" });
    const a = await collectAnchors(root, ENV, NOW, []);
    expect(a).toMatchObject({ insideGit: true, branch: "main", head: null, dirty: ["a.txt"] });
    expect(renderAnchorLines(a)).toContain("- HEAD: none (no commits yet)\n");
  });

  it("outside git: the date and key file mtimes, paths outside the root skipped", async () => {
    const root = tempDir();
    writeTree(root, { "src/a b.ts": "a" });
    utimesSync(path.join(root, "src/a b.ts"), new Date(NOW - DAY), new Date(NOW - DAY));
    const a = await collectAnchors(root, ENV, NOW, ["src/a b.ts", path.join(root, "gone.ts"), "../escape", "/etc/passwd"]);
    expect(a.insideGit).toBe(false);
    expect(a.gitNote).toMatch(/not a git repository/);
    expect(a.skippedKeyFiles.map((s) => s.path)).toEqual(["../escape", "/etc/passwd"]);
    expect(renderAnchorLines(a)).toBe("- Date: 2026-01-15T12:00:00Z\n- Key file mtimes: src/a b.ts @ 2026-01-14T12:00:00Z, gone.ts @ missing\n");
  });

  it("git missing from PATH: outside-git anchors, said so", async () => {
    const root = newRepo(NOW - DAY);
    const a = await collectAnchors(root, { ...ENV, PATH: "/nonexistent" }, NOW, ["README.md"]);
    expect(a.insideGit).toBe(false);
    expect(a.gitNote).toMatch(/git was not found on PATH/);
    expect(a.keyFileMtimes).toHaveLength(1);
  });

  it("works in a linked worktree and lists dirty submodules", async () => {
    const lib = newRepo(NOW - DAY, { "lib.txt": "1" });
    const main = newRepo(NOW - DAY);
    git(main, ["submodule", "add", "-q", lib, "vendor/lib"]);
    git(main, ["commit", "-q", "-m", "sub"], NOW - DAY);
    writeTree(main, { "vendor/lib/lib.txt": "2" });
    // An edit inside a submodule is not looked at (git runs nothing inside it: its config may
    // name a filter); a submodule whose commit moved is dirty.
    expect((await collectAnchors(main, ENV, NOW, [])).dirty).toEqual([]);
    git(path.join(main, "vendor", "lib"), ["commit", "-qam", "moved"], NOW - DAY);
    expect((await collectAnchors(main, ENV, NOW, [])).dirty).toEqual(["vendor/lib"]);
    const wt = path.join(tempDir(), "wt");
    git(main, ["worktree", "add", "-q", "-b", "side", wt]);
    const a = await collectAnchors(wt, ENV, NOW, []);
    expect(a.branch).toBe("side");
    expect(a.head).toBe(git(main, ["rev-parse", "HEAD"]));
  });
});
