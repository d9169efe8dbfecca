// The repository's state now, from one `git status` process: branch, HEAD, upstream counts and dirty files.
import { firstLine, runGit, type Env } from "./run.ts";

/** `branch` is `(detached)` off a branch, `head` null before the first commit, `dirty` top-relative. */
export interface Snapshot {
  branch: string;
  head: string | null;
  // The current branch's upstream and how far HEAD is from it (null counts: upstream gone).
  upstream: { name: string; ahead: number | null; behind: number | null } | null;
  dirty: string[];
  conflicted?: number;
  /** Renames staged in the index: the path at HEAD, the path now. */
  renames?: [string, string][];
  /** A changed tracked path's mode at HEAD and in the work tree (`100755`, `000000` for none). */
  modes?: Map<string, [string, string]>;
}

/** `broken`: a work tree git cannot read (a corrupt index, a missing HEAD object); `note`: git's first stderr line. */
export type SnapshotResult = { kind: "repo"; snapshot: Snapshot } | { kind: "not-repo" | "broken"; note: string };

/** What to do about a `broken` repository, in words, for notes and the drift summary. */
export const BROKEN_REPO_FIX =
  "repair it (a corrupt index: remove .git/index, then `git reset`; a missing object: `git fsck`, then fetch or " +
    "restore it)";

// Porcelain v2 gives HEAD and upstream with the dirty entries in one process; a submodule's own edits would need a
// `git status` inside it, whose config may name a filter (docs/decisions/untracked-files.md).
export const STATUS_ARGS = [
  "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=dirty", "--",
  ":(exclude).ai/memory",
] as const;

/** The status command also leaving out `excludes` (root-relative); `folders`: an untracked folder as one entry. */
export function statusArgs(excludes: readonly string[] = [], folders = false): readonly string[] {
  const args = folders ? STATUS_ARGS.map((a) => a.replace(/^(--untracked-files=)all$/, "$1normal")) : STATUS_ARGS;
  return excludes.length === 0 ? args : [...args, ...excludes.map((e) => `:(exclude,literal)${e}`)];
}

/** The entry of `folders` (`dir/`) holding `p`, found by `p`'s ancestors: a path's depth, not the folders' count. */
export function folderOf(folders: ReadonlySet<string>, p: string): string | undefined {
  for (let i = p.indexOf("/"); i >= 0; i = p.indexOf("/", i + 1)) {
    if (folders.has(p.slice(0, i + 1))) return p.slice(0, i + 1);
  }
  return undefined;
}

/** `snap` with the paths under each of `folders` (`dir/`, an untracked folder saved as one entry) as that entry. */
export function foldedInto(snap: Snapshot, folders: readonly string[]): Snapshot {
  const set = new Set(folders);
  return set.size === 0 ? snap : { ...snap, dirty: [...new Set(snap.dirty.map((p) => folderOf(set, p) ?? p))] };
}

export function parseStatusV2(out: Buffer): Snapshot {
  const fields = out.toString("utf8").split("\0");
  let branch = "(detached)";
  let head: string | null = null;
  let upstreamName: string | null = null;
  let ab: { ahead: number; behind: number } | null = null;
  const dirty: string[] = [];
  const renames: [string, string][] = [];
  const modes = new Map<string, [string, string]>();
  let conflicted = 0;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f === "") continue;
    if (f.startsWith("# ")) {
      const [, key, ...rest] = f.split(" ");
      const value = rest.join(" ");
      if (key === "branch.oid") head = value === "(initial)" ? null : value;
      else if (key === "branch.head") branch = value;
      else if (key === "branch.upstream") upstreamName = value;
      else if (key === "branch.ab") {
        const m = /^\+(\d+) -(\d+)$/.exec(value);
        if (m) ab = { ahead: Number(m[1]), behind: Number(m[2]) };
      }
      continue;
    }
    const kind = f[0];
    // The path follows a fixed number of space-separated fields; it may hold spaces itself.
    const skip = kind === "1" ? 8 : kind === "2" ? 9 : kind === "u" ? 10 : kind === "?" || kind === "!" ? 1 : -1;
    if (skip < 0 || kind === "!") continue;
    let at = 0;
    for (let n = 0; n < skip; n++) at = f.indexOf(" ", at) + 1;
    dirty.push(f.slice(at));
    const parts = f.split(" ");
    if (kind !== "u" && kind !== "?") modes.set(f.slice(at), [parts[3]!, parts[5]!]);
    if (kind === "u") conflicted++;
    // A rename or copy carries its original path as the next NUL field: not listed dirty (a rename's is kept).
    if (kind === "2" && parts[8]?.startsWith("R")) renames.push([fields[i + 1]!, f.slice(at)]);
    if (kind === "2") i++;
  }
  const gap = { ahead: ab?.ahead ?? null, behind: ab?.behind ?? null };
  const upstream = upstreamName === null ? null : { name: upstreamName, ...gap };
  return { branch, head, upstream, dirty, conflicted, modes, ...(renames.length > 0 ? { renames } : {}) };
}

/** Runs the status command at the root; throws GitUnavailable. */
export async function readSnapshot(root: string, env: Env, excludes: readonly string[] = []): Promise<SnapshotResult> {
  const r = await runGit(root, statusArgs(excludes), env);
  if (r.code !== 0) {
    const note = firstLine(r.stderr) || `git status exited ${r.code}`;
    // A repository git cannot read is not "no repository": one process more, only on this failure, tells them apart.
    const inside = await runGit(root, ["rev-parse", "--is-inside-work-tree"], env);
    const broken = inside.code === 0 && inside.stdout.toString("utf8").trim() === "true";
    return { kind: broken ? "broken" : "not-repo", note };
  }
  return { kind: "repo", snapshot: parseStatusV2(r.stdout) };
}
