// A named pipe among git's config files blocks git forever: a verb asks first (docs/decisions/config-pipe.md).
import { statSync } from "../builtins.ts";
import path from "node:path";
import { readSmall } from "../store/files.ts";
import { homeFolder } from "../store/home.ts";
import { commonDirOf, gitDirOf, gitTopOf } from "./git-dir.ts";
import type { Env } from "./run.ts";

// The include paths a config text names (`[include]` and `[includeIf "…"]`, any condition), as written.
function includes(text: string): string[] {
  const out: string[] = [];
  let inside = false;
  for (const raw of text.split("\n")) {
    const head = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$/.exec(raw);
    if (head) inside = /^include(if)?$/i.test(head[1]!);
    const m = inside ? /^\s*path\s*=\s*("(?:[^"\\]|\\.)*"|[^#;]*)/i.exec(head ? head[2]! : raw) : null;
    if (m) out.push(m[1]!.trim().replace(/^"(.*)"$/, "$1"));
  }
  return out;
}

/** The sentence naming a named pipe git would read as config for the repository at `root`, else null. */
export function configPipe(root: string, env: Env): string | null {
  const home = homeFolder(env);
  const top = gitTopOf(root, env);
  const gitDir = top === null ? null : gitDirOf(top);
  const xdg = env.XDG_CONFIG_HOME || path.join(home, ".config");
  const global = env.GIT_CONFIG_GLOBAL ? [env.GIT_CONFIG_GLOBAL] : [path.join(home, ".gitconfig"), `${xdg}/git/config`];
  const system = env.GIT_CONFIG_NOSYSTEM ? [] : [env.GIT_CONFIG_SYSTEM || "/etc/gitconfig"];
  const local = gitDir === null ? [] : [path.join(commonDirOf(gitDir), "config"), path.join(gitDir, "config.worktree")];
  const todo: [string, string | null, number][] = [...system, ...global, ...local].map((f) => [f, null, 0]);
  // git follows at most 10 nested includes; the count bounds a config that names many.
  for (let i = 0; i < todo.length && i < 100; i++) {
    const [file, by, depth] = todo[i]!;
    if (statSync(file, { throwIfNoEntry: false })?.isFIFO() === true) {
      const via = by === null ? "a config file" : `named by include.path in ${by}`;
      return `git reads ${file} (${via}), a named pipe: git waits on it forever, so check ran no git; ` +
        "remove that include or the pipe";
    }
    const text = depth < 10 ? readSmall(file) : null;
    for (const p of text === null ? [] : includes(text)) {
      const abs = p.startsWith("~/") ? path.join(home, p.slice(2)) : path.resolve(path.dirname(file), p);
      todo.push([abs, file, depth + 1]);
    }
  }
  return null;
}
