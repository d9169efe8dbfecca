// Agent files are replaced whole with write-file-atomic, so a kill leaves the old bytes or the new.
import { accessSync, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readlinkSync, rmdirSync,
  rmSync, unlinkSync } from "../builtins.ts";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { Refused } from "../errors.ts";
import { failpoint } from "../store/failpoint.ts";
import { orNull, type ReadFile, readSmall, readStable, succeeds, UnsafeFile } from "../store/files.ts";
import { gitTopOf } from "../git/git-dir.ts";
import { runGit } from "../git/run.ts";

/** The file's text in the commit HEAD names, or null: no git, no commit, not tracked, git not to be run. */
export async function committedText(file: string, env: Record<string, string | undefined>): Promise<string | null> {
  const top = gitTopOf(path.dirname(file), env);
  if (top === null) return null;
  const rel = path.relative(top, file).split(path.sep).join("/");
  const got = await runGit(top, ["cat-file", "blob", `HEAD:${rel}`], env).catch(() => null);
  return got?.code === 0 ? got.stdout.toString("utf8") : null;
}

/** Reads a file to edit: absent, or a regular file with one link this user may replace; else Refused with `snippet`. */
export async function readAgentFile(file: string, snippet: string, undo = false) {
  const [add, put] = undo ? ["Take these entries out of", "take these entries out"] : ["Add this to", "add this"];
  let read: ReadFile | null;
  try {
    read = await readStable(file);
  } catch (err) {
    if (!(err instanceof UnsafeFile)) throw err;
    // Gone since it was read: another file.
    const to = orNull(() => readlinkSync(file)) ?? "another file";
    const kind = err.state === "too-large" ? "is larger than 1 MB" : "is not a regular file";
    const what = err.state === "link" ? `is a link to ${to}; links are never followed or replaced`
      : `${kind}; install edits only regular files of at most 1 MB`;
    throw new Refused(`${file} ${what}, so nothing was changed. ${add} its target by hand:\n${snippet}`);
  }
  if (read === null) return { bytes: null, token: "absent" };
  if (read.stat.nlink !== 1n) {
    throw new Refused(`${file} has more than one hard link; nothing was changed. ${add} it by hand:\n${snippet}`);
  }
  assertReplaceable(file, `${put} by hand:\n${snippet}`);
  // Decoding would turn such bytes into U+FFFD and the edit would write them back changed.
  const bad = firstInvalidUtf8(read.bytes);
  if (bad >= 0) {
    throw new Refused(`${file} is not valid UTF-8 (byte ${bad}): fix or re-save it as UTF-8, then run this again`);
  }
  return { bytes: read.bytes, token: read.token };
}

// Opening for writing, without truncating, is the one probe that sees read-only, immutable and append-only files.
function assertReplaceable(file: string, byHand: string): void {
  try {
    closeSync(openSync(file, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
    accessSync(path.dirname(file), constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EPERM") {
      const why = "it is immutable or append-only: EPERM";
      const fix = `Clear the flag (chattr -i -a ${file}) and run this again, or ${byHand}`;
      throw new Refused(`${file} cannot be replaced (${why}); nothing was changed. ${fix}`);
    }
    if (code === "EACCES") {
      const fix = `Make it writable (chmod u+w ${file} ${path.dirname(file)}) and run this again, or ${byHand}`;
      throw new Refused(`${file} is read-only for this user (EACCES); nothing was changed. ${fix}`);
    }
    throw err;
  }
}

// The offset of the first byte that is not valid UTF-8, or -1: where the re-encoded bytes' U+FFFD starts.
function firstInvalidUtf8(bytes: Buffer): number {
  const again = Buffer.from(bytes.toString("utf8"), "utf8");
  let i = 0;
  while (i < bytes.length && again[i] === bytes[i]) i++;
  if (i === bytes.length && again.length === bytes.length) return -1;
  while (i > 0 && (again[i]! & 0xc0) === 0x80) i--;
  return i;
}

/** Replaces `file` with `bytes` (null: removes it) while it is still the version read; a new file gets `mode`. */
export async function writeAgentFile(file: string, expected: string, bytes: Buffer | null, mode: number, fp?: string) {
  const now = await readStable(file, { failpoint: fp });
  if ((now === null ? "absent" : now.token) !== expected) {
    const what = "changed since it was read (another program wrote it), so it was left as it is";
    throw new Refused(`${file} ${what}; run this again`);
  }
  if (bytes === null) unlinkSync(file);
  else {
    const tmpfileCreated = () => failpoint(fp, "before-publication");
    const opts = now === null ? { mode: mode & ~process.umask(), tmpfileCreated } : { tmpfileCreated };
    await writeFileAtomic(file, bytes, opts);
  }
  await failpoint(fp, "after-publication");
}

/** The folders below `base` down to `dir`, top first; none when `dir` is not below `base`. */
export function dirsBelow(base: string, dir: string): string[] {
  const rel = path.relative(base, dir);
  if (rel.split(path.sep)[0] === ".." || path.isAbsolute(rel)) return [];
  let cur = base;
  return rel.split(path.sep).filter(Boolean).map((part) => (cur = path.join(cur, part)));
}

/** The folders from `base` (exclusive) down to `dir` that do not exist yet; those that exist must be real ones. */
export function missingDirs(base: string, dir: string): string[] {
  const missing: string[] = [];
  for (const cur of dirsBelow(base, dir)) {
    const st = missing.length > 0 ? undefined : lstatSync(cur, { throwIfNoEntry: false });
    if (st === undefined) missing.push(cur);
    else if (!st.isDirectory()) {
      const what = st.isSymbolicLink() ? "a link" : "not a directory";
      throw new Refused(`${cur} is ${what}; install writes only through real directories, so nothing was changed`);
    }
  }
  return missing;
}

/** Removes each folder when it is empty, deepest first; a folder with anything in it stays. */
export function removeEmptyDirs(dirs: string[]): string[] {
  const removed: string[] = [];
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    // Not empty: the user's files stay.
    if (succeeds(() => rmdirSync(d))) removed.push(d);
  }
  return removed;
}

/** Removes `dir` and its parents while empty, never `stop` or above it. */
export const removeEmptyUpTo = (dir: string, stop: string) => removeEmptyDirs(dirsBelow(stop, dir));

// Uninstall removes only the folders install listed here, so a folder the user had before (.clinerules/hooks) stays.
const madeList = (at: string) => (readSmall(at) ?? "").split("\n").filter(Boolean);

function keepMade(at: string, dirs: string[]): void {
  if (dirs.length > 0) {
    mkdirSync(path.dirname(at), { recursive: true, mode: 0o700 });
    writeFileAtomic.sync(at, dirs.map((d) => `${d}\n`).join(""));
    return;
  }
  rmSync(at, { force: true });
  removeEmptyDirs([path.dirname(at)]);
}

/** Adds `dirs` to the folders install made, listed in the record file `at`. */
export function recordMade(at: string, dirs: string[]): void {
  if (dirs.length > 0) keepMade(at, [...madeList(at), ...dirs]);
}

/** Removes those of `paths` install made while empty (a file too), deepest first, and forgets those gone. */
export function removeMade(at: string, paths: string[]): void {
  const made = madeList(at);
  const ours = made.filter((m) => paths.includes(m));
  const emptyFile = (p: string) => lstatSync(p, { throwIfNoEntry: false })?.isFile() && lstatSync(p).size === 0;
  for (const p of ours.filter(emptyFile)) unlinkSync(p);
  removeEmptyDirs(ours);
  if (made.some((d) => !existsSync(d))) keepMade(at, made.filter((d) => existsSync(d)));
}

/** Records the Node that runs install as `<user dir>/node`, the second place an installed command looks. */
export function recordNode(dir: string, execPath: string): void {
  const target = path.join(dir, "node");
  if (readSmall(target) === `${execPath}\n`) return;
  const missing = dirsBelow(path.parse(dir).root, dir).filter((d) => !existsSync(d));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    removeEmptyDirs(missing);
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Refused(`${dir} could not be made (${why}); install records the Node there, so nothing was changed`);
  }
  writeFileAtomic.sync(target, `${execPath}\n`, { mode: 0o644 });
}
