// Gathers the drift facts of contract §5 with as few git processes as the answer needs, then
// hands them to the pure `assessDrift`.
import type { CheckedAnchors } from "../schema/handoff.ts";
import type { ObjectId } from "../schema/values.ts";
import { statInsideRoot } from "./anchors.ts";
import { GitUnavailable, runGit, type GitResult } from "./run.ts";
import { readSnapshot, type Snapshot, type SnapshotResult } from "./status.ts";
import { assessDrift, type DriftFacts, type DriftReport, type GitState } from "./verdict.ts";

/** A drift report and how many git processes it took (for the performance budget). */
export interface MeasuredDrift {
  report: DriftReport;
  gitProcesses: number;
}

// Reachability from any ref: `rev-list <id> --not --all` lists nothing when a ref (or HEAD)
// contains the id. Reflogs are not refs, so a commit kept alive only by the reflog is listed;
// refs/stash is left out for the same reason (a stash is a reflog of work, not history).
function reachableArgs(id: ObjectId): string[] {
  return ["rev-list", "--max-count=1", id, "--not", "--exclude=refs/stash", "--all"];
}

/**
 * Starts drift's `git status` before the handoff is read: it needs nothing from the handoff,
 * and git's work then overlaps reading and parsing it (start-up budget, performance.md).
 * Pass the promise to `measureDrift`; a rejection is left for it to handle.
 */
export function startStatus(root: string, env: Record<string, string | undefined>): Promise<SnapshotResult> {
  const p = readSnapshot(root, env);
  p.catch(() => undefined);
  return p;
}

/**
 * Measures drift at `root` against validated anchors (contract §5). Runs git with argument
 * vectors built only from literals, the validated object id and a number of seconds.
 *
 * Processes: one `status` (branch, HEAD, upstream counts, dirty files) and one
 * `rev-list --left-right --count <saved>...HEAD`, in parallel; a reachability check only when
 * HEAD does not contain the saved commit; a `--since` count (and a shallow check when the
 * object is missing) only when it is unreachable. So 2 for the usual case, at most 4.
 * Never throws for a git failure: git missing or timing out gives an unverifiable report.
 * @param nowMs the current time in ms since the epoch.
 * @param early a `startStatus` already running, or null to start one here.
 */
export async function measureDrift(
  root: string,
  env: Record<string, string | undefined>,
  anchors: CheckedAnchors,
  nowMs: number,
  early: Promise<SnapshotResult> | null = null,
): Promise<MeasuredDrift> {
  // The status process counts whether it was started here or by `startStatus`.
  let processes = 1;
  const git = (args: readonly string[]): Promise<GitResult> => {
    processes++;
    return runGit(root, args, env);
  };
  const head = anchors.head;
  const facts: DriftFacts = {
    nowMs,
    saved: { branch: anchors.branch, head, date: anchors.date, dirty: anchors.dirty },
    git: { state: "repo", note: null },
    current: null,
    headReachable: null,
    objectMissing: false,
    shallow: false,
    ahead: null,
    behind: null,
    commitsSinceDate: null,
    missingKeyFiles: [],
    unverifiable: anchors.unverifiable,
  };
  const keyFilesP = Promise.all(anchors.keyFiles.map(async (p) => ((await statInsideRoot(root, p)) === null ? p : null)));

  try {
    const statusP = early ?? readSnapshot(root, env);
    const countP = head === null ? null : git(["rev-list", "--left-right", "--count", `${head}...HEAD`]);
    // Both are started before either is awaited; a rejection is handled below.
    countP?.catch(() => undefined);
    const status = await statusP;
    if (status.kind === "not-repo") {
      await countP?.catch(() => undefined);
      facts.git = { state: "not-repo", note: status.note };
    } else {
      facts.current = status.snapshot;
      if (head !== null && countP !== null) await measureHead(facts, status.snapshot, head, await countP, git);
    }
  } catch (err) {
    if (!(err instanceof GitUnavailable)) throw err;
    const state: GitState = err.reason;
    facts.git = { state, note: err.message };
    facts.current = null;
    facts.headReachable = null;
  }
  facts.missingKeyFiles = (await keyFilesP).filter((p): p is string => p !== null);
  return { report: assessDrift(facts), gitProcesses: processes };
}

async function measureHead(
  facts: DriftFacts,
  snap: Snapshot,
  head: ObjectId,
  count: GitResult,
  git: (args: readonly string[]) => Promise<GitResult>,
): Promise<void> {
  let reachable: boolean;
  if (snap.head !== null && count.code === 0) {
    const m = /^(\d+)\s+(\d+)/.exec(count.stdout.toString("utf8"));
    const behind = Number(m?.[1] ?? NaN);
    const ahead = Number(m?.[2] ?? NaN);
    facts.ahead = ahead;
    facts.behind = behind;
    // HEAD contains the saved commit exactly when nothing of it is missing from HEAD.
    reachable = behind === 0 ? true : await reachableFromRef(head, git, facts);
  } else if (snap.head === null) {
    // No commit yet on this branch (an orphan or a new repository): only refs can hold it.
    reachable = await reachableFromRef(head, git, facts);
  } else {
    // `<id>...HEAD` fails only when the id names no commit here.
    facts.objectMissing = true;
    reachable = false;
  }
  facts.headReachable = reachable;
  if (reachable) return;
  facts.ahead = null;
  facts.behind = null;
  const since = facts.saved.date !== null && snap.head !== null ? git(["rev-list", "--count", `--since=@${Math.floor(facts.saved.date.ms / 1000)}`, "HEAD"]) : null;
  const shallow = facts.objectMissing ? git(["rev-parse", "--is-shallow-repository"]) : null;
  since?.catch(() => undefined);
  if (shallow !== null) {
    const r = await shallow;
    facts.shallow = r.code === 0 && r.stdout.toString("utf8").trim() === "true";
  }
  if (since !== null) {
    const r = await since;
    if (r.code === 0) facts.commitsSinceDate = Number(r.stdout.toString("utf8").trim());
  }
}

async function reachableFromRef(head: ObjectId, git: (args: readonly string[]) => Promise<GitResult>, facts: DriftFacts): Promise<boolean> {
  const r = await git(reachableArgs(head));
  if (r.code !== 0) {
    facts.objectMissing = true;
    return false;
  }
  return r.stdout.toString("utf8").trim() === "";
}
