// The install lock (docs/decisions/lock.md): every edit of agent files by install and
// uninstall runs under it, so two installs sharing AGENTS.md never interleave their edits.
import { lstatSync, mkdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { homeFolder } from "./home.ts";
import { acquireLockDir } from "./lock.ts";
import { findRoot } from "./root.ts";

/** How long install and uninstall wait for each other, in seconds (the memory lock's default). */
const INSTALL_LOCK_SECONDS = 10;

/**
 * The install lock's directory: `<root>/.ai/.install.lock` for a project, or
 * `${XDG_CONFIG_HOME:-~/.config}/session-handoff/.install.lock` with `--global`.
 */
export function installLockPath(root: string | null, env: Record<string, string | undefined>): string {
  if (root !== null) return path.join(root, ".ai", ".install.lock");
  const config = env.XDG_CONFIG_HOME || path.join(homeFolder(env), ".config");
  return path.join(config, "session-handoff", ".install.lock");
}

interface LockableContext {
  values: Record<string, unknown>;
  env: Record<string, string | undefined>;
  cwd: string;
}

/**
 * Wraps a verb's `run` (install, uninstall) in the install lock, taken with the memory
 * lock's protocol; `--dry-run` takes none. The folder holding the lock is made (0700) when
 * missing and removed again when it is left empty. Input the verb itself refuses (a bad
 * `--root`) takes no lock: the verb then says what is wrong.
 * @throws Busy (exit 5) when another install or uninstall holds it for 10 s; Refused (2)
 *   when the folder holding it is a link.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any verb's context holds these fields
export function underInstallLock<V extends { run(ctx: any): Promise<unknown> }>(verb: V): V {
  return {
    ...verb,
    async run(ctx: LockableContext) {
      if (ctx.values["dry-run"] === true) return verb.run(ctx);
      let lockDir: string;
      const global = ctx.values.global === true;
      let root: string | null = null;
      try {
        root = global ? null : findRoot(path.resolve(ctx.cwd, typeof ctx.values.root === "string" && ctx.values.root !== "" ? ctx.values.root : "."), ctx.env).root;
        lockDir = installLockPath(root, ctx.env);
      } catch {
        return verb.run(ctx);
      }
      const parent = path.dirname(lockDir);
      const made = makeParent(parent);
      const emptiedByVerb = (verb as { name?: string }).name === "uninstall";
      try {
        const lock = await acquireLockDir(lockDir, INSTALL_LOCK_SECONDS, { what: "another install or uninstall is editing these agent files", retry: "wait for it to finish and retry", makeParent: true });
        try {
          return await verb.run(ctx);
        } finally {
          await lock.release();
        }
      } finally {
        // The lock's folder, and the folders above it this call made or the verb emptied
        // (uninstall removes its records), go while empty, never the root or HOME itself:
        // an install/uninstall round trip leaves HOME as it was.
        const stop = global ? path.resolve(homeFolder(ctx.env) || "/") : root!;
        for (let dir = parent; (made !== null || emptiedByVerb) && dir.startsWith(`${stop}${path.sep}`); dir = path.dirname(dir)) {
          try {
            rmdirSync(dir);
          } catch {
            break; // not empty: something else lives there
          }
          if (dir === made && !emptiedByVerb) break;
        }
      }
    },
  };
}

// The topmost folder this call made (it and those below it are removed when left empty), or null.
function makeParent(dir: string): string | null {
  try {
    const st = lstatSync(dir);
    if (st.isSymbolicLink() || !st.isDirectory()) throw new Refused(`${dir} is ${st.isSymbolicLink() ? "a link" : "not a directory"}; move it away and retry`);
    return null;
  } catch (err) {
    if (err instanceof Refused) throw err;
  }
  return mkdirSync(dir, { recursive: true, mode: 0o700 }) ?? null;
}
