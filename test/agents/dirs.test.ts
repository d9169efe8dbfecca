// The folder pair install, init and uninstall share: which folders a write makes, and removing them once empty.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { dirsBelow, missingDirs, removeEmptyDirs, removeEmptyUpTo } from "../../src/agents/agent-file.ts";
import { tempDir } from "../helpers.ts";

describe("folders made and removed", () => {
  it("dirsBelow lists the folders under base top first, and none outside it", () => {
    const base = path.join(tempDir(), "p");
    expect(dirsBelow(base, path.join(base, "a", "b"))).toEqual([path.join(base, "a"), path.join(base, "a", "b")]);
    expect(dirsBelow(base, base)).toEqual([]);
    expect(dirsBelow(base, path.dirname(base))).toEqual([]);
    expect(dirsBelow(base, `${base}x${path.sep}y`)).toEqual([]);
  });

  it("missingDirs names what a write makes and refuses a link on the way", () => {
    const base = tempDir();
    mkdirSync(path.join(base, "a"));
    expect(missingDirs(base, path.join(base, "a", "b", "c"))).toEqual([path.join(base, "a", "b"), path.join(base, "a", "b", "c")]);
    symlinkSync(path.join(base, "a"), path.join(base, "l"));
    expect(() => missingDirs(base, path.join(base, "l", "x"))).toThrow(/is a link; install writes only through real directories/);
  });

  it("removeEmptyUpTo removes emptied folders up to stop, never stop, a folder holding anything, or above", () => {
    const base = tempDir();
    const deep = path.join(base, "keep", "a", "b");
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(base, "keep", "user.txt"), "mine\n");
    expect(removeEmptyUpTo(deep, base)).toEqual([deep, path.join(base, "keep", "a")]);
    expect(existsSync(path.join(base, "keep", "user.txt"))).toBe(true);
    mkdirSync(path.join(base, "empty"));
    removeEmptyUpTo(path.join(base, "empty"), path.join(base, "empty"));
    removeEmptyUpTo(base, path.join(base, "empty"));
    expect(existsSync(path.join(base, "empty"))).toBe(true);
    expect(existsSync(base)).toBe(true);
    expect(removeEmptyDirs([path.join(base, "gone"), path.join(base, "empty")])).toEqual([path.join(base, "empty")]);
  });
});
