import { quotedPath } from "../schema/anchor-lines.ts";
import { accessSync, closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmdirSync, unlinkSync, writeSync, fsyncSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { failpoint as runFailpoint } from "./failpoint.ts";
import { readStable, tokenOf, UnsafeFile, randomHex8, type ReadFile } from "./files.ts";
import type { LockHandle } from "./lock.ts";
import { privateName, processAlive } from "./private.ts";
import { claimIsWhatWeRead, publish, putBack } from "./publish.ts";

/**
 * Agent files (settings, AGENTS.md, rules) live outside the memory dir, often in HOME, where
 * no memory lock exists. Compare-and-swap on the bytes read and the claim-and-link
 * publication are what keep a concurrent edit from being overwritten (docs/design.md#integrations); this
 * handle stands in for the lock `publish` asks for.
 */
const NO_LOCK: LockHandle = { assertHeld() {}, async release() {} };

/** A file as read before an edit: its bytes (null when absent) and its token. */
export interface Snapshot {
  bytes: Buffer | null;
  token: string;
}

/**
 * Reads an agent file for an edit: a regular file with one link (`links`: more, only for
 * `--dry-run`'s view of a file whose second names the repair would remove), or absent.
 * @throws Refused (exit 2) for a link or anything else unsafe, with `snippet` to paste.
 */
export async function readAgentFile(file: string, snippet: string, links = 1): Promise<Snapshot> {
  let read: ReadFile | null;
  try {
    read = await readStable(file);
  } catch (err) {
    if (err instanceof UnsafeFile) {
      // Field report 20: name where a link points, so the user can edit that file instead.
      let what = "is not a regular file";
      if (err.state === "link") {
        try {
          what = `is a link to ${readlinkSync(file)}`;
        } catch {
          what = "is a link";
        }
      }
      throw new Refused(`${file} ${what}; links are never followed or replaced, so nothing was changed. Add this to its target by hand:\n${snippet}`);
    }
    throw err;
  }
  if (read === null) return { bytes: null, token: "absent" };
  if (read.stat.nlink !== BigInt(links)) throw new Refused(`${file} has more than one hard link; nothing was changed. Add this to it by hand:\n${snippet}`);
  // An immutable file (chattr +i) can be read but never replaced: said here, so that init's dry
  // run stops before the skill is copied. EACCES is not refused: the edit replaces, never writes, it.
  try {
    accessSync(file, constants.W_OK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EPERM") throw new Refused(`${file} cannot be replaced (it is immutable: EPERM); nothing was changed. Clear the flag (chattr -i) or add this by hand:\n${snippet}`);
  }
  const bad = firstInvalidUtf8(read.bytes);
  // Decoding would turn the bytes into U+FFFD and the edit would write them back changed.
  if (bad >= 0) throw new Refused(`${file} is not valid UTF-8 (byte ${bad}): fix or re-save it as UTF-8, then run this again`);
  return { bytes: read.bytes, token: read.token };
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The offset of the first byte that is not part of a valid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  try {
    STRICT_UTF8.decode(bytes);
    return -1;
  } catch {
    // Slow path, only for a bad file: walk the sequences to name the offset.
  }
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (n === 0 || !wholeSequence(bytes.subarray(i, i + n), n)) return i;
    i += n;
  }
  return -1;
}

function wholeSequence(seq: Uint8Array, n: number): boolean {
  if (seq.length < n) return false;
  try {
    STRICT_UTF8.decode(seq);
    return true;
  } catch {
    return false;
  }
}

/**
 * The folders from `base` (exclusive) down to `dir` that do not exist yet. Every one that
 * exists must be a real directory (never a link: what is under it is outside our control).
 * @throws Refused (exit 2) naming the link or file in the way.
 */
export function missingDirs(base: string, dir: string): string[] {
  const rel = path.relative(base, dir);
  if (rel === "") return [];
  const missing: string[] = [];
  let cur = base;
  for (const part of rel.split(path.sep)) {
    cur = path.join(cur, part);
    let st;
    try {
      st = lstatSync(cur);
    } catch {
      missing.push(cur);
      continue;
    }
    if (missing.length > 0) continue;
    if (st.isSymbolicLink() || !st.isDirectory()) {
      throw new Refused(`${cur} is ${st.isSymbolicLink() ? "a link" : "not a directory"}; install writes only through real directories, so nothing was changed`);
    }
  }
  return missing;
}

/** Makes the folders `missingDirs` listed (0755 under the umask, as any project folder). */
export function makeDirs(dirs: string[]): void {
  for (const d of dirs) mkdirSync(d, { mode: 0o755 });
}

/** Removes each folder when it is empty, deepest first; a folder with anything in it stays. */
export function removeEmptyDirs(dirs: string[]): string[] {
  const removed: string[] = [];
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(d);
      removed.push(d);
    } catch {
      // Not empty (the user's files), or already gone.
    }
  }
  return removed;
}

/**
 * Publishes `bytes` as `dir/name` through `write`'s claim-and-link protocol (docs/design.md#tokens-and-the-publication-protocol),
 * only if the file is still the version whose token was read. `failpoint`: the crash seam's (docs/decisions/failpoints.md)
 * seam, so that race tests can drive a concurrent edit into the real binary.
 * @throws Refused (exit 2): the file changed since it was read, or appeared meanwhile.
 */
export async function publishAgentFile(dir: string, name: string, expectedToken: string, bytes: Buffer, mode: number, archiveDir: string, failpoint?: string): Promise<void> {
  await publish({
    dir,
    file: name,
    archiveDir,
    archivePrefix: name.replace(/[^A-Za-z0-9._-]/g, "_"),
    archivePrior: false,
    expectedToken,
    // new files 0644 (hook scripts 0755) under the user's umask, as an editor
    // would make them; a replaced file keeps its own mode (publish).
    newMode: mode & ~process.umask(),
    build: () => bytes,
    failpoint,
    lock: NO_LOCK,
  });
}

/**
 * Deletes `dir/name` only if it is still the version whose token was read: the file is
 * claimed (renamed to a private name), checked, and only then unlinked; a file that changed
 * is put back and the removal refused (docs/design.md#integrations, docs/design.md#tokens-and-the-publication-protocol). `failpoint`: the crash seam's (docs/decisions/failpoints.md)
 * seam; a removal passes `read-opened`, `before-claim` and `after-claim` (a crash after the
 * claim leaves the file at its claim name, which the next install or uninstall puts back).
 * @throws Refused (exit 2).
 */
export async function retractAgentFile(dir: string, name: string, expectedToken: string, failpoint?: string): Promise<void> {
  const filePath = path.join(dir, name);
  const prior = await readStable(filePath, { failpoint });
  if (prior === null) return;
  if (prior.token !== expectedToken) throw new Refused(`${filePath} changed since it was read; run this again`);
  const claim = path.join(dir, privateName(name, "claim", process.pid, randomHex8()));
  await runFailpoint(failpoint, "before-claim");
  renameSync(filePath, claim);
  if (claimIsWhatWeRead(claim, prior) !== "same") {
    // Never by rename: a file written at the name meanwhile would be overwritten.
    const restored = putBack(claim, filePath);
    throw new Refused(
      `${filePath} changed while it was being removed (another program wrote it); ${restored ? "it was kept" : `its version is kept as ${quotedPath(claim)}`}; run this again`,
    );
  }
  await runFailpoint(failpoint, "after-claim");
  unlinkSync(claim);
}

/** What install remembers about one file it changed, so that uninstall can undo it exactly. */
export interface InstallRecord {
  path: string;
  /** The file's bytes before install first changed it, base64; null when it did not exist. */
  before: string | null;
  /** Token of what install last wrote. */
  after: string;
  /**
   * False once the file was changed by someone else between two installs: `before` no longer
   * describes a state to go back to, and uninstall removes only our entries.
   */
  restorable?: boolean;
  /** Folders install created for it. */
  createdDirs: string[];
}

/** `${XDG_CONFIG_HOME:-$HOME/.config}/session-handoff`: the per-user folder of ours. */
export function userDir(env: Record<string, string | undefined>, home: string): string {
  const config = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(home, ".config");
  return path.join(config, "session-handoff");
}

/**
 * Where install records live: `<user dir>/installs/`, beside the global kill switch; never
 * in the project (a record is one machine's).
 */
export function recordsDir(env: Record<string, string | undefined>, home: string): string {
  return path.join(userDir(env, home), "installs");
}

/**
 * Makes `dir` and every missing folder above it (0700: they are the user's private config),
 * before anything is published, so that a record can always be written after it.
 * @returns the folders it made, top first.
 * @throws Refused (exit 2) when one cannot be made (a file in the way, no permission).
 */
export function prepareDir(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      const st = lstatSync(d);
      if (!st.isDirectory()) throw new Refused(`${d} is not a folder; install keeps its records under it, so nothing was changed`);
      break;
    } catch (err) {
      if (err instanceof Refused) throw err;
      missing.unshift(d);
      if (path.dirname(d) === d) break;
    }
  }
  for (const d of missing) {
    try {
      mkdirSync(d, { mode: 0o700 });
    } catch (err) {
      removeEmptyDirs(missing);
      throw new Refused(`${d} could not be made (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); nothing was changed`);
    }
  }
  return missing;
}

/**
 * Records the Node that runs install as `<user dir>/node` (its absolute path and a newline),
 * the second place an installed command looks for Node (docs/design.md#integrations).
 * Written only when it differs (temp, then rename: the folder is ours alone).
 */
export function recordNode(dir: string, execPath: string): void {
  const target = path.join(dir, "node");
  const want = `${execPath}\n`;
  try {
    if (readFileSync(target, "utf8") === want) return;
  } catch {
    // None yet.
  }
  const temp = `${target}.tmp-${process.pid}-${randomHex8()}`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    writeSync(fd, Buffer.from(want));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
}

function recordPath(dir: string, file: string): string {
  return path.join(dir, `${tokenOf(Buffer.from(file, "utf8")).slice(0, 16)}.json`);
}

/** The record of `file`, or null (none, or unreadable: uninstall then removes only ours). */
export function readRecord(dir: string, file: string): InstallRecord | null {
  try {
    const r = JSON.parse(readFileSync(recordPath(dir, file), "utf8")) as InstallRecord;
    return r.path === file ? r : null;
  } catch {
    return null;
  }
}

/** Writes a record (temp, fsync, rename: the folder is ours alone). Returns folders it made. */
export function writeRecord(dir: string, record: InstallRecord): string[] {
  const made: string[] = [];
  for (const d of [path.dirname(path.dirname(dir)), path.dirname(dir), dir]) {
    try {
      mkdirSync(d, { mode: 0o700 });
      made.push(d);
    } catch {
      // It exists.
    }
  }
  const target = recordPath(dir, record.path);
  dropDeadTemps(target);
  const temp = `${target}.tmp-${process.pid}-${randomHex8()}`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const buf = Buffer.from(JSON.stringify(record));
    writeSync(fd, buf);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
  return made;
}

// A record's temps left by a process that died before its rename (the folder is ours alone).
function dropDeadTemps(target: string): void {
  const prefix = `${path.basename(target)}.tmp-`;
  let names: string[];
  try {
    names = readdirSync(path.dirname(target));
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]{8}$/.exec(name.slice(prefix.length)) : null;
    if (m === null || processAlive(Number(m[1]))) continue;
    try {
      unlinkSync(path.join(path.dirname(target), name));
    } catch {
      // Gone already.
    }
  }
}

/**
 * Deletes a record and the records folder when it is empty; with no record left anywhere,
 * the recorded Node goes too (nothing installed needs it), and the user dir when empty.
 */
export function dropRecord(dir: string, file: string): void {
  try {
    unlinkSync(recordPath(dir, file));
  } catch {
    // Already gone.
  }
  if (removeEmptyDirs([dir]).length === 0) return;
  try {
    unlinkSync(path.join(path.dirname(dir), "node"));
  } catch {
    // None recorded.
  }
  removeEmptyDirs([path.dirname(dir)]);
}
