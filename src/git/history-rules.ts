// Drift's rules for commits since a save, apart for the status line's bundle (docs/design.md#drift-and-its-verdict).
import { detachedHeadsBeside } from "./git-dir.ts";
import type { Git } from "./run.ts";

/** The top's attributes file, where install and publish keep the merge driver's block. */
export const ATTRIBUTES = ".gitattributes";

/** A commit by its names (a merge's against its first parent): memory only, that and `.gitattributes`, or work. */
export function commitKind(paths: readonly string[], memoryPrefix: string): "memory" | "attributes" | "work" {
  if (paths.length > 0 && paths.every((p) => p.startsWith(memoryPrefix))) return "memory";
  const attributes = paths.includes(ATTRIBUTES) && paths.every((p) => p === ATTRIBUTES || p.startsWith(memoryPrefix));
  return attributes ? "attributes" : "work";
}

// Whether HEAD or a ref holds the id (null: no such commit); `rev-list`'s "not" by date is asked again of local
// branches, the stash and detached HEADs, as a wrong clock can hide it (docs/decisions/reachability-skew.md).
export async function heldByRef(head: string, git: Git, gitDir: string | null): Promise<boolean | null> {
  const r = await git(["rev-list", "--max-count=1", head, "--not", "--all"]);
  if (r.code !== 0) return null;
  if (r.stdout.toString("utf8").trim() === "") return true;
  const refs = ["refs/heads", "refs/stash"];
  const held = await git(["for-each-ref", "--count=1", "--format=%(refname)", "--contains", head, ...refs]);
  if (held.code === 0 && held.stdout.toString("utf8").trim() !== "") return true;
  const heads = gitDir === null ? [] : detachedHeadsBeside(gitDir);
  // The merge base of the saved commit and any of the heads is the saved commit exactly when one of them holds it.
  const base = heads.length === 0 ? null : await git(["merge-base", head, ...heads]);
  return base?.code === 0 && base.stdout.toString("utf8").trim() === head;
}

// The commits a `<saved>..HEAD` log listed that are ancestors of the saved one all the same, which git's walk by date
// can leave unmarked (docs/decisions/reachability-skew.md); one `merge-base`.
export async function listedAncestors(
  git: Git, saved: string, ahead: ReadonlyMap<string, readonly string[]>,
): Promise<Set<string>> {
  const memo = new Map<string, boolean>();
  const built = (id: string): boolean => {
    if (!memo.has(id)) memo.set(id, (ahead.get(id) ?? []).some((p) => p === saved || built(p)));
    return memo.get(id)!;
  };
  const unbuilt = new Set([...ahead.keys()].filter((id) => !built(id)));
  const parents = new Set([...unbuilt].flatMap((id) => ahead.get(id)!));
  const tips = [...unbuilt].filter((id) => !parents.has(id));
  const r = tips.length === 0 || tips.length > 50 ? null : await git(["merge-base", "--all", saved, ...tips]);
  const todo = r?.code === 0 ? r.stdout.toString("utf8").split("\n").filter((id) => unbuilt.has(id)) : [];
  const out = new Set<string>();
  for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
    if (!out.has(id)) todo.push(...ahead.get(id)!.filter((p) => unbuilt.has(p)));
    out.add(id);
  }
  return out;
}
