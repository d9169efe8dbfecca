// Drift arithmetic and the verdict: plain facts in (drift.ts gathers them), the report out.
import { sanitize } from "../guard/sanitize.ts";
import { branchWords, namesList, plural } from "../guard/words.ts";
import { withoutTokens } from "../guard/redact.ts";
import { quotedPath } from "../guard/quote.ts";
import type { ValidTime } from "../schema/values.ts";
import type { DirtyFate } from "./fates.ts";
import { BROKEN_REPO_FIX, type Snapshot } from "./status.ts";

// In precedence order, strongest first.
type Verdict = "unverifiable" | "rewritten" | "stale" | "drifted" | "fresh";

const STALE_DAYS = 14;
const STALE_COMMITS = 30;
const DAY_MS = 86_400_000;

type GitState = "repo" | "not-repo" | "broken" | "missing" | "timeout" | "failed";
type Saved = { branch: string | null; head: string | null; dirty: string[] | null; dirtyMore?: number };
type InProgress = { saved: string | null; current: string | null };

/** What drift.ts gathered; an optional field is absent when it was not looked up. */
export interface DriftFacts {
  nowMs: number;
  saved: Saved & { date: ValidTime | null };
  git: { state: GitState; note: string | null };
  current: Snapshot | null;
  /** From HEAD or a ref (the reflog and dangling objects do not count); null when not checked. */
  headReachable: boolean | null;
  /** Saved before the first commit (`HEAD: none`): counted from no commit, reachable by definition. */
  savedNone?: boolean;
  objectMissing: boolean;
  shallow: boolean;
  reflogNamed?: boolean;
  /** Shallow, the saved commit here but unreachable, and HEAD's history cut where it may hide it. */
  shallowCut?: boolean;
  /** HEAD's commits not patch-equivalent to the saved side's (saved object present but unreachable). */
  sinceSaved?: number | null;
  /** The saved side's commits not on HEAD with a patch-identical copy on HEAD, and (memory-only aside) without. */
  savedCopied?: number | null;
  savedChanged?: number | null;
  savedBranchPresent?: boolean | null;
  ahead: number | null;
  behind: number | null;
  /** Every commit ahead changed only files dirty at the save, each held by HEAD as saved: the save's work committed. */
  aheadAsSaved?: boolean;
  /** Of the commits ahead (or `sinceSaved` after a kept rewrite), those committed before the save: merged in. */
  olderAhead?: number;
  /** Commits on HEAD since the saved date, counted only when the saved HEAD is unreachable. */
  commitsSinceDate: number | null;
  missingKeyFiles: string[];
  /** Key files renamed between the saved HEAD and HEAD (git's -M), by their saved path. */
  renamedKeyFiles?: { path: string; to: string }[];
  keyFilesNotYetCreated?: string[];
  /** Tracked memory files changed since HEAD, counted only when the upstream is ahead: they stop `git pull`. */
  unpublishedMemory?: number;
  unverifiable: string[];
  memoryOnlyCommits?: number;
  changedKeyFiles?: string[];
  dirtyKeyFiles?: string[];
  inProgress?: InProgress;
  // Set only when this clone did not save the handoff; `committer` of its last commit, quoted; or `commit`, the
  // user's own commit that brought it, when no commit of its saver is left.
  provenance?: { committer: string | null; commit?: string; someoneElse: boolean } | null;
  savedBy?: string | null;
  ageUnknown?: "missing" | "malformed" | "future" | null;
  dirtyFates?: DirtyFate[];
  /** This worktree's stash entries made since the save (`stash@{n}`), read from the stash's reflog. */
  stashesSince?: string[];
}

/** `drift --json`'s document. */
export type DriftReport = ReturnType<typeof assessDrift>;
type NotHere = "not-fetched" | "shallow" | null;

function short(id: string | null): string {
  return id === null ? "?" : id.slice(0, 12);
}

/** The branch a HEAD is on: `(detached)` during a rebase of B counts as B. Pure. */
export function effectiveBranch(branch: string | null, progress: string | null): string | null {
  const m = progress === null ? null : /^rebase of (\S+)$/.exec(progress);
  return branch === "(detached)" && m ? m[1]! : branch;
}

export function notHereWords(reason: "not-fetched" | "shallow"): string {
  return reason === "shallow"
    ? "not in this clone: deepen it (git fetch --deepen or --unshallow), or the history was rewritten"
    : "not in this clone: fetch, or the history was rewritten";
}

function ageUnknownWords(reason: "missing" | "malformed" | "future" | null): string {
  if (reason === "future") return "age unknown: the saved time is more than 5 minutes in the future";
  if (reason === "malformed") return "age unknown: the saved time is not a strict ISO-8601 time with a zone";
  return "age unknown: the handoff has no `- Date:` or `Saved:` time";
}

const NOT_HELD = "(no branch, tag or stash holds the saved one at this path)";

/** Where a fate left the saved work, in words; null for a fate that names no place. */
export function placeWords(f: DirtyFate): string | null {
  const as = "as" in f && f.as !== undefined ? ` as ${quotedPath(f.as)}` : "";
  const eol = "eol" in f ? " with other line endings" : "";
  if (f.fate === "committed") {
    const undone = f.reverted === undefined ? "" : `, then reverted in ${short(f.reverted)}`;
    return `committed${as}${eol} in ${short(f.commit)}${f.onHead ? "" : " (not on HEAD)"}${undone}`;
  }
  if (f.fate === "stashed") return `now in ${f.stash}${as}${eol}`;
  if (f.fate === "unchanged" && f.eol) return "still dirty and unchanged but for its line endings";
  if (f.fate === "renamed") return `renamed to ${quotedPath(f.to)}, not committed`;
  if (f.fate !== "edited") return null;
  const where = "stash" in f ? `, stashed in ${f.stash}` : ` in ${short(f.commit)}`;
  return `${f.as === undefined ? "" : `renamed to ${quotedPath(f.as)}, `}changed since${where}`;
}

// One clause per fate, paths grouped.
function fateClauses(fates: readonly DirtyFate[]): string[] {
  const group = new Map<string, string[]>();
  for (const f of fates) {
    const words = placeWords(f) ?? FATE_WORDS[f.fate as keyof typeof FATE_WORDS];
    const held = f.fate === "edited" ? ` ${NOT_HELD}` : "";
    const key = f.fate === "not-here" ? words : `dirty at the save, ${words}${held}`;
    group.set(key, [...(group.get(key) ?? []), f.path]);
  }
  return [...group].map(([words, paths]) => `${words}: ${namesList(paths, quotedPath)}`);
}

const FATE_WORDS = {
  reverted: "reverted (neither committed nor stashed)", changed: "still dirty and changed since",
  unchanged: "still dirty and unchanged", dirty: "still dirty", clean: "clean now (committed, stashed or reverted)",
  "not-here": "dirty in the clone that saved, not in this one",
} as const;

function unverifiableClause(f: DriftFacts, notHere: NotHere): string {
  const { state, note } = f.git;
  if (state === "missing") return "git is not on PATH, so the repository could not be compared (outside-git behaviour)";
  const onlyAge = "so only age and key files were checked";
  if (state === "not-repo") return `the root is not in a git repository, ${onlyAge}`;
  const why = note ?? "git status failed";
  if (state === "broken") return `git cannot read the repository at the root (${why}), ${onlyAge}: ${BROKEN_REPO_FIX}`;
  if (state !== "repo") return `git could not be used (${note ?? state})`;
  if (f.saved.head === null || f.headReachable === null)
    return "the handoff has no valid HEAD anchor (a full 40/64-hex id), so the saved commit could not be checked";
  if (notHere !== null) return `saved HEAD ${short(f.saved.head)} is ${notHereWords(notHere)}`;
  return `${ageUnknownWords(f.ageUnknown ?? null)}, so the handoff cannot be called fresh`;
}

/** The saved commit is gone but every saved commit is on HEAD as a patch-identical copy (a rebase or an amend). */
function patchesKept(f: DriftFacts): boolean {
  return f.headReachable === false && !f.objectMissing && f.savedChanged === 0;
}

// The verdict's reason: why it could not be checked, how history was rewritten, or where HEAD is.
function headClauses(f: DriftFacts, verdict: Verdict, notHere: NotHere, memoryOnly: number, older: number) {
  const head = short(f.saved.head);
  const pre = older === 0 ? "" : ` (${older} of them committed before the save)`;
  // The saved HEAD unchecked says nothing of work since; the commits since the saved date are what is known.
  const n = f.commitsSinceDate;
  const byDate = n === null ? [] : [`${plural(n, "commit")} on HEAD since the saved date`];
  if (verdict === "unverifiable") return [unverifiableClause(f, notHere), ...byDate];
  if (patchesKept(f)) {
    const n = f.savedCopied ?? null;
    const copies = n === 1 ? "the saved commit is on HEAD as a new commit"
      : `the ${n === null ? "" : `${n} `}saved commits are on HEAD as new commits`;
    const since = f.sinceSaved ?? 0;
    // Commits older than the save that the rebase put under the saved work are not "since the save".
    const brought = "committed before the save and brought in by the rebase";
    const others = older === 0 ? `${plural(since, "other commit")} on HEAD since the save`
      : older === since ? `${plural(since, "other commit")} now on HEAD, ${brought}`
      : `${plural(since, "other commit")} now on HEAD: ${since - older} committed since the save, ${older} ${brought}`;
    return [
      `saved HEAD ${head} was rewritten with its patches kept (whitespace aside): ${copies}`,
      since === 0 ? "no other commits since the save" : others,
    ];
  }
  if (verdict === "rewritten") {
    const how = "(rebase, amend, reset, squash merge or force-push)";
    const parts = [
      f.objectMissing
        ? `saved HEAD ${head} no longer exists here; this clone's reflog names it (history rewritten)`
        : `saved HEAD ${head} is no longer reachable from HEAD or any ref ${how}`,
    ];
    const copies = "rewritten copies of saved commits left out";
    if ((f.savedChanged ?? 0) > 0)
      parts.push(`${plural(f.savedChanged!, "saved commit")} with no patch-identical copy on HEAD`);
    if (f.sinceSaved != null) parts.push(`${plural(f.sinceSaved, "commit")} on HEAD since the save, ${copies}`);
    else parts.push(...byDate);
    return [...parts, "plan statuses are unverified"];
  }
  if (f.headReachable !== true || f.ahead === null || f.behind === null) return [];
  const [ahead, behind] = [f.ahead, f.behind];
  const first = "saved before the first commit (HEAD: none)";
  if (f.savedNone) return [first, `${plural(ahead, "commit")} on HEAD since${pre}`];
  if (ahead === 0 && behind === 0)
    return [memoryOnly > 0 ? `no commits since the saved ${head} but memory-only ones` : `at the saved commit ${head}`];
  const asSaved = f.aheadAsSaved ? ", holding only the work dirty at the save, as saved" : "";
  if (behind === 0) return [`${plural(ahead, "commit")} ahead of the saved ${head}${pre}${asSaved}`];
  if (ahead === 0) return [`${plural(behind, "commit")} behind the saved ${head}`];
  return [`diverged from the saved ${head}: ${ahead} ahead${pre.replace(" of them", "")}, ${behind} behind`];
}

/** A missing key file in words, with the name a rename since the save gave it. */
export function missingWords(renamed: readonly { path: string; to: string }[]): (p: string) => string {
  const to = new Map(renamed.map((r) => [r.path, r.to]));
  return (p) => quotedPath(p) + (to.has(p) ? ` (renamed to ${quotedPath(to.get(p)!)})` : "");
}

// The key files (missing, not created yet, changed, with uncommitted edits), upstream and dirty counts.
function fileClauses(f: DriftFacts, parts: string[], dirtyChanged: boolean | null) {
  const cur = f.current;
  const missing = f.missingKeyFiles;
  const renamed = (f.renamedKeyFiles ?? []).filter((r) => missing.includes(r.path));
  if (missing.length > 0) parts.push(`key files missing: ${namesList(missing, missingWords(renamed))}`);
  const notYet = f.keyFilesNotYetCreated ?? [];
  const notYetWords = "key files not created yet (absent at the save too)";
  if (notYet.length > 0) parts.push(`${notYetWords}: ${namesList(notYet, quotedPath)}`);
  const up = cur?.upstream ?? null;
  if (up !== null) {
    if (up.ahead === null) parts.push(`upstream ${branchWords(up.name, withoutTokens)} is gone`);
    else if (up.ahead > 0 || (up.behind ?? 0) > 0)
      parts.push(`upstream ${branchWords(up.name, withoutTokens)}: ${up.ahead} ahead, ${up.behind} behind`);
  }
  if ((f.unpublishedMemory ?? 0) > 0) {
    parts.push(`memory saves not published (${plural(f.unpublishedMemory!, "file")}) stop \`git pull --rebase\`, and ` +
      "`git pull` when the upstream changed them: run publish first, so the merge driver joins both");
  }
  const changedKeyFiles = f.changedKeyFiles ?? [];
  // A key file deleted since is already said missing; the summary does not name it twice.
  const changedPresent = changedKeyFiles.filter((p) => !missing.includes(p));
  if (changedPresent.length > 0) parts.push(`key files changed: ${namesList(changedPresent, quotedPath)}`);
  const dirtyKeyFiles = (f.dirtyKeyFiles ?? []).filter((p) => !missing.includes(p));
  const uncommitted = "key files with uncommitted changes";
  if (dirtyKeyFiles.length > 0) parts.push(`${uncommitted}: ${namesList(dirtyKeyFiles, quotedPath)}`);
  if (dirtyChanged === true && cur !== null && f.saved.dirty !== null) {
    parts.push(`dirty files: ${f.saved.dirty.length + (f.saved.dirtyMore ?? 0)} then, ${cur.dirty.length} now`);
  }
  return { changedKeyFiles, dirtyKeyFiles, up, renamed };
}

export function assessDrift(f: DriftFacts) {
  const cur = f.current;
  const ageRaw = f.saved.date === null ? null : Math.max(0, (f.nowMs - f.saved.date.ms) / DAY_MS);
  const ageDays = ageRaw === null ? null : Math.round(ageRaw * 10) / 10;
  const progress = f.inProgress ?? { saved: null, current: null };
  // A HEAD detached by a rebase of B is still on B: both then and now.
  const savedBranch = effectiveBranch(f.saved.branch, progress.saved);
  const currentBranch = cur === null ? null : effectiveBranch(cur.branch, progress.current);
  // A saved branch absent from this clone says nothing about a move (docs/design.md#verdicts-and-the-brief).
  const branchAbsent = f.savedBranchPresent === false && savedBranch !== currentBranch;
  const branchChanged = cur === null || savedBranch === null || branchAbsent ? null : currentBranch !== savedBranch;
  const savedMore = f.saved.dirtyMore ?? 0;
  // A cut list is unchanged only when every path it names is still dirty and the counts agree.
  const sameDirty = (now: readonly string[], then: readonly string[]) =>
    now.length === then.length + savedMore && then.every((p) => now.includes(p));
  const dirtyChanged = cur === null || f.saved.dirty === null ? null : !sameDirty(cur.dirty, f.saved.dirty);
  const reachable = f.headReachable;
  const ahead = reachable === true ? f.ahead : null;
  const behind = reachable === true ? f.behind : null;

  const unverifiable = [...f.unverifiable];
  // An absent commit is rewritten only when this clone once had it (its reflog names it).
  const unchecked = f.git.state !== "repo" || (f.saved.head === null && !f.savedNone) || reachable === null;
  const absent = !unchecked && reachable === false && f.objectMissing && f.reflogNamed !== true;
  const notHereReason: NotHere = absent ? (f.shallow ? "shallow" : "not-fetched") : f.shallowCut ? "shallow" : null;
  // Saved commits all copied onto HEAD: the commits besides the copies are what came after the save.
  const kept = patchesKept(f);
  // Commits that only made the save's dirty work permanent, as saved, are not work since the save.
  const newSince = kept ? (f.sinceSaved ?? 0) : f.aheadAsSaved && behind === 0 ? 0 : (ahead ?? 0);
  // Commits older than the save that a merge or fast-forward brought in are drift, not work since the save.
  const older = Math.min(f.olderAhead ?? 0, newSince);
  // Age alone makes nothing stale; work in progress the tree no longer holds is drift, as the plan rested on it.
  const fates = f.dirtyFates ?? [];
  // A cut dirty list (`… and N more`): an unlisted file clean now has no path to follow, so its work may be gone.
  const unlistedNow = cur === null ? savedMore : cur.dirty.filter((p) => !(f.saved.dirty ?? []).includes(p)).length;
  const fromElsewhere = fates.some((x) => x.fate === "not-here");
  const unlistedClean = fromElsewhere ? 0 : Math.max(0, savedMore - unlistedNow);
  const wipGone = unlistedClean > 0 || fates.some((x) => x.fate === "reverted" || x.fate === "stashed" ||
    (x.fate === "committed" && (!x.onHead || x.reverted !== undefined)) || (x.fate === "edited" && "stash" in x));
  // Patches kept by git's patch id, which ignores whitespace (an indentation in Python is not): a rewrite is drift.
  const moved =
    branchChanged === true || newSince > 0 || (behind ?? 0) > 0 || f.missingKeyFiles.length > 0 || wipGone || kept;
  const worked = moved || dirtyChanged === true || fates.some((x) => x.fate === "changed");
  let verdict: Verdict;
  if (unchecked || notHereReason !== null) verdict = "unverifiable";
  else if (!reachable && !kept) verdict = "rewritten";
  else if (newSince - older > STALE_COMMITS || ((ageRaw ?? 0) > STALE_DAYS && worked)) verdict = "stale";
  else if (moved) verdict = "drifted";
  else if (ageRaw === null) {
    // Never fresh on an unknown age (docs/design.md#verdicts-and-the-brief): the state time is what fresh rests on.
    verdict = "unverifiable";
    if (!unverifiable.includes("date")) unverifiable.push("date");
  } else verdict = "fresh";
  const memoryOnly = f.memoryOnlyCommits ?? 0;
  const savedDirty = f.saved.dirty;
  const cleanedDirty = cur === null || savedDirty === null ? [] : savedDirty.filter((p) => !cur.dirty.includes(p));

  const parts = headClauses(f, verdict, notHereReason, memoryOnly, older);
  if (memoryOnly > 0 && (reachable === true || verdict === "rewritten" || kept))
    parts.push(`${plural(memoryOnly, "memory-only commit")} (saves of .ai/memory) not counted`);
  // Branch names are file-controlled (the handoff's) or repository-controlled (git's): quoted.
  const bw = (b: string | null): string => (b === null ? "none" : branchWords(b, withoutTokens));
  if (branchAbsent) parts.push(`branch ${bw(savedBranch)} is not in this clone; on ${bw(currentBranch)}`);
  else if (branchChanged === true) parts.push(`branch moved from ${bw(savedBranch)} to ${bw(currentBranch)}`);
  else if (branchChanged === false && verdict !== "unverifiable") parts.push(`on ${bw(currentBranch)}`);
  const since = progress.current === null ? ", finished or aborted since" : "";
  if (progress.saved !== null && progress.saved !== progress.current)
    parts.push(`${progress.saved} was in progress at the save${since}`);
  if (progress.current !== null) parts.push(`${progress.current} in progress now`);
  // "age unknown" is said once (docs/design.md#verdicts-and-the-brief): the verdict's reason may have said it.
  if (ageDays !== null) parts.push(`saved ${ageDays} days ago`);
  else if (!parts.some((p) => p.includes("age unknown"))) parts.push("age unknown");
  if (verdict === "stale") parts.push("too stale for line-by-line reconciliation");
  // Only a saved HEAD on HEAD's history shows that no commit came since.
  else if ((ageRaw ?? 0) > STALE_DAYS && !worked && reachable === true)
    parts.push("no work since the save, so not stale");
  const { changedKeyFiles, dirtyKeyFiles, up, renamed } = fileClauses(f, parts, dirtyChanged);
  parts.push(...fateClauses(fates));
  // A stash made since the save may hold later work the tree lacks; one a fate names is said there already.
  const named = new Set(fates.flatMap((x) => ("stash" in x ? [x.stash] : [])));
  const stashes = (f.stashesSince ?? []).filter((s) => !named.has(s));
  const which = stashes.length === 1 ? "a stash" : "stashes";
  const stashed = `${which} made since the save, its changes not counted`;
  if (stashes.length > 0) parts.push(`${stashed}: ${namesList(stashes)}`);
  // Said whenever the list was cut: other files dirty now can hide unlisted ones cleaned (a count is no name).
  const some = unlistedClean === savedMore ? "clean now, " : `at least ${unlistedClean} of them clean now, `;
  const unknown = `${unlistedClean > 0 ? some : ""}what became of them is not known`;
  if (savedMore > 0 && !fromElsewhere) parts.push(`dirty at the save but not listed (${savedMore} more): ${unknown}`);
  // Which agent saved it (recorded by this clone's write): the next agent says where it came from.
  if (f.savedBy) parts.push(`saved by ${f.savedBy}${f.saved.date === null ? "" : ` at ${f.saved.date.iso}`}`);
  const came = f.provenance?.commit ? `; it came with your commit ${f.provenance.commit}` : "";
  const by = f.provenance?.committer ? `; its last commit is by ${f.provenance.committer}` : came;
  if (f.provenance?.someoneElse) parts.push(`the handoff was not saved in this clone${by}`);
  const bad = unverifiable.filter((u) => !(verdict === "unverifiable" && u === "head"));
  if (bad.length > 0) parts.push(`unverifiable anchors: ${bad.join(", ")}`);
  // Branch names in it come from the file: the summary is prose printed outside the envelope.
  const summary = sanitize(`${verdict}: ${parts.join("; ")}`, { redact: false });

  return {
    verdict,
    saved: {
      branch: f.saved.branch, head: f.saved.head, date: f.saved.date?.iso ?? null, dirty: f.saved.dirty,
      ...(savedMore > 0 ? { dirtyMore: savedMore } : {}),
    },
    current: { branch: cur?.branch ?? null, head: cur?.head ?? null, dirty: cur?.dirty ?? null },
    branchChanged, headReachable: reachable, ahead, behind, olderAhead: older, commitsSinceDate: f.commitsSinceDate,
    aheadAsSaved: f.aheadAsSaved === true && behind === 0,
    ageDays,
    missingKeyFiles: f.missingKeyFiles, renamedKeyFiles: renamed, keyFilesNotYetCreated: f.keyFilesNotYetCreated ?? [],
    upstream: up,
    dirtyChanged, shallow: f.shallow,
    headPresent: unchecked ? null : reachable || !f.objectMissing, countsAtLeast: f.shallow, notHereReason,
    sinceSaved: reachable === false && !f.objectMissing ? (f.sinceSaved ?? null) : null,
    savedCopied: f.savedCopied ?? null, savedChanged: f.savedChanged ?? null,
    git: f.git, unverifiable, memoryOnlyCommits: memoryOnly, changedKeyFiles, cleanedDirty, dirtyKeyFiles,
    inProgress: progress, provenance: f.provenance ?? null, dirtyFates: fates, unlistedClean,
    stashesSince: stashes, summary,
  };
}
