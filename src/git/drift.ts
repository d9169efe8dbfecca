// Gathers the drift facts (docs/design.md#verdicts-and-the-brief) with as few git processes as the answer needs.
import path from "node:path";
import { withoutTokens } from "../guard/redact.ts";
import type { DirtyHash } from "../schema/anchor-lines.ts";
import type { CheckedAnchors } from "../schema/handoff.ts";
import { isoSeconds, parseStrictTime, type ObjectId } from "../schema/values.ts";
import { modesOf, statInsideRoot } from "./anchors.ts";
import { blobIdsOf } from "./blob-ids.ts";
import { blobBytesOf, gitDirOf, gitTopOf, inProgressOf, objectFormat, reflogNames, shallowCuts } from "./git-dir.ts";
import { clonedAfter, eolPairs, fatesOf, gatherFateLogs, type DirtyFate } from "./fates.ts";
import {
  batchBlobs, filterDrivers, GitUnavailable, pathspecOf, rawPaths, runGit, type Env, type Git, type GitResult,
} from "./run.ts";
import { oursOnly } from "./attributes-block.ts";
import { ATTRIBUTES, commitKind, heldByRef, listedAncestors } from "./history-rules.ts";
import { lstatOrNull, readHead } from "../store/files.ts";
import { firstSaver, provenanceOf, savedByOf, savedHere, savePickaxe, stashesSince } from "./saves.ts";
import { foldedInto, readSnapshot, type Snapshot, type SnapshotResult } from "./status.ts";
import { assessDrift, effectiveBranch, type DriftFacts, type DriftReport } from "./verdict.ts";

/** Starts drift's `git status` early, so that git's work overlaps reading the handoff (for `measureDrift`). */
export function startStatus(root: string, env: Env, excludes: readonly string[] = []): Promise<SnapshotResult> {
  const p = readSnapshot(root, env, excludes);
  p.catch(() => undefined);
  return p;
}

// Most commits the history log classifies before falling back to a count.
const MAX_LOGGED_COMMITS = 2000;
// Most commits since the saved date for which `sinceSaved` is computed (null beyond).
const MAX_SINCE_SAVED = 500;

/** Counts `historyArgs`' log per side; `older*`: commits ahead dated before the save, off HEAD's first parents. */
export function parseHistory(
  out: Buffer, memoryPrefix: string, savedSec: number | null = null, cuts?: Set<string>,
  saved?: { id: string; head: string; notAhead?: ReadonlySet<string> },
) {
  const handoffPath = `${memoryPrefix}HANDOFF.md`;
  const counts = {
    ahead: 0, behind: 0, memoryOnlyAhead: 0, memoryOnlyBehind: 0, attributesAhead: [] as string[],
    attributesBehind: [] as string[], emptyBehind: 0, olderAhead: 0, olderAttributes: [] as string[], olderLogged: 0,
    truncated: false, handoffCommitter: null as string | null, aheadPaths: new Set<string>(), cutAhead: false,
    since: new Map<string, boolean>(), parents: new Map<string, string[]>(),
  };
  // A record starts at the output's start or right after a NUL (paths hold no NUL, but may hold \x01).
  const records = `\0${out.toString("utf8")}`.split("\0\x01").slice(1).map((rec) => {
    const [header = "", ...rest] = rec.slice(1).split("\0");
    const [author = "", parents = "", id = "", ct = ""] = header.replace(/^\x02/, "").split("\x04");
    const side = rec[0] === "<" ? "behind" as const : "ahead" as const;
    return { side, author, parents: parents.split(" ").filter((p) => p !== ""), id, ct, rest };
  }).filter((r) => !saved?.notAhead?.has(r.id));
  if (records.length > MAX_LOGGED_COMMITS) {
    counts.truncated = true;
    records.length = MAX_LOGGED_COMMITS;
  }
  const parentsOf = counts.parents;
  for (const r of records) if (r.side === "ahead") parentsOf.set(r.id, r.parents);
  // HEAD's first parents down to the saved commit came since, whatever the dates (docs/decisions/reachability-skew.md).
  const line: string[] = [];
  let down = saved?.head;
  for (; down !== undefined && parentsOf.has(down); down = parentsOf.get(down)![0]) line.push(down);
  const onLine = new Set(down === saved?.id ? line : []);
  for (const { side, author, parents, id, ct, rest } of records) {
    const paths = rest.map((p) => p.replace(/^\n/, "")).filter((p) => p !== "");
    counts[side]++;
    const dated = side === "ahead" && savedSec !== null && ct !== "" && Number(ct) < savedSec;
    const older = dated && !onLine.has(id);
    if (side === "ahead") counts.since.set(id, !older);
    if (side === "ahead" && cuts?.has(id)) counts.cutAhead = true;
    if (dated) counts.olderLogged++;
    // A merge's author only joined two handoffs: the author named is the one who saved the handoff.
    if (side === "ahead" && counts.handoffCommitter === null && paths.includes(handoffPath) && parents.length < 2)
      counts.handoffCommitter = author.trim();
    // Git gives every empty commit the same patch id: one is no copy of another.
    if (paths.length === 0 && side === "behind") counts.emptyBehind++;
    const kind = commitKind(paths, memoryPrefix);
    if (kind === "memory") counts[side === "ahead" ? "memoryOnlyAhead" : "memoryOnlyBehind"]++;
    else if (kind === "attributes") {
      counts[side === "ahead" ? "attributesAhead" : "attributesBehind"].push(id);
      if (older) counts.olderAttributes.push(id);
    } else {
      if (older) counts.olderAhead++;
      if (side === "ahead") for (const p of paths) if (!p.startsWith(memoryPrefix)) counts.aheadPaths.add(p);
    }
  }
  return counts;
}


/** `excludes`: root-relative folders `git status` leaves out; a null `handoffToken`: a pasted handoff. */
export interface DriftOptions {
  early?: Promise<SnapshotResult> | null;
  excludes?: readonly string[];
  handoffToken?: string | null;
  handoffText?: string | null;
}

// With the saved commit's object here, reachable or not, its diff to HEAD is what changed.
const savedPresent = (f: DriftFacts) => f.headReachable === true || (f.headReachable === false && !f.objectMissing);

export async function measureDrift(
  root: string, env: Env, anchors: CheckedAnchors, nowMs: number, opts: DriftOptions = {},
): Promise<DriftReport> {
  const git: Git = (args, input) => runGit(root, args, env, undefined, { input });
  const facts = blankFacts(anchors, nowMs);
  const keyFiles = [...new Set([...anchors.keyFiles, ...anchors.keyFileMtimes.map((k) => k.path)])];
  const keyFilesP = Promise.all(keyFiles.map(async (p) => ({ path: p, stat: await statInsideRoot(root, p) })));
  const top = gitTopOf(root, env);
  const rel = top === null ? "" : path.relative(top, root).split(path.sep).join("/");
  const prefix = rel === "" ? "" : `${rel}/`;
  const token = opts.handoffToken;
  if (token != null) facts.savedBy = savedByOf(root, env, token);
  // Whether this clone saved the handoff, by its record; not (memory from elsewhere): its author is looked up then.
  const here = token == null ? null : savedHere(root, env, opts.handoffText ?? null, () => token);
  try {
    const statusP = opts.early ?? readSnapshot(root, env, opts.excludes ?? []);
    const logP = anchors.head === null && !anchors.headNone ? null : git(historyArgs(anchors.head));
    // All are started before any is awaited; a rejection is handled below.
    logP?.catch(() => undefined);
    const status = await statusP;
    const bySave = savePickaxe(opts.handoffText ?? "");
    const at = { here, top, prefix, keyFiles, git, bySave, drivers: () => filterDrivers(root, env) };
    // A folder saved as one entry (by an older version, or a nested repository) is matched by the paths under it now.
    const folders = (anchors.dirty ?? []).filter((d) => d.endsWith("/"));
    if (status.kind === "repo") await measureRepo(at, facts, anchors, foldedInto(status.snapshot, folders), logP);
    else {
      await logP?.catch(() => undefined);
      facts.git = { state: status.kind, note: status.note };
    }
  } catch (err) {
    if (!(err instanceof GitUnavailable)) throw err;
    // The verdict says "git could not be used (<why>)": the cause alone.
    facts.git = { state: err.reason, note: err.why };
    facts.current = null;
    facts.headReachable = null;
  }
  const stats = await keyFilesP;
  const absent = stats.filter((k) => k.stat === null).map((k) => k.path);
  // A key file the plan will create, absent at the save and still absent, is not drift.
  const [notYet, out] = await Promise.all([
    absentAtSave(absent, facts, anchors, prefix, git), keptOut(absent, facts, top, prefix, git),
  ]);
  facts.missingKeyFiles = absent.filter((k) => !notYet.includes(k) && !out.includes(k));
  facts.keyFilesNotYetCreated = notYet.filter((k) => !out.includes(k));
  if (facts.git.state !== "repo") {
    // Outside git: the `Key file mtimes` anchor is what changed files are judged by.
    const now = new Map(stats.map((k) => [k.path, k.stat === null ? null : isoSeconds(k.stat.mtimeMs)]));
    facts.changedKeyFiles = anchors.keyFileMtimes
      .filter((k) => now.get(k.path) !== (k.mtime === null ? null : normalTime(k.mtime)))
      .map((k) => k.path);
  }
  return assessDrift(facts);
}

type At = {
  here: boolean | null; top: string | null; prefix: string; keyFiles: string[]; git: Git; bySave: string[];
  drivers: () => Promise<Set<string>>;
};

// The facts only a readable repository gives: in progress, shallow, the saved branch, history, fates, provenance.
async function measureRepo(
  at: At, facts: DriftFacts, anchors: CheckedAnchors, snap: Snapshot, logP: Promise<GitResult> | null,
): Promise<void> {
  const { top, prefix, keyFiles, git, bySave } = at;
  const elsewhere = at.here === false;
  const head = anchors.head;
  const gitDir = top === null ? null : gitDirOf(top);
  facts.current = snap;
  facts.inProgress = { saved: anchors.inProgress, current: inProgressOf(gitDir) };
  // A shallow clone's counts cover only the history it holds.
  const cuts = shallowCuts(gitDir);
  facts.shallow = cuts !== null;
  const savedBranch = effectiveBranch(anchors.branch, anchors.inProgress);
  const onBranch = effectiveBranch(snap.branch, facts.inProgress.current);
  const moved = savedBranch !== null && savedBranch !== "(detached)" && savedBranch !== onBranch;
  const presentP = moved ? branchPresent(git, savedBranch) : null;
  let committer: string | null = null;
  let aheadPaths: Set<string> | null = null;
  let since: Map<string, boolean> | undefined;
  const mem = `${prefix}.ai/memory/`;
  if (head !== null && logP !== null)
    ({ committer, aheadPaths, since } = await measureHead(facts, snap, head, await logP, git, mem, { gitDir, cuts }));
  else if (logP !== null) committer = await measureFromNone(facts, snap, await logP, git, mem);
  if (presentP !== null) facts.savedBranchPresent = await presentP;
  const dirtyNow = withRedacted(snap.dirty);
  const cleaned = facts.saved.dirty === null ? [] : facts.saved.dirty.filter((p) => !dirtyNow.includes(p));
  const headMoved = head !== null && snap.head !== null && snap.head !== head;
  // A saved dirty file neither dirty nor on disk now may have been renamed since: the diff below says where to.
  const deleted = new Set(anchors.dirtyHashes?.filter((h) => h.id === "deleted").map((h) => h.path));
  const gone = top === null ? [] : cleaned.filter((p) => !p.endsWith("/") && !deleted.has(p) &&
    lstatOrNull(path.join(top, p)) === null);
  let changed: Set<string> | null = null;
  // Renames from the saved HEAD to HEAD, for the key files and the fates.
  let moves: Map<string, string> | null = null;
  if (head !== null && !headMoved && facts.headReachable === true) changed = new Set();
  else if (headMoved && savedPresent(facts) && keyFiles.length + gone.length > 0) {
    // With renames found, a file gone since can say where it went; both names count as changed.
    const d = await git(["diff", "-M", "--name-status", "-z", head, "HEAD"]);
    if (d.code === 0) {
      const f = d.stdout.toString("utf8").split("\0");
      [changed, moves] = [new Set(), new Map()];
      for (let k = 0; k + 1 < f.length; k += f[k]!.startsWith("R") ? 3 : 2) {
        changed.add(f[k + 1]!);
        if (!f[k]!.startsWith("R")) continue;
        changed.add(f[k + 2]!);
        moves.set(f[k + 1]!, f[k + 2]!);
      }
      const rel = (p: string) => (p.startsWith(prefix) ? p.slice(prefix.length) : p);
      facts.renamedKeyFiles = keyFiles.flatMap((p) => {
        const to = moves!.get(`${prefix}${p}`);
        return to === undefined ? [] : [{ path: p, to: rel(to) }];
      });
    }
  } else if (facts.savedNone && snap.head !== null && keyFiles.length > 0) {
    // From no commit, every key file in HEAD's tree was added since the save.
    const specs = keyFiles.map((k) => `:(top,literal)${prefix}${k}`);
    const t = await git(["ls-tree", "-r", "-z", "--full-name", "--name-only", "HEAD", "--", ...specs]);
    if (t.code === 0) changed = new Set(t.stdout.toString("utf8").split("\0"));
  }
  // Work dirty at the save and committed since exactly as saved: not a change since the save.
  const keyChanged = keyFiles.map((k) => `${prefix}${k}`).filter((k) => changed?.has(k));
  const asks = [...(aheadPaths ?? []), ...keyChanged];
  const asSaved = await heldAsSaved(git, head, anchors.dirtyHashes ?? [], anchors.dirtyModes, asks);
  const changedSince = (k: string) => changed?.has(`${prefix}${k}`) === true && !asSaved.has(`${prefix}${k}`);
  if (changed !== null) facts.changedKeyFiles = keyFiles.filter(changedSince);
  // Empty commits alone change nothing saved: they stay counted, as the commits they stand for.
  const paths = [...(aheadPaths ?? [])];
  facts.aheadAsSaved = (facts.ahead ?? 0) > 0 && paths.length > 0 && paths.every((p) => asSaved.has(p));
  if (top !== null && facts.saved.dirty !== null) {
    // The clone's own record outweighs its reflog's date (a clock an hour ahead, or the save's second).
    const fromElsewhere = elsewhere || (at.here !== true && clonedAfter(gitDir, facts.saved.date?.ms ?? null));
    const fateAt = { top, gitDir, cleaned, gone, fromElsewhere, drivers: at.drivers, moves, since };
    facts.dirtyFates = await measureFates(git, facts, anchors, fateAt);
  }
  // Key files dirty now (an untracked folder counts for the files in it) and not listed dirty at the save.
  const isDirty = (list: readonly string[], p: string) =>
    list.some((d) => d === p || (d.endsWith("/") && p.startsWith(d)));
  const newlyDirty = (p: string) => isDirty(snap.dirty, p) && !isDirty(facts.saved.dirty ?? [], p);
  facts.dirtyKeyFiles = keyFiles.filter((k) => newlyDirty(`${prefix}${k}`));
  // The status line's rule too: a stash of the save's own second counts as made since it.
  facts.stashesSince = gitDir === null || facts.saved.date === null ? [] : stashesSince(gitDir, facts.saved.date.ms);
  // Saves of tracked memory not published stop a pull: asked only when one is due (unpublished-memory.md).
  if ((snap.upstream?.behind ?? 0) > 0) {
    const r = await git(["diff", "--name-only", "-z", "HEAD", "--", `:(top,literal)${mem.slice(0, -1)}`]);
    facts.unpublishedMemory = r.code === 0 ? r.stdout.toString("utf8").split("\0").filter(Boolean).length : 0;
  }
  if (!elsewhere) return;
  const handoffPath = `${prefix}.ai/memory/HANDOFF.md`;
  const lastBy = async () => {
    const format = "--format=%an%x03%ae%x03%H";
    const r = await git(["log", "-1", "--no-merges", format, "--", `:(top,literal)${handoffPath}`]);
    return r.code === 0 ? r.stdout.toString("utf8").trim() || null : null;
  };
  // Mid-merge, a handoff the other side changed is that side's in the tree: HEAD's history names the wrong author.
  const merging = facts.inProgress?.current === "merge" && snap.head !== null;
  const inHead = async () => (await git(["cat-file", "-e", `HEAD:${handoffPath}`])).code === 0;
  // Whose save it is: the first commit that brought it (`savePickaxe`), so neither a later save or merge that kept it
  // nor a squash or a restored archive that copied it names whoever made that.
  const firstBy = (...revs: string[]) => firstSaver(git, bySave, revs, `${prefix}.ai/memory/`);
  const theirs = merging ? await firstBy("MERGE_HEAD", "^HEAD") : null;
  const saver = theirs ?? (snap.head !== null ? await firstBy("HEAD") : null);
  if (saver !== null) committer = saver;
  // Only when the commits since the save did not name its committer; a handoff not in HEAD has none to walk for.
  else if (committer === null && snap.head !== null && (await inHead())) committer = await lastBy();
  facts.provenance = await provenanceOf(git, committer);
}

// Of `paths`, those dirty at the save that HEAD holds exactly as saved: the saved blob in the saved mode, or deleted.
async function heldAsSaved(
  git: Git, savedHead: string | null, hashes: readonly DirtyHash[], modes: ReadonlyMap<string, string>,
  paths: readonly string[],
): Promise<Set<string>> {
  const saved = new Map(hashes.map((h) => [h.path, h.id]));
  const asks = [...new Set(paths)].filter((p) => /^[0-9a-f]{40,64}$|^deleted$/.test(saved.get(p) ?? ""));
  if (savedHead === null || asks.length === 0) return new Set();
  const specs = asks.map((p) => pathspecOf(p));
  const r = await git(["diff", "--raw", "-z", "--no-renames", "--no-abbrev", savedHead, "HEAD", "--", ...specs]);
  const held = new Set<string>();
  for (const { path: p, modes: [oldMode = "", newMode = ""], ids: [, newId = ""] } of
    rawPaths(r.code === 0 ? r.stdout.toString("utf8").split("\0") : [])) {
    const want = saved.get(p);
    const mode = modes.get(p) ?? (oldMode === "000000" ? "100644" : oldMode);
    // A link only when the save recorded one: a file's text can hash as a link's target.
    const sameMode = newMode === mode && (/^1(00644|00755|60000)$/.test(newMode) || modes.get(p) === "120000");
    if (want === "deleted" ? newMode === "000000" : sameMode && newId === want) held.add(p);
  }
  return held;
}

// The dirty paths now, and each as a save wrote it (a name holding a token redacted), so that one is never reverted.
const withRedacted = (dirty: readonly string[]) => [...new Set([...dirty, ...dirty.map(withoutTokens)])];

// The missing key files absent at the save too (neither in the saved tree nor dirty then); [] when it cannot be told.
async function absentAtSave(
  missing: string[], facts: DriftFacts, anchors: CheckedAnchors, prefix: string, git: Git,
): Promise<string[]> {
  if (missing.length === 0) return [];
  if (facts.git.state !== "repo") {
    const saved = new Map(anchors.keyFileMtimes.map((k) => [k.path, k.mtime]));
    return missing.filter((k) => saved.has(k) && saved.get(k) === null);
  }
  const { head, dirty, dirtyMore } = facts.saved;
  // A cut dirty list (`… and N more`) leaves a file untracked then unlisted: not known absent.
  if ((head === null && !facts.savedNone) || !savedPresent(facts) || dirty === null || (dirtyMore ?? 0) > 0) return [];
  const specs = missing.map((k) => `:(top,literal)${prefix}${k}`);
  // Saved before the first commit: no tree then, only the dirty files.
  const t = head === null ? null : await git(["ls-tree", "-r", "-z", "--name-only", head, "--", ...specs]);
  if (t !== null && t.code !== 0) return [];
  const inTree = t === null ? [] : t.stdout.toString("utf8").split("\0").filter((p) => p !== "");
  // `ls-tree -r` names the files in a folder, never the folder: a folder key file was there when a file under it was.
  const under = (p: string, k: string) => p === k || p.startsWith(`${k.replace(/\/+$/, "")}/`);
  const wasDirty = (p: string) => dirty.some((d) => under(d, p) || (d.endsWith("/") && p.startsWith(d)));
  return missing.filter((k) => !inTree.some((p) => under(p, `${prefix}${k}`)) && !wasDirty(`${prefix}${k}`));
}

// The absent key files a sparse checkout keeps out (skip-worktree); a version 2 index holds no such flag.
async function keptOut(absent: string[], facts: DriftFacts, top: string | null, prefix: string, git: Git) {
  const gitDir = absent.length === 0 || top === null || facts.git.state !== "repo" ? null : gitDirOf(top);
  if (gitDir === null) return [];
  const index = readHead(path.join(gitDir, "index"), 8);
  if (index?.toString("latin1", 0, 4) === "DIRC" && index.readUInt32BE(4) === 2) return [];
  const specs = absent.map((k) => `:(top,literal)${prefix}${k}`);
  const r = await git(["ls-files", "-t", "-z", "--full-name", "--", ...specs]);
  const tagged = r.code === 0 ? r.stdout.toString("utf8").split("\0") : [];
  const under = (l: string, k: string) => l.slice(2) === k || l.slice(2).startsWith(`${k.replace(/\/+$/, "")}/`);
  const tags = (k: string) => tagged.filter((l) => under(l, `${prefix}${k}`)).map((l) => l[0]).join("");
  return absent.filter((k) => /^S+$/.test(tags(k)));
}

// A saved mtime as `isoSeconds` writes it, so that the comparison is of instants, not spellings.
function normalTime(text: string): string {
  const t = parseStrictTime(text, Number.MAX_SAFE_INTEGER);
  return "error" in t ? text : isoSeconds(t.ms);
}

// The commits between the saved HEAD (or none) and HEAD with their paths: one `git log` also gives the counts.
function historyArgs(id: ObjectId | null, ...extra: string[]): string[] {
  return [
    "log", "--left-right", "--format=%x01%m%x02%an%x03%ae%x04%P%x04%H%x04%ct", "--name-only", "-z", "--no-renames",
    "--diff-merges=first-parent", `--max-count=${MAX_LOGGED_COMMITS + 1}`, ...extra,
    id === null ? "HEAD" : `${id}...HEAD`,
  ];
}

// Saved before the first commit (`HEAD: none`): nothing saved is missing from HEAD, and all its commits are since.
async function measureFromNone(
  facts: DriftFacts, snap: Snapshot, log: GitResult, git: Git, memoryPrefix: string,
): Promise<string | null> {
  facts.savedNone = true;
  [facts.headReachable, facts.ahead, facts.behind] = [true, 0, 0];
  if (snap.head === null) return null;
  // A git too old for the log's options leaves it unchecked.
  if (log.code !== 0) facts.headReachable = null;
  const h = parseHistory(log.stdout, memoryPrefix, savedSecOf(facts));
  const all = h.truncated ? await git(["rev-list", "--count", "HEAD"]) : null;
  const mem = await memoryOnlyOf(h, git);
  const memoryOnly = mem.ahead;
  facts.memoryOnlyCommits = memoryOnly;
  facts.olderAhead = mem.older + (h.truncated ? await olderUnlogged(git, h, facts, ["HEAD"]) : 0);
  facts.ahead = (all?.code === 0 ? Number(all.stdout.toString("utf8")) : h.ahead) - memoryOnly;
  return h.handoffCommitter;
}

// Sets reachability, counts and rewrite facts of the saved HEAD; returns the committer and paths changed ahead.
async function measureHead(
  facts: DriftFacts, snap: Snapshot, head: ObjectId, log: GitResult, git: Git, memoryPrefix: string,
  { gitDir, cuts }: { gitDir: string | null; cuts: Set<string> | null },
): Promise<{ committer: string | null; aheadPaths: Set<string> | null; since?: Map<string, boolean> }> {
  let committer: string | null = null;
  let sinceSave: Map<string, boolean> | undefined;
  let counted: { ahead: number; behind: number } | null = null;
  let emptySaved: number | null = null;
  let memoryOnly: { ahead: number; behind: number; older: number; aheadPaths: Set<string> | null } =
    { ahead: 0, behind: 0, older: 0, aheadPaths: null };
  // In a shallow clone the saved commit may be under a cut on HEAD's side, unless a whole log shows none there.
  let cut = cuts !== null;
  if (snap.head !== null && log.code === 0) {
    const parse = (notAhead?: Set<string>) => parseHistory(log.stdout, memoryPrefix, savedSecOf(facts),
      cuts ?? undefined, { id: head, head: snap.head ?? "", notAhead });
    let h = parse();
    // Under skewed dates git's walk can list ancestors of the saved commit as ahead: the log is read again without.
    const notAhead = h.behind > 0 || h.truncated ? null : await listedAncestors(git, head, h.parents);
    if (notAhead?.size) h = parse(notAhead);
    if (!h.truncated) sinceSave = h.since;
    cut &&= h.truncated || h.cutAhead;
    counted = { ahead: h.ahead, behind: h.behind };
    memoryOnly = await memoryOnlyOf(h, git);
    committer = h.handoffCommitter;
    emptySaved = h.truncated ? null : h.emptyBehind;
    const unlogged = h.truncated ? olderUnlogged(git, h, facts, [`^${head}`, "HEAD"]) : 0;
    if (h.truncated) counted = await countBoth(head, git);
    facts.olderAhead = memoryOnly.older + (await unlogged);
  } else if (snap.head !== null && /unrecognized argument|invalid value for|unknown option/i.test(log.stderr)) {
    // A git older than the log's options (--diff-merges is git 2.31+): a plain count.
    counted = await countBoth(head, git);
  }
  let reachable: boolean;
  if (counted !== null) {
    facts.ahead = counted.ahead - memoryOnly.ahead;
    facts.behind = counted.behind - memoryOnly.behind;
    facts.memoryOnlyCommits = memoryOnly.ahead + memoryOnly.behind;
    // HEAD contains the saved commit exactly when nothing of it is missing from HEAD.
    reachable = counted.behind === 0 ? true : await reachableFromRef(head, git, facts, gitDir);
  } else if (snap.head === null) {
    // No commit yet on this branch (an orphan or a new repository): only refs can hold it.
    reachable = await reachableFromRef(head, git, facts, gitDir);
  } else {
    // `<id>...HEAD` fails only when the id names no commit here.
    facts.objectMissing = true;
    reachable = false;
  }
  facts.headReachable = reachable;
  if (reachable) return { committer, aheadPaths: memoryOnly.aheadPaths, since: sinceSave };
  facts.ahead = null;
  facts.behind = null;
  facts.memoryOnlyCommits = 0;
  facts.olderAhead = 0;
  if (facts.objectMissing) facts.reflogNamed = reflogNames(gitDir, head);
  else facts.shallowCut = cut;
  if (facts.saved.date !== null && snap.head !== null) {
    const r = await git(["rev-list", "--count", `--since=@${Math.floor(facts.saved.date.ms / 1000)}`, "HEAD"]);
    if (r.code === 0) facts.commitsSinceDate = Number(r.stdout.toString("utf8").trim());
  }
  // The old object is here: each side's commits that have no patch-identical copy on the other, when few enough.
  const since = facts.commitsSinceDate;
  if (!facts.objectMissing && !cut && snap.head !== null && since !== null && since <= MAX_SINCE_SAVED) {
    // A rebased publish commit is no copy of a saved commit (it came after the save): memory-only ones don't count.
    const r = await git(historyArgs(head, "--cherry-pick"));
    if (r.code === 0) {
      const h = parseHistory(r.stdout, memoryPrefix, savedSecOf(facts));
      const mem = await memoryOnlyOf(h, git);
      facts.sinceSaved = h.ahead - mem.ahead;
      facts.olderAhead = mem.older;
      facts.memoryOnlyCommits = mem.ahead;
      // A cut log cannot show that every saved commit has its copy; an empty saved commit never has one.
      if (!h.truncated && emptySaved !== null && counted !== null) {
        facts.savedChanged = h.behind - mem.behind - h.emptyBehind + emptySaved;
        facts.savedCopied = counted.behind - h.behind - emptySaved + h.emptyBehind;
      }
    }
  }
  return { committer, aheadPaths: null };
}

// Whether the branch is here, local or remote-tracking; null when git cannot tell.
async function branchPresent(git: Git, branch: string): Promise<boolean | null> {
  // No ref name holds a control character, and git could not be passed one.
  if (/[\x00-\x1f\x7f]/.test(branch)) return false;
  const r = await git(["for-each-ref", "--format=%(refname)", `refs/heads/${branch}`, `refs/remotes/*/${branch}`]);
  if (r.code !== 0) return null;
  // A pattern also names the refs below it, and `*` in a handoff's branch is a glob: only exact names count.
  const remote = (ref: string) => /^refs\/remotes\/[^/]+\/(.+)$/.exec(ref)?.[1];
  return r.stdout.toString("utf8").split("\n").some((ref) => ref === `refs/heads/${branch}` || remote(ref) === branch);
}

// Each side's memory-only commits, counting one whose `.gitattributes` change is our merge-driver block alone.
async function memoryOnlyOf(h: ReturnType<typeof parseHistory>, git: Git) {
  const ours = await oursOnly(git, [...h.attributesAhead, ...h.attributesBehind]);
  const n = (ids: string[]) => ids.filter((id) => ours.has(id)).length;
  const older = h.olderAhead + h.olderAttributes.length - n(h.olderAttributes);
  // The paths the commits ahead changed, memory and our block aside; null when the log was cut.
  const aheadPaths = h.truncated ? null : new Set(h.aheadPaths);
  if (n(h.attributesAhead) < h.attributesAhead.length) aheadPaths?.add(ATTRIBUTES);
  const ahead = h.memoryOnlyAhead + n(h.attributesAhead);
  return { ahead, behind: h.memoryOnlyBehind + n(h.attributesBehind), older, aheadPaths };
}

// The save's second, against which a commit's committer date says whether it came after (null: age unknown).
const savedSecOf = (f: DriftFacts) => (f.saved.date === null ? null : Math.floor(f.saved.date.ms / 1000));

// The commits ahead dated before the save that a cut log left out: one count by date, less those logged.
async function olderUnlogged(git: Git, h: ReturnType<typeof parseHistory>, facts: DriftFacts, revs: string[]) {
  const sec = savedSecOf(facts);
  const r = sec === null ? null : await git(["rev-list", "--count", `--before=@${sec - 1}`, ...revs]);
  return r?.code === 0 ? Math.max(0, Number(r.stdout.toString("utf8").trim()) - h.olderLogged) : 0;
}

async function countBoth(head: ObjectId, git: Git): Promise<{ ahead: number; behind: number } | null> {
  const r = await git(["rev-list", "--left-right", "--count", `${head}...HEAD`]);
  const m = r.code === 0 ? /^(\d+)\s+(\d+)/.exec(r.stdout.toString("utf8")) : null;
  return m ? { behind: Number(m[1]), ahead: Number(m[2]) } : null;
}

// Whether a ref holds the id (`heldByRef`); one naming no commit here is missing.
async function reachableFromRef(head: ObjectId, git: Git, facts: DriftFacts, gitDir: string | null): Promise<boolean> {
  const held = await heldByRef(head, git, gitDir);
  if (held === null) facts.objectMissing = true;
  return held === true;
}

function blankFacts(anchors: CheckedAnchors, nowMs: number): DriftFacts {
  const { branch, head, date, dirty, dirtyMore } = anchors;
  return {
    nowMs, saved: { branch, head, date, dirty, dirtyMore }, git: { state: "repo", note: null }, current: null,
    headReachable: null, objectMissing: false, shallow: false, reflogNamed: false, sinceSaved: null,
    savedBranchPresent: null, ahead: null, behind: null, commitsSinceDate: null, missingKeyFiles: [],
    unverifiable: anchors.unverifiable, memoryOnlyCommits: 0, changedKeyFiles: [],
    inProgress: { saved: anchors.inProgress, current: null }, provenance: null,
    ageUnknown: anchors.stateTime.known ? null : anchors.stateTime.reason,
  };
}

async function measureFates(
  git: Git, facts: DriftFacts, anchors: CheckedAnchors,
  at: {
    top: string; gitDir: string | null; cleaned: string[]; gone: string[]; fromElsewhere: boolean;
    drivers: At["drivers"]; moves: Map<string, string> | null; since?: Map<string, boolean>;
  },
) {
  const now = facts.current!;
  const head = facts.saved.head;
  const present = savedPresent(facts);
  const hashes = anchors.dirtyHashes ?? [];
  const saved = new Map(hashes.map((h) => [h.path, h.id]));
  const still = [...saved.keys()].filter((p) => now.dirty.includes(p));
  const [logs, ids] = await Promise.all([gatherFateLogs(git, {
    gitDir: at.gitDir, savedHead: present ? head : null,
    savedDateMs: facts.saved.date?.ms ?? null, cleaned: at.cleaned, gone: at.gone, staged: now.renames ?? [],
    headExists: now.head !== null, moves: at.moves,
  }), still.length === 0 ? new Map() : at.drivers().then((d) => blobIdsOf(git, d, at.top, still))]);
  // By the history log's ancestry: a commit it found not ahead is none since the save, one built on the saved is since.
  const since = at.since;
  if (since) logs.onHead = logs.onHead?.flatMap((t) => (since.has(t.name) ? [{ ...t, since: since.get(t.name) }] : []))
    ?? null;
  const blobNow = (p: string) => ids.get(p) ?? null;
  const modes = modesOf(at.top, now, still);
  const inputs = {
    savedDirty: facts.saved.dirty ?? [], hashes, nowDirty: withRedacted(now.dirty), savedSec: savedSecOf(facts),
    blobNow, ...logs,
    modes: anchors.dirtyModes, modeNow: (p: string) => modes.get(p)?.now ?? "",
    // A clone made after the save, with no record of saving it, did not save it.
    fromSaved: present && head !== null, fromElsewhere: at.fromElsewhere,
  };
  const fates = fatesOf(inputs);
  // A changed file may hold the saved content with other line endings: its blobs and bytes are compared without them.
  const hex = (f: DirtyFate) => /^[0-9a-f]{40,64}$/.test(saved.get(f.path) ?? "");
  const edited = new Set(fates.filter((f) => f.fate === "edited" && hex(f)).map((f) => f.path));
  for (const p of [...edited]) edited.add(logs.renames.get(p) ?? p);
  const changed = fates.filter((f) => f.fate === "changed" && hex(f)).map((f) => f.path);
  if (edited.size + changed.length === 0) return fates;
  const touches = [logs.onHead, logs.stashes, logs.elsewhere].flatMap((l) => l ?? []).flatMap((t) => [...t.paths]);
  const blobs = [...new Set(touches.filter(([q, id]) => edited.has(q) && !/^0+$/.test(id)).map(([, id]) => id))];
  const r = blobs.length === 0 ? null : await git(["cat-file", "--batch"], blobs.slice(0, 50).join("\n") + "\n");
  const got = r?.code === 0 ? batchBlobs(r.stdout, Math.min(blobs.length, 50)) : [];
  const disk = changed.map((p) => {
    const b = blobBytesOf(path.join(at.top, p));
    return [blobNow(p) ?? "", typeof b === "object" && b?.file ? b.bytes : null] as const;
  });
  const pairs = [...got.map((b, k) => [blobs[k]!, b] as const), ...disk];
  const eol = eolPairs(pairs, new Set(hashes.map((h) => h.id)), objectFormat(at.gitDir));
  return eol.size === 0 ? fates : fatesOf({ ...inputs, eol });
}
