// The install lock: install and uninstall edit agent files under it, so two runs sharing a file
// (AGENTS.md) never lose each other's edit (measured: docs/decisions/agent-files-atomic.md).
import { lstatSync, mkdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { homeFolder, userDir } from "../store/home.ts";
import { acquireLockDir } from "../store/lock.ts";
import { findRoot } from "../store/root.ts";

// How long install and uninstall wait for each other, in seconds (the memory lock's default).
const INSTALL_LOCK_SECONDS = 10;

interface LockableContext {
  values: Record<string, unknown>;
  env: Record<string, string | undefined>;
  cwd: string;
}

/**
 * Wraps a verb's `run` (install, uninstall) in the install lock; `--dry-run` and a bad `--root` take none. Folders
 * made for the lock, or emptied by uninstall, go again when empty, never the root or HOME itself.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any verb's context holds these fields
export function underInstallLock<V extends { run(ctx: any): Promise<unknown> }>(verb: V): V {
  return {
    ...verb,
    async run(ctx: LockableContext) {
      if (ctx.values["dry-run"] === true) return verb.run(ctx);
      const global = ctx.values.global === true;
      const given = typeof ctx.values.root === "string" && ctx.values.root !== "" ? ctx.values.root : ".";
      let root: string | null = null;
      try {
        root = global ? null : findRoot(path.resolve(ctx.cwd, given), ctx.env).root;
      } catch {
        return verb.run(ctx);
      }
      const lockDir = path.join(root === null ? userDir(ctx.env) : path.join(root, ".ai"), ".install.lock");
      const parent = path.dirname(lockDir);
      const made = makeParent(parent);
      const emptiedByVerb = (verb as { name?: string }).name === "uninstall";
      const what = "another install or uninstall is editing these agent files";
      try {
        const retry = "wait for it to finish and retry";
        const lock = await acquireLockDir(lockDir, INSTALL_LOCK_SECONDS, { what, retry, makeParent: true });
        try {
          return await verb.run(ctx);
        } finally {
          await lock.release();
        }
      } finally {
        const stop = global ? path.resolve(homeFolder(ctx.env) || "/") : root!;
        const below = (dir: string) => dir.startsWith(`${stop}${path.sep}`);
        for (let dir = parent; (made !== null || emptiedByVerb) && below(dir); dir = path.dirname(dir)) {
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
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st === undefined) return mkdirSync(dir, { recursive: true, mode: 0o700 }) ?? null;
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new Refused(`${dir} is ${st.isSymbolicLink() ? "a link" : "not a directory"}; move it away and retry`);
  }
  return null;
}
