// The root rule (references/verbs/root.md), on real folders (no mocked fs).
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findRoot } from "../../src/git/root.ts";
import { Refused } from "../../src/errors.ts";
import { tempDir } from "../helpers.ts";

/** Builds folders under a temp dir: names ending in `/` are folders, others files. */
function tree(entries: string[]): string {
  const dir = tempDir("sh-root-");
  for (const e of entries) {
    const p = path.join(dir, e);
    if (e.endsWith("/")) mkdirSync(p, { recursive: true });
    else {
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, "gitdir: /nowhere\n");
    }
  }
  return dir;
}

describe("findRoot: the nearest folder holding .ai/memory or .git", () => {
  it.each<[string, string[], string, string, FoundBy]>([
    ["the start holds .ai/memory", ["p/.ai/memory/", "p/.git/"], "p", "p", "memory"],
    ["a subfolder of a repository with its handoff at the top", [".git/", ".ai/memory/", "pkg/api/"], "pkg/api", ".", "memory"],
    ["a subfolder of a repository without memory yet", [".git/", "pkg/api/src/"], "pkg/api/src", ".", "git"],
    ["a memory kept below the repository top is found first", [".git/", "pkg/.ai/memory/", "pkg/api/"], "pkg/api", "pkg", "memory"],
    ["a worktree or submodule: .git is a file", ["wt/.git", "wt/src/"], "wt/src", "wt", "git"],
    ["a .ai folder without memory is not a marker", [".git/", "pkg/.ai/", "pkg/x/"], "pkg/x", ".", "git"],
    ["nothing above: the start itself", ["lone/deep/"], "lone/deep", "lone/deep", "start"],
  ])("%s", (_name, entries, start, want, by) => {
    const dir = tree(entries);
    const found = findRoot(path.join(dir, start), {});
    expect(found.root).toBe(path.join(dir, want));
    expect(found.by).toBe(by);
  });

  it("takes the real path first: a project reached through a symlinked folder", () => {
    const dir = tree([".git/", ".ai/memory/", "pkg/api/"]);
    const links = tempDir("sh-links-");
    symlinkSync(path.join(dir, "pkg"), path.join(links, "pkg-link"));
    symlinkSync(dir, path.join(links, "project-link"));
    expect(findRoot(path.join(links, "pkg-link", "api"), {}).root).toBe(dir);
    const direct = findRoot(path.join(links, "project-link"), {});
    expect(direct).toEqual({ root: dir, start: dir, by: "memory" });
  });

  it("never goes above $HOME when starting below it, never ends at $HOME, and refuses $HOME as the start", () => {
    const dir = tree([".git/", "home/me/work/"]);
    const env = { HOME: path.join(dir, "home", "me") };
    expect(findRoot(path.join(dir, "home", "me", "work"), env)).toMatchObject({ root: path.join(dir, "home", "me", "work"), by: "start" });
    // A walk that would end at $HOME ends at the start (docs/design.md#the-root).
    mkdirSync(path.join(dir, "home", "me", ".ai", "memory"), { recursive: true });
    expect(findRoot(path.join(dir, "home", "me", "work"), env)).toMatchObject({ root: path.join(dir, "home", "me", "work"), by: "start" });
    expect(() => findRoot(path.join(dir, "home", "me"), env)).toThrow("not a project: run it from a project folder or pass --root <project>");
  });

  it("honours GIT_CEILING_DIRECTORIES: never looks inside a ceiling folder", () => {
    const dir = tree([".git/", "a/b/c/"]);
    const ceiling = { GIT_CEILING_DIRECTORIES: `/nonexistent:${path.join(dir, "a")}` };
    expect(findRoot(path.join(dir, "a", "b", "c"), ceiling)).toMatchObject({ root: path.join(dir, "a", "b", "c"), by: "start" });
    // A ceiling above the repository top changes nothing.
    expect(findRoot(path.join(dir, "a", "b", "c"), { GIT_CEILING_DIRECTORIES: path.dirname(dir) }).root).toBe(dir);
    // Relative entries are ignored, as git ignores them.
    expect(findRoot(path.join(dir, "a", "b", "c"), { GIT_CEILING_DIRECTORIES: "a" }).root).toBe(dir);
  });

  it.each([
    ["a missing start", "missing", /does not exist/],
    ["a file as the start", "file.txt", /not a directory/],
  ])("refuses %s", (_name, rel, pattern) => {
    const dir = tree(["file.txt"]);
    let err: unknown;
    try {
      findRoot(path.join(dir, rel), {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Refused);
    expect((err as Error).message).toMatch(pattern);
  });
});

type FoundBy = "memory" | "git" | "start";
