// Memory files a merge left conflicted, and the commands that resolve them (docs/design.md#conflicted-memory).
import { gitDirOf, gitTopOf, inProgressOf } from "./git-dir.ts";
import { runGit } from "./run.ts";

type Env = Record<string, string | undefined>;

/** The memory files git's index holds unmerged, root-relative; git runs only while a merge or rebase is under way. */
export async function unmergedMemory(root: string, env: Env, timeoutMs?: number): Promise<string[]> {
  const top = gitTopOf(root, env);
  const op = top === null ? null : inProgressOf(gitDirOf(top));
  if (op === null || op === "bisect") return [];
  const r = await runGit(root, ["ls-files", "-u", "-z", "--", ".ai/memory"], env, timeoutMs).catch(() => null);
  const lines = r?.code === 0 ? r.stdout.toString("utf8").split("\0") : [];
  return [...new Set(lines.filter((l) => l.includes("\t")).map((l) => l.slice(l.indexOf("\t") + 1)))];
}

/** What resolves `files`: git merges unmerged ones again with our driver; markers alone are edited away. */
export function conflictAdvice(files: readonly string[], unmerged: readonly string[], driverMissing: boolean): string {
  if (unmerged.length > 0) {
    const init = driverMissing ? "run `init` once in this clone (it registers the merge driver), then " : "";
    return `git holds ${unmerged.join(", ")} unmerged; do not load them: ${init}run ` +
      `\`git checkout -m -- ${unmerged.map((p) => `.ai/memory/${p}`).join(" ")}\` (git merges them again with the ` +
      "driver), then " +
      "`git add .ai/memory` and `git commit` to finish the merge, then check again";
  }
  const handoff = files.includes("HANDOFF.md")
    ? "save HANDOFF.md whole with one side (`read handoff` shows both; the save archives the conflicted file); " : "";
  const others = files.some((f) => f !== "HANDOFF.md")
    ? "in the others keep both sides' entries, each once, and delete the marker lines; " : "";
  return `unresolved merge conflict markers in ${files.join(", ")}; do not load them: ${handoff}${others}check again`;
}
