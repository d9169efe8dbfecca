// The merge driver's registration (docs/decisions/merge-driver.md): config section, `.gitattributes` block, and a
// copy of the helper outside the work tree (a merge can change the repository's helper, never this copy).
import { existsSync, lchownSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmdirSync,
  unlinkSync } from "../builtins.ts";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { commonDirOf, gitDirOf, gitTopOf } from "./git-dir.ts";
import { GitUnavailable, runGit, type Env } from "./run.ts";
import { exists, lstatOrNull, readSmall, succeeds, unreadReason } from "../store/files.ts";
import { Refused } from "../errors.ts";
import { quotedValue } from "../guard/quote.ts";
import { BEGIN, BEGIN_NL, END, withoutBlock } from "./attributes-block.ts";
import { conflictAdvice, unmergedMemory } from "./unmerged.ts";

/** The driver's name in git's config and `.gitattributes`. */
const DRIVER_NAME = "session-handoff";

/** What a registration or its removal changed; `notes` did not stop the verb (said on stderr). */
interface Change {
  config: boolean;
  attributes: boolean;
  notes: string[];
}

/** The clone's top, common git dir and driver copy (one per clone, docs/decisions/driver-copy.md); null outside git. */
function cloneOf(root: string, env: Env): { top: string; common: string; copy: string } | null {
  const top = gitTopOf(root, env);
  const gitDir = top === null ? null : gitDirOf(top);
  if (top === null || gitDir === null) return null;
  const common = commonDirOf(gitDir);
  return { top, common, copy: path.join(common, "session-handoff", "merge-driver.mjs") };
}

const DRIVER_ARGS = " merge-driver %O %A %B %P";
const COPY_GONE =
  "session-handoff merge driver: its helper copy or node is missing, git keeps the conflict; run init (or " +
  "install --agent NAME) in this clone";

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command git runs: the copy when it and node are there, else git's own text merge and a line on stderr. */
function driverCommand(node: string, copy: string): string {
  const run = `${shellQuote(node)} ${shellQuote(copy)}${DRIVER_ARGS}`;
  const fallback = `echo "${COPY_GONE}" >&2; git merge-file -L ours -L base -L theirs %A %O %B`;
  return `if test -f ${shellQuote(copy)} && test -x ${shellQuote(node)}; then ${run}; else ${fallback}; fi`;
}

// Refuses a project path with a line break: the driver's command and install's folder list are a line each.
export function assertDriverFits(root: string, env: Env): void {
  const c = cloneOf(root, env);
  if (!/[\0\n\r]/.test(c?.copy ?? root)) return;
  const what = c === null ? "install's list of the folders it makes" : "the merge driver's command in git's config";
  throw new Refused(`the project path ${quotedValue(c?.top ?? root)} holds a line break, which ${what} cannot ` +
    "carry; move it to a path without one (nothing was changed)");
}

/** The node and copy a driver command of ours runs; null for another's. */
function driverParts(command: string): { node: string; copy: string } | null {
  const q = "'((?:[^']|'\\\\'')*)'";
  const m = new RegExp(`${q} ${q}${DRIVER_ARGS}`).exec(command);
  const unquote = (s: string) => s.replace(/'\\''/g, "'");
  return m === null ? null : { node: unquote(m[1]!), copy: unquote(m[2]!) };
}

// `eol=lf`: a clone with `core.autocrlf=true` (Git for Windows) checks memory out as the helper writes it.
function attributesLine(top: string, root: string): string {
  const memRel = path.relative(top, root).split(path.sep).join("/");
  return `${memRel === "" ? "" : `${memRel}/`}.ai/memory/**/*.md merge=${DRIVER_NAME} eol=lf`;
}

// Install adds its block only to a `.gitattributes` of at most 1 MB, but taking it out is always wanted: up to this.
const REMOVE_MAX = 64_000_000;

// A file that must be a regular file, as text, or null when missing; a link or anything else is refused.
function readRegular(p: string, max = 1_000_000): string | null {
  const text = readSmall(p, max);
  if (text !== null || !exists(p)) return text;
  const why = unreadReason(p, max) ?? "is a link";
  throw new Error(`${p} ${why}; only a regular file of at most ${max / 1e6} MB is edited`);
}

// Root registering in another user's clone gives them what it wrote, so they can still change their clone.
function giveTo(p: string, like: string): void {
  const st = process.geteuid?.() === 0 ? lstatOrNull(like) : null;
  // Kept as written when this fails: the verb's own lines still say what changed.
  if (st !== null) succeeds(() => lchownSync(p, st.uid, st.gid));
}

function blockFor(before: string, line: string): string {
  const nl = before.includes("\r\n") ? "\r\n" : "\n";
  const needsNewline = before !== "" && !before.endsWith("\n");
  return `${before}${needsNewline ? nl : ""}${needsNewline ? BEGIN_NL : BEGIN}${nl}${line}${nl}${END}${nl}`;
}

/** `head` (HEAD's `.gitattributes`) with the merge-driver block `worktree` holds in place of its own, if any. */
export function attributesOnto(head: string, worktree: string): string {
  const { line } = withoutBlock(worktree);
  return line === null ? withoutBlock(head).rest : blockFor(withoutBlock(head).rest, line);
}

// This clone's own file, which registration writes: the section's keys, the last value of each, from one git run.
async function section(top: string, env: Env): Promise<Map<string, string>> {
  const r = await runGit(top, ["config", "--local", "-z", "--get-regexp", `^merge\\.${DRIVER_NAME}\\.`], env);
  const pairs = r.stdout.toString("utf8").split("\0").slice(0, -1);
  return new Map(pairs.map((kv) => /^merge\.[^\n]*\.([^.\n]*)\n?([\s\S]*)$/.exec(kv)!.slice(1, 3) as [string, string]));
}

/** Writes the copy, config and block, each only when it differs (a repeat changes no byte under `.git/`); `dry`:
 * says what it would change and writes nothing. */
async function registerMergeDriver(root: string, helperPath: string | null, env: Env, dry: boolean): Promise<Change> {
  const c = cloneOf(root, env);
  const out: Change = { config: false, attributes: false, notes: [] };
  if (c === null || (helperPath === null && !dry)) return out;
  let copy = existsSync(c.copy) ? realpathSync(c.copy) : c.copy;
  if (!dry) {
    assertDriverFits(root, env);
    try {
      copy = writeCopy(c, helperPath!);
    } catch (err) {
      const why = (err as Error).message;
      out.notes.push(`the merge driver was not registered: its copy of the helper could not be written (${why})`);
      return out;
    }
  }
  const name = "session-handoff: keeps the later handoff, archives the other, merges ledgers by entry id";
  // The driver first: uninstall knows the section as ours by it, so a failure between the two leaves nothing it keeps.
  const have = await section(c.top, env);
  for (const [key, want] of [["driver", driverCommand(process.execPath, copy)], ["name", name]] as const) {
    if (have.get(key) === want) continue;
    if (!dry) await runGit(c.top, ["config", "--local", `merge.${DRIVER_NAME}.${key}`, want], env);
    out.config = true;
  }
  // git rewrote the config as this process's user.
  if (out.config && !dry) giveTo(path.join(c.common, "config"), c.common);
  try {
    const file = path.join(c.top, ".gitattributes");
    const before = readRegular(file);
    const want = attributesLine(c.top, root);
    const { rest, had, line } = withoutBlock(before ?? "");
    out.attributes = !(had && line === want);
    if (out.attributes && !dry) {
      // A replaced file keeps its owner and mode (write-file-atomic copies them).
      writeFileAtomic.sync(file, blockFor(rest, want), before === null ? { mode: 0o644 } : {});
      if (before === null) giveTo(file, c.top);
    }
  } catch (err) {
    out.notes.push(`.gitattributes ${dry ? "would not be" : "was not"} changed: ${(err as Error).message}`);
  }
  return out;
}

// The helper's copy beside the common git dir, written when it differs; its real path.
function writeCopy(c: { common: string; copy: string }, helperPath: string): string {
  // The CLI bundle is one self-contained file: the copy needs nothing beside it.
  const bytes = readFileSync(path.join(path.dirname(helperPath), "lib", "cli.mjs"));
  mkdirSync(path.dirname(c.copy), { recursive: true, mode: 0o700 });
  giveTo(path.dirname(c.copy), c.common);
  // write-file-atomic writes through a link, and reading a FIFO blocks: anything but a plain file is replaced.
  const st = lstatSync(c.copy, { throwIfNoEntry: false });
  if (st !== undefined && !st.isFile()) unlinkSync(c.copy);
  const same = st !== undefined && st.isFile() && readFileSync(c.copy).equals(bytes);
  if (!same) writeFileAtomic.sync(c.copy, bytes, { mode: 0o644 });
  giveTo(c.copy, c.common);
  return realpathSync(c.copy);
}

/** Removes what registration added; `keep`: the section and copy stay for another work tree that uses them; `dry`:
 * says what it would remove and removes nothing. */
async function unregisterMergeDriver(root: string, env: Env, keep: boolean, dry: boolean): Promise<Change> {
  const c = cloneOf(root, env);
  const out: Change = { config: false, attributes: false, notes: [] };
  if (c === null) return out;
  // Missing, or a folder still holding other files of ours: left as it is.
  if (!keep && !dry && succeeds(() => unlinkSync(c.copy))) succeeds(() => rmdirSync(path.dirname(c.copy)));
  const driver = keep ? null : (await section(c.top, env)).get("driver") ?? null;
  out.config = driver !== null && driverParts(driver) !== null;
  if (out.config && !dry) {
    const r = await runGit(c.top, ["config", "--local", "--remove-section", `merge.${DRIVER_NAME}`], env);
    giveTo(path.join(c.common, "config"), c.common);
    out.config = r.code === 0;
  }
  try {
    const file = path.join(c.top, ".gitattributes");
    const { rest, had } = withoutBlock(readRegular(file, REMOVE_MAX) ?? "");
    out.attributes = had;
    if (had && !dry) {
      // A file HEAD holds without our block is the user's and stays (emptied); one only ours was install's and goes.
      const head = rest === "" ? await runGit(c.top, ["cat-file", "blob", "HEAD:.gitattributes"], env) : null;
      const users = head !== null && head.code === 0 && !withoutBlock(head.stdout.toString("utf8")).had;
      if (rest === "" && !users) unlinkSync(file);
      else writeFileAtomic.sync(file, rest);
    }
  } catch (err) {
    out.notes.push(`.gitattributes ${dry ? "would not be" : "was not"} changed: ${(err as Error).message}`);
  }
  return out;
}

/** Refuses, before uninstall changes anything, a `.gitattributes` it could not take the driver's block out of. */
export function assertAttributesReadable(root: string, env: Env): void {
  const c = cloneOf(root, env);
  const file = c === null ? "" : path.join(c.top, ".gitattributes");
  const why = c === null || readSmall(file, REMOVE_MAX) !== null ? null : unreadReason(file, REMOVE_MAX);
  if (why === null) return;
  const fix = "so nothing was changed; make it a readable file of at most 64 MB, then run this again";
  throw new Refused(`${file} ${why}: the merge driver's block cannot be taken out of it, ${fix}`);
}

/** Registers, removes or previews the merge driver for `install`, `uninstall` and `publish`; null root: nothing. */
export async function mergeDriverStep(root: string | null,
  opts: { remove?: boolean; dryRun?: boolean; helperPath?: string | null; keep?: string }, env: Env,
): Promise<{ lines: string[]; notes: string[]; attributes: boolean }> {
  if (root === null) return { lines: [], notes: [], attributes: false };
  const remove = opts.remove === true;
  const keep = remove && opts.keep !== undefined;
  let change: Change;
  try {
    const dry = opts.dryRun === true;
    if (remove) change = await unregisterMergeDriver(root, env, keep, dry);
    else change = await registerMergeDriver(root, opts.helperPath ?? null, env, dry);
  } catch (err) {
    // A repository with no git on PATH (Windows' cmd without git for Windows): the agent files are done.
    if (!(err instanceof GitUnavailable)) throw err;
    const note = `the merge driver was not ${remove ? "removed" : "registered"}: ${err.message}`;
    return { lines: [], notes: [note], attributes: false };
  }
  const said = (done: string, todo: string) => (opts.dryRun === true ? `would ${todo}` : done);
  const lines: string[] = [];
  const [driver, block] = [`the merge driver ${DRIVER_NAME}`, "the merge driver's block"];
  if (change.config && remove) lines.push(`${said("removed", "remove")} ${driver} from .git/config`);
  else if (change.config) lines.push(`${said("registered", "register")} ${driver} in .git/config`);
  if (change.attributes && remove) lines.push(`${said("removed", "remove")} ${block} from .gitattributes`);
  else if (change.attributes) lines.push(`${said("added", "add")} ${block} to .gitattributes`);
  const kept = `the work tree ${quotedValue(opts.keep ?? "")} shares it and still has an agent installed`;
  if (keep) change.notes.push(`${driver} stays in .git/config: ${kept}`);
  return { lines, notes: change.notes, attributes: change.attributes };
}

/** True when the top's `.gitattributes` holds our block and nothing else (what `install` creates). */
export function attributesOnlyOurs(top: string): boolean {
  const { rest, had } = withoutBlock(readSmall(path.join(top, ".gitattributes")) ?? "");
  return had && rest === "";
}

/** The sentence `doctor` and `check` print when `mergeDriverMissing` is true. */
export const MERGE_DRIVER_MISSING =
  ".gitattributes names the session-handoff merge driver, but this clone's git config lacks it: git merges " +
    "memory files as text (conflict markers can land); run `init` (or `install --agent NAME`) once in this clone";

const NAMES_OURS = new RegExp(`(^|\\s)merge=${DRIVER_NAME}(\\s|$)`, "m");
/** MERGE_DRIVER_MISSING when `.gitattributes` names our driver and git's config has none; why when unreadable. */
export async function mergeDriverMissing(root: string, env: Env): Promise<string | null> {
  const c = cloneOf(root, env);
  const file = c === null ? "" : path.join(c.top, ".gitattributes");
  const text = c === null ? "" : readSmall(file);
  const why = text === null ? unreadReason(file) : null;
  if (why !== null) return `.gitattributes ${why}: session-handoff cannot tell whether it names the merge driver`;
  if (c === null || !NAMES_OURS.test(text ?? "")) return null;
  // Our section in this clone's own file spares `check` a git process; else git says (the user's file, includes).
  if (/^\s*\[merge\s+"session-handoff"\]/im.test(readSmall(path.join(c.common, "config")) ?? "")) return null;
  return (await effectiveDriver(c.top, env)) === null ? MERGE_DRIVER_MISSING : null;
}

// The driver command git merges with; undefined when git cannot run here (no PATH), as then no merge runs either.
const effectiveDriver = (top: string, env: Env) => runGit(top, ["config", "--get", `merge.${DRIVER_NAME}.driver`], env)
  .then((r) => (r.code === 0 ? r.stdout.toString("utf8").replace(/\n$/, "") : null), () => undefined);

/** What this clone's registered driver runs that is gone (its helper copy, or node), for `doctor`; else null. */
export async function driverPartMissing(root: string, env: Env): Promise<string | null> {
  const c = cloneOf(root, env);
  if (c === null) return null;
  const command = await effectiveDriver(c.top, env);
  const parts = command == null ? null : driverParts(command);
  if (parts === null) return null;
  if (!existsSync(parts.copy)) return `the merge driver's copy of the helper ${parts.copy} is missing`;
  if (!existsSync(parts.node)) return `the node the merge driver runs, ${parts.node}, is missing`;
  return null;
}

/**
 * True when git merges memory here as text: the top's `.gitattributes` names no driver of ours (memory committed by
 * hand), or this clone's config lacks the one it names; `init` registers both.
 */
export async function driverUnset(root: string, env: Env): Promise<boolean> {
  const c = cloneOf(root, env);
  const named = c !== null && NAMES_OURS.test(readSmall(path.join(c.top, ".gitattributes")) ?? "");
  return !named || (await mergeDriverMissing(root, env)) === MERGE_DRIVER_MISSING;
}

/** `conflictAdvice` for the memory files here, `marked` those holding markers; null when none is conflicted. */
export async function conflictNote(root: string, env: Env, marked: readonly string[], helper: string) {
  const unmerged = await unmergedMemory(root, env, undefined, marked.length > 0);
  if (unmerged.files.length === 0 && marked.length === 0) return null;
  const files = [...new Set([...marked, ...unmerged.files.map((p) => p.slice(11))])];
  const unset = unmerged.files.length > 0 && (await driverUnset(root, env));
  return conflictAdvice(files, unmerged, unset ? `node ${helper} init` : null);
}
