// Drafts: a document an agent wrote with its own file tool for `write --from-draft`
// (docs/decisions/save-form.md, docs/decisions/drafts.md). Each `read <kind>` names a draft of
// its own, `<memory dir>/drafts/<kind>-<8 hex>.md`, and leaves a mark `.read-<kind>-<8 hex>`;
// the shared `drafts/<kind>.md` of older flows is taken only when a single read came before it
// was written. A save removes its draft; nothing else reads one, `publish` never commits it,
// and a `.gitignore` of ours in drafts/ keeps git from seeing it.
import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readdirSync, readSync, unlinkSync, writeSync, chmodSync, type Stats } from "node:fs";
import path from "node:path";
import { Refused, UsageError } from "../errors.ts";
import { ensureDir, MAX_DOCUMENT_BYTES, memoryDir, type Kind } from "./paths.ts";
import { pauseSwitch } from "./pause.ts";

/** The drafts folder's name inside the memory dir. */
export const DRAFTS = "drafts";

/** The `.gitignore` of ours in drafts/: everything there, itself included, is never committed. */
export const GITIGNORE_TEXT = "# Written by session-handoff: drafts of `write --from-draft`, never committed.\n*\n";

/** `<root>/.ai/memory/drafts`. */
export function draftsDir(root: string): string {
  return path.join(memoryDir(root), DRAFTS);
}

/** A draft: the shared `<kind>.md` (id null) or the one a read named, `<kind>-<id>.md`. */
export interface Draft {
  kind: Kind;
  id: string | null;
}

const KINDS = ["handoff", "lessons", "solutions"] as const;
const PER_READ = /^(handoff|lessons|solutions)-([0-9a-f]{8})\.md$/;
const READ_MARK = /^\.read-(handoff|lessons|solutions)-([0-9a-f]{8})$/;
/** A draft or read mark untouched this long is left behind: its session saved, gave up or died. */
export const LEFT_BEHIND_MS = 60 * 60 * 1000;
// At most this many read marks are kept (the newest): two are all the shared-draft check needs.
const MARKS_KEPT = 64;

const fileName = (d: Draft): string => (d.id === null ? `${d.kind}.md` : `${d.kind}-${d.id}.md`);

/** `<root>/.ai/memory/drafts/<kind>[-<id>].md`: where the agent writes a document for `write --from-draft`. */
export function draftPath(root: string, d: Draft): string {
  return path.join(draftsDir(root), fileName(d));
}

/**
 * `.ai/memory/drafts/<kind>[-<id>].md`, or the folder with no draft: how every sentence about a
 * draft names it, relative to the project root, where the agent writes it.
 */
export function draftShown(d?: Draft): string {
  return d === undefined ? `.ai/memory/${DRAFTS}` : `.ai/memory/${DRAFTS}/${fileName(d)}`;
}

/**
 * The draft `write <kind> --from-draft <name>` names: the path `read` printed (relative to the
 * root, or absolute) or its last part. Only the name is used, always inside drafts/, so no
 * other file can be read through it.
 * @throws UsageError (exit 2) for a name `read` never prints, or another kind's.
 */
export function parseDraftName(kind: Kind, arg: string): Draft {
  const m = PER_READ.exec(path.basename(arg));
  const dir = path.dirname(arg).split(path.sep).join("/");
  if (m === null || !(dir === "." || dir === `.ai/memory/${DRAFTS}` || dir.endsWith(`/.ai/memory/${DRAFTS}`))) {
    const shown = JSON.stringify(arg.slice(0, 80));
    const want = `.ai/memory/drafts/${kind}-<8 hex>.md`;
    throw new UsageError(`--from-draft takes the path \`read ${kind}\` printed on its DRAFT: line (${want}), not ${shown}`);
  }
  if (m[1] !== kind) {
    const other = draftShown({ kind: m[1] as Kind, id: m[2]! });
    throw new UsageError(`${other} is a draft of ${m[1]}, not of ${kind}: run \`write ${m[1]}\` for it`);
  }
  return { kind, id: m[2]! };
}

/**
 * A draft of its own for one `read <kind>`: a new random name, and the read's mark
 * `drafts/.read-<kind>-<id>` that the shared draft's check counts, when the memory dir exists
 * (a read never creates it) and writes are not paused (a paused memory is never written).
 * Left-behind drafts and marks are removed first. Best effort: the name is printed even where
 * nothing can be recorded.
 */
export function newDraft(root: string, kind: Kind, env: Record<string, string | undefined>): Draft {
  const d: Draft = { kind, id: randomBytes(4).toString("hex") };
  try {
    if (!realFolders(root, draftShown(d), false) || pauseSwitch(memoryDir(root), env) !== null) return d;
    ensureDir(draftsDir(root));
    ensureDraftsIgnored(root);
    removeLeftBehind(root, false);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    closeSync(openSync(path.join(draftsDir(root), `.read-${kind}-${d.id}`), flags, 0o600));
  } catch {
    // No mark: the name is still this read's own; only the shared draft's check sees one read fewer.
  }
  return d;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw err;
  }
}

// The folders on the way to a draft, each a real folder, or a refusal that names the first
// that is not (nothing is removed through a link). False when one is missing.
function realFolders(root: string, rel: string, drafts = true): boolean {
  const dirs = [
    [path.join(root, ".ai"), ".ai"],
    [memoryDir(root), ".ai/memory"],
    [draftsDir(root), draftShown()],
  ] as const;
  for (const [dir, shown] of drafts ? dirs : dirs.slice(0, 2)) {
    const st = lstatOrNull(dir);
    if (st === null) return false;
    if (st.isSymbolicLink() || !st.isDirectory()) {
      throw new Refused(`${shown} is a link or not a directory, so ${rel} was neither read nor removed; move it away, then write the draft again`);
    }
  }
  return true;
}

function removeName(p: string, shown: string): void {
  try {
    unlinkSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new Refused(`cannot remove the draft ${shown}: ${(err as Error).message}`);
  }
}

/** A draft read by `takeDraft`: its bytes, its identity, and the read marks a save consumes. */
export interface Taken {
  bytes: Buffer;
  id: string;
  marks: string[];
}

/**
 * Reads the draft `d`, a regular file with one link, never through a link, at most
 * MAX_DOCUMENT_BYTES. A draft readable by others is made 0600 first. It stays on disk:
 * `removeDraft` takes it away after a save (a refusal keeps it, to be fixed and retried).
 * A missing draft, a link, a FIFO or a hard-linked file is refused (the last three removed
 * unread); a directory there is refused and left. The shared draft is refused, and kept, when
 * more than one read came before it was written (`sharedReads`).
 * @returns the draft's bytes, its identity (inode, size, mtime) and marks for `removeDraft`.
 * @throws Refused (exit 2) saying what was wrong.
 */
export function takeDraft(root: string, d: Draft): Taken {
  const rel = draftShown(d);
  const file = draftPath(root, d);
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
    throw new Refused(`${rel} is ${st.isSymbolicLink() ? "a link" : "not a regular file"}; it was removed unread: ${again}`);
  }
  {
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      removeName(file, rel);
      throw new Refused(`${rel} cannot be read (${code === "ELOOP" ? "it became a link" : (code ?? "error")}); it was removed: ${again}`);
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
        throw new Refused(`the draft ${rel} is ${now.size} bytes; memory documents are at most ${MAX_DOCUMENT_BYTES} bytes (shorten it)`);
      }
      const buf = Buffer.alloc(MAX_DOCUMENT_BYTES + 1);
      let got = 0;
      for (let n = 1; n > 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, got);
      if (got > MAX_DOCUMENT_BYTES) throw new Refused(`the draft ${rel} grew past ${MAX_DOCUMENT_BYTES} bytes while it was read`);
      const marks = d.id === null ? sharedReads(root, d.kind, now.mtimeMs) : [`.read-${d.kind}-${d.id}`];
      return { bytes: buf.subarray(0, got), id: draftId(now), marks };
    } finally {
      closeSync(fd);
    }
  }
}

// A draft's identity: a draft written again since it was read is another one, never removed for it.
function draftId(st: Stats): string {
  return `${st.ino} ${st.size} ${st.mtimeMs}`;
}

/**
 * Removes the draft `takeDraft` read, only when it is still that very file (never one written
 * since), and the read marks it answered for.
 */
export function removeDraft(root: string, d: Draft, taken: Taken): void {
  const file = draftPath(root, d);
  const st = lstatOrNull(file);
  if (st !== null && st.isFile() && draftId(st) === taken.id) removeName(file, draftShown(d));
  for (const m of taken.marks) removeName(path.join(draftsDir(root), m), m);
}

// The reads of `kind` in the hour before the shared draft was written: one may be its writer's;
// two or more, and the draft may be another session's (their token is the same), so it is refused.
function sharedReads(root: string, kind: Kind, writtenMs: number): string[] {
  const marks: Array<{ name: string; ms: number }> = [];
  for (const name of readdirSync(draftsDir(root))) {
    const m = READ_MARK.exec(name);
    const st = m !== null && m[1] === kind ? lstatOrNull(path.join(draftsDir(root), name)) : null;
    const before = st !== null && st.mtimeMs <= writtenMs && st.mtimeMs > writtenMs - LEFT_BEHIND_MS;
    if (before) marks.push({ name, ms: st.mtimeMs });
  }
  if (marks.length < 2) return marks.map((m) => m.name);
  // No mark for this name: the check runs under no pause switch, and its write needs none.
  const own: Draft = { kind, id: randomBytes(4).toString("hex") };
  throw new Refused(
    `${draftShown({ kind, id: null })} may be another session's draft: ${marks.length} reads of ${kind} ` +
      `came before it was written, and a save must publish only its own document. It was kept. ` +
      `Write your whole document to ${draftShown(own)} with your file tool, then run ` +
      `\`write ${kind} --from-draft ${draftShown(own)} --expected-current-sha256 <token>\``,
  );
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
 * Removes what draft saves left (`recover`): the shared `drafts/<kind>.md` of each kind, and
 * per-read drafts and read marks untouched for LEFT_BEHIND_MS (younger ones may be a live
 * session's), files or links (never followed), never a directory or any other name.
 * @returns one line per draft removed.
 */
export function removeLeftoverDrafts(root: string): string[] {
  if (!realFoldersQuiet(root)) return [];
  ensureDraftsIgnored(root);
  return removeLeftBehind(root, true);
}

// One pass over drafts/ (bounded by its size): left-behind drafts and marks, and the marks past
// the newest MARKS_KEPT; the shared drafts of any age too when `shared`.
function removeLeftBehind(root: string, shared: boolean): string[] {
  const dir = draftsDir(root);
  const out: string[] = [];
  const marks: Array<{ name: string; ms: number }> = [];
  const old = Date.now() - LEFT_BEHIND_MS;
  for (const name of readdirSync(dir)) {
    const isShared = KINDS.some((k) => name === `${k}.md`);
    const perRead = PER_READ.test(name);
    if (!isShared && !perRead && !READ_MARK.test(name)) continue;
    const st = lstatOrNull(path.join(dir, name));
    if (st === null || st.isDirectory()) continue;
    if (READ_MARK.test(name)) {
      if (st.mtimeMs > old) marks.push({ name, ms: st.mtimeMs });
      else removeName(path.join(dir, name), name);
      continue;
    }
    if (!(shared && isShared) && st.mtimeMs > old) continue;
    removeName(path.join(dir, name), `${draftShown()}/${name}`);
    out.push(`removed a leftover draft ${draftShown()}/${name} (drafts are private; write it again to save it)`);
  }
  marks.sort((a, b) => b.ms - a.ms);
  for (const m of marks.slice(MARKS_KEPT)) removeName(path.join(dir, m.name), m.name);
  return out;
}

function realFoldersQuiet(root: string): boolean {
  try {
    return realFolders(root, draftShown());
  } catch {
    return false;
  }
}
