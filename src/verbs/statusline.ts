// Claude Code's status line (docs/context-threshold.md): the user's own first (`--then`), then the handoff's state.
import { childProcess } from "../builtins.ts";
import path from "node:path";
import { hookObject, hookStart } from "../agents/harness-path.ts";
import { oursOnly } from "../git/attributes-block.ts";
import { gitDirOf, gitTopOf } from "../git/git-dir.ts";
import { commitKind, heldByRef, listedAncestors } from "../git/history-rules.ts";
import { handoffsElsewhere, newestSave, whereAway, type Branches, type HandoffAway } from "../git/handoff-away.ts";
import { unmergedMemory } from "../git/unmerged.ts";
import { runGit, type Git } from "../git/run.ts";
import { branchWords, plural } from "../guard/words.ts";
import { isConflicted } from "../schema/conflicted.ts";
import { ageWords } from "../schema/state-time.ts";
import { parseHandoff, stateTimeOfText } from "../schema/handoff.ts";
import { inspectFile, interruptedSave } from "../store/inspect.ts";
import { rootOption } from "./common.ts";
import { ok, type Verb, type VerbContext } from "./types.ts";

type Since = { commits: number; lost: number; rewritten: boolean } | "not here";

/** The state part of the line: the handoff's age, commits since its HEAD, where a newer save is, the context used. */
function statusText(handoff: string | null, since: Since | null, newest: HandoffAway | null, pct: number | null,
  now: number, none = "handoff: none"): string {
  const parts: string[] = [];
  if (handoff === null) parts.push(none);
  else {
    const age = ageWords(stateTimeOfText(handoff, now), now);
    parts.push(`handoff: ${age === "age unknown" ? age : `saved ${age}`}`);
    // A teammate's handoff whose commit this clone lacks: nothing since can be counted.
    if (since === "not here") parts.push("saved HEAD not in this clone (run brief)");
    else if (since !== null) parts.push(`${plural(since.commits, "commit")} since`);
    // The saved HEAD off HEAD's history: behind or diverged (a ref holds it), or rewritten, as the brief says.
    if (since !== null && since !== "not here" && since.rewritten) {
      const changed = `${plural(since.lost, "saved commit")} changed or dropped`;
      parts.push(`saved HEAD rewritten, ${since.lost > 0 ? changed : "patches kept"}`);
    } else if (since !== null && since !== "not here" && since.lost > 0)
      parts.push(`${plural(since.lost, "saved commit")} not on this branch`);
    if (newest?.lost !== undefined) parts.push("newest save lost (run check)");
    else if (newest !== null) parts.push(`a newer save ${whereAway(newest)} (run check)`);
  }
  if (pct !== null) parts.push(`context ${Math.round(pct)}%`);
  return parts.join(" · ");
}

async function commitsSince(root: string, handoff: string, env: VerbContext["env"]): Promise<Since | null> {
  // The anchors section's HEAD, not a `- HEAD:` line quoted elsewhere in the document.
  const head = /^`?([0-9a-f]{40}|[0-9a-f]{64})`?$/.exec(parseHandoff(handoff).anchors.head ?? "")?.[1];
  if (head === undefined) return null;
  try {
    // The helper's git runner: nothing the repository names runs.
    const git: Git = (args, input) => runGit(root, args, env, 500, { input });
    const top = gitTopOf(root, env);
    const rel = top === null ? "" : path.relative(top, root).split(path.sep).join("/");
    const memory = `${rel === "" ? "" : `${rel}/`}.ai/memory/`;
    // Counted as drift counts (docs/design.md#drift-and-its-verdict): both sides whole, a merge by its first
    // parent's names, so that no merge's other side is simplified away; `%S` gives the side, `%m` `=` a copy.
    const r = await git(["log", "--left-right", "--cherry-mark", "--source", "--format=%x01%m%S%x04%H%x04%P",
      "--name-only", "-z", "--diff-merges=first-parent", "--max-count=2001", `${head}...HEAD`]);
    if (r.code !== 0) return /Invalid symmetric difference|bad revision/.test(r.stderr) ? "not here" : null;
    const commits = `\0${r.stdout.toString("utf8")}`.split("\0\x01").slice(1).map((rec) => {
      const [header = "", ...rest] = rec.split("\0");
      const names = rest.map((p) => p.replace(/^\n/, "")).filter((p) => p !== "");
      const [from = "", id = "", parents = ""] = header.slice(1).split("\x04");
      const kind = commitKind(names, memory);
      return { mark: header[0], left: from !== "HEAD", id, parents, kind, empty: names.length === 0 };
    });
    // Past drift's 2,000 logged commits its counts are git's, its memory-only ones among the first: left out here.
    if (commits.length > 2000) return null;
    // Memory-only commits are not drift, nor `publish`'s that also adds our `.gitattributes` block.
    const attributes = commits.filter((c) => c.kind === "attributes").map((c) => c.id);
    const onHead = commits.every((c) => !c.left);
    // As drift: ancestors of the saved commit that git's walk by date listed are not since it.
    const ahead = new Map(commits.map((c) => [c.id, c.parents.split(" ").filter((p) => p !== "")]));
    const [ours, held, listed] = await Promise.all([
      oursOnly(git, attributes), onHead || heldByRef(head, git, top === null ? null : gitDirOf(top)),
      onHead ? listedAncestors(git, head, ahead) : new Set<string>(),
    ]);
    const work = commits.filter((c) =>
      !listed.has(c.id) && (c.kind === "work" || (c.kind === "attributes" && !ours.has(c.id))));
    const count = (left: boolean, copies = true) =>
      work.filter((c) => c.left === left && (copies || c.mark !== "=")).length;
    if (held !== false) return held === null ? null : { commits: count(false), lost: count(true), rewritten: false };
    // Rewritten: the saved commits with no copy on HEAD (an empty one never has one), and HEAD's that are no copy.
    const lost = work.filter((c) => c.left && (c.mark !== "=" || c.empty)).length;
    return { commits: count(false, false), lost, rewritten: true };
  } catch {
    return null;
  }
}

// Without a handoff here, where one is, so that "none" is never said while one is on file.
async function noneHere(root: string, env: VerbContext["env"], newest: HandoffAway | null, branches: Branches) {
  if (newest?.stash !== undefined) return `handoff: in ${newest.stash} (run check)`;
  if (newest?.lost !== undefined) return "handoff: none here, newest save lost (run check)";
  const ref = newest?.ref ?? (await handoffsElsewhere(root, env, 500, branches))?.refs[0];
  return ref === undefined ? undefined : `handoff: none here, one on branch ${branchWords(ref)} (run brief)`;
}

export const statuslineVerb: Verb = {
  options: { then: { type: "string" }, root: { type: "string" } },
  help: `usage: node memory_io.mjs statusline [--then COMMAND] [--root DIR]

Claude Code's status line (install writes it into .claude/settings.json's
"statusLine"). Reads Claude Code's JSON on stdin (cwd,
context_window.used_percentage); the root is found from --root, else
CLAUDE_PROJECT_DIR, else workspace.project_dir, else cwd, as the hook's.
With --then, runs COMMAND (the status line command the user had before install,
through sh, the same stdin, at most 2 s) and prints its output first, then ours
after " | ":
  handoff: saved today · 3 commits since · context 45%
"handoff: none" when there is no HANDOFF.md ("handoff: an interrupted save
(run recover)" when a killed save left it in recovery); "handoff: in
stash@{N} (run check)" when a stash entry of this worktree holds it; "handoff:
none here, one on branch "<name>" (run brief)" when another branch holds this
clone's save or a committed one (git, at most 500 ms each).
Commits since (and "· N saved commits not on this branch") are the brief's
commits ahead (and behind): memory-only ones aside (\`publish\`'s too), a
merge's other side counted (git, at most 500 ms; left out when unknown or past
2,000). A saved HEAD no ref holds is rewritten (an amend, a rebase, a reset):
commits since that copy no saved commit, then "· saved HEAD rewritten, N saved
commits changed or dropped", or "patches kept" when every one has a copy;
"· saved HEAD not in this clone (run brief)" when git lacks it.
Where this worktree's newest save is, as check says it: "· a newer save in
stash@{N} (run check)" (or on branch "<name>"), "· newest save lost (run
check)" when a reset put another handoff in its place; no git when the
handoff here is that save (git, at most 500 ms each, when it is not).
"handoff: memory conflicted (run check)" while a merge leaves a memory file
unmerged or the handoff holds conflict markers; "handoff: memory unsafe (run
check)" where the hook refuses the memory tree or HANDOFF.md.
Always exit 0.
`,
  async run(ctx) {
    const data = ctx.stdinIsTTY ? null : await ctx.readStdinWithin(1000, 65_536);
    const input = hookObject(data, 65_536) ?? {};
    let theirs = "";
    const then = ctx.values.then;
    if (typeof then === "string" && then !== "") {
      const env = ctx.env as NodeJS.ProcessEnv;
      const stdio: ["pipe", "pipe", "ignore"] = ["pipe", "pipe", "ignore"];
      const r = childProcess().spawnSync("sh", ["-c", then], { input: data ?? "", env, timeout: 2000, stdio });
      theirs = (r.stdout?.toString("utf8") ?? "").replace(/\n+$/, "");
    }
    const line = (ours = "") => ok(`${[theirs, ours].filter((s) => s !== "").join(" | ")}\n`, []);
    try {
      // The hook's rule: the project, not the folder the agent `cd`ed into (a nested repository would say "none").
      const dir = (input.workspace as Record<string, unknown> | undefined)?.project_dir ?? input.cwd;
      const root = rootOption(ctx, typeof ctx.values.root === "string" ? null : hookStart(dir, ctx.env, "claude"));
      // The hook's look: a regular file of at most 1 MB, no link followed, never a blocking read (a FIFO would hang
      // every turn); what the hook refuses is said, never "none" nor an age.
      const seen = inspectFile(root, "handoff", true, { text: true });
      const cw = input.context_window as Record<string, unknown> | undefined;
      const pct = typeof cw?.used_percentage === "number" ? cw.used_percentage : null;
      if (seen.status === "unsafe" || seen.status === "foreign") {
        return line(statusText(null, null, null, pct, Date.now(), "handoff: memory unsafe (run check)"));
      }
      // On file but not read whole (a save publishing it, or it changed while read): "age unknown", no git.
      const handoff = seen.status !== "present" ? null : typeof seen.text === "string" ? seen.text : "";
      // A save killed midway leaves the handoff under a private name: `recover` brings it back, as the hook says.
      const interrupted = seen.status === "interrupted" || interruptedSave(root);
      // A merge's conflict in any memory file: the handoff's age and commits since are not worth a glance then.
      if ((handoff !== null && isConflicted(handoff)) || (await unmergedMemory(root, ctx.env, 500)).files.length > 0) {
        return line(statusText(null, null, null, pct, Date.now(), "handoff: memory conflicted (run check)"));
      }
      // Where this worktree's newest save is, as check decides it: files first, git only when the tree lacks it.
      const tree = interrupted || handoff === "" ? undefined : handoff;
      const branches: Branches = {};
      const [commits, newest] = await Promise.all([handoff === null ? null : commitsSince(root, handoff, ctx.env),
        tree === undefined ? null : newestSave(root, ctx.env, tree, branches, 500)]);
      const none = handoff !== null ? undefined : interrupted ? "handoff: an interrupted save (run recover)"
        : await noneHere(root, ctx.env, newest, branches);
      return line(statusText(handoff, commits, newest, pct, Date.now(), none));
    } catch {
      // no root: their part alone
      return line();
    }
  },
};
