// What git is in the middle of (a rebase, merge, cherry-pick, revert or bisect), read from the
// files in the git dir, no process spawned (field report 22; docs/design.md#verdicts-and-the-brief).
import path from "node:path";
import { isDir, isFile, readSmall } from "./git-dir.ts";

export { gitDirOf, gitTopOf } from "./git-dir.ts";

/** An operation in progress: its name, and the branch being rebased when there is one. */
export interface InProgress {
  operation: "rebase" | "merge" | "cherry-pick" | "revert" | "bisect";
  branch: string | null;
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
 * one of the operations the anchors name and is left out.
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
