// Facts read from a git dir with no process: for the hook's time, and what git cannot tell.
import { nodeCrypto, readdirSync, readFileSync, readlinkSync } from "../builtins.ts";
import path from "node:path";
import { isNullObjectId } from "../schema/values.ts";
import { distrustedAbove } from "./root.ts";
import { lstatOrNull, orNull, readSmall } from "../store/files.ts";
import type { Env } from "./run.ts";

const isFile = (p: string) => lstatOrNull(p)?.isFile() ?? false;
const isDir = (p: string) => lstatOrNull(p)?.isDirectory() ?? false;

/** The folder holding `.git` at or above `root`; null when none. `env`: the verb's, for git's `safe.directory`. */
export function gitTopOf(root: string, env: Env): string | null {
  for (let dir = root; ; dir = path.dirname(dir)) {
    // Above the root the root walk's ownership rule holds: a `.git` another user controls (/tmp/.git) is not ours.
    if (dir !== root && distrustedAbove(dir, env) !== null) return null;
    if (lstatOrNull(path.join(dir, ".git")) !== null) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** The git dir of the work tree at `top`: `.git`, or the path a `.git` file names (a worktree, a submodule). */
export function gitDirOf(top: string): string | null {
  const dotGit = path.join(top, ".git");
  if (isDir(dotGit)) return dotGit;
  const text = readSmall(dotGit);
  const m = text === null ? null : /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(text);
  const dir = m ? path.resolve(top, m[1]!) : null;
  return dir !== null && isDir(dir) ? dir : null;
}

// A full object id as a git dir's files hold it (SHA-1 or SHA-256).
const ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The commit checked out in the work tree at `dir` (a submodule's), from its git dir's files; null when not told. */
export function checkedOutAt(dir: string): string | null {
  const gitDir = gitDirOf(dir);
  const head = gitDir === null ? "" : (readSmall(path.join(gitDir, "HEAD")) ?? "").trim();
  const ref = /^ref: (refs\/[^\s\\]+)$/.exec(head)?.[1];
  if (ref === undefined || ref.split("/").includes("..")) return ID.test(head) ? head : null;
  // A branch checked out there: its loose ref, else its line in packed-refs (a reftable is not read).
  const common = commonDirOf(gitDir!);
  const loose = (readSmall(path.join(common, ref)) ?? "").trim();
  if (ID.test(loose)) return loose;
  const packed = (readSmall(path.join(common, "packed-refs"), 50_000_000) ?? "").split("\n");
  return packed.find((l) => l.endsWith(` ${ref}`) && ID.test(l.slice(0, -ref.length - 1)))?.split(" ")[0] ?? null;
}

/** The main repository's git dir for a linked worktree (its `commondir` file), else the git dir itself. */
export function commonDirOf(gitDir: string): string {
  const text = orNull(() => readFileSync(path.join(gitDir, "commondir"), "utf8").trim()) ?? "";
  return text === "" ? gitDir : path.resolve(gitDir, text);
}

/** A shallow clone's cut commits (those whose parents it lacks), from `<common dir>/shallow`; null when not shallow. */
export function shallowCuts(gitDir: string | null): Set<string> | null {
  const p = gitDir === null ? null : path.join(commonDirOf(gitDir), "shallow");
  return p !== null && isFile(p) ? new Set(orNull(() => readFileSync(p, "utf8"))?.split("\n") ?? []) : null;
}

const MAX_REFLOG_BYTES = 64 * 1024 * 1024;
const MAX_REFLOG_FILES = 2000;

function reflogFiles(dir: string, out: string[]): void {
  for (const e of orNull(() => readdirSync(dir, { withFileTypes: true })) ?? []) {
    if (out.length >= MAX_REFLOG_FILES) return;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) reflogFiles(p, out);
    else if (e.isFile()) out.push(p);
  }
}

/** True when one of this clone's reflogs names `id`: the commit was here once (git skips a missing object). */
export function reflogNames(gitDir: string | null, id: string): boolean {
  const want = id.toLowerCase();
  // The null id is every reflog's "old" value on its first line: it never means the commit was here.
  if (gitDir === null || isNullObjectId(want)) return false;
  const files: string[] = [];
  for (const dir of new Set([gitDir, commonDirOf(gitDir)])) reflogFiles(path.join(dir, "logs"), files);
  let budget = MAX_REFLOG_BYTES;
  for (const f of files) {
    // An unreadable reflog names nothing.
    const text = orNull(() => readFileSync(f, "latin1")) ?? "";
    budget -= text.length;
    if (budget < 0) return false;
    // Each line is `<old> <new> <ident>\t<message>`.
    if (text.split("\n").some((line) => line.split(" ", 2).includes(want))) return true;
  }
  return false;
}

/** The operation in progress as the `- In progress:` anchor words it (`rebase of feature/login`); not `git am`. */
export function inProgressOf(gitDir: string | null): string | null {
  if (gitDir === null) return null;
  for (const dir of ["rebase-merge", "rebase-apply"]) {
    const d = path.join(gitDir, dir);
    if (!isDir(d) || (dir === "rebase-apply" && isFile(path.join(d, "applying")))) continue;
    // `refs/heads/feature/login` -> `feature/login`; a detached rebase has no branch.
    const m = /^refs\/heads\/(\S+)\s*$/.exec(readSmall(path.join(d, "head-name")) ?? "");
    return m ? `rebase of ${m[1]}` : "rebase";
  }
  const files = { MERGE_HEAD: "merge", CHERRY_PICK_HEAD: "cherry-pick", REVERT_HEAD: "revert", BISECT_LOG: "bisect" };
  return Object.entries(files).find(([file]) => isFile(path.join(gitDir, file)))?.[1] ?? null;
}

const MAX_HASHED_BYTES = 8 * 1024 * 1024;

/** The repository's object format, from `extensions.objectFormat` in its config file. */
export function objectFormat(gitDir: string | null): "sha1" | "sha256" {
  const config = gitDir === null ? null : orNull(() => readFileSync(path.join(commonDirOf(gitDir), "config"), "utf8"));
  return /^\s*objectformat\s*=\s*sha256\s*$/im.test(config ?? "") ? "sha256" : "sha1";
}

/** What git hashes at `abs`, read once: a link's target, a file's bytes (`file`); `deleted`, `over 8 MB`, null. */
export function blobBytesOf(abs: string): { bytes: Buffer; file: boolean } | "deleted" | "over 8 MB" | null {
  const st = lstatOrNull(abs);
  if (st === null) return "deleted";
  if (st.isSymbolicLink()) return { bytes: Buffer.from(readlinkSync(abs)), file: false };
  if (!st.isFile()) return null;
  if (st.size > MAX_HASHED_BYTES) return "over 8 MB";
  const bytes = orNull(() => readFileSync(abs));
  return bytes === null ? null : { bytes, file: true };
}

/** git's blob id of `bytes` as they are. */
export const hashBlob = (bytes: Buffer, format: "sha1" | "sha256"): string =>
  nodeCrypto().createHash(format).update(`blob ${bytes.length}\0`).update(bytes).digest("hex");

/** The git dirs of the clone's other work trees: the main one's (the common dir) and each linked one's. */
function otherGitDirs(gitDir: string): string[] {
  const common = commonDirOf(gitDir);
  const linked = orNull(() => readdirSync(path.join(common, "worktrees"), { withFileTypes: true })) ?? [];
  const all = [common, ...linked.filter((e) => e.isDirectory()).map((e) => path.join(common, "worktrees", e.name))];
  return all.filter((d) => path.resolve(d) !== path.resolve(gitDir));
}

/** The commits the clone's other work trees have checked out detached (at most 100), from their HEAD files. */
export function detachedHeadsBeside(gitDir: string): string[] {
  const heads = otherGitDirs(gitDir).map((d) => (readSmall(path.join(d, "HEAD")) ?? "").trim());
  return heads.filter((h) => ID.test(h)).slice(0, 100);
}

// What the work tree of `gitDir` had checked out during a second, from its HEAD reflog; read on first ask only.
function checkedOutWhen(gitDir: string): (sec: number | null) => string[] {
  let now: string | undefined, moves: RegExpExecArray[] | undefined;
  return (sec) => {
    now ??= /^ref: refs\/heads\/(.+?)\s*$/.exec(readSmall(path.join(gitDir, "HEAD")) ?? "")?.[1] ?? "(no branch)";
    if (sec === null) return [now];
    moves ??= (readSmall(path.join(gitDir, "logs", "HEAD"), 50_000_000) ?? "").split("\n")
      .map((l) => / (\d+) [+-]\d{4}\t(?:checkout: moving from |Branch: renamed refs\/heads\/)(\S+) to /.exec(l))
      .filter((m) => m !== null);
    // The reflog is in time order: a binary search, as the stash and each worktree's reflog can be long.
    let [lo, hi] = [0, moves.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      [lo, hi] = Number(moves[mid]![1]) >= sec ? [lo, mid] : [mid + 1, hi];
    }
    const was: string[] = [];
    for (let m = moves[lo]; ; m = moves[++lo]) {
      was.push(m === undefined ? now : ID.test(m[2]!) ? "(no branch)" : m[2]!);
      if (m === undefined || Number(m[1]) > sec) return was;
    }
  };
}

/** Each stash entry, newest first: its second, and whether it is this worktree's (docs/decisions/stash-owner.md). */
export function stashEntries(gitDir: string): { sec: number | null; own: boolean }[] {
  const [others, mine] = [otherGitDirs(gitDir).map(checkedOutWhen), checkedOutWhen(gitDir)];
  // The stash's reflog, read with no git process (`check` and the hook run this).
  const log = readSmall(path.join(commonDirOf(gitDir), "logs", "refs", "stash"), 50_000_000) ?? "";
  return log.split("\n").filter((l) => l !== "").reverse().map((l) => {
    const m = / (\d+) [+-]\d{4}\t(.*)$/.exec(l);
    const sec = m ? Number(m[1]) : null;
    const on = /^(?:WIP on|On) (.+?): /.exec(m?.[2] ?? "")?.[1] ?? "";
    const had = (was: typeof mine, at = sec) => was(at).includes(on);
    const none = () => !others.some((w) => had(w));
    // Another worktree's only when its reflog or HEAD shows it had that branch then and this one's does not: a rebase,
    // an orphan checkout or no reflog leaves no move to read, and hiding a stashed handoff costs more than naming one.
    const own = on === "(no branch)" ? none() : had(mine) || none();
    return { sec, own: others.length === 0 || own };
  });
}
