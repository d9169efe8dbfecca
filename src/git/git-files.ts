// Facts read from the git dir's files, with no process: the common dir of a worktree, whether
// the clone is shallow, whether this clone's reflogs name a commit, whether a branch exists
// here (docs/design.md#verdicts-and-the-brief).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { commonDirOf, isFile } from "./git-dir.ts";
import { isNullObjectId } from "../schema/values.ts";

export { commonDirOf } from "./git-dir.ts";

/** Reflog bytes read at most, over all files, before giving up (the answer is then "not named"). */
export const MAX_REFLOG_BYTES = 64 * 1024 * 1024;
/** Reflog files read at most. */
export const MAX_REFLOG_FILES = 2000;

/** True when the clone is shallow: git keeps the cut-off commits in `<common dir>/shallow`. */
export function isShallow(gitDir: string | null): boolean {
  return gitDir !== null && isFile(path.join(commonDirOf(gitDir), "shallow"));
}

function reflogFiles(dir: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (out.length >= MAX_REFLOG_FILES) return;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) reflogFiles(p, out);
    else if (e.isFile()) out.push(p);
  }
}

/**
 * True when one of this clone's reflog files (`logs/**` of the git dir and of the common dir)
 * names `id` as an old or new value: the commit was here once, so its absence now means the
 * history was rewritten, not that it was never fetched. Reads files only (bounded by
 * MAX_REFLOG_FILES and MAX_REFLOG_BYTES), never runs git.
 */
export function reflogNames(gitDir: string | null, id: string): boolean {
  // The null id is every reflog's "old" value on its first line: it never means the commit was here.
  if (gitDir === null || isNullObjectId(id.toLowerCase())) return false;
  const files: string[] = [];
  for (const dir of new Set([gitDir, commonDirOf(gitDir)])) reflogFiles(path.join(dir, "logs"), files);
  const needle = Buffer.from(id.toLowerCase(), "latin1");
  let budget = MAX_REFLOG_BYTES;
  for (const f of files) {
    try {
      const buf = readFileSync(f);
      budget -= buf.length;
      if (budget < 0) return false;
      // Each line is `<old> <new> <ident>\t<message>`: the id at a line start or after one space.
      let at = buf.indexOf(needle);
      while (at !== -1) {
        const before = at === 0 ? 0x0a : buf[at - 1];
        const after = buf[at + needle.length];
        if ((before === 0x0a || before === 0x20) && (after === 0x20 || after === 0x0a || after === undefined))
          return true;
        at = buf.indexOf(needle, at + 1);
      }
    } catch {
      // an unreadable reflog names nothing
    }
  }
  return false;
}

/**
 * Whether a branch exists in this clone, as a local branch or a remote-tracking one
 * (`refs/heads/<b>`, `refs/remotes/<remote>/<b>`), read from loose refs and `packed-refs`.
 * @returns null when it cannot be told from files (a reftable repository, an unknown git dir).
 */
export function branchPresent(gitDir: string | null, branch: string): boolean | null {
  if (gitDir === null) return null;
  const common = commonDirOf(gitDir);
  if (isFile(path.join(common, "reftable", "tables.list"))) return null;
  if (branch.split("/").some((part) => part === "" || part === "." || part === "..")) return false;
  if (isFile(path.join(common, "refs", "heads", branch))) return true;
  try {
    for (const remote of readdirSync(path.join(common, "refs", "remotes"))) {
      if (isFile(path.join(common, "refs", "remotes", remote, branch))) return true;
    }
  } catch {
    // no remotes
  }
  let packed: string;
  try {
    packed = readFileSync(path.join(common, "packed-refs"), "utf8");
  } catch {
    return false;
  }
  for (const line of packed.split("\n")) {
    const ref = line.split(" ")[1];
    if (ref === undefined) continue;
    if (ref === `refs/heads/${branch}`) return true;
    const m = /^refs\/remotes\/[^/]+\/(.+)$/.exec(ref);
    if (m && m[1] === branch) return true;
  }
  return false;
}
