// The project root, found one way for every verb, so no two verbs see two memories, nor one someone else controls.
import { lstatSync } from "../builtins.ts";
import path from "node:path";
import { Refused } from "../errors.ts";
import { homeFolder, samePath } from "../store/home.ts";
import { exists, realOrNull } from "../store/files.ts";
import { runGitSync, type Env } from "./run.ts";

/** The root (a real path), the real path of the start, what made it the root, and where the walk stopped short. */
interface FoundRoot {
  root: string;
  start: string;
  by: "memory" | "git" | "start";
  stopped?: { at: string; why: string };
}

/** The refusal for a start or `--root` that is the home folder. */
export const NOT_A_PROJECT = "not a project: run it from a project folder or pass --root <project>";

// True when `child` is `parent` or lies below it (both absolute, normalised).
function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

// The real paths of `GIT_CEILING_DIRECTORIES`, absolute paths separated as PATH is, as git reads them.
function ceilings(env: Env): string[] {
  const out: string[] = [];
  for (const c of (env.GIT_CEILING_DIRECTORIES ?? "").split(path.delimiter)) {
    if (c === "" || !path.isAbsolute(c)) continue;
    out.push(realOrNull(c) ?? path.resolve(c));
  }
  return out;
}

const safeCache = new WeakMap<Env, string[]>();

// git's `safe.directory` values from the scopes git trusts for it (not a repository's own config), `~` expanded.
function safeDirectories(env: Env): string[] {
  // Asked once per environment: one verb's walks can pass distrusted folders many times.
  const known = safeCache.get(env);
  if (known !== undefined) return known;
  const args = ["config", "-z", "--show-scope", "--type=path", "--get-all", "safe.directory"];
  const r = runGitSync("/", args, { ...env, PATH: env.PATH ?? process.env.PATH, HOME: homeFolder(env) }, 5000);
  const fields = r?.code === 0 ? r.stdout.toString("utf8").split("\0") : [];
  let out: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (!["system", "global", "command"].includes(fields[i]!)) continue;
    // An empty value clears the list, as git reads it.
    out = fields[i + 1] === "" ? [] : [...out, fields[i + 1]!];
  }
  safeCache.set(env, out);
  return out;
}

function listedSafe(dir: string, env: Env): boolean {
  return safeDirectories(env).some((s) => {
    if (s === "*") return true;
    if (s.endsWith("/*")) return within(dir, realOrNull(s.slice(0, -2)) ?? s.slice(0, -2));
    return (realOrNull(s) ?? path.resolve(s)) === dir;
  });
}

// Why the walk must not look inside `dir` above the start, or null: a sticky world-writable folder such as /tmp
// (anyone may have planted `.ai` there) or another uid's but root's, unless `safe.directory` lists it.
function distrust(dir: string, uid: number | undefined, env: Env): string | null {
  // The walk reached `dir` from below: only its vanishing could make lstat fail.
  const st = uid === undefined ? undefined : lstatSync(dir, { throwIfNoEntry: false });
  if (st === undefined) return null;
  let why: string | null = null;
  if (st.uid !== uid && st.uid !== 0) why = `owned by another user (uid ${st.uid})`;
  if ((st.mode & 0o1002) === 0o1002) why = "a sticky folder anyone can write to";
  if (why === null || listedSafe(dir, env)) return null;
  return why;
}

// The refusal for a root inside a work tree git would call dubious (as root, `SUDO_UID`'s is the user's), or null.
function dubious(root: string, uid: number | undefined, env: Env): Refused | null {
  if (uid === undefined) return null;
  for (let dir = root; ; ) {
    if (dir !== root && distrust(dir, uid, env) !== null) return null;
    if (exists(path.join(dir, ".git"))) {
      const owner = lstatSync(dir, { throwIfNoEntry: false })?.uid;
      if (owner === undefined) return null;
      const sudo = uid === 0 && /^\d+$/.test(env.SUDO_UID ?? "") ? Number(env.SUDO_UID) : null;
      if (owner === uid || owner === sudo || listedSafe(dir, env)) return null;
      const what = `${dir} is a git repository owned by another user (uid ${owner}), which git refuses as dubious`;
      const trust = `\`git config --global --add safe.directory ${dir}\``;
      const fix = `run from a project of your own, or, if you trust it, ${trust}`;
      return new Refused(`${what}; its memory is not used: ${fix}`);
    }
    const parent = path.dirname(dir);
    if (parent === dir || ceilings(env).includes(parent)) return null;
    dir = parent;
  }
}

// A memory above the start is adopted only when its folders are the user's or root's.
function memoryOwnedWell(dir: string, uid: number | undefined): boolean {
  if (uid === undefined) return true;
  return [path.join(dir, ".ai"), path.join(dir, ".ai", "memory")].every((p) => {
    const owner = lstatSync(p, { throwIfNoEntry: false })?.uid;
    return owner === uid || owner === 0;
  });
}

/** Why a folder above a trusted start must not be looked inside (findRoot's rule), for code that walks up itself. */
export function distrustedAbove(dir: string, env: Env): string | null {
  return distrust(dir, process.getuid?.(), env);
}

/** The nearest folder at or above `start` holding `.ai/memory` or `.git`, else the start; never a distrusted one. */
export function findRoot(startPath: string, env: Env): FoundRoot {
  const start = realOrNull(startPath);
  const st = start === null ? undefined : lstatSync(start, { throwIfNoEntry: false });
  if (start === null || st === undefined) {
    throw new Refused(`root ${startPath} does not exist; pass the project root with --root`);
  }
  if (!st.isDirectory()) throw new Refused(`root ${startPath} is not a directory; pass the project root with --root`);
  const homeVar = homeFolder(env);
  const home = homeVar ? realOrNull(homeVar) : null;
  if (home !== null && samePath(start, home)) throw new Refused(NOT_A_PROJECT);
  const uid = process.getuid?.();
  // A shared scratch folder is nobody's project, even started in: anyone may have planted its memory.
  if (uid !== undefined && (st.mode & 0o1002) === 0o1002 && !listedSafe(start, env)) {
    const fix = "run it from a project folder or pass --root <project>";
    throw new Refused(`${start} is a sticky folder anyone can write to (like /tmp), never a project: ${fix}`);
  }
  const found = walk(start, env, uid, home);
  // Never a memory inside another user's checkout (git calls it dubious), the start's included.
  const refusal = dubious(found.root, uid, env);
  if (refusal !== null) throw refusal;
  return found;
}

function walk(start: string, env: Env, uid: number | undefined, home: string | null): FoundRoot {
  if (exists(path.join(start, ".ai", "memory"))) return { root: start, start, by: "memory" };
  const stops = ceilings(env);
  const belowHome = home !== null && within(start, home);
  let dir = start;
  for (;;) {
    if (dir !== start) {
      const why = distrust(dir, uid, env);
      if (why !== null) return { root: start, start, by: "start", stopped: { at: dir, why } };
    }
    if (exists(path.join(dir, ".ai", "memory"))) {
      if (dir === start || memoryOwnedWell(dir, uid)) return { root: dir, start, by: "memory" };
      return { root: start, start, by: "start", stopped: { at: dir, why: "its .ai/memory belongs to another user" } };
    }
    if (exists(path.join(dir, ".git"))) return { root: dir, start, by: "git" };
    const parent = path.dirname(dir);
    const ceiling = stops.some((s) => samePath(s, parent)) || (belowHome && samePath(parent, home!));
    if (parent === dir || ceiling) return { root: start, start, by: "start" };
    dir = parent;
  }
}
