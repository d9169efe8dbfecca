// Whether this clone lacks the merge driver its attributes name (docs/decisions/merge-driver.md).
// Files only, and small: `check` loads it at every run.
import { readFileSync } from "node:fs";
import path from "node:path";
import { commonDirOf, gitDirOf, gitTopOf } from "./git-dir.ts";

/** The driver's name in `.git/config` and `.gitattributes`. */
export const DRIVER_NAME = "session-handoff";

/**
 * True when the top's `.gitattributes` names our driver but this clone's config has no
 * `[merge "session-handoff"]` section: git then merges memory files as text. Reads files only.
 */
export function mergeDriverMissing(root: string, env: Record<string, string | undefined>): boolean {
  const top = gitTopOf(root, env);
  if (top === null) return false;
  const gitDir = gitDirOf(top);
  if (gitDir === null) return false;
  let attrs: string;
  try {
    attrs = readFileSync(path.join(top, ".gitattributes"), "utf8");
  } catch {
    return false;
  }
  if (!new RegExp(`(^|\\s)merge=${DRIVER_NAME}(\\s|$)`, "m").test(attrs)) return false;
  let config = "";
  try {
    config = readFileSync(path.join(commonDirOf(gitDir), "config"), "utf8");
  } catch {
    return true;
  }
  return !/^\s*\[merge\s+"session-handoff"\]/im.test(config);
}

/** The sentence `doctor` and `check` print when `mergeDriverMissing` is true. */
export const MERGE_DRIVER_MISSING =
  ".gitattributes names the session-handoff merge driver, but this clone's git config lacks it: git merges " +
    "memory files as text (conflict markers can land); run `install` or `publish` once in this clone";
