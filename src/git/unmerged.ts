// Memory files a merge left conflicted, and the commands that resolve them (docs/design.md#conflicted-memory).
import path from "node:path";
import { existsSync } from "../builtins.ts";
import { gitDirOf, gitTopOf, inProgressOf } from "./git-dir.ts";
import { runGit } from "./run.ts";
import { quotedPath, shellWord } from "../guard/quote.ts";

type Env = Record<string, string | undefined>;

/**
 * Root-relative memory files git's index holds unmerged in `op` ("" none); `oneSided` lack a side (modify/delete);
 * `apply` for a rebase of the apply backend.
 */
export type Unmerged = { op: string; files: string[]; oneSided: string[]; apply?: boolean };

/**
 * The memory files git's index holds unmerged; git runs only while a merge, rebase, cherry-pick or revert is on, or
 * where a memory file holds markers (`marked`): a stash pop leaves no file of its own, only unmerged entries.
 */
export async function unmergedMemory(root: string, env: Env, timeoutMs?: number, marked = false): Promise<Unmerged> {
  const top = gitTopOf(root, env);
  const dir = top === null ? null : gitDirOf(top);
  // `git am` and `git merge --squash` stop with no MERGE_HEAD; their own files say so.
  const stopped = (f: string, name: string) => (dir !== null && existsSync(path.join(dir, f)) ? name : null);
  const under = inProgressOf(dir) ?? stopped("rebase-apply/applying", "am") ?? stopped("SQUASH_MSG", "squash");
  const op = under === null || under === "bisect" ? "" : under;
  if (dir === null || (op === "" && !marked)) return { op, files: [], oneSided: [] };
  const r = await runGit(root, ["ls-files", "-u", "-z", "--", ".ai/memory"], env, timeoutMs).catch(() => null);
  // Each line is `<mode> <object> <stage>\t<path>`: stage 2 is our side, 3 theirs.
  const stages = new Map<string, string>();
  for (const l of r?.code === 0 ? r.stdout.toString("utf8").split("\0") : []) {
    const tab = l.indexOf("\t");
    if (tab > 0) stages.set(l.slice(tab + 1), (stages.get(l.slice(tab + 1)) ?? "") + l.slice(tab - 1, tab));
  }
  const files = [...stages.keys()];
  const oneSided = files.filter((f) => !(stages.get(f)!.includes("2") && stages.get(f)!.includes("3")));
  const apply = op.startsWith("rebase") && existsSync(path.join(dir, "rebase-apply"));
  return { op: op.split(" ")[0]!, files, oneSided, apply };
}

/**
 * What resolves `files` (memory-relative): unmerged ones with both sides are merged again by git with our driver
 * (registered by `init` when `driverUnset`), one-sided ones kept as the work tree holds them, then the operation
 * under way goes on; markers alone are edited away, a handoff by saving one side whole.
 */
export function conflictAdvice(files: readonly string[], unmerged?: Unmerged, init: string | null = null): string {
  if (unmerged !== undefined && unmerged.files.length > 0) {
    // Names go into commands a user pastes, each one shell word; one no shell word holds is left to the user.
    const held = (f: string) => shellWord(f) !== null;
    const words = (list: string[]) => list.map((f) => shellWord(f)!);
    const shown = (f: string) => (held(f) ? f.slice(11) : quotedPath(f.slice(11)));
    const both = unmerged.files.filter((f) => !unmerged.oneSided.includes(f));
    // The driver merges the handoff, the ledgers and journal files; any other file it leaves to git's text merge.
    const ours = (f: string) => /^\.ai\/memory\/((HANDOFF|LESSONS|SOLUTIONS)\.md|journal\/[^/]+\.md)$/.test(f);
    const driven = both.filter((f) => ours(f) && held(f));
    const unnamed = both.filter((f) => ours(f) && !held(f)).map(shown);
    const byHand = both.filter((f) => !ours(f)).map(shown);
    const register = init === null ? "" : `run \`${init}\` once in this clone (it registers the merge driver), then `;
    const again = driven.length === 0 ? "" : `${register}run \`git checkout -m -- ${words(driven).join(" ")}\` (git ` +
      "merges them again with the driver), then ";
    const alone = unnamed.length === 0 ? "" : `resolve ${unnamed.join(", ")} by hand (no shell word holds the ` +
      "name): keep both sides' entries, each once, and delete the marker lines, then ";
    const hand = byHand.length === 0 ? "" : `edit ${byHand.join(", ")} to keep one side, without the marker lines ` +
      "(the driver merges only the handoff, ledgers and journal), then ";
    const add = unmerged.files.every(held)
      ? `git add -A -- ${words(unmerged.files).join(" ")}` : "git add -u -- .ai/memory";
    // A stash pop that stops on a conflict keeps its entry, the other side's copy: nothing to finish, nothing to drop.
    const kept = unmerged.op !== "" ? ""
      : "; a stash pop that stopped on them kept its stash entry, which holds that side";
    return `git holds ${unmerged.files.map(shown).join(", ")} unmerged; do not load them: ${again}${alone}${hand}` +
      `run \`${add}\` (a file only one side has is kept as it is)${finishOf(unmerged)}, then check again${kept}`;
  }
  const handoff = files.includes("HANDOFF.md")
    ? "save HANDOFF.md whole with one side (`read handoff` shows both; the save archives the conflicted file); " : "";
  const others = files.filter((f) => f !== "HANDOFF.md");
  const keep = others.length > 0
    ? `in ${others.join(", ")} keep both sides' entries, each once, and delete the marker lines; ` : "";
  return `unresolved merge conflict markers in ${files.join(", ")}; do not load them: ${handoff}${keep}check again`;
}

// What finishes the operation under way, without an editor: an agent has no terminal, and GIT_EDITOR outranks -c.
function finishOf({ op, apply }: Unmerged): string {
  if (op === "") return "";
  // The apply backend's continue commits with the patch's message; the merge backend's would open an editor.
  const rebase = apply ? "rebase --continue" : "commit --no-edit` and `git rebase --continue";
  const finish = { merge: "commit --no-edit", squash: "commit --no-edit", am: "am --continue", rebase }[op] ??
    `${op} --continue --no-edit`;
  // A resolution equal to the side being replayed onto leaves that commit empty: its own continue refuses it.
  const skip = ["merge", "squash"].includes(op) ? ""
    : ` (where git finds nothing left to commit, the resolution emptied that commit: run \`git ${op} --skip\` instead)`;
  return ` and \`git ${finish}\` to finish the ${op}${skip}`;
}
