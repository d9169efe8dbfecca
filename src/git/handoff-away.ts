// Where a handoff the working tree lacks went (a stash, another branch), or a newer save of this clone than the tree's,
// at one `cat-file --batch` (docs/design.md#a-handoff-away-from-the-working-tree).
import path from "node:path";
import { existsSync, readdirSync } from "../builtins.ts";
import { mayHoldToken, quotedPath, quotedValue, shellWord } from "../guard/quote.ts";
import { branchWords } from "../guard/words.ts";
import { isoSeconds } from "../schema/values.ts";
import { readSmall, tokenOf } from "../store/files.ts";
import { archiveDir } from "../store/paths.ts";
import { configPipe } from "./config-pipe.ts";
import { gitDirOf, gitTopOf, stashEntries } from "./git-dir.ts";
import { batchBlobs, GitUnavailable, runGit, unlessUnavailable } from "./run.ts";
import { lastSave, savedHere, savedStampOf, savesRecord } from "./saves.ts";

type Env = Record<string, string | undefined>;

// A git that exits non-zero (a repository extension it does not know, a damaged ref) gave no answer, which must
// never read as "not there": like a run past its time limit, it makes the caller say nothing.
async function answer(root: string, args: string[], env: Env, timeout?: number, input?: string) {
  const r = await runGit(root, args, env, timeout, input === undefined ? {} : { input });
  if (r.code !== 0) throw new GitUnavailable("failed", `git ${args[0]} exited ${r.code}`);
  return r.stdout;
}

/**
 * The stash entry or branch holding the handoff, and the command that brings back only it (`worktree`: the linked
 * worktree that has that branch checked out; `beforePop`: what clears `git stash pop`'s way after the restore);
 * or `lost`: this worktree's newest save (its `Saved:` time) is in none of them, and `restore` brings back git's
 * copy ("": none); `later`: the tree's handoff was saved after it.
 */
export type HandoffAway = {
  stash?: string; ref?: string; worktree?: string; lost?: string; restore: string; later?: boolean; beforePop?: string;
};
/** The branch list a verb run reads at most once, for `handoffAway` and `handoffsElsewhere` alike. */
export type Branches = { refs?: Promise<Branch[]> };
type Branch = { name: string; id: string; worktree?: string };

// Branches but the checked-out one, newest first, at most 1,000; `%(worktreepath)` last, as a path may hold blanks.
async function branchRefs(root: string, env: Env, timeout?: number): Promise<Branch[]> {
  const format = "--format=%(HEAD) %(objectname) %(refname) %(worktreepath)";
  const out = await answer(root, ["for-each-ref", "--sort=-committerdate", format, "refs/heads", "refs/remotes"], env,
    timeout);
  const lines = out.toString("utf8").split("\n").filter((l) => l.startsWith("  "));
  const all = lines.map((l) => /^ {2}(\S+) (\S+) (.*)$/.exec(l)).filter((m) => m !== null && !m[2]!.endsWith("/HEAD"));
  return all.slice(0, 1000).map((m) => ({ id: m![1]!, name: m![2]!.replace(/^refs\/(heads|remotes)\//, ""),
    worktree: m![3] || undefined }));
}

// A branch as every output shows it: a token-shaped name withheld for its commit, and a command naming a branch only
// when plain, else its commit id, so that no quote, blank, bidi character nor token is pasted into a shell.
function shown(b: Branch): { name: string; rev: string } {
  if (mayHoldToken(b.name)) return { name: `<name withheld: commit ${b.id.slice(0, 12)}>`, rev: b.id };
  return { name: b.name, rev: /^[\p{L}\p{N}._/+#@,-]+$/u.test(b.name) ? b.name : b.id };
}

// The handoff's path from the top of the work tree, as `<rev>:<path>` takes it; null outside git or on a line break.
function handoffSpec(root: string, env: Env): string | null {
  const top = gitTopOf(root, env);
  const file = top === null ? "\n" : `${path.relative(top, root).split(path.sep).join("/")}/.ai/memory/HANDOFF.md`;
  return /[\r\n]/.test(file) ? null : file.replace(/^\//, "");
}

// A save's time from its `Saved:` stamp (`savedStampOf`), an offset such as `+01:00` kept; NaN when it has none.
const stampMs = (stamp: string | null | undefined) => Date.parse(stamp?.replace(/\+[0-9a-f]{12}$/, "") ?? "");

/** The stash entry or branch holding the handoff the tree lacks, or (with `tree`) a newer save of this clone. */
export function handoffAway(root: string, env: Env, tree: string | null = null, branches: Branches = {},
  timeout?: number): Promise<HandoffAway | null> {
  return unlessUnavailable(awayOrThrow(root, env, tree, branches, timeout), null);
}

// A git run past its time limit throws `GitUnavailable`: no answer, which `newestSave` must not take for "not there".
async function awayOrThrow(root: string, env: Env, tree: string | null, branches: Branches, timeout?: number,
): Promise<HandoffAway | null> {
  const top = gitTopOf(root, env);
  const gitDir = top === null ? null : gitDirOf(top);
  if (top === null || gitDir === null) return null;
  const saves = savesRecord(root, env) ?? [];
  // Which save of this clone a text is, by token, else by `Saved:` stamp; -1: none.
  const rank = (text: string, token: string) => {
    const stamp = savedStampOf(text) ?? "no stamp";
    const byToken = saves.findLastIndex((s) => s.token === token);
    return byToken !== -1 ? byToken : saves.findLastIndex((s) => s.stamp === stamp);
  };
  const treeRank = tree === null ? -1 : rank(tree, tokenOf(Buffer.from(tree)));
  // Nothing newer can be found when the tree holds this clone's newest save.
  if (tree !== null && (saves.length === 0 || treeRank === saves.length - 1)) return null;
  // Linked worktrees share the stash: only this worktree's entries can hold its handoff.
  const own = stashEntries(gitDir).slice(0, 100).map((e) => e.own);
  const count = own.length;
  const file = handoffSpec(root, env);
  if ((count === 0 && saves.length === 0) || file === null) return null;
  // A named pipe in git's config holds every git run for its whole timeout (docs/decisions/config-pipe.md).
  if (configPipe(root, env) !== null) return null;
  const refs = saves.length > 0 ? await (branches.refs ??= branchRefs(root, env, timeout)) : [];
  if (count === 0 && refs.length === 0) return null;
  const stashRevs = Array.from({ length: count }, (_, i) => [`stash@{${i}}^3`, `stash@{${i}}`, `stash@{${i}}^1`]);
  const revs = [...stashRevs.flat(), ...refs.map((b) => b.id)];
  const input = revs.map((x) => `${x}:${file}\n`).join("");
  const blobs = batchBlobs(await answer(root, ["cat-file", "--batch"], env, timeout, input), revs.length);
  // A save stamped before the tree's is not newer: a merge result holds this clone's older save.
  const treeAt = tree === null ? NaN : stampMs(savedStampOf(tree));
  const rankOf = (b: Buffer) => {
    const text = b.toString("utf8");
    return stampMs(savedStampOf(text)) < treeAt ? -1 : rank(text, tokenOf(b));
  };
  const newer = (b: Buffer | null | undefined) => b != null && rankOf(b) > treeRank;
  for (let i = 0; i < count; i++) {
    const [untracked, tracked, before] = blobs.slice(i * 3, i * 3 + 3);
    const stash = `stash@{${i}}`;
    if (!own[i]) continue;
    // `--overlay` removes nothing: the untracked tree holds only what the stash took, none of it committed.
    if (untracked && (tree === null || newer(untracked))) {
      const restore = `git restore --overlay --source=${stash}^3 -- .ai/memory`;
      return { stash, restore, beforePop: "mv .ai/memory .ai/memory-aside" };
    }
    // A handoff the stash took from the index or the tree: in its tree, other than in the commit it was made on.
    // Only the restored handoff is in the pop's way: the commit's copy goes back, or, without one, the file goes.
    if (tracked && (tree === null ? !before : newer(tracked) && !before?.equals(tracked))) {
      const beforePop = before ? `git restore -- ${HANDOFF}` : `rm ${HANDOFF}`;
      return { stash, restore: `git restore --source=${stash} -- ${HANDOFF}`, beforePop };
    }
  }
  const ranks = refs.map((_, j) => blobs[count * 3 + j]).map((b) => (b ? rankOf(b) : -1));
  const best = Math.max(-1, ...ranks);
  if (best <= treeRank) return null;
  // The work tree only: staged, the user's next plain `git commit` would commit it (docs/decisions/handoff-restore.md).
  const pick = refs[ranks.indexOf(best)]!;
  const branch = shown(pick);
  const restore = `git restore --source=${shellWord(branch.rev) ?? pick.id} -- .ai/memory/HANDOFF.md`;
  return { ref: branch.name, worktree: pick.worktree, restore };
}

/** Where this worktree's newest save is when the tree lacks it: `handoffAway`'s answer, else `lost`; null: not lost. */
export function newestSave(root: string, env: Env, tree: string | null, branches: Branches = {},
  timeout?: number): Promise<HandoffAway | null> {
  // A git run cut short (past its time limit) is no answer: nothing is said, never "in neither" nor "no copy".
  return unlessUnavailable(newestOrThrow(root, env, tree, branches, timeout), null);
}

async function newestOrThrow(root: string, env: Env, tree: string | null, branches: Branches, timeout?: number,
): Promise<HandoffAway | null> {
  const own = lastSave(root, env);
  // Two saves of this clone stamped in one second: only their bytes tell the older from the newer.
  const twice = (stamp: string | null) =>
    (savesRecord(root, env) ?? []).filter((s) => stampMs(s.stamp) === stampMs(stamp)).length > 1;
  // The `Saved:` time first: the token's hash loads node:crypto, which every session start would pay for.
  const holds = (text: string | null, save: { token: string; stamp: string | null } | undefined) => {
    if (save === undefined || text === null) return save === undefined;
    const [at, ms] = [stampMs(savedStampOf(text)), stampMs(save.stamp)];
    // Another clone's mark: a save of the same second elsewhere (a teammate's), never this one.
    const mine = () => savedHere(root, env, text, () => save.token) !== false;
    const same = (savedStampOf(text) === save.stamp || at === ms) && mine();
    return at > ms || (same && !twice(save.stamp)) || tokenOf(Buffer.from(text)) === save.token;
  };
  // A later `Saved:` (a teammate's handoff a reset put here) holds this save only where archive/, git's history, a
  // stash entry or a branch shows it: its time alone says nothing (docs/decisions/lost-save.md).
  const later = own !== null && tree !== null && stampMs(savedStampOf(tree)) > stampMs(own.stamp);
  // A worktree an older version saved in has no record of its own: the clone's newest save stands for it.
  if (tree !== null && !later && holds(tree, own ?? savesRecord(root, env)?.at(-1))) return null;
  // Nothing newer than a later handoff is looked for: where this save's bytes are is asked below.
  const away = later ? null : await awayOrThrow(root, env, tree, branches, timeout);
  const gitDir = gitDirOf(gitTopOf(root, env) ?? root);
  // With no handoff here, HEAD moved by one since the save, to a commit without it (below), took the tracked file
  // away; else a hand deleted it (`git clean -fd`, `rm`), said only while git keeps the save's copy.
  const moved = tree === null && own !== null && gitDir !== null ? movedSince(gitDir, stampMs(own.stamp)) : null;
  const kept = tree !== null && !later && holds(tree, own ?? undefined);
  if (away !== null || own === null || kept) return away;
  // `archives restore` put an older one back on purpose: the newest is in archive/.
  const dir = archiveDir(root);
  const names = existsSync(dir) ? readdirSync(dir).filter((n) => /^HANDOFF-.*\.md$/.test(n)) : [];
  const archived = names.map((n) => readSmall(path.join(dir, n)));
  const stamped = (a: string) => savedStampOf(a) === own.stamp && !twice(own.stamp);
  if (archived.some((a) => a !== null && (tokenOf(Buffer.from(a)) === own.token || stamped(a))))
    return null;
  const git = own.blob !== null && configPipe(root, env) === null;
  // Without git's copy nothing tells a later handoff made from this save from one made without it.
  if (later && !git) return null;
  // One look at git's copy and at which of HEAD's commit, this worktree's stash entries and the branches hold it.
  const file = handoffSpec(root, env);
  const stashes = (gitDir === null ? [] : stashEntries(gitDir).slice(0, 100))
    .flatMap((e, i) => (e.own ? [`stash@{${i}}`, `stash@{${i}}^3`] : []));
  const refs = git && file !== null ? await (branches.refs ??= branchRefs(root, env, timeout)) : [];
  const revs = git && file !== null ? ["HEAD", moved ?? "HEAD", ...stashes, ...refs.map((b) => b.id)] : [];
  const input = `${[own.blob, ...revs.map((x) => `${x}:${file}`)].join("\n")}\n`;
  const r = git ? await answer(root, ["cat-file", "--batch-check"], env, timeout, input) : null;
  const lines = (r?.toString("utf8") ?? "").split("\n");
  const found = lines.map((l) => l.startsWith(`${own.blob} blob `));
  const ok = found[0] === true;
  const blob = (l?: string) => / blob /.test(l ?? "");
  const took = moved !== null && git && !blob(lines[1]) && blob(lines[2]);
  // A memory root below the repository's top shares this record with the top's own, whose save it may name.
  if (tree === null && !took && (!ok || file !== HANDOFF)) return null;
  // A stash entry or a branch keeps it: the user chose the handoff here over it.
  if (found.includes(true, 3)) return null;
  // A commit of this branch held it and a later one replaced it: a choice the history shows, not a loss; when HEAD's
  // commit holds it, a checkout of the file from an older commit put that one back.
  const log = ["log", "-1", "--format=%H", `--find-object=${own.blob}`, "HEAD", "--", file ?? ""];
  const held = ok && !found[1] && file !== null ? await answer(root, log, env, timeout) : null;
  if (held !== null && held.length > 0) return null;
  const ms = stampMs(own.stamp);
  const lost = Number.isNaN(ms) ? "an unknown time" : isoSeconds(ms);
  return { lost, restore: ok ? `git cat-file blob ${own.blob} > ${HANDOFF}` : "", ...(later ? { later } : {}) };
}

const HANDOFF = ".ai/memory/HANDOFF.md";

// The commit HEAD's last move (its reflog's last line: a reset, a checkout, a pull) left, when that move came in or
// after the second of a save stamped `savedMs` and went to another commit (`git stash` resets to HEAD itself); else
// null. Files only: the hook reads them.
function movedSince(gitDir: string, savedMs: number): string | null {
  const log = readSmall(path.join(gitDir, "logs", "HEAD"), 50_000_000)?.trimEnd() ?? "";
  const line = log.slice(log.lastIndexOf("\n") + 1);
  const m = /^([0-9a-f]+) ([0-9a-f]+) .* (\d+) [+-]\d{4}\t(reset|checkout|pull|merge|rebase)/.exec(line);
  return m !== null && m[1] !== m[2] && Number(m[3]) >= Math.floor(savedMs / 1000) ? m[1]! : null;
}

/** Writes `bytes` into git's objects and gives its id: a copy a `git reset --hard` cannot take; null outside git. */
export async function keptBlob(root: string, env: Env, bytes: Buffer): Promise<string | undefined> {
  if (gitTopOf(root, env) === null) return undefined;
  const r = await runGit(root, ["hash-object", "-w", "--stdin"], env, undefined, { input: bytes }).catch(() => null);
  const id = r?.code === 0 ? r.stdout.toString("utf8").trim() : "";
  return /^[0-9a-f]{40,64}$/.test(id) ? id : undefined;
}

/** Branches but this one whose newest commit holds a handoff, newest first, one per handoff; `file`: its path. */
export type HandoffsElsewhere = { refs: string[]; file: string; rev: string; worktree?: string };

// Branches whose tip holds another handoff (a teammate's), so that no cold start is called while one is on file.
export async function handoffsElsewhere(root: string, env: Env, timeout?: number, branches: Branches = {},
): Promise<HandoffsElsewhere | null> {
  const file = handoffSpec(root, env);
  const refs = file === null ? [] : await unlessUnavailable(branches.refs ??= branchRefs(root, env, timeout), []);
  if (refs.length === 0) return null;
  const input = ["HEAD", ...refs.map((b) => b.id)].map((x) => `${x}:${file}\n`).join("");
  const r = await unlessUnavailable(runGit(root, ["cat-file", "--batch-check"], env, timeout, { input }), null);
  if (r === null || r.code !== 0) return null;
  // `<id> blob <size>` or `<rev> missing`, a line each: the names hold no blank.
  const ids = r.stdout.toString("utf8").split("\n").map((l) => /^([0-9a-f]{40,64}) blob /.exec(l)?.[1]);
  const seen = new Set([ids[0]]);
  const held = refs.filter((_, i) => ids[i + 1] && !seen.has(ids[i + 1]) && seen.add(ids[i + 1]));
  const names = held.map(shown);
  if (names.length === 0) return null;
  return { refs: names.map((b) => b.name), file: file!, rev: names[0]!.rev, worktree: held[0]!.worktree };
}

/** Which branches hold a handoff (three named) and how to brief one without checking it out. */
export function elsewhereSentence(e: HandoffsElsewhere, helper: string): string {
  const [shown, ...others] = e.refs.slice(0, 3).map((b) => branchWords(b));
  const more = e.refs.length > 3 ? ` and ${e.refs.length - 3} more` : "";
  const also = others.length === 0 ? "" : ` (also ${others.join(", ")}${more})`;
  const spec = `${e.rev}:${e.file}`;
  const said = `a handoff is committed on branch ${shown}${also}, not on this one: brief it with ` +
    `\`git show ${shellWord(spec) ?? quotedValue(spec)} | node ${helper} brief --stdin\`, or check that branch out`;
  // git refuses to check out a branch another worktree has checked out: that worktree is named instead.
  const there = e.worktree === undefined ? null : `resume it in the worktree at ${quotedPath(e.worktree)}`;
  return there === null ? said : `${said.slice(0, -"check that branch out".length)}${there}`;
}

/** `in stash@{n}` or `on branch "<name>"`. */
export const whereAway = (a: HandoffAway) =>
  a.ref ? `on branch ${branchWords(a.ref)}` : a.stash ? `in ${a.stash}` : `in git's objects only (Saved: ${a.lost})`;

/** After the restore: `git stash pop` refuses to overwrite what it brought back, and a checkout of the branch
 * refuses to overwrite the untracked files (`git stash -u` puts them where `brief` finds them); git checks out no
 * branch another worktree has, so that worktree's path is named instead. */
export const restoreNote = (a: HandoffAway) =>
  a.lost !== undefined
    ? "a reset, a checkout or a deletion took it from the working tree"
    : a.ref === undefined
    ? `that entry keeps a copy: run \`${a.beforePop}\` before \`git stash pop\``
    : a.worktree !== undefined
    ? `${branchWords(a.ref)} is checked out in the worktree at ${quotedPath(a.worktree)}: resume it there instead`
    : `it comes back uncommitted: before checking out ${branchWords(a.ref)}, put it aside with ` +
      "`git stash -u -- .ai/memory`";

/** Where the handoff is and how to bring it back, for check and read alike. */
export const awaySentence = (a: HandoffAway) =>
  `a handoff is parked ${whereAway(a)}, not in the working tree: bring it back with \`${a.restore}\`; ` +
  restoreNote(a);

/** What check, brief and the hook say of `newestSave`'s answer; `here`: the tree holds an older handoff. */
export function newestSentence(a: HandoffAway, here: boolean): string {
  if (a.lost === undefined)
    return here ? `a newer save of this clone is ${whereAway(a)}: \`${a.restore}\` brings it back; ${restoreNote(a)}`
      : awaySentence(a);
  const back = a.restore === "" ? "git keeps no copy of it" : `\`${a.restore}\` brings it back`;
  const gone = "took it away, or a deletion (`git clean -fd`, `rm`) did";
  const did = here ? `put ${a.later ? "one saved after it" : "another one"} in its place` : gone;
  return `this clone's newest save (Saved: ${a.lost}) is in neither the working tree, a stash nor another branch: a ` +
    `\`git reset --hard\` or a checkout of ${HANDOFF} ${did}; ${back}`;
}
