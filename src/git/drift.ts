// Gathers the drift facts (docs/design.md#verdicts-and-the-brief) with as few git processes as the answer needs, then
// hands them to the pure `assessDrift`.
import { quotedValue } from "../guard/quote.ts";
import type { CheckedAnchors } from "../schema/handoff.ts";
import type { ObjectId } from "../schema/values.ts";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { isoSeconds, parseStrictTime } from "../schema/values.ts";
import { statInsideRoot } from "./anchors.ts";
import { blobIdOf, objectFormat } from "./blob-id.ts";
import { branchPresent, isShallow, reflogNames } from "./git-files.ts";
import { gitDirOf, gitTopOf, inProgressOf, inProgressWords } from "./in-progress.ts";
import { commonDirOf } from "./git-dir.ts";
import { clonedAfter, fatesOf, gatherFateLogs } from "./fates.ts";
import { GitUnavailable, runGit, type GitResult } from "./run.ts";

type Git = (args: readonly string[], input?: string) => Promise<GitResult>;
import { attributesNotOurs } from "./merge-driver-config.ts";
import { notSavedHere, savedByOf } from "./saves.ts";
import { readSnapshot, type Snapshot, type SnapshotResult } from "./status.ts";
import { assessDrift, effectiveBranch, type DriftFacts, type DriftReport, type GitState } from "./verdict.ts";

/** A drift report and how many git processes it took (for the performance budget). */
export interface MeasuredDrift {
  report: DriftReport;
  gitProcesses: number;
}

// Reachability from any ref: `rev-list <id> --not --all` lists nothing when a ref (or HEAD)
// contains the id, refs/stash included (a stash made on the saved commit keeps it). Reflogs
// are not refs, so a commit kept alive only by the reflog (or an older stash entry) is listed.
function reachableArgs(id: ObjectId): string[] {
  return ["rev-list", "--max-count=1", id, "--not", "--all"];
}

/**
 * Starts drift's `git status` before the handoff is read: it needs nothing from the handoff,
 * and git's work then overlaps reading and parsing it (start-up budget, performance.md).
 * Pass the promise to `measureDrift`; a rejection is left for it to handle.
 */
export function startStatus(
  root: string, env: Record<string, string | undefined>, excludes: readonly string[] = [],
): Promise<SnapshotResult> {
  const p = readSnapshot(root, env, excludes);
  p.catch(() => undefined);
  return p;
}

/** Most commits the history log classifies (memory-only or not) before falling back to a count. */
export const MAX_LOGGED_COMMITS = 2000;

/**
 * The commits between the saved HEAD and HEAD, each with the paths it touches (a merge: its
 * diff against its first parent; docs/design.md#verdicts-and-the-brief), from one `git log` that also gives ahead and
 * behind. `-z` keeps paths unquoted; `--no-renames` lists both sides of a move.
 */
function historyArgs(id: ObjectId): string[] {
  return [
    "log", "--left-right", "--format=%x01%m%x02%an%x03%ae%x04%p", "--name-only", "-z", "--no-renames",
    "--diff-merges=first-parent", `--max-count=${MAX_LOGGED_COMMITS + 1}`, `${id}...HEAD`,
  ];
}

// The top's attributes file, where install and publish keep the merge driver's block.
const ATTRIBUTES = ".gitattributes";

/** Per side, how many commits and how many of them touch only the memory dir. Pure. */
export interface HistoryCounts {
  ahead: number;
  behind: number;
  memoryOnlyAhead: number;
  memoryOnlyBehind: number;
  /** More commits than MAX_LOGGED_COMMITS: the counts are partial. */
  truncated: boolean;
  /**
   * Per side, commits that touch the top's `.gitattributes` and otherwise only the memory dir
   * (what `publish` commits with our merge-driver block): memory-only when that file's text
   * outside our block is the same at both ends (docs/decisions/first-resume.md).
   */
  attributesAhead: number;
  attributesBehind: number;
  /** The author (`name\x03e-mail`) of HEAD's newest non-merge commit touching `handoffPath`; null when none. */
  handoffCommitter: string | null;
}

/**
 * Parses `historyArgs`'s output: `\x01<marker>\x02<author>\x04<parents>\0` then, for a commit touching paths,
 * `\n` and NUL-terminated paths (top-relative). A commit is memory-only when it touches at
 * least one path and every path lies under `memoryPrefix` (`<root rel>/.ai/memory/`); an empty
 * commit is not. Pure.
 */
export function parseHistory(
  out: Buffer, memoryPrefix: string, handoffPath = `${memoryPrefix}HANDOFF.md`,
): HistoryCounts {
  const counts: HistoryCounts = {
    ahead: 0, behind: 0, memoryOnlyAhead: 0, memoryOnlyBehind: 0, attributesAhead: 0, attributesBehind: 0,
    truncated: false, handoffCommitter: null,
  };
  // A record starts at the output's start or right after a NUL (paths hold no NUL, but may hold \x01).
  const records = `\0${out.toString("utf8")}`.split("\0\x01").slice(1);
  if (records.length > MAX_LOGGED_COMMITS) {
    counts.truncated = true;
    records.length = MAX_LOGGED_COMMITS;
  }
  for (const rec of records) {
    const side = rec[0] === "<" ? "behind" : "ahead";
    const [header = "", ...rest] = rec.slice(1).split("\0");
    const paths = rest.map((p) => p.replace(/^\n/, "")).filter((p) => p !== "");
    counts[side]++;
    // A merge's author only joined two handoffs: the author named is the one who saved the handoff.
    const [author = "", parents = ""] = header.replace(/^\x02/, "").split("\x04");
    if (side === "ahead" && counts.handoffCommitter === null && paths.includes(handoffPath) && !parents.includes(" "))
      counts.handoffCommitter = author.trim();
    if (paths.length > 0 && paths.every((p) => p.startsWith(memoryPrefix)))
      counts[side === "ahead" ? "memoryOnlyAhead" : "memoryOnlyBehind"]++;
    else if (paths.includes(ATTRIBUTES) && paths.every((p) => p === ATTRIBUTES || p.startsWith(memoryPrefix)))
      counts[side === "ahead" ? "attributesAhead" : "attributesBehind"]++;
  }
  return counts;
}

// `name\x03e-mail` as brief and drift print it: `"Alice Doe" "alice@example.com"`, each quoted by
// the one rule for file-controlled values (docs/design.md#memory-from-elsewhere), so a quote, a
// control or a bidi control in either can neither end its quotation nor reorder the line.
function authorWords(raw: string): string {
  const [name = "", email = ""] = raw.split("\x03");
  return `${quotedValue(name)} ${quotedValue(email)}`;
}

/** Root-relative prefix of paths under the root, as git writes them from the top (`""` or `pkg/api/`). */
function rootPrefix(root: string, top: string | null): string {
  if (top === null) return "";
  const rel = path.relative(top, root).split(path.sep).join("/");
  return rel === "" ? "" : `${rel}/`;
}

// Is the handoff tracked (docs/design.md#verdicts-and-the-brief)? Its path is looked up in the index's bytes
// without a git process; an index that cannot be searched that way (v4 compresses paths) counts as tracked.
function maybeTracked(gitDir: string | null, topRelative: string): boolean {
  if (gitDir === null) return false;
  const index = path.join(gitDir, "index");
  try {
    const st = statSync(index);
    if (st.size > 64 * 1024 * 1024) return true;
    const buf = readFileSync(index);
    if (buf.length >= 8 && buf.readUInt32BE(4) >= 4) return true;
    return buf.includes(Buffer.from(`${topRelative}\0`, "utf8"));
  } catch {
    return false;
  }
}

export interface DriftOptions {
  /** A `startStatus` already running, or null to start one here. */
  early?: Promise<SnapshotResult> | null;
  /** Root-relative folders `git status` leaves out (the running skill's; docs/design.md#verdicts-and-the-brief). */
  excludes?: readonly string[];
  /** The handoff's token, to tell whether this clone saved it; null for a pasted one. */
  handoffToken?: string | null;
  /** The handoff's text, whose `Saved:` stamp this clone's record may hold after a hand edit or a merge. */
  handoffText?: string | null;
}

/** Measures drift at `root` against validated anchors (docs/design.md#verdicts-and-the-brief). */
export async function measureDrift(
  root: string, env: Record<string, string | undefined>, anchors: CheckedAnchors, nowMs: number,
  optsOrEarly: DriftOptions | Promise<SnapshotResult> | null = null,
): Promise<MeasuredDrift> {
  const opts: DriftOptions =
    optsOrEarly === null || optsOrEarly instanceof Promise ? { early: optsOrEarly } : optsOrEarly;
  // The status process counts whether it was started here or by `startStatus`.
  let processes = 1;
  const git: Git = (args, input) => {
    processes++;
    return runGit(root, args, env, undefined, { input });
  };
  const head = anchors.head;
  const facts = blankFacts(anchors, nowMs);

  const keyFiles = [...new Set([...anchors.keyFiles, ...anchors.keyFileMtimes.map((k) => k.path)])];
  const keyFilesP = Promise.all(keyFiles.map(async (p) => ({ path: p, stat: await statInsideRoot(root, p) })));
  const top = gitTopOf(root);
  const gitDir = top === null ? null : gitDirOf(top);
  const prefix = rootPrefix(root, top);
  const handoffPath = `${prefix}.ai/memory/HANDOFF.md`;

  try {
    const statusP = opts.early ?? readSnapshot(root, env, opts.excludes ?? []);
    const logP = head === null ? null : git(historyArgs(head));
    // Memory from elsewhere: this clone's record of its saves does not hold the token
    // (docs/design.md#verdicts-and-the-brief); the author is looked up only then.
    const elsewhere = opts.handoffToken != null && notSavedHere(root, opts.handoffToken, opts.handoffText ?? null);
    if (opts.handoffToken != null) facts.savedBy = savedByOf(root, opts.handoffToken);
    // All are started before any is awaited; a rejection is handled below.
    logP?.catch(() => undefined);
    const status = await statusP;
    if (status.kind !== "repo") {
      await logP?.catch(() => undefined);
      facts.git = { state: status.kind, note: status.note };
    } else {
      facts.current = status.snapshot;
      const op = inProgressOf(gitDir);
      facts.inProgress = { saved: anchors.inProgress, current: op === null ? null : inProgressWords(op) };
      // A shallow clone's counts cover only the history it holds (docs/design.md#verdicts-and-the-brief).
      facts.shallow = isShallow(gitDir);
      const savedBranch = effectiveBranch(anchors.branch, anchors.inProgress);
      if (
        savedBranch !== null &&
        savedBranch !== "(detached)" &&
        savedBranch !== effectiveBranch(status.snapshot.branch, facts.inProgress.current)
      ) {
        facts.savedBranchPresent = branchPresent(gitDir, savedBranch);
      }
      let committer: string | null = null;
      if (head !== null && logP !== null)
        committer = await measureHead(facts, status.snapshot, head, await logP, git, `${prefix}.ai/memory/`, gitDir);
      const cleaned =
        facts.saved.dirty === null ? [] : facts.saved.dirty.filter((p) => !status.snapshot.dirty.includes(p));
      const moved = head !== null && status.snapshot.head !== null && status.snapshot.head !== head;
      // With the saved commit's object here, reachable or not, its diff to HEAD is what changed
      // (a rebase that rewrote it still changed the files it changed).
      const present = facts.headReachable === true || (facts.headReachable === false && !facts.objectMissing);
      if (head !== null && !moved && facts.headReachable === true) facts.changedSinceSave = [];
      else if (moved && present && keyFiles.length > 0) {
        const d = await git(["diff", "--name-only", "-z", "--no-renames", head, "HEAD"]);
        if (d.code === 0) facts.changedSinceSave = d.stdout.toString("utf8").split("\0").filter((p) => p !== "");
      }
      if (facts.changedSinceSave !== null) {
        const changed = new Set(facts.changedSinceSave);
        facts.changedKeyFiles = keyFiles.filter((k) => changed.has(`${prefix}${k}`));
      }
      // Each file dirty at the save gets one fate (docs/design.md#what-became-of-the-dirty-files).
      if (top !== null && facts.saved.dirty !== null) {
        const fromElsewhere = elsewhere || clonedAfter(gitDir, facts.saved.date?.ms ?? null);
        facts.dirtyFates = await measureFates(git, facts, anchors, { top, gitDir, present, cleaned, fromElsewhere });
      }
      // Uncommitted edits to key files since the save: dirty now (an untracked folder counts for
      // the files in it) and not listed dirty at the save.
      const isDirty = (list: readonly string[], p: string) =>
        list.some((d) => d === p || (d.endsWith("/") && p.startsWith(d)));
      facts.dirtyKeyFiles = keyFiles.filter(
        (k) => isDirty(status.snapshot.dirty, `${prefix}${k}`) && !isDirty(facts.saved.dirty ?? [], `${prefix}${k}`),
      );
      if (elsewhere) {
        // The commits since the save usually hold the last change to the handoff (committing
        // or pulling it); only when none does is its history looked up.
        if (committer === null && status.snapshot.head !== null && maybeTracked(gitDir, handoffPath)) {
          const last = await git(["log", "-1", "--no-merges", "--format=%an%x03%ae", "--",
            `:(top,literal)${handoffPath}`]);
          committer = last.code === 0 ? last.stdout.toString("utf8").trim() || null : null;
        }
        facts.provenance = { committer: committer === null ? null : authorWords(committer), someoneElse: true };
      }
    }
  } catch (err) {
    if (!(err instanceof GitUnavailable)) throw err;
    const state: GitState = err.reason;
    // The verdict says "git could not be used (<why>)": the cause alone, not run.ts's sentence.
    facts.git = { state, note: err.why };
    facts.current = null;
    facts.headReachable = null;
  }
  const stats = await keyFilesP;
  const missing = stats.filter((k) => k.stat === null).map((k) => k.path);
  // A key file the plan will create, absent at the save and still absent, is not drift
  // (docs/decisions/first-resume.md): only one that existed then, or may have, is missing.
  const notYet = await absentAtSave(missing, facts, anchors, prefix, git);
  facts.missingKeyFiles = missing.filter((k) => !notYet.includes(k));
  facts.keyFilesNotYetCreated = notYet;
  if (facts.git.state !== "repo") {
    // Outside git: the `Key file mtimes` anchor is what changed files are judged by.
    const now = new Map(stats.map((k) => [k.path, k.stat === null ? null : isoSeconds(k.stat.mtimeMs)]));
    facts.changedKeyFiles = anchors.keyFileMtimes
      .filter((k) => now.get(k.path) !== (k.mtime === null ? null : normalTime(k.mtime)))
      .map((k) => k.path);
  }
  return { report: assessDrift(facts), gitProcesses: processes };
}

/**
 * The missing key files that were absent at the save too: outside git, those the `Key file
 * mtimes` anchor recorded as missing; in git, those neither in the saved commit's tree (one
 * `git ls-tree`, only when some are missing and the saved commit is here) nor under a path
 * dirty at the save (a folder: no file under it either). An ignored file that existed then
 * cannot be told from one never made: it is counted as absent at the save. [] when it cannot
 * be told, a dirty list cut by `… and N more` included.
 */
async function absentAtSave(
  missing: string[], facts: DriftFacts, anchors: CheckedAnchors, prefix: string, git: Git,
): Promise<string[]> {
  if (missing.length === 0) return [];
  if (facts.git.state !== "repo") {
    const saved = new Map(anchors.keyFileMtimes.map((k) => [k.path, k.mtime]));
    return missing.filter((k) => saved.has(k) && saved.get(k) === null);
  }
  const head = facts.saved.head;
  const present = facts.headReachable === true || (facts.headReachable === false && !facts.objectMissing);
  // A cut dirty list (`… and N more`) leaves a file untracked then unlisted: not known absent.
  if (head === null || !present || facts.saved.dirty === null || (facts.saved.dirtyMore ?? 0) > 0) return [];
  const t = await git([
    "ls-tree", "-r", "-z", "--name-only", head, "--", ...missing.map((k) => `:(top,literal)${prefix}${k}`),
  ]);
  if (t.code !== 0) return [];
  const inTree = t.stdout.toString("utf8").split("\0").filter((p) => p !== "");
  const dirty = facts.saved.dirty;
  // `ls-tree -r` names the files in a folder, never the folder: a folder key file was there when
  // a file under it was (in the tree or dirty).
  const under = (p: string, k: string) => p === k || p.startsWith(`${k.replace(/\/+$/, "")}/`);
  const wasDirty = (p: string) => dirty.some((d) => under(d, p) || (d.endsWith("/") && p.startsWith(d)));
  return missing.filter((k) => !inTree.some((p) => under(p, `${prefix}${k}`)) && !wasDirty(`${prefix}${k}`));
}

// A saved mtime as `isoSeconds` writes it, so that the comparison is of instants, not spellings.
function normalTime(text: string): string {
  const t = parseStrictTime(text, Number.MAX_SAFE_INTEGER);
  return "error" in t ? text : isoSeconds(t.ms);
}

async function measureHead(
  facts: DriftFacts, snap: Snapshot, head: ObjectId, log: GitResult, git: Git, memoryPrefix: string,
  gitDir: string | null,
): Promise<string | null> {
  let committer: string | null = null;
  let reachable: boolean;
  let counted: { ahead: number; behind: number } | null = null;
  let memoryOnly = { ahead: 0, behind: 0 };
  if (snap.head !== null && log.code === 0) {
    const h = parseHistory(log.stdout, memoryPrefix);
    counted = { ahead: h.ahead, behind: h.behind };
    memoryOnly = { ahead: h.memoryOnlyAhead, behind: h.memoryOnlyBehind };
    // Our merge-driver block is not the user's change (docs/decisions/first-resume.md): commits of
    // memory and `.gitattributes` count as memory-only when nothing else in that file changed.
    if (h.attributesAhead + h.attributesBehind > 0 && (await sameAttributesButOurs(head, git))) {
      memoryOnly = { ahead: memoryOnly.ahead + h.attributesAhead, behind: memoryOnly.behind + h.attributesBehind };
    }
    committer = h.handoffCommitter;
    if (h.truncated) counted = await countBoth(head, git);
  } else if (snap.head !== null && /unrecognized argument|invalid value for|unknown option/i.test(log.stderr)) {
    // A git older than the log's options (--diff-merges is git 2.31+): a plain count, with
    // memory-only commits not told apart (one more process, only on such a git).
    counted = await countBoth(head, git);
  }
  if (counted !== null) {
    facts.ahead = counted.ahead - memoryOnly.ahead;
    facts.behind = counted.behind - memoryOnly.behind;
    facts.memoryOnlyCommits = memoryOnly.ahead + memoryOnly.behind;
    // HEAD contains the saved commit exactly when nothing of it is missing from HEAD.
    reachable = counted.behind === 0 ? true : await reachableFromRef(head, git, facts);
  } else if (snap.head === null) {
    // No commit yet on this branch (an orphan or a new repository): only refs can hold it.
    reachable = await reachableFromRef(head, git, facts);
  } else {
    // `<id>...HEAD` fails only when the id names no commit here.
    facts.objectMissing = true;
    reachable = false;
  }
  facts.headReachable = reachable;
  if (reachable) return committer;
  facts.ahead = null;
  facts.behind = null;
  facts.memoryOnlyCommits = 0;
  if (facts.objectMissing) facts.reflogNamed = reflogNames(gitDir, head);
  if (facts.saved.date !== null && snap.head !== null) {
    const r = await git(["rev-list", "--count", `--since=@${Math.floor(facts.saved.date.ms / 1000)}`, "HEAD"]);
    if (r.code === 0) facts.commitsSinceDate = Number(r.stdout.toString("utf8").trim());
  }
  // The old object is here: count HEAD's commits that are not a rewritten copy of the saved
  // side's, only when the commits since the saved date are few enough to compare.
  if (
    !facts.objectMissing &&
    snap.head !== null &&
    facts.commitsSinceDate !== null &&
    facts.commitsSinceDate <= MAX_SINCE_SAVED
  ) {
    const r = await git(["rev-list", "--cherry-pick", "--right-only", "--count", `${head}...HEAD`]);
    if (r.code === 0) facts.sinceSaved = Number(r.stdout.toString("utf8").trim());
  }
  return committer;
}

/** Most commits since the saved date for which `sinceSaved` is computed (null beyond). */
export const MAX_SINCE_SAVED = 500;

// The top's `.gitattributes` at the saved commit and at HEAD, our block left out, are the same
// (two `git show`s; a missing file reads as empty).
async function sameAttributesButOurs(head: ObjectId, git: Git): Promise<boolean> {
  const [then, now] = await Promise.all([git(["show", `${head}:${ATTRIBUTES}`]), git(["show", `HEAD:${ATTRIBUTES}`])]);
  const text = (r: GitResult) => (r.code === 0 ? r.stdout.toString("utf8") : "");
  return attributesNotOurs(text(then)) === attributesNotOurs(text(now));
}

async function countBoth(head: ObjectId, git: Git): Promise<{ ahead: number; behind: number } | null> {
  const r = await git(["rev-list", "--left-right", "--count", `${head}...HEAD`]);
  const m = r.code === 0 ? /^(\d+)\s+(\d+)/.exec(r.stdout.toString("utf8")) : null;
  return m ? { behind: Number(m[1]), ahead: Number(m[2]) } : null;
}

async function reachableFromRef(head: ObjectId, git: Git, facts: DriftFacts): Promise<boolean> {
  const r = await git(reachableArgs(head));
  if (r.code !== 0) {
    facts.objectMissing = true;
    return false;
  }
  return r.stdout.toString("utf8").trim() === "";
}

function blankFacts(anchors: CheckedAnchors, nowMs: number): DriftFacts {
  const head = anchors.head;
  return {
    nowMs,
    saved: { branch: anchors.branch, head, date: anchors.date, dirty: anchors.dirty, dirtyMore: anchors.dirtyMore },
    git: { state: "repo", note: null }, current: null, headReachable: null, objectMissing: false, shallow: false,
    reflogNamed: false, sinceSaved: null, savedBranchPresent: null, ahead: null, behind: null, commitsSinceDate: null,
    missingKeyFiles: [], unverifiable: anchors.unverifiable, memoryOnlyCommits: 0, changedKeyFiles: [],
    changedSinceSave: null, inProgress: { saved: anchors.inProgress, current: null }, provenance: null,
    ageUnknown: anchors.stateTime.known ? null : anchors.stateTime.reason,
  };
}

async function measureFates(
  git: Git, facts: DriftFacts, anchors: CheckedAnchors,
  at: { top: string; gitDir: string | null; present: boolean; cleaned: string[]; fromElsewhere: boolean },
) {
  const now = facts.current!;
  const head = facts.saved.head;
  const format = objectFormat(at.gitDir);
  const logs = await gatherFateLogs(git, {
    commonDir: at.gitDir === null ? null : commonDirOf(at.gitDir), savedHead: at.present ? head : null,
    savedDateMs: facts.saved.date?.ms ?? null, cleaned: at.cleaned, headExists: now.head !== null,
  });
  return fatesOf({
    savedDirty: facts.saved.dirty ?? [],
    hashes: anchors.dirtyHashes ?? [],
    nowDirty: now.dirty,
    blobNow: (p) => blobIdOf(path.join(at.top, p), format),
    ...logs,
    // A clone made after the save did not save it, record or not.
    fromSaved: at.present && head !== null,
    fromElsewhere: at.fromElsewhere,
  });
}
