// Where a work tree's git dir is, found from files with no process (the hook and `check` use
// it on their hot paths; docs/design.md#verdicts-and-the-brief).
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { distrustedAbove } from "../store/root.ts";

/** True for a regular file (never following a link). */
export function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** True for a real folder (never following a link). */
export function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The first 4,096 characters of a regular file, or null. */
export function readSmall(p: string): string | null {
  try {
    if (!isFile(p)) return null;
    return readFileSync(p, "utf8").slice(0, 4096);
  } catch {
    return null;
  }
}

/**
 * The folder holding `.git` at or above `root` (the top of its work tree), found in JS with no
 * process; null when there is none, or when the walk would pass a folder of another user or a
 * sticky one anyone can write to (`opts.uid`: the user to judge for, tests only). Turns git's
 * top-relative paths into root-relative ones.
 */
export function gitTopOf(root: string, opts: { uid?: number } = {}): string | null {
  let dir = root;
  for (;;) {
    // Above the root the walk's ownership rule holds (docs/design.md#the-root): a `.git` in a
    // folder another user controls (a planted /tmp/.git) is never this project's.
    if (dir !== root && distrustedAbove(dir, process.env, opts) !== null) return null;
    try {
      lstatSync(path.join(dir, ".git"));
      return dir;
    } catch {
      // keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The git dir of the work tree whose top is `top`: `<top>/.git` when it is a directory, or the
 * path a `.git` file names (`gitdir: <path>`, a worktree or a submodule), relative to `top`.
 * @returns null when there is none or it cannot be read.
 */
export function gitDirOf(top: string): string | null {
  const dotGit = path.join(top, ".git");
  if (isDir(dotGit)) return dotGit;
  const text = readSmall(dotGit);
  const m = text === null ? null : /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(text);
  if (!m) return null;
  const dir = path.resolve(top, m[1]!);
  return isDir(dir) ? dir : null;
}

/**
 * The common dir of a git dir: the main repository's git dir for a linked worktree (its
 * `commondir` file), else the git dir itself.
 */
export function commonDirOf(gitDir: string): string {
  try {
    const text = readFileSync(path.join(gitDir, "commondir"), "utf8").trim();
    if (text !== "") return path.resolve(gitDir, text);
  } catch {
    // not a linked worktree
  }
  return gitDir;
}
