import { accessSync, constants, existsSync, statSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { attributesOnlyOurs } from "./merge-driver-config.ts";
import { firstLine, runGit } from "./run.ts";

/**
 * The public files of a memory dir, as paths relative to the memory dir: the three memory
 * files, the archives and (unless `journal/OFF` exists) the journal's month and year files.
 * Never a private file (dot names, `.lock`), `PAUSE`, `drafts/`, nor anything in
 * `checkpoints/` (they quote the user's words) (docs/design.md#files-on-disk).
 */
export function isPublicMemoryPath(rel: string, journal = true): boolean {
  return (
    /^(HANDOFF|LESSONS|SOLUTIONS)\.md$/.test(rel) ||
    /^archive\/[A-Z]+-[A-Za-z0-9._-]+\.md$/.test(rel) ||
    (journal && /^journal\/\d{4}(?:-\d{2}(?:-\d+)?)?\.md$/.test(rel))
  );
}

/** What `publish` did. */
export interface PublishMemoryResult {
  committed: boolean;
  /** Paths committed, relative to the repository top. */
  paths: string[];
  commit: string | null;
  pushed: string | null;
  /** `.gitattributes` went into the commit (the merge driver's block: docs/decisions/merge-driver.md). */
  attributes?: boolean;
  /** What the repository names that this run did not run (without `--run-hooks`): its hooks, by name, and commit signing. */
  skipped?: { hooks: string[]; signing: boolean };
}

// The hooks a commit and a push can run (githooks(5)); `pre-auto-gc` never runs: gc.auto is off.
const COMMIT_HOOKS = ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change", "reference-transaction", "pre-push"];

/**
 * What a commit in `top` would have run that publish did not: the hooks present (executable)
 * in the repository's hooks folder, and signing when `commit.gpgSign` is on. Read without
 * running anything: `rev-parse --git-path hooks` and `config` run no hook.
 */
async function skippedPrograms(top: string, env: Record<string, string | undefined>, push: boolean): Promise<{ hooks: string[]; signing: boolean }> {
  const opts = { hooksAndSigning: true };
  const [dir, sign] = await Promise.all([
    runGit(top, ["rev-parse", "--git-path", "hooks"], env, undefined, opts),
    runGit(top, ["config", "--type=bool", "--get", "commit.gpgSign"], env, undefined, opts),
  ]);
  const hooksDir = path.resolve(top, dir.stdout.toString("utf8").replace(/\n$/, ""));
  const hooks = dir.code !== 0 ? [] : COMMIT_HOOKS.filter((h) => (push || h !== "pre-push") && executable(path.join(hooksDir, h)));
  return { hooks, signing: sign.code === 0 && sign.stdout.toString("utf8").trim() === "true" };
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

async function gitOut(top: string, args: string[], env: Record<string, string | undefined>, what: string, runHooks: boolean): Promise<string> {
  const r = await runGit(top, args, env, undefined, { hooksAndSigning: runHooks });
  if (r.code !== 0) {
    // git's own words: the user knows them, and they say what to do (docs/design.md#verdicts-and-the-brief).
    const text = r.stderr.trim() || r.stdout.toString("utf8").trim();
    throw new Refused(`${what} failed (git exit ${r.code}):\n${text}`);
  }
  return r.stdout.toString("utf8");
}

/** Where publish commits: the repository top and the memory dir relative to it, `/`-separated. */
export interface PublishTarget {
  top: string;
  memRel: string;
}

/**
 * The refusals of `publish` that come before anything is written: not a git repository, a
 * memory dir outside it or git-ignored (docs/design.md#integrations). Run before the merge
 * driver's step, so that such a refusal leaves the disk as it was (CONTRIBUTING.md).
 * @throws Refused (exit 2).
 */
export async function publishTarget(root: string, memDir: string, env: Record<string, string | undefined>): Promise<PublishTarget> {
  const topOut = await runGit(root, ["rev-parse", "--show-toplevel"], env);
  if (topOut.code !== 0) throw new Refused(`${root} is not in a git repository; publish commits the memory dir with git (${firstLine(topOut.stderr)})`);
  const top = topOut.stdout.toString("utf8").replace(/\n$/, "");
  const memRel = path.relative(top, memDir).split(path.sep).join("/");
  if (memRel.startsWith("..")) throw new Refused(`the memory dir ${memDir} is outside the repository ${top}`);
  // One path per run: git refuses --quiet with several. The folder, or its files by a pattern.
  const ignored = await Promise.all([`${memRel}/`, `${memRel}/HANDOFF.md`].map((p) => runGit(top, ["check-ignore", "-q", "--", p], env)));
  if (ignored.some((r) => r.code === 0)) {
    throw new Refused(`${memRel}/ is ignored by git (.gitignore); publish only commits a memory dir that git tracks: remove the ignore rule first, or keep memory private and do not publish`);
  }
  return { top, memRel };
}

/**
 * Commits exactly the memory dir's public files (docs/design.md#integrations), `git commit
 * --only`-style: whatever else the user staged stays staged and out of the commit. Refused
 * when the memory dir is git-ignored. With `push`, pushes HEAD to the branch's upstream only.
 * No hook nor signing program of the repository runs unless `runHooks` (the user's
 * `--run-hooks`); what was skipped is returned. The caller holds the memory lock.
 * @throws Refused (exit 2) with git's own error.
 */
export async function publishMemory(
  root: string,
  memDir: string,
  message: string,
  push: boolean,
  env: Record<string, string | undefined>,
  attributes: "changed" | "if-only-ours" | "no" = "no",
  target?: PublishTarget,
  runHooks = false,
): Promise<PublishMemoryResult> {
  const { top, memRel } = target ?? (await publishTarget(root, memDir, env));
  const git = (args: string[], what: string) => gitOut(top, args, env, what, runHooks);
  // Tracked files (deleted ones too: a pruned archive) and untracked ones, never ignored.
  const listed = await git(["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", `${memRel}/`], "git ls-files");
  const journal = !existsSync(path.join(memDir, "journal", "OFF"));
  const paths = [...new Set(listed.split("\0").filter(Boolean))].filter((p) => isPublicMemoryPath(p.slice(memRel.length + 1), journal)).sort();
  // The merge driver's block: committed when this run changed it, or when install made the
  // file and nothing else is in it (never a user's other uncommitted attribute edits).
  if (attributes === "changed" || (attributes === "if-only-ours" && attributesOnlyOurs(top))) paths.push(".gitattributes");
  if (paths.length === 0) return { committed: false, paths: [], commit: null, pushed: null };
  const status = await git(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ...paths], "git status");
  if (status === "") return { committed: false, paths: [], commit: null, pushed: null };
  const changed = status
    .split("\0")
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
    .filter((p) => paths.includes(p));
  // New files must be known to git before `commit --only` takes them; they are ours to stage.
  await git(["add", "-A", "--", ...changed], "git add");
  // Without --run-hooks no hook runs anyway (core.hooksPath points nowhere); with it, all of them do.
  const skipped = runHooks ? undefined : await skippedPrograms(top, env, push);
  await git(["commit", "--only", "-q", "-m", message, "--", ...changed], "git commit");
  const commit = (await git(["rev-parse", "HEAD"], "git rev-parse")).trim();
  let pushed: string | null = null;
  if (push) {
    const branch = (await git(["symbolic-ref", "--short", "-q", "HEAD"], "finding the branch")).trim();
    const remote = await runGit(top, ["config", "--get", `branch.${branch}.remote`], env);
    const merge = await runGit(top, ["config", "--get", `branch.${branch}.merge`], env);
    if (remote.code !== 0 || merge.code !== 0) {
      throw new Refused(`committed ${commit.slice(0, 12)}, but ${branch} has no upstream to push to; publish pushes only to the branch's upstream: set one with \`git push -u <remote> ${branch}\``);
    }
    const r = remote.stdout.toString("utf8").trim();
    const m = merge.stdout.toString("utf8").trim();
    const out = await runGit(top, ["push", "--", r, `HEAD:${m}`], env, undefined, { hooksAndSigning: runHooks });
    if (out.code !== 0) throw new Refused(`committed ${commit.slice(0, 12)}, but the push failed (git exit ${out.code}):\n${out.stderr.trim()}`);
    pushed = `${r} ${m.replace(/^refs\/heads\//, "")}`;
  }
  return { committed: true, paths: changed, commit, pushed, attributes: changed.includes(".gitattributes"), ...(skipped ? { skipped } : {}) };
}
