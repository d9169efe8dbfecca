// Two installs sharing a file (AGENTS.md) never lose each other's edit (docs/decisions/agent-files-atomic.md).
import { lstatSync, mkdirSync, rmdirSync } from "../builtins.ts";
import path from "node:path";
import { Refused } from "../errors.ts";
import { orNull, succeeds } from "../store/files.ts";
import { homeFolder, userDir } from "../store/home.ts";
import { acquireLockDir } from "../store/lock.ts";
import { findRoot } from "../git/root.ts";
import type { Caller } from "./target.ts";

/** Runs `run` under the project's (or with --global the user's) install lock; folders it made go when empty. */
export async function underInstallLock<T>(ctx: Caller, uninstall: boolean, run: () => Promise<T>): Promise<T> {
  if (ctx.values["dry-run"] === true) return run();
  const global = ctx.values.global === true;
  const given = typeof ctx.values.root === "string" && ctx.values.root !== "" ? ctx.values.root : ".";
  const root = global ? null : orNull(() => findRoot(path.resolve(ctx.cwd, given), ctx.env).root);
  // A bad --root takes no lock: the run itself refuses it.
  if (!global && root === null) return run();
  const lockDir = path.join(root === null ? userDir(ctx.env) : path.join(root, ".ai"), ".install.lock");
  const parent = path.dirname(lockDir);
  const made = makeParent(parent);
  try {
    const what = "another install or uninstall is editing these agent files";
    const retry = "wait for it to finish and retry";
    const lock = await acquireLockDir(lockDir, 10, { what, retry, makeParent: true });
    try {
      return await run();
    } finally {
      await lock.release();
    }
  } finally {
    const stop = global ? path.resolve(homeFolder(ctx.env) || "/") : root!;
    const below = (dir: string) => dir.startsWith(`${stop}${path.sep}`);
    for (let dir = parent; (made !== null || uninstall) && below(dir); dir = path.dirname(dir)) {
      if (!succeeds(() => rmdirSync(dir))) break; // not empty: something else lives there
      if (dir === made && !uninstall) break;
    }
  }
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
