// Finding the project root, the same way for every verb (contract "Words" 1.1, ruling 12), so
// that no two verbs ever see two different memories (field report 19).
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";

/** Where the root was found, and from what start. */
export interface FoundRoot {
  /** The root: a real path. */
  root: string;
  /** The real path of the start (`--root`, the hook's stdin `cwd`, or the current directory). */
  start: string;
  /** What made it the root: it holds `.ai/memory`, it holds `.git`, or nothing was found above the start. */
  by: "memory" | "git" | "start";
}

/** True when something (of any type, a link included, never followed) is at `p`. */
export function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** True when `child` is `parent` or lies below it (both absolute, normalised). */
function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Folders the walk must not go up into: `GIT_CEILING_DIRECTORIES` (colon-separated absolute
 * paths, as git reads them; their real paths), and `$HOME` when the start lies strictly below
 * it (ruling 12: the walk never leaves the home folder unless it starts there).
 */
function ceilings(start: string, env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const c of (env.GIT_CEILING_DIRECTORIES ?? "").split(":")) {
    if (c === "" || !path.isAbsolute(c)) continue;
    out.push(realOrNull(c) ?? path.resolve(c));
  }
  const home = env.HOME ? realOrNull(env.HOME) : null;
  if (home !== null && home !== start && within(start, home)) out.push(path.dirname(home));
  return out;
}

/**
 * Finds the root from `start` (contract "Words"): its real path; then, unless it holds
 * `.ai/memory` itself, the nearest folder at or above it holding `.ai/memory` or `.git` (a
 * directory, or the `.git` file of a worktree or submodule); with none, the start itself.
 * The walk stops below any `GIT_CEILING_DIRECTORIES` entry (never looking inside one, as git)
 * and never goes above `$HOME` when starting below it (ruling 12). Runs no process: a few
 * `lstat` calls per level. Links are not judged here: from `.ai` down they are refused by
 * the store (contract §3).
 * @throws Refused (exit 2) when the start does not exist or is not a directory.
 */
export function findRoot(startPath: string, env: Record<string, string | undefined>): FoundRoot {
  let start: string;
  try {
    start = realpathSync(startPath);
  } catch {
    throw new Refused(`root ${startPath} does not exist; pass the project root with --root`);
  }
  let st;
  try {
    st = lstatSync(start);
  } catch {
    throw new Refused(`root ${startPath} does not exist; pass the project root with --root`);
  }
  if (!st.isDirectory()) throw new Refused(`root ${startPath} is not a directory; pass the project root with --root`);
  if (exists(path.join(start, ".ai", "memory"))) return { root: start, start, by: "memory" };
  const stops = ceilings(start, env);
  let dir = start;
  for (;;) {
    if (exists(path.join(dir, ".ai", "memory"))) return { root: dir, start, by: "memory" };
    if (exists(path.join(dir, ".git"))) return { root: dir, start, by: "git" };
    const parent = path.dirname(dir);
    if (parent === dir || stops.includes(parent)) return { root: start, start, by: "start" };
    dir = parent;
  }
}
