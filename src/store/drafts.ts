// Drafts: `<memory dir>/drafts/<kind>.md`, written by an agent's file tool, read once by `write --from-draft`
// (docs/decisions/save-form.md); a `.gitignore` of ours keeps git from seeing them.
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { unlinkSync, writeSync, type Stats } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { MAX_DOCUMENT_BYTES, memoryDir, type Kind } from "./paths.ts";

/** The drafts folder's name inside the memory dir. */
export const DRAFTS = "drafts";

/** The `.gitignore` of ours in drafts/: everything there, itself included, is never committed. */
export const GITIGNORE_TEXT = "# Written by session-handoff: drafts of `write --from-draft`, never committed.\n*\n";

export function draftsDir(root: string): string {
  return path.join(memoryDir(root), DRAFTS);
}

/** `<root>/.ai/memory/drafts/<kind>.md`: where the agent writes a document for `write --from-draft`. */
export function draftPath(root: string, kind: Kind): string {
  return path.join(draftsDir(root), `${kind}.md`);
}

/** How every sentence names a draft (or, with no kind, the folder), relative to the project root. */
export function draftShown(kind?: Kind): string {
  return kind === undefined ? `.ai/memory/${DRAFTS}` : `.ai/memory/${DRAFTS}/${kind}.md`;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw err;
  }
}

// Whether the folders on the way to a draft exist, refusing the first that is not a real folder.
function realFolders(root: string, rel: string): boolean {
  const folders = [[path.join(root, ".ai"), ".ai"], [memoryDir(root), ".ai/memory"], [draftsDir(root), draftShown()]];
  for (const [dir, shown] of folders as [string, string][]) {
    const st = lstatOrNull(dir);
    if (st === null) return false;
    if (st.isSymbolicLink() || !st.isDirectory()) {
      const what = `${shown} is a link or not a directory, so ${rel} was neither read nor removed`;
      throw new Refused(`${what}; move it away, then write the draft again`);
    }
  }
  return true;
}

function removeName(p: string, shown: string): void {
  try {
    unlinkSync(p);
  } catch (err) {
    const gone = (err as NodeJS.ErrnoException).code === "ENOENT";
    if (!gone) throw new Refused(`cannot remove the draft ${shown}: ${(err as Error).message}`);
  }
}

/**
 * Reads `drafts/<kind>.md`: a regular file with one link, never through a link, at most MAX_DOCUMENT_BYTES, made
 * 0600 first when others may read it. A link, FIFO or hard link is refused and removed unread; a folder is left.
 * @returns its bytes and identity for `removeDraft`. @throws Refused (exit 2).
 */
export function takeDraft(root: string, kind: Kind): { bytes: Buffer; id: string } {
  const rel = draftShown(kind);
  const file = draftPath(root, kind);
  const again = "write the whole document there with your file tool, then run this again";
  if (!realFolders(root, rel)) throw new Refused(`no draft at ${rel}: ${again}`);
  const dir = draftsDir(root);
  const dirStat = lstatSync(dir);
  if ((dirStat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  ensureDraftsIgnored(root);
  const st = lstatOrNull(file);
  if (st === null) throw new Refused(`no draft at ${rel}: ${again}`);
  if (st.isDirectory()) throw new Refused(`${rel} is a directory, not a draft; move it away, then ${again}`);
  if (!st.isFile()) {
    removeName(file, rel);
    const what = st.isSymbolicLink() ? "a link" : "not a regular file";
    throw new Refused(`${rel} is ${what}; it was removed unread: ${again}`);
  }
  {
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      removeName(file, rel);
      const why = code === "ELOOP" ? "it became a link" : (code ?? "error");
      throw new Refused(`${rel} cannot be read (${why}); it was removed: ${again}`);
    }
    try {
      const now = fstatSync(fd);
      if (!now.isFile() || now.ino !== st.ino) throw new Refused(`${rel} was replaced while it was read; ${again}`);
      // Another name of the same file would be published too (and a mode change would reach it).
      if (now.nlink !== 1) {
        removeName(file, rel);
        throw new Refused(`${rel} is hard-linked elsewhere; it was removed unread: ${again}`);
      }
      if ((now.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
      if (now.size > MAX_DOCUMENT_BYTES) {
        const most = `memory documents are at most ${MAX_DOCUMENT_BYTES} bytes`;
        throw new Refused(`the draft ${rel} is ${now.size} bytes; ${most} (shorten it)`);
      }
      const buf = Buffer.alloc(MAX_DOCUMENT_BYTES + 1);
      let got = 0;
      for (let n = 1; n > 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, got);
      if (got > MAX_DOCUMENT_BYTES) {
        throw new Refused(`the draft ${rel} grew past ${MAX_DOCUMENT_BYTES} bytes while it was read`);
      }
      return { bytes: buf.subarray(0, got), id: draftId(now) };
    } finally {
      closeSync(fd);
    }
  }
}

// A draft's identity: a draft written again since it was read is another one, never removed for it.
function draftId(st: Stats): string {
  return `${st.ino} ${st.size} ${st.mtimeMs}`;
}

/** Removes the draft `takeDraft` read, only when it is still that very file (never one written since). */
export function removeDraft(root: string, kind: Kind, id: string): void {
  const file = draftPath(root, kind);
  const st = lstatOrNull(file);
  if (st !== null && st.isFile() && draftId(st) === id) removeName(file, draftShown(kind));
}

/**
 * Creates drafts/.gitignore (0600, ignoring everything there, itself included) when there is
 * none; a file of that name already there is left as it is. drafts/ must be a real folder
 * (the caller checked). Best effort: a failure changes nothing.
 */
export function ensureDraftsIgnored(root: string): void {
  ensureIgnored(draftsDir(root), GITIGNORE_TEXT);
}

/**
 * Writes `<dir>/.gitignore` holding `text` when there is none (a user's own file of that name
 * is kept), so that git never sees what the helper keeps private there. Best effort.
 */
export function ensureIgnored(dir: string, text: string): void {
  const file = path.join(dir, ".gitignore");
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch {
    return;
  }
  try {
    writeSync(fd, text);
  } catch {
    // A full disk: git may then see a private file; the save itself is unaffected.
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes what an interrupted draft save left (`recover`): `drafts/<kind>.md` for each kind,
 * a file or a link (never followed), never a directory or any other name.
 * @returns one line per name removed.
 */
export function removeLeftoverDrafts(root: string): string[] {
  const out: string[] = [];
  if (!realFoldersQuiet(root)) return out;
  ensureDraftsIgnored(root);
  for (const kind of ["handoff", "lessons", "solutions"] as const) {
    const file = draftPath(root, kind);
    const st = lstatOrNull(file);
    if (st === null || st.isDirectory()) continue;
    removeName(file, draftShown(kind));
    out.push(`removed a leftover draft ${draftShown()}/${kind}.md (drafts are private; write it again to save it)`);
  }
  return out;
}

function realFoldersQuiet(root: string): boolean {
  try {
    return realFolders(root, draftShown());
  } catch {
    return false;
  }
}
