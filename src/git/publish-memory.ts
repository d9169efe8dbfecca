// `publish`: commits exactly the memory dir's public files, pushing with `--push`.
import {
  accessSync, closeSync, constants, existsSync, mkdtempSync, rmSync, statSync, writeFileSync,
} from "../builtins.ts";
import { isUtf8 } from "node:buffer";
import { tmpdir } from "node:os";
import path from "node:path";
import { Refused } from "../errors.ts";
import { redactText } from "../guard/redact.ts";
import { checkAnchors, parseHandoff } from "../schema/handoff.ts";
import { openRegular, orNull, readAll, readSmall, succeeds, UnsafeFile } from "../store/files.ts";
import { attributesOnlyOurs, attributesOnto } from "./merge-driver-config.ts";
import { namesList } from "../guard/words.ts";
import { firstLine, GIT_TIMEOUT_MS, GitUnavailable, runGit, type Env } from "./run.ts";
import { failpoint } from "../store/failpoint.ts";

/** A public file of a memory dir (relative to it): never a private file, `PAUSE`, `drafts/` nor `checkpoints/`. */
export function isPublicMemoryPath(rel: string, journal = true): boolean {
  return (
    /^(HANDOFF|LESSONS|SOLUTIONS)\.md$/.test(rel) ||
    /^archive\/[A-Z]+-[A-Za-z0-9._-]+\.md$/.test(rel) ||
    (journal && /^journal\/\d{4}(?:-\d{2}(?:-\d+)?)?\.md$/.test(rel))
  );
}

// What `publish` did; `leftStaged`: what a hook staged outside the memory dir, left staged and not committed.
interface PublishMemoryResult {
  committed: boolean;
  paths: string[];
  commit: string | null;
  pushed: string | null;
  /** git's words when the push failed (a commit made stays). */
  pushFailed?: string | null;
  attributes?: boolean;
  skipped?: Programs;
  leftStaged?: string[];
}

type Programs = { hooks: string[]; signing: boolean };

// The hooks a commit and a push can run (githooks(5)); `pre-auto-gc` never runs: gc.auto is off.
const COMMIT_HOOKS = [
  "pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change", "reference-transaction",
  "pre-push",
];

// What a `git commit` in `top` would run: its executable hooks, and signing when `commit.gpgSign` is on.
async function repositoryPrograms(top: string, env: Env, push: boolean): Promise<Programs> {
  const opts = { hooksAndSigning: true };
  const [dir, sign] = await Promise.all([
    runGit(top, ["rev-parse", "--git-path", "hooks"], env, undefined, opts),
    runGit(top, ["config", "--type=bool", "--get", "commit.gpgSign"], env, undefined, opts),
  ]);
  const hooksDir = path.resolve(top, dir.stdout.toString("utf8").replace(/\n$/, ""));
  const executable = (h: string) => {
    const file = path.join(hooksDir, h);
    return succeeds(() => accessSync(file, constants.X_OK)) && orNull(() => statSync(file))?.isFile() === true;
  };
  const hooks = dir.code !== 0 ? [] : COMMIT_HOOKS.filter((h) => (push || h !== "pre-push") && executable(h));
  return { hooks, signing: sign.code === 0 && sign.stdout.toString("utf8").trim() === "true" };
}

// Tracked files (deleted ones too: a pruned archive) and untracked ones, never ignored.
const LS_MEMORY = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"];

// A push sends objects over the network: git's ordinary 15 s would stop a slow but working one.
const PUSH_TIMEOUT_MS = 5 * 60_000;

// runGit, with a git that ran too long or could not run turned into a refusal naming the step.
async function step(top: string, args: string[], env: Env, what: string, runHooks: boolean, done = "", index?: string) {
  const timeoutMs = args[0] === "push" ? PUSH_TIMEOUT_MS : GIT_TIMEOUT_MS;
  try {
    return await runGit(top, args, env, timeoutMs, { hooksAndSigning: runHooks, index });
  } catch (err) {
    if (!(err instanceof GitUnavailable)) throw err;
    const slow = `took longer than ${timeoutMs / 1000} s and was stopped`;
    throw new Refused(`${done}${what} ${err.reason === "timeout" ? slow : `could not run: ${err.why}`}`);
  }
}

async function gitOut(top: string, args: string[], env: Env, what: string, runHooks: boolean, index?: string) {
  const r = await step(top, args, env, what, runHooks, "", index);
  if (r.code !== 0) {
    // git's own words: the user knows them, and they say what to do.
    const text = r.stderr.trim() || r.stdout.toString("utf8").trim();
    throw new Refused(`${what} failed (git exit ${r.code}):\n${text}`);
  }
  return r.stdout.toString("utf8");
}

type PublishTarget = { top: string; memRel: string };

/** Where publish commits, or the refusals that come before anything is written (the disk then as it was). */
export async function publishTarget(root: string, memDir: string, env: Env): Promise<PublishTarget> {
  const topOut = await runGit(root, ["rev-parse", "--show-toplevel"], env);
  if (topOut.code !== 0)
    throw new Refused(
      `${root} is not in a git repository; publish commits the memory dir with git (${firstLine(topOut.stderr)})`,
    );
  const top = topOut.stdout.toString("utf8").replace(/\n$/, "");
  const memRel = path.relative(top, memDir).split(path.sep).join("/");
  if (memRel.startsWith("..")) throw new Refused(`the memory dir ${memDir} is outside the repository ${top}`);
  // A commit on a detached HEAD is left behind by the next checkout, and the handoff with it.
  if ((await runGit(top, ["symbolic-ref", "-q", "HEAD"], env)).code === 1) {
    throw new Refused(
      "HEAD is detached (no branch is checked out), so the next checkout would leave the commit and the " +
        "handoff behind; switch to a branch (`git switch -c <name>` keeps where you are) and publish again " +
        "(nothing was changed)",
    );
  }
  // The folder, or its files by a pattern: exit 0 when either is ignored.
  const ignored = await runGit(top, ["check-ignore", "--", `${memRel}/`, `${memRel}/HANDOFF.md`], env);
  if (ignored.code === 0) {
    throw new Refused(
      `${memRel}/ is ignored by git (.gitignore); publish only commits a memory dir that git tracks: remove the ` +
        `ignore rule first, or keep memory private and do not publish`,
    );
  }
  // With no memory file at all, the commit would hold only our attributes block: not a publish.
  const listed = await runGit(top, [...LS_MEMORY, `${memRel}/`], env);
  const files = listed.stdout.toString("utf8").split("\0").filter((p) => p.startsWith(`${memRel}/`));
  if (listed.code === 0 && !files.some((p) => isPublicMemoryPath(p.slice(memRel.length + 1)))) {
    throw new Refused(
      `nothing to publish: ${memRel}/ holds no memory file; save a handoff first (nothing was changed)`,
    );
  }
  return { top, memRel };
}

/** Commits the memory dir's public files alone, under the caller's lock; `register` writes first, after every check. */
export async function publishMemory(
  target: PublishTarget, memDir: string, message: string, push: boolean, env: Env,
  register: () => Promise<boolean>, runHooks: boolean, fp?: string,
): Promise<PublishMemoryResult> {
  const { top, memRel } = target;
  const git = (args: string[], what: string) => gitOut(top, args, env, what, runHooks);
  const listed = await git([...LS_MEMORY, `${memRel}/`], "git ls-files");
  const journal = !existsSync(path.join(memDir, "journal", "OFF"));
  const mine = (p: string) => p.startsWith(`${memRel}/`) && isPublicMemoryPath(p.slice(memRel.length + 1), journal);
  const paths = [...new Set(listed.split("\0").filter(mine))];
  const changedOf = async (list: string[]) => {
    const status = list.length === 0 ? "" : await git(["status", "--porcelain=v1", "-z", "--untracked-files=all",
      "--", ...list], "git status");
    return status.split("\0").filter((e) => e.length > 3).map((e) => e.slice(3)).filter((p) => list.includes(p));
  };
  const memory = await changedOf(paths);
  for (const p of memory) refuseUnsafe(top, p);
  // With --push, the upstream is found before anything is staged: no upstream commits nothing.
  const upstream = push ? await pushTarget(top, env, runHooks) : null;
  const pushHead = async (done: string) => {
    if (!upstream) return { pushed: null, pushFailed: null };
    const { remote: r, merge: m } = upstream;
    const out = await step(top, ["push", "--", r, `HEAD:${m}`], env, "git push", runHooks, done);
    // Not a refusal: what was committed stays, and the verb says so with what to run next.
    const failed = `${done}the push failed (git exit ${out.code}):\n${out.stderr.trim()}`;
    if (out.code !== 0) return { pushed: null, pushFailed: failed };
    // git's own words (LC_ALL=C) when the upstream already had HEAD: nothing was sent.
    const had = /Everything up-to-date/.test(out.stderr) ? " (it had HEAD already: nothing sent)" : "";
    return { pushed: `${r} ${m.replace(/^refs\/heads\//, "")}${had}`, pushFailed: null };
  };
  // Memory an earlier publish committed is still pushed when --push asks: the user wants it on the upstream; the
  // pre-push hook it did not run is said, as after a commit.
  const nothing = async () => ({
    committed: false, paths: [], commit: null, ...(await pushHead("nothing to publish, but ")),
    ...(upstream && !runHooks ? { skipped: await repositoryPrograms(top, env, true) } : {}),
  });
  // Our block is committed when this run changed it or the file holds nothing else (never a user's uncommitted edit).
  const attributes = (await register()) || attributesOnlyOurs(top);
  let changed = [...memory, ...(attributes ? await changedOf([".gitattributes"]) : [])];
  if (changed.length === 0) return nothing();
  // The index entries of the paths as they were, put back when the commit fails.
  const before = await git(["ls-files", "-s", "-z", "--", ...changed], "git ls-files");
  if (memory.length > 0) await git(["add", "-A", "--", ...memory], "git add");
  const attributesEntry = memory.length < changed.length ? await ourAttributes(top, env, runHooks) : null;
  if (attributesEntry === null) changed = memory;
  if (changed.length === 0) return nothing();
  const programs = await repositoryPrograms(top, env, push);
  // An unborn branch starts from an empty index.
  const head = await step(top, ["rev-parse", "-q", "--verify", "HEAD"], env, "git rev-parse", runHooks);
  const old = head.code === 0 ? head.stdout.toString("utf8").trim() : "";
  let made: Awaited<ReturnType<typeof commitOnly>>;
  try {
    made = await commitOnly(top, env, runHooks ? programs : null, message, changed, attributesEntry, old, mine, fp);
  } catch (err) {
    // Best effort: the refusal is what the user must see, with their index as it was.
    await putBack(top, env, changed, before, old).catch(() => undefined);
    throw err;
  }
  if (made === null) return nothing();
  const { commit, leftStaged } = made;
  const { pushed, pushFailed } = await pushHead(`committed ${commit.slice(0, 12)}, but `);
  return {
    committed: true, paths: made.paths, commit, pushed, pushFailed,
    attributes: made.paths.includes(".gitattributes"),
    ...(runHooks ? { leftStaged } : { skipped: programs }),
  };
}

// A memory file is read whole, the journal's months included, up to this size.
const SCAN_BYTES = 64 * 1024 * 1024;

// The scan reads UTF-8 only: UTF-16 or a NUL would hide a secret from it, so such a file is refused, not committed.
function scannable(bytes: Buffer, rel: string): string {
  if (bytes.includes(0) || !isUtf8(bytes)) throw new Refused(`${rel} is not UTF-8 text (UTF-16? a NUL byte?), so ` +
    "nothing was published: publish scans what it commits for secrets and cannot read it; save it as UTF-8 and " +
    "publish again");
  return bytes.toString("utf8");
}

// A commit is kept forever and a hand edit skipped write's redaction: each file must be one link and hold no secret.
function refuseUnsafe(top: string, rel: string): void {
  const nothing = "so nothing was published";
  const linked = `${rel} is a link, hard-linked or not a regular file, ${nothing}: a commit would hold what it ` +
    "points to; move it away (or replace it with a copy that is only this file) and publish again";
  let opened;
  try {
    opened = openRegular(path.join(top, rel), SCAN_BYTES);
  } catch (err) {
    throw err instanceof UnsafeFile && err.state !== "too-large" ? new Refused(linked) : err;
  }
  if (opened === null) return;
  try {
    if (opened.stat.nlink !== 1n) throw new Refused(linked);
    const found = redactText(scannable(readAll(opened.fd, SCAN_BYTES, 0), rel)).findings;
    const where = [...new Set(found.map((f) => `${f.kind} on line ${f.line}`))].slice(0, 3).join(", ");
    if (found.length > 0) throw new Refused(`${rel} holds a secret (${where}), ${nothing}: remove it from the ` +
      "file (write redacts what it saves; this was edited in by hand or by another program) and publish again");
  } finally {
    closeSync(opened.fd);
  }
}

/** The handoff's saved HEAD when no branch here or remote holds it: a teammate's brief would say unverifiable. */
export async function savedHeadOffBranch(target: PublishTarget, env: Env): Promise<string | null> {
  const text = readSmall(path.join(target.top, target.memRel, "HANDOFF.md"));
  const head = text === null ? null : checkAnchors(parseHandoff(text), Date.now()).head;
  // 1: not an ancestor. 128 (no such commit here: a shallow clone, a handoff from elsewhere) tells nothing either way.
  const r = head === null ? null : await runGit(target.top, ["merge-base", "--is-ancestor", head, "HEAD"], env);
  if (r?.code !== 1) return null;
  // Saved on a branch already pushed (then merged or published here): teammates fetch that commit with it.
  const pushed = await runGit(target.top, ["for-each-ref", "--count=1", "--contains", head!, "refs/remotes"], env);
  return pushed.code === 0 && pushed.stdout.length > 0 ? null : head;
}

// The current branch's upstream (remote and merge ref), or a refusal that says how to set one.
export async function pushTarget(top: string, env: Env, runHooks: boolean): Promise<{ remote: string; merge: string }> {
  const head = await gitOut(top, ["symbolic-ref", "--short", "-q", "HEAD"], env, "finding the branch", runHooks);
  const branch = head.trim();
  const remote = await step(top, ["config", "--get", `branch.${branch}.remote`], env, "git config", runHooks);
  const merge = await step(top, ["config", "--get", `branch.${branch}.merge`], env, "git config", runHooks);
  if (remote.code !== 0 || merge.code !== 0) {
    throw new Refused(
      `${branch} has no upstream to push to, so nothing was committed; publish pushes only to the branch's ` +
        `upstream: set one with \`git push -u <remote> ${branch}\``,
    );
  }
  return { remote: remote.stdout.toString("utf8").trim(), merge: merge.stdout.toString("utf8").trim() };
}

// The commit's .gitattributes entry (HEAD's plus our block; null: unchanged); the user's index gets the block too.
async function ourAttributes(top: string, env: Env, runHooks: boolean): Promise<string | null> {
  const show = async (rev: string) => {
    const r = await step(top, ["cat-file", "blob", rev], env, "git cat-file", runHooks);
    return r.code === 0 ? r.stdout.toString("utf8") : "";
  };
  const head = await show("HEAD:.gitattributes");
  const staged = await show(":.gitattributes");
  const worktree = readSmall(path.join(top, ".gitattributes")) ?? "";
  const text = attributesOnto(head, worktree);
  if (text === head) return null;
  const entry = async (t: string) => {
    const blob = await runGit(top, ["hash-object", "-w", "--stdin"], env, undefined, { input: t });
    if (blob.code !== 0) throw new Refused(`git hash-object failed (git exit ${blob.code}):\n${blob.stderr.trim()}`);
    return `100644 ${blob.stdout.toString("utf8").trim()} 0\t.gitattributes\0`;
  };
  const mine = staged === head ? text : attributesOnto(staged, worktree);
  await putEntries(top, env, [".gitattributes"], await entry(mine));
  return entry(text);
}

// Puts back the index entries of `paths` from before publish, but those a commit made meanwhile took.
async function putBack(top: string, env: Env, paths: string[], before: string, old: string): Promise<void> {
  const now = await runGit(top, ["rev-parse", "-q", "--verify", "HEAD"], env);
  const args = ["diff-index", "--cached", "--name-only", "-z", "HEAD", "--", ...paths];
  const moved = now.stdout.toString("utf8").trim() !== old;
  const back = moved ? (await gitOut(top, args, env, "git diff-index", false)).split("\0").filter(Boolean) : paths;
  const entries = before.split("\0").filter((e) => back.includes(e.slice(e.indexOf("\t") + 1)));
  if (back.length > 0) await putEntries(top, env, back, entries.map((e) => `${e}\0`).join(""));
}

// Sets `paths` in the user's index (or `index`) to `entries` (as `ls-files -s -z` prints), removing the others.
async function putEntries(top: string, env: Env, paths: string[], entries: string, index?: string): Promise<void> {
  const listed = entries.split("\0").filter(Boolean).map((e) => e.slice(e.indexOf("\t") + 1));
  const gone = paths.filter((p) => !listed.includes(p));
  const update = async (args: string[], input?: string) => {
    const r = await runGit(top, ["update-index", ...args], env, undefined, { index, input });
    if (r.code !== 0) throw new Refused(`git update-index failed (git exit ${r.code}):\n${r.stderr.trim()}`);
  };
  if (gone.length > 0) await update(["--force-remove", "--", ...gone]);
  if (listed.length > 0) await update(["-z", "--index-info"], entries);
}

// Why HEAD did not move to publish's commit: a commit made meanwhile (and what of `paths` it took), or a lock.
async function notSwapped(top: string, env: Env, tree: string, old: string, paths: string[]): Promise<string> {
  const now = (await runGit(top, ["rev-parse", "-q", "--verify", "HEAD"], env)).stdout.toString("utf8").trim();
  if (now === old) return "git could not update HEAD (another git command held it?), so nothing was published; run " +
    "publish again once that command is done";
  const differ = await runGit(top, ["diff-tree", "-r", "--name-only", "-z", tree, now, "--", ...paths], env);
  const held = differ.code === 0 ? paths.filter((p) => !differ.stdout.toString("utf8").split("\0").includes(p)) : [];
  const moved = `HEAD moved to ${now.slice(0, 12)} while publish was committing (a commit or checkout made meanwhile)`;
  if (held.length === 0) return `${moved}: nothing was published and that commit stands; run publish again`;
  const list = namesList(held);
  if (held.length === paths.length) return `${moved}; that commit already holds what publish was committing ` +
    `(${list}), so publish made no commit of its own and pushed nothing: nothing is left to publish`;
  return `${moved}; that commit already holds ${list}, the rest was not published: run publish again`;
}

// Commits `old` plus `paths` from an index of its own, swapping HEAD only if unmoved, so no user commit is undone;
// with `programs` (--run-hooks), a `git commit`'s hooks and signing. Null: nothing to commit.
async function commitOnly(top: string, env: Env, programs: Programs | null, message: string, paths: string[],
  attributes: string | null, old: string, mine: (p: string) => boolean, fp?: string) {
  const hooks = programs !== null;
  const git = (args: string[], what: string, index?: string) => gitOut(top, args, env, what, hooks, index);
  const staged = await git(["ls-files", "-s", "-z", "--", ...paths], "git ls-files");
  const dir = mkdtempSync(path.join(tmpdir(), "sh-publish-"));
  const index = path.join(dir, "index");
  const msg = path.join(dir, "COMMIT_EDITMSG");
  const hook = (name: string, ...args: string[]) =>
    programs?.hooks.includes(name) ? git(["hook", "run", name, "--", ...args], `the ${name} hook`, index) : null;
  try {
    if (old !== "") await git(["read-tree", old], "git read-tree", index);
    await putEntries(top, env, paths, staged, index);
    if (attributes !== null) await putEntries(top, env, [".gitattributes"], attributes, index);
    await failpoint(fp, "publish-before-commit");
    writeFileSync(msg, `${message}\n`);
    // What publish means to commit, before any hook: what a hook changes is judged against it.
    const meant = (await git(["write-tree"], "git write-tree", index)).trim();
    await hook("pre-commit");
    await hook("prepare-commit-msg", msg, "message");
    await hook("commit-msg", msg);
    const hooked = hooks ? await afterHooks(top, env, index, meant, mine) : null;
    const tree = hooked?.tree ?? meant;
    const diff = old === "" ? ["ls-tree", tree] : ["diff-tree", old, tree];
    const held = (await git([diff[0]!, "-r", "--name-only", "-z", ...diff.slice(1)], `git ${diff[0]}`))
      .split("\0").filter(Boolean);
    if (held.length === 0) return null;
    const parent = old === "" ? [] : ["-p", old];
    const sign = programs?.signing ? ["-S"] : [];
    const commit = (await git(["commit-tree", tree, ...parent, ...sign, "-F", msg], "git commit-tree")).trim();
    const swap = await step(top, ["update-ref", "-m", `commit: ${message}`, "HEAD", commit, old], env, "git update-ref",
      hooks);
    if (swap.code !== 0) throw new Refused(await notSwapped(top, env, meant, old, held));
    // The user's index takes what landed, and what a hook staged elsewhere, as `git commit` would have left it.
    const memory = [...new Set([...paths, ...(hooked?.memory ?? [])])].filter((p) => p !== ".gitattributes");
    if (hooks && memory.length > 0) {
      await putEntries(top, env, memory, await git(["ls-files", "-s", "-z", "--", ...memory], "git ls-files", index));
    }
    if (hooked && hooked.outside.length > 0) await putEntries(top, env, hooked.outside, hooked.entries);
    // As in `git commit`, post-commit's exit status changes nothing: the commit is made.
    if (programs?.hooks.includes("post-commit")) await step(top, ["hook", "run", "post-commit"], env, "git hook", true);
    return { commit, paths: held, leftStaged: hooked?.outside ?? [] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// After the hooks: `meant` plus the memory files a hook changed (refused if it added a secret); what it staged
// elsewhere is taken out, for the user's index.
async function afterHooks(top: string, env: Env, index: string, meant: string, mine: (p: string) => boolean) {
  const git = (args: string[], what: string) => gitOut(top, args, env, what, false, index);
  const changed = (await git(["diff-index", "--cached", "--name-only", "-z", meant], "git diff-index"))
    .split("\0").filter(Boolean);
  const memory = changed.filter(mine);
  const outside = changed.filter((p) => !mine(p));
  const entries = async (list: string[]) =>
    list.length > 0 ? git(["ls-files", "-s", "-z", "--", ...list], "git ls-files") : "";
  const [ours, theirs] = [await entries(memory), await entries(outside)];
  const show = async (obj: string) => (await runGit(top, ["cat-file", "blob", obj], env)).stdout;
  for (const e of ours.split("\0").filter(Boolean)) {
    const file = e.slice(e.indexOf("\t") + 1);
    const before = new Set((await show(`${meant}:${file}`)).toString("utf8").split("\n"));
    const hooked = scannable(await show(e.split(" ")[1]!), file);
    const added = hooked.split("\n").filter((l) => !before.has(l)).join("\n");
    const kinds = [...new Set(redactText(added).findings.map((f) => f.kind))];
    if (kinds.length > 0) throw new Refused(`a commit hook added a secret (${kinds.join(", ")}) to ${file}, so ` +
      `nothing was published: remove it from that file (the hook wrote it there) and publish again`);
  }
  if (changed.length > 0) await git(["read-tree", meant], "git read-tree");
  if (memory.length > 0) await putEntries(top, env, memory, ours, index);
  const tree = changed.length > 0 ? (await git(["write-tree"], "git write-tree")).trim() : meant;
  return { tree, memory, outside, entries: theirs };
}
