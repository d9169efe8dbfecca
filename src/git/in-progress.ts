// What git is in the middle of (a rebase, merge, cherry-pick, revert or bisect), read from the
// files in the git dir, no process spawned (contract §5 `anchors` 1.1; field report 22).
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";

/** An operation in progress: its name, and the branch being rebased when there is one. */
export interface InProgress {
  operation: "rebase" | "merge" | "cherry-pick" | "revert" | "bisect";
  branch: string | null;
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readSmall(p: string): string | null {
  try {
    if (!isFile(p)) return null;
    return readFileSync(p, "utf8").slice(0, 4096);
  } catch {
    return null;
  }
}

/**
 * The folder holding `.git` at or above `root` (the top of its work tree), found in JS with no
 * process; null when there is none. Turns git's top-relative paths into root-relative ones.
 */
export function gitTopOf(root: string): string | null {
  let dir = root;
  for (;;) {
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

/** `refs/heads/feature/login` -> `feature/login`; anything else (a detached rebase) -> null. */
function branchOfHeadName(text: string | null): string | null {
  const m = text === null ? null : /^refs\/heads\/(\S+)\s*$/.exec(text);
  return m ? m[1]! : null;
}

/**
 * Reads the operation in progress from the git dir's state files, as git itself leaves them:
 * `rebase-merge/` or `rebase-apply/` (with `head-name`), `MERGE_HEAD`, `CHERRY_PICK_HEAD`,
 * `REVERT_HEAD`, `BISECT_LOG`. A `rebase-apply/` holding `applying` is `git am`, which is not
 * one of the contract's operations and is left out.
 * @returns null when nothing is in progress or the git dir is unknown.
 */
export function inProgressOf(gitDir: string | null): InProgress | null {
  if (gitDir === null) return null;
  for (const dir of ["rebase-merge", "rebase-apply"]) {
    const d = path.join(gitDir, dir);
    if (!isDir(d)) continue;
    if (dir === "rebase-apply" && isFile(path.join(d, "applying"))) continue;
    return { operation: "rebase", branch: branchOfHeadName(readSmall(path.join(d, "head-name"))) };
  }
  if (isFile(path.join(gitDir, "MERGE_HEAD"))) return { operation: "merge", branch: null };
  if (isFile(path.join(gitDir, "CHERRY_PICK_HEAD"))) return { operation: "cherry-pick", branch: null };
  if (isFile(path.join(gitDir, "REVERT_HEAD"))) return { operation: "revert", branch: null };
  if (isFile(path.join(gitDir, "BISECT_LOG"))) return { operation: "bisect", branch: null };
  return null;
}

/** `rebase of feature/login`, `merge`, … (the words of the `- In progress:` anchor, without the count). */
export function inProgressWords(p: InProgress): string {
  return p.branch === null ? p.operation : `${p.operation} of ${p.branch}`;
}
