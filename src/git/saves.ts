// Which handoffs this clone saved, kept in its git dir, never in the memory dir (which a pull or a merge brings from
// elsewhere); files only, no git process: the hook reads them.
import { linkSync, mkdirSync, nodeCrypto, renameSync, rmSync, writeFileSync } from "../builtins.ts";
import path from "node:path";
import { commonDirOf, gitDirOf, gitTopOf, stashEntries } from "./git-dir.ts";
import { runGit, type Git } from "./run.ts";
import { lstatOrNull, readSmall, tokenOf } from "../store/files.ts";
import { acquireLockDir, type LockHandle } from "../store/lock.ts";
import { quotedValue } from "../guard/quote.ts";

const KEPT = 10;
type Env = Record<string, string | undefined>;

/** `<common git dir>/session-handoff/saves` for the repository holding `root`; null outside git (`gitTopOf`). */
export function savesPath(root: string, env: Env): string | null {
  const gitDir = gitDirAt(root, env);
  return gitDir === null ? null : path.join(commonDirOf(gitDir), "session-handoff", "saves");
}

// Our other files beside `saves`.
function beside(root: string, env: Env, name: "clone-id" | "saved-by"): string | null {
  const saves = savesPath(root, env);
  return saves === null ? null : path.join(path.dirname(saves), name);
}

// The lines of a record (its first 16 KB) that match `re`; none when it cannot be read.
function recordLines(p: string, re: RegExp): RegExpExecArray[] {
  const lines = (readSmall(p) ?? "").slice(0, 16384).split("\n");
  return lines.map((l) => re.exec(l)).filter((m): m is RegExpExecArray => m !== null);
}

// Adds `line` to the record at `p` by a rename, so that a reader never sees half of it; a read-only git dir only
// leaves the record unknown. Linked worktrees share `saves` and each save holds only its own worktree's memory lock,
// so two saving at once each dropped the other's line: the memory lock's protocol on a folder beside the record (a
// dead holder's taken over); after 2 s of waiting, or where none can be made, the line is added without it, as the
// save stands either way.
async function addRecord(p: string, re: RegExp, line: string, drop: (m: RegExpExecArray) => boolean): Promise<void> {
  let lock: LockHandle | null = null;
  try {
    mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
    lock = await acquireLockDir(`${p}.lock`, 2, { what: "the saves record is busy" }).catch(() => null);
    const kept = recordLines(p, re).filter((m) => !drop(m)).map((m) => m[0]);
    const tmp = `${p}.tmp-${process.pid}`;
    rmSync(tmp, { force: true });
    writeFileSync(tmp, `${[...kept, line].slice(-KEPT).join("\n")}\n`, { mode: 0o600, flag: "wx" });
    renameSync(tmp, p);
  } catch {
    // the save stands without its record
  } finally {
    await lock?.release();
  }
}

// Each line: `<token>` then `@<Saved: stamp>` (a hand edit or the merge driver changes the token, never the stamp);
// `last-save`'s then the blob id git keeps of the save's bytes.
const LINE = /^([0-9a-f]{64})(?: @(\S+))?(?: ([0-9a-f]{40,64}))?$/;

/** A save's `Saved:` stamp and its HEAD anchor's first 12 digits, which a hand edit or the merge driver keeps. */
export function savedStampOf(text: string): string | null {
  const saved = /^Saved: (\S+)[ \t]*\r?$/m.exec(text)?.[1];
  if (saved === undefined) return null;
  const head = /^- HEAD: ([0-9a-f]{12})/m.exec(text)?.[1];
  return head === undefined ? saved : `${saved}+${head}`;
}

// The line `write` puts after `Saved:`: which clone saved the handoff, by a random id kept in that clone's git dir,
// so two clones saving in one second on one commit never pass for each other.
const CLONE_MARK = /^<!-- saved in clone ([0-9a-f]{16}) -->[ \t]*\r?$/m;

/** This clone's id (`create`: made on the first save); null outside git, or none yet. */
export function cloneIdOf(root: string, env: Env, create = false): string | null {
  const p = beside(root, env, "clone-id");
  if (p === null) return null;
  const valid = (id: string | undefined) => (id !== undefined && /^[0-9a-f]{16}$/.test(id) ? id : null);
  const found = valid(readSmall(p)?.trim());
  if (found !== null || !create) return found;
  const tmp = `${p}.tmp-${process.pid}`;
  try {
    mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
    // Anything else there (a damaged id, a FIFO, a link) is never read as an id: a new one replaces it. Looked at
    // again first, so that an id another save just made is kept.
    if (lstatOrNull(p) !== null && valid(readSmall(p)?.trim()) === null) rmSync(p, { recursive: true, force: true });
    writeFileSync(tmp, `${nodeCrypto().randomBytes(8).toString("hex")}\n`, { mode: 0o600 });
    // A link never replaces: of two first saves at once, both use the id that landed first.
    linkSync(tmp, p);
  } catch {
    // another save made it first, or a read-only git dir (the stamp then tells this clone's saves)
  } finally {
    rmSync(tmp, { force: true });
  }
  return valid(readSmall(p)?.trim());
}

/** The handoff text with this clone's mark after its `Saved:` line (an earlier mark replaced); as is with no id. */
export function markClone(text: string, id: string | null): string {
  if (id === null) return text;
  const lines = text.split("\n").filter((l) => !CLONE_MARK.test(l));
  const saved = lines.findIndex((l) => /^Saved:/.test(l));
  if (saved === -1) return text;
  lines.splice(saved + 1, 0, `<!-- saved in clone ${id} -->`);
  return lines.join("\n");
}

/** `git log` arguments for the commits that brought a handoff's save: its `Saved:` line with the clone mark after it
 * (two clones' saves of one second share the line, and a clone marks all its saves alike; the merge driver's
 * `Merged-with:` line may come between), else the line alone; none without the line. */
export function savePickaxe(text: string): string[] {
  const saved = /^Saved: [^\r\n]+/m.exec(text)?.[0];
  if (saved === undefined) return [];
  const id = CLONE_MARK.exec(text)?.[1];
  // A regular expression, as git refuses an argument holding a newline.
  const mark = id === undefined ? "" : `[[:space:]]+(Merged-with: .*[[:space:]]+)?<!-- saved in clone ${id} -->`;
  return ["--pickaxe-regex", `-S${saved.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}${mark}`];
}

/** The token and `Saved:` stamp of each save this clone recorded, oldest first; null outside git or before one. */
export function savesRecord(root: string, env: Env): { token: string; stamp: string | null }[] | null {
  const p = savesPath(root, env);
  if (p === null || lstatOrNull(p)?.isFile() !== true) return null;
  return recordLines(p, LINE).map((m) => ({ token: m[1]!, stamp: m[2] ?? null }));
}

/** Records in this clone's git dir a handoff save's token and its `Saved:` stamp, for `savedHere`, and in this
 * worktree's the same with the blob id of its bytes (`blob`), for `lastSave`. */
export async function recordSavedHere(
  root: string, env: Env, token: string, stamp: string | null, blob?: string,
): Promise<void> {
  const gitDir = gitDirAt(root, env);
  if (gitDir === null || !/^[0-9a-f]{64}$/.test(token)) return;
  const line = `${token}${stamp !== null && /^\S{1,64}$/.test(stamp) ? ` @${stamp}` : ""}`;
  await addRecord(path.join(commonDirOf(gitDir), "session-handoff", "saves"), LINE, line, (m) => m[1] === token);
  // Linked worktrees share the clone's record and stash: only this worktree's own last save tells its entries since.
  await addRecord(lastSavePath(gitDir), LINE, blob === undefined ? line : `${line} ${blob}`, () => true);
}

/** This worktree's last save: its token, `Saved:` stamp and the blob id git keeps of its bytes (null: none kept). */
export function lastSave(root: string, env: Env): { token: string; stamp: string | null; blob: string | null } | null {
  const gitDir = gitDirAt(root, env);
  const m = gitDir === null ? undefined : recordLines(lastSavePath(gitDir), LINE)[0];
  return m === undefined ? null : { token: m[1]!, stamp: m[2] ?? null, blob: m[3] ?? null };
}

// A file of this worktree's own, in its git dir (the main worktree's is the common one).
const lastSavePath = (gitDir: string) => path.join(gitDir, "session-handoff", "last-save");

/** Whether this clone saved the handoff: by its mark, else by its record; null outside git or before a save. */
export function savedHere(root: string, env: Env, text: string | null, token: () => string): boolean | null {
  // A clone that never saved has no id, so a marked handoff there came from elsewhere (a pull, a fresh clone).
  const mark = text === null ? undefined : CLONE_MARK.exec(text)?.[1];
  if (mark !== undefined && savesPath(root, env) !== null) return mark === cloneIdOf(root, env);
  const saves = savesRecord(root, env);
  if (saves === null) return null;
  const stamp = text === null ? null : savedStampOf(text);
  if (stamp !== null && saves.some((s) => s.stamp === stamp)) return true;
  const tok = token();
  return saves.some((s) => s.token === tok);
}

/**
 * This worktree's stash entries (`stash@{n}`) made since a save stamped `savedMs` (NaN: every one): those of its
 * second or a later one, as whole seconds cannot order an entry of the save's own second
 * (docs/decisions/stash-same-second.md).
 */
export function stashesSince(gitDir: string, savedMs: number): string[] {
  const sec = Math.floor(savedMs / 1000);
  const since = (s: number | null) => s !== null && (Number.isNaN(sec) || s >= sec);
  return stashEntries(gitDir).flatMap((e, n) => (e.own && since(e.sec) ? [`stash@{${n}}`] : []));
}

// `<token> <agent>` per line, in `saved-by` beside `saves`.
const SAVED_BY_LINE = /^([0-9a-f]{64}) ([A-Za-z0-9][A-Za-z0-9 ._-]{0,39})$/;

/** Records which agent made the save of `token`. Never rejects. */
export async function recordSavedBy(root: string, env: Env, token: string, agent: string | null): Promise<void> {
  const p = beside(root, env, "saved-by");
  const line = `${token} ${agent}`;
  if (p === null || agent === null || !SAVED_BY_LINE.test(line)) return;
  await addRecord(p, SAVED_BY_LINE, line, (m) => m[1] === token);
}

/** The agent this clone recorded for the save of `token`, or null. */
export function savedByOf(root: string, env: Env, token: string): string | null {
  const p = beside(root, env, "saved-by");
  return p === null ? null : (recordLines(p, SAVED_BY_LINE).find((m) => m[1] === token)?.[2] ?? null);
}

function gitDirAt(root: string, env: Env): string | null {
  const top = gitTopOf(root, env);
  return top === null ? null : gitDirOf(top);
}

/** The archive names in git's index: a save never deletes one, so two clones' pulls never conflict. */
export async function trackedArchives(root: string, env: Env): Promise<Set<string>> {
  const r = await runGit(root, ["ls-files", "-z", "--", ".ai/memory/archive/"], env).catch(() => null);
  // Outside git (or git unable to answer) nothing is tracked: pruning is what it was.
  if (r === null || r.code !== 0) return new Set();
  return new Set(r.stdout.toString("utf8").split("\0").filter(Boolean).map((p) => p.slice(p.lastIndexOf("/") + 1)));
}

/** The author and id (`name\x03email\x03id`) of the oldest commit, merges aside, that brought a save (`pickaxe`:
 * `savePickaxe`) into the memory dir at `dir` (the handoff or an archive) on `revs` or any branch or tag: its saver's,
 * since a squash, or an archive restored and published, carries the save again under whoever did it; null when none. */
export async function firstSaver(git: Git, pickaxe: string[], revs: string[], dir: string) {
  if (pickaxe.length === 0) return null;
  const specs = [`:(top,literal)${dir}HANDOFF.md`, `:(top,literal)${dir}archive`];
  // A range (the merge's other side alone) is walked as given.
  const refs = revs.some((r) => r.startsWith("^")) ? revs : [...revs, "--branches", "--remotes", "--tags"];
  const r = await git(["log", "--no-merges", "--format=%an%x03%ae%x03%H", ...pickaxe, ...refs, "--", ...specs]);
  return r.code === 0 ? r.stdout.toString("utf8").trim().split("\n").pop() || null : null;
}

/** Whose save a handoff merged with the tree's was (`text`, its archive), as drift's provenance: null when this
 * clone saved it or cannot tell; else `firstSaver` on HEAD or the merge's other side. */
export async function mergedSaver(root: string, env: Env, text: string) {
  const top = gitTopOf(root, env);
  if (savedHere(root, env, text, () => tokenOf(text)) !== false || top === null) return null;
  const dir = `${path.relative(top, path.join(root, ".ai", "memory")).split(path.sep).join("/")}/`;
  const merging = (await runGit(root, ["rev-parse", "-q", "--verify", "MERGE_HEAD"], env)).code === 0;
  const revs = ["HEAD", ...(merging ? ["MERGE_HEAD"] : [])];
  const git: Git = (a) => runGit(root, a, env);
  return provenanceOf(git, await firstSaver(git, savePickaxe(text), revs, dir));
}

/** Whose a save marked by another clone is, from the commit that brought it (`name\x03email\x03id`): its author,
 * unless that is this user (git's identity here), as then the saver's own commits are gone (a squash of a branch since
 * deleted, a copy) and only the user's commit is known: `commit` names it instead. */
export async function provenanceOf(git: Git, by: string | null) {
  const [name, email, id = ""] = (by ?? "").split("\x03");
  const me = by === null || id === "" ? null : await git(["var", "GIT_AUTHOR_IDENT"]);
  const mine = me?.code === 0 && me.stdout.toString("utf8").startsWith(`${name} <${email}> `);
  if (mine) return { committer: null, commit: id.slice(0, 12), someoneElse: true };
  return { committer: by === null ? null : authorWords(by), someoneElse: true };
}

/** `name\x03e-mail` with each part quoted, so that neither can end its quotation nor reorder the line. */
export function authorWords(raw: string): string {
  const [name = "", email = ""] = raw.split("\x03");
  return `${quotedValue(name)} ${quotedValue(email)}`;
}
