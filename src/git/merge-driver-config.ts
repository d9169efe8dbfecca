// The merge driver's registration (docs/decisions/merge-driver.md): a `merge "session-handoff"`
// section in this clone's git config, a block of ours in the root `.gitattributes`, and a copy
// of the helper outside the work tree that the driver runs (a merge can change the helper in
// the repository, never this copy). `install`, `uninstall` and `publish` each make one call.
import {
  chmodSync, closeSync, constants, existsSync, fsyncSync, lchownSync, lstatSync, mkdirSync, openSync, readFileSync,
  realpathSync, renameSync, rmdirSync, unlinkSync, writeSync,
} from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { commonDirOf } from "./git-files.ts";
import { gitDirOf, gitTopOf } from "./in-progress.ts";
import { GitUnavailable, runGit } from "./run.ts";
import { DRIVER_NAME } from "./merge-driver-state.ts";

export { DRIVER_NAME, MERGE_DRIVER_MISSING, mergeDriverMissing } from "./merge-driver-state.ts";

const BEGIN = "# >>> session-handoff merge driver (managed by session-handoff; `uninstall` removes it)";
// Said on the first line when the block had to add a newline to a file that lacked one, so
// that removing the block gives back the original bytes.
const BEGIN_NL =
  "# >>> session-handoff merge driver (managed by session-handoff; `uninstall` removes it; newline added)";
const END = "# <<< session-handoff merge driver";

/** What a registration or its removal changed. */
export interface MergeDriverChange {
  /** The repository top, or null outside git (nothing done). */
  top: string | null;
  /** `.git/config` changed. */
  config: boolean;
  /** The root `.gitattributes` changed (created, edited or removed). */
  attributes: boolean;
  /** Where the driver's copy of the helper is, when one was written or found. */
  copy: string | null;
  /** Problems that did not stop the verb (said on stderr). */
  notes: string[];
}

/**
 * `<common git dir>/session-handoff/merge-driver.mjs`: one copy per clone (docs/decisions/driver-copy.md),
 * so uninstalling one project never removes what another's config runs; null outside git.
 */
export function driverCopyPath(top: string): string | null {
  const gitDir = gitDirOf(top);
  return gitDir === null ? null : path.join(commonDirOf(gitDir), "session-handoff", "merge-driver.mjs");
}

const DRIVER_ARGS = " merge-driver %O %A %B %P";
const COPY_GONE =
  "session-handoff merge driver: its helper copy or node is missing, git keeps the conflict; run install or " +
    "publish in this clone";

/**
 * The command git runs: the copy when it and node are there, else git's own text merge with
 * conflict markers and a line on stderr (never a crash).
 */
function driverCommand(node: string, copy: string): string {
  const run = `${shellQuote(node)} ${shellQuote(copy)}${DRIVER_ARGS}`;
  const fallback = `echo "${COPY_GONE}" >&2; git merge-file -L ours -L base -L theirs %A %O %B`;
  return `if test -f ${shellQuote(copy)} && test -x ${shellQuote(node)}; then ${run}; else ${fallback}; fi`;
}

function shellUnquote(s: string): string {
  return s.replace(/'\\''/g, "'");
}

/** The node and copy a driver command of ours (this form or the older bare one) runs; null for another's. */
export function driverParts(command: string): { node: string; copy: string } | null {
  const q = "'((?:[^']|'\\\\'')*)'";
  const m = new RegExp(`${q} ${q}${DRIVER_ARGS}`).exec(command);
  return m === null ? null : { node: shellUnquote(m[1]!), copy: shellUnquote(m[2]!) };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The attributes line for a memory dir at `memRel` (top-relative, `""` at the top). */
function attributesLine(memRel: string): string {
  return `${memRel === "" ? "" : `${memRel}/`}.ai/memory/**/*.md merge=${DRIVER_NAME}`;
}

// Reads a file that must be a regular file, or null when missing; a link or anything else is refused.
function readRegular(p: string): Buffer | null {
  let st;
  try {
    st = lstatSync(p);
  } catch {
    return null;
  }
  if (!st.isFile()) throw new Error(`${p} is not a regular file (a link or a folder)`);
  return readFileSync(p);
}

// Replaces a file's bytes through a temp file and a rename (never follows a link at the name).
function replaceFile(p: string, bytes: Buffer, mode: number): void {
  const tmp = path.join(path.dirname(p), `.${path.basename(p)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  const fd = openSync(
    tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode,
  );
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(tmp, mode);
    renameSync(tmp, p);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw err;
  }
}

type Owner = { uid: number; gid: number } | null;

function ownerOf(p: string): Owner {
  try {
    const st = lstatSync(p);
    return { uid: st.uid, gid: st.gid };
  } catch {
    return null;
  }
}

// Root registering in another user's clone gives what it wrote back to that user (the config git
// rewrote, our copy and its folder, .gitattributes), so they can still change their own clone.
function giveTo(p: string, owner: Owner): void {
  if (owner === null || process.geteuid?.() !== 0) return;
  const now = ownerOf(p);
  if (now === null || (now.uid === owner.uid && now.gid === owner.gid)) return;
  try {
    lchownSync(p, owner.uid, owner.gid);
  } catch {
    // Kept as written: the verb's own lines still say what changed.
  }
}

/** Splits `.gitattributes` bytes into what is not ours and whether our block was there. */
function withoutBlock(text: string): { rest: string; had: boolean; line: string | null } {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l === BEGIN || l === BEGIN_NL);
  if (start === -1) return { rest: text, had: false, line: null };
  const end = lines.indexOf(END, start);
  if (end === -1) return { rest: text, had: false, line: null };
  const addedNewline = lines[start] === BEGIN_NL;
  const inner = lines.slice(start + 1, end).join("\n");
  const kept = [...lines.slice(0, start), ...lines.slice(end + 1)];
  let rest = kept.join("\n");
  if (addedNewline && rest.endsWith("\n") && end + 1 === lines.length - 1) rest = rest.slice(0, -1);
  return { rest, had: true, line: inner };
}

/** A `.gitattributes` text without our merge-driver block: what the user wrote (docs/decisions/first-resume.md). */
export function attributesNotOurs(text: string): string {
  return withoutBlock(text).rest;
}

function blockFor(before: string, line: string): string {
  const needsNewline = before !== "" && !before.endsWith("\n");
  return `${before}${needsNewline ? "\n" : ""}${needsNewline ? BEGIN_NL : BEGIN}\n${line}\n${END}\n`;
}

async function configValue(top: string, key: string, env: Record<string, string | undefined>): Promise<string | null> {
  const r = await runGit(top, ["config", "--local", "--get", key], env);
  return r.code === 0 ? r.stdout.toString("utf8").replace(/\n$/, "") : null;
}

function memRelOf(top: string, root: string): string {
  return path.relative(top, root).split(path.sep).join("/");
}

/**
 * Registers the merge driver for the memory at `root`: writes (or refreshes) the helper copy
 * from `helperPath`, sets `merge.session-handoff.name` and `.driver` in this clone's config only
 * when they differ (a repeated registration changes no byte under `.git/`), and adds our block
 * to the top's `.gitattributes` when it is missing or different. Outside git nothing is done.
 * Never throws: what could not be done is in `notes`.
 */
export async function registerMergeDriver(
  root: string, helperPath: string | null, env: Record<string, string | undefined>,
): Promise<MergeDriverChange> {
  const top = gitTopOf(root);
  const out: MergeDriverChange = { top, config: false, attributes: false, copy: null, notes: [] };
  if (top === null || gitDirOf(top) === null) return out;
  const copy = driverCopyPath(top);
  if (copy === null || helperPath === null) return out;
  try {
    // The whole CLI bundle is one self-contained file: the driver's copy needs nothing beside it,
    // where the entry (memory_io.mjs) would need its lib/ folder.
    const bytes = readFileSync(path.join(path.dirname(helperPath), "lib", "cli.mjs"));
    const gitCommon = path.dirname(path.dirname(copy));
    mkdirSync(path.dirname(copy), { recursive: true, mode: 0o700 });
    giveTo(path.dirname(copy), ownerOf(gitCommon));
    let same = false;
    try {
      same = readRegular(copy)?.equals(bytes) ?? false;
    } catch {
      same = false;
    }
    if (!same) replaceFile(copy, bytes, 0o644);
    giveTo(copy, ownerOf(gitCommon));
    out.copy = realpathSync(copy);
  } catch (err) {
    out.notes.push(
      `the merge driver was not registered: its copy of the helper could not be written (${(err as Error).message})`,
    );
    return out;
  }
  const driver = driverCommand(process.execPath, out.copy);
  const name = "session-handoff: keeps the later handoff, archives the other, merges ledgers by entry id";
  const configFile = path.join(path.dirname(path.dirname(out.copy)), "config");
  const configOwner = ownerOf(configFile);
  if ((await configValue(top, `merge.${DRIVER_NAME}.name`, env)) !== name) {
    await runGit(top, ["config", "--local", `merge.${DRIVER_NAME}.name`, name], env);
    out.config = true;
  }
  if ((await configValue(top, `merge.${DRIVER_NAME}.driver`, env)) !== driver) {
    await runGit(top, ["config", "--local", `merge.${DRIVER_NAME}.driver`, driver], env);
    out.config = true;
  }
  giveTo(configFile, configOwner);
  try {
    const file = path.join(top, ".gitattributes");
    const before = readRegular(file);
    const text = before === null ? "" : before.toString("utf8");
    const want = attributesLine(memRelOf(top, root));
    const { rest, had, line } = withoutBlock(text);
    if (!(had && line === want)) {
      const owner = ownerOf(before === null ? top : file);
      replaceFile(
        file, Buffer.from(blockFor(rest, want), "utf8"), before === null ? 0o644 : lstatSync(file).mode & 0o777,
      );
      giveTo(file, owner);
      out.attributes = true;
    }
  } catch (err) {
    out.notes.push(`.gitattributes was not changed: ${(err as Error).message}`);
  }
  return out;
}

/**
 * Removes what `registerMergeDriver` added to this clone: the config section (only when it is
 * ours), our `.gitattributes` block (the file removed when nothing else is left in it) and the
 * clone's own helper copy with its folder when empty. A copy another clone runs is never touched.
 * Never throws.
 */
export async function unregisterMergeDriver(
  root: string, env: Record<string, string | undefined>,
): Promise<MergeDriverChange> {
  const top = gitTopOf(root);
  const out: MergeDriverChange = { top, config: false, attributes: false, copy: null, notes: [] };
  const copy = top === null ? null : driverCopyPath(top);
  if (copy !== null) {
    try {
      unlinkSync(copy);
      rmdirSync(path.dirname(copy));
    } catch {
      // missing, or a folder still holding other files of ours
    }
  }
  if (top === null || gitDirOf(top) === null) return out;
  const driver = await configValue(top, `merge.${DRIVER_NAME}.driver`, env);
  if (driver !== null && driverParts(driver) !== null) {
    const configFile = path.join(commonDirOf(gitDirOf(top)!), "config");
    const configOwner = ownerOf(configFile);
    const r = await runGit(top, ["config", "--local", "--remove-section", `merge.${DRIVER_NAME}`], env);
    giveTo(configFile, configOwner);
    out.config = r.code === 0;
  }
  try {
    const file = path.join(top, ".gitattributes");
    const before = readRegular(file);
    if (before !== null) {
      const { rest, had } = withoutBlock(before.toString("utf8"));
      if (had) {
        if (rest === "") unlinkSync(file);
        else {
          const owner = ownerOf(file);
          replaceFile(file, Buffer.from(rest, "utf8"), lstatSync(file).mode & 0o777);
          giveTo(file, owner);
        }
        out.attributes = true;
      }
    }
  } catch (err) {
    out.notes.push(`.gitattributes was not changed: ${(err as Error).message}`);
  }
  return out;
}

/**
 * The one call `install`, `uninstall` and `publish` make: registers (or, with `remove`,
 * unregisters) the merge driver for the project at `root` and returns the lines to print
 * (`registered the merge driver …`, `would register …` on a dry run, which changes nothing) and the
 * notes for stderr. `root` null (`--global`): nothing done, nothing said.
 */
export async function mergeDriverStep(
  root: string | null, opts: { remove?: boolean; dryRun?: boolean; helperPath?: string | null },
  env: Record<string, string | undefined>,
): Promise<{ lines: string[]; notes: string[]; change: MergeDriverChange | null }> {
  if (root === null) return { lines: [], notes: [], change: null };
  let change: MergeDriverChange;
  try {
    if (opts.dryRun === true) change = await previewMergeDriver(root, opts.remove === true, env);
    else if (opts.remove === true) change = await unregisterMergeDriver(root, env);
    else change = await registerMergeDriver(root, opts.helperPath ?? null, env);
  } catch (err) {
    // A repository with no git on PATH (Windows' cmd without git for Windows): the agent files are done.
    if (!(err instanceof GitUnavailable)) throw err;
    return {
      lines: [], notes: [`the merge driver was not ${opts.remove === true ? "removed" : "registered"}: ${err.message}`],
      change: null,
    };
  }
  const lines: string[] = [];
  const said = (done: string, todo: string) => (opts.dryRun === true ? `would ${todo}` : done);
  const remove = opts.remove === true;
  if (change.config)
    lines.push(remove ? `${said("removed", "remove")} the merge driver session-handoff from .git/config`
      : `${said("registered", "register")} the merge driver session-handoff in .git/config`);
  if (change.attributes)
    lines.push(remove ? `${said("removed", "remove")} the merge driver's block from .gitattributes`
      : `${said("added", "add")} the merge driver's block to .gitattributes`);
  return { lines, notes: change.notes, change };
}

/** What registering (or removing) the driver would change, for --dry-run: nothing is written. */
async function previewMergeDriver(
  root: string, remove: boolean, env: Record<string, string | undefined>,
): Promise<MergeDriverChange> {
  const top = gitTopOf(root);
  const out: MergeDriverChange = { top, config: false, attributes: false, copy: null, notes: [] };
  const copy = top === null ? null : driverCopyPath(top);
  if (top === null || gitDirOf(top) === null || copy === null) return out;
  const driver = await configValue(top, `merge.${DRIVER_NAME}.driver`, env);
  const before = readRegular(path.join(top, ".gitattributes"));
  const { had, line } = withoutBlock(before === null ? "" : before.toString("utf8"));
  if (remove) return { ...out, config: driver !== null && driverParts(driver) !== null, attributes: had };
  const copyNow = existsSync(copy) ? realpathSync(copy) : copy;
  return { ...out, config: driver !== driverCommand(process.execPath, copyNow),
    attributes: !(had && line === attributesLine(memRelOf(top, root))) };
}

/** True when the top's `.gitattributes` holds our block and nothing else (what `install` creates). */
export function attributesOnlyOurs(top: string): boolean {
  try {
    const text = readFileSync(path.join(top, ".gitattributes"), "utf8");
    const { rest, had } = withoutBlock(text);
    return had && rest === "";
  } catch {
    return false;
  }
}

/**
 * What this clone's registered driver runs that is gone (its helper copy, or node), for
 * `doctor`; null when nothing is registered, the command is not ours, or both are there.
 */
export async function driverPartMissing(root: string, env: Record<string, string | undefined>): Promise<string | null> {
  const top = gitTopOf(root);
  if (top === null || gitDirOf(top) === null) return null;
  let command: string | null;
  try {
    command = await configValue(top, `merge.${DRIVER_NAME}.driver`, env);
  } catch {
    return null; // no git on PATH: no merge runs the driver either
  }
  const parts = command === null ? null : driverParts(command);
  if (parts === null) return null;
  if (!existsSync(parts.copy)) return `the merge driver's copy of the helper ${parts.copy} is missing`;
  if (!existsSync(parts.node)) return `the node the merge driver runs, ${parts.node}, is missing`;
  return null;
}
