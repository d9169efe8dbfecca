// The environment anchors of a save: what git and the files say at the root when it is saved.
import { lstat } from "node:fs/promises";
import path from "node:path";
import type { AnchorValues } from "../schema/anchor-lines.ts";
import { isoSeconds, safeRelativePath } from "../schema/values.ts";
import { blobIdsOf } from "./blob-ids.ts";
import { commonDirOf, gitDirOf, gitTopOf, inProgressOf } from "./git-dir.ts";
import { filterDrivers, GitUnavailable, runGit, type Env, type Git } from "./run.ts";
import {
  BROKEN_REPO_FIX, folderOf, foldedInto, parseStatusV2, readSnapshot, statusArgs, type Snapshot,
} from "./status.ts";
import { lstatOrNull, readSmall, realOrNull } from "../store/files.ts";

// Most dirty files hashed (the rest are not anchored by content); a new folder of more files stays one entry, so that
// build output takes no place from the work in progress (docs/decisions/untracked-files.md).
const MAX_DIRTY_HASHES = 20;

/** `gitNote`: why git gave nothing (null inside git); `skippedKeyFiles`: key files refused, with the reason. */
interface CollectedAnchors extends AnchorValues {
  gitNote: string | null;
  skippedKeyFiles: { path: string; reason: string }[];
}

/** A path from a user or a file, looked up inside the root without following a link; null when missing. */
export async function statInsideRoot(root: string, rel: string): Promise<{ mtimeMs: number } | null> {
  const parts = rel.split("/");
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = path.join(at, part);
    const st = await lstat(at).catch(() => null);
    // Only the last component may be a link (not followed); a linked parent could lead outside the root.
    if (st === null || (i < parts.length - 1 && !st.isDirectory())) return null;
    if (i === parts.length - 1) return { mtimeMs: st.mtimeMs };
  }
  return null;
}

/** The skill's folder inside the root, as invoked and as its real path, so that `git status` leaves it out. */
export function skillExcludes(root: string, skillDir: string | null): string[] {
  if (skillDir === null) return [];
  const out = new Set<string>();
  // Excluded as invoked only when its real path cannot be read.
  for (const dir of [path.resolve(skillDir), realOrNull(skillDir)]) {
    if (dir === null) continue;
    const rel = path.relative(root, dir);
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel) || /[\x00-\x1f\x7f]/.test(rel)) continue;
    out.add(rel.split(path.sep).join("/"));
  }
  return [...out];
}

/** `s` with each new folder of more than MAX_DIRTY_HASHES files (build output, a vendored tree) as one entry. */
async function foldedBig(root: string, env: Env, excludes: readonly string[], s: Snapshot): Promise<Snapshot> {
  // With this few dirty paths no folder holds more: the second git process is spared.
  if (s.dirty.length <= MAX_DIRTY_HASHES) return s;
  const r = await runGit(root, statusArgs(excludes, true), env);
  const folders = new Set(r.code === 0 ? parseStatusV2(r.stdout).dirty.filter((d) => d.endsWith("/")) : []);
  const files = new Map<string, number>();
  for (const d of s.dirty.map((p) => folderOf(folders, p))) if (d !== undefined) files.set(d, (files.get(d) ?? 0) + 1);
  return foldedInto(s, [...files].filter(([, n]) => n > MAX_DIRTY_HASHES).map(([d]) => d));
}

/** Each path's mode as `git add` would store it (`now`) and as a reader assumes without a `Dirty modes:` entry. */
export function modesOf(top: string, snap: Snapshot, paths: readonly string[]) {
  const gitDir = gitDirOf(top);
  const config = gitDir === null ? null : readSmall(path.join(commonDirOf(gitDir), "config"));
  const trustX = !/^\s*filemode\s*=\s*false\s*$/im.test(config ?? "");
  return new Map(paths.map((p) => {
    const m = snap.modes?.get(p);
    const st = m === undefined ? lstatOrNull(path.join(top, p)) : null;
    const x = trustX && st?.isFile() === true && (st.mode & 0o100) !== 0;
    const now = m?.[1] ?? (st?.isSymbolicLink() ? "120000" : x ? "100755" : "100644");
    return [p, { now, assumed: m === undefined || m[0] === "000000" ? "100644" : m[0] }];
  }));
}

/** The anchors at the root: one git process and up to three to hash; outside git, the key files' mtimes. */
export async function collectAnchors(
  root: string, env: Env, nowMs: number, keyFiles: readonly string[], skillDir: string | null = null,
): Promise<CollectedAnchors> {
  const date = isoSeconds(nowMs);
  let gitNote: string | null = null;
  try {
    const excludes = skillExcludes(root, skillDir);
    const r = await readSnapshot(root, env, excludes);
    if (r.kind === "repo") {
      const s = await foldedBig(root, env, excludes, r.snapshot);
      const top = gitTopOf(root, env);
      const op = top === null ? null : inProgressOf(gitDirOf(top));
      const inProgress = op === null ? null : { words: op, conflicted: s.conflicted ?? 0 };
      // The `- Dirty hashes:` items; a folder (an untracked nested repository) has none.
      const git: Git = (args, input) => runGit(root, args, env, undefined, { input });
      const hash = async (t: string) => blobIdsOf(git, await filterDrivers(root, env), t, s.dirty, MAX_DIRTY_HASHES);
      const ids = top === null ? null : await hash(top);
      const dirtyHashes = s.dirty.flatMap((p) => (ids?.has(p) ? [{ path: p, id: ids.get(p)! }] : []));
      // A mode other than the one a reader assumes: a mode change is work too (`chmod +x`).
      const hashed = dirtyHashes.filter((h) => h.id !== "deleted").map((h) => h.path);
      const modes = top === null ? [] : [...modesOf(top, s, hashed)].filter(([, m]) => m.now !== m.assumed);
      return {
        insideGit: true, branch: s.branch, head: s.head, dirty: s.dirty, date, keyFileMtimes: [], inProgress,
        dirtyHashes, dirtyModes: modes.map(([p, m]) => ({ path: p, id: m.now })), gitNote: null, skippedKeyFiles: [],
      };
    }
    const outside = `anchors are the outside-git ones: ${BROKEN_REPO_FIX}`;
    if (r.kind === "broken") gitNote = `git cannot read the repository here (${r.note}); ${outside}`;
    else gitNote = `not a git repository (${r.note})`;
  } catch (err) {
    if (!(err instanceof GitUnavailable)) throw err;
    gitNote = err.reason === "missing" ? "git was not found on PATH; anchors are the outside-git ones" : err.message;
  }
  const keyFileMtimes: AnchorValues["keyFileMtimes"] = [];
  const skippedKeyFiles: CollectedAnchors["skippedKeyFiles"] = [];
  for (const value of keyFiles) {
    const given = path.isAbsolute(value) ? path.relative(root, value).split(path.sep).join("/") : value;
    const rel = safeRelativePath(given);
    if (rel === null) {
      skippedKeyFiles.push({ path: value, reason: "not a path inside the root" });
      continue;
    }
    const st = await statInsideRoot(root, rel);
    keyFileMtimes.push({ path: rel, mtime: st === null ? null : isoSeconds(st.mtimeMs) });
  }
  return { insideGit: false, branch: null, head: null, dirty: [], date, keyFileMtimes, gitNote, skippedKeyFiles };
}
