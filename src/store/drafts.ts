// Drafts for `write --from-draft` (docs/decisions/drafts.md): each `read <kind>` names its own
// `drafts/<kind>-<8 hex>.md` and leaves a mark `.read-<kind>-<8 hex>`; the shared `drafts/<kind>.md`
// of older flows is taken only when a single read came before it was written.
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync } from "node:fs";
import { readdirSync, unlinkSync, type Stats } from "node:fs";
import path from "node:path";
import { Refused, UsageError } from "../errors.ts";
import { createExclusive, readAll } from "./files.ts";
import { checkTree, ensureDir, MAX_DOCUMENT_BYTES, memoryDir, treeVerdict, type Kind } from "./paths.ts";
import { pauseSwitch } from "./pause.ts";

const DRAFTS_IGNORED = "# Written by session-handoff: drafts of `write --from-draft`, never committed.\n*\n";
const PER_READ = /^(handoff|lessons|solutions)-([0-9a-f]{8})\.md$/;
const SHARED = /^(handoff|lessons|solutions)\.md$/;
const READ_MARK = /^\.read-(handoff|lessons|solutions)-([0-9a-f]{8})$/;
// A draft or read mark untouched this long was left behind: its session saved, gave up or died.
const LEFT_BEHIND_MS = 60 * 60 * 1000;
// Only the newest read marks are kept: two are all the shared draft's check needs.
const MARKS_KEPT = 64;

/** A draft: the shared `<kind>.md` (id null) or the one a read named, `<kind>-<id>.md`. */
export interface Draft {
  kind: Kind;
  id: string | null;
}

const draftsDir = (root: string): string => path.join(memoryDir(root), "drafts");
const fileName = (d: Draft): string => (d.id === null ? `${d.kind}.md` : `${d.kind}-${d.id}.md`);

/** How every sentence names a draft (or, with none, the folder): relative to the root, where the agent writes it. */
export function draftShown(d?: Draft): string {
  return d === undefined ? ".ai/memory/drafts" : `.ai/memory/drafts/${fileName(d)}`;
}

/**
 * The draft `write <kind> --from-draft <name>` names, as `read` printed it or bare: only the name is used, always
 * inside drafts/, so no other file can be read through it. @throws UsageError for any other name or another kind's.
 */
export function parseDraftName(kind: Kind, arg: string): Draft {
  const m = PER_READ.exec(path.basename(arg));
  const dir = path.dirname(arg).split(path.sep).join("/");
  if (m === null || !(dir === "." || dir === ".ai/memory/drafts" || dir.endsWith("/.ai/memory/drafts"))) {
    const want = `.ai/memory/drafts/${kind}-<8 hex>.md`;
    const shown = JSON.stringify(arg.slice(0, 80));
    const said = `the path \`read ${kind}\` printed on its DRAFT: line`;
    throw new UsageError(`--from-draft takes ${said} (${want}), not ${shown}`);
  }
  if (m[1] !== kind) {
    const other = draftShown({ kind: m[1] as Kind, id: m[2]! });
    throw new UsageError(`${other} is a draft of ${m[1]}, not of ${kind}: run \`write ${m[1]}\` for it`);
  }
  return { kind, id: m[2]! };
}

/**
 * A new draft name for one `read <kind>`, and its read mark when the memory dir exists (a read never creates it) and
 * writes are not paused. Best effort: the name is printed even where nothing can be recorded.
 */
export function newDraft(root: string, kind: Kind, env: Record<string, string | undefined>): Draft {
  const d: Draft = { kind, id: randomBytes(4).toString("hex") };
  try {
    if (treeVerdict(root) !== "ok" || pauseSwitch(memoryDir(root), env) !== null) return d;
    ensureDir(draftsDir(root));
    ensureIgnored(draftsDir(root));
    removeLeftBehind(root, false);
    createExclusive(path.join(draftsDir(root), `.read-${kind}-${d.id}`), "");
  } catch {
    // No mark: the name is still this read's own; only the shared draft's check sees one read fewer.
  }
  return d;
}

function lstatOrNull(p: string): Stats | null {
  return lstatSync(p, { throwIfNoEntry: false }) ?? null;
}

function removeName(p: string, shown: string): void {
  try {
    unlinkSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new Refused(`cannot remove the draft ${shown}: ${(err as Error).message}`);
    }
  }
}

/** A draft read by `takeDraft`: its bytes, its identity, and the read marks a save consumes. */
export interface Taken {
  bytes: Buffer;
  id: string;
  marks: string[];
}

/**
 * Reads the draft `d` (made 0600), a regular file with one link, never through a link; it stays on disk until
 * `removeDraft`. A link, a FIFO or a hard-linked file is removed unread, a directory left; all are refused.
 */
export function takeDraft(root: string, d: Draft): Taken {
  const rel = draftShown(d);
  const dir = draftsDir(root);
  const file = path.join(dir, fileName(d));
  const again = "write the whole document there with your file tool, then run this again";
  const dirStat = checkTree(root) ? lstatOrNull(dir) : null;
  if (dirStat === null) throw new Refused(`no draft at ${rel}: ${again}`);
  if ((dirStat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  ensureIgnored(dir);
  const st = lstatOrNull(file);
  if (st === null) throw new Refused(`no draft at ${rel}: ${again}`);
  if (st.isDirectory()) throw new Refused(`${rel} is a directory, not a draft; move it away, then ${again}`);
  const removed = (what: string): Refused => {
    removeName(file, rel);
    return new Refused(`${rel} ${what}; it was removed unread: ${again}`);
  };
  if (!st.isFile()) throw removed(st.isSymbolicLink() ? "is a link" : "is not a regular file");
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw removed(`cannot be read (${code === "ELOOP" ? "it became a link" : (code ?? "error")})`);
  }
  try {
    const now = fstatSync(fd);
    if (!now.isFile() || now.ino !== st.ino) throw new Refused(`${rel} was replaced while it was read; ${again}`);
    // Another name of the same file would be published too (and a mode change would reach it).
    if (now.nlink !== 1) throw removed("is hard-linked elsewhere");
    if ((now.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    const limit = `memory documents are at most ${MAX_DOCUMENT_BYTES} bytes (shorten it)`;
    if (now.size > MAX_DOCUMENT_BYTES) throw new Refused(`the draft ${rel} is ${now.size} bytes; ${limit}`);
    const bytes = readAll(fd);
    if (bytes.length > MAX_DOCUMENT_BYTES) throw new Refused(`the draft ${rel} grew while it was read; ${limit}`);
    const marks = d.id === null ? sharedReads(root, d.kind, now.mtimeMs) : [`.read-${d.kind}-${d.id}`];
    return { bytes, id: draftId(now), marks };
  } finally {
    closeSync(fd);
  }
}

// A draft's identity: a draft written again since it was read is another one, never removed for it.
function draftId(st: Stats): string {
  return `${st.ino} ${st.size} ${st.mtimeMs}`;
}

/** Removes the draft `takeDraft` read while it is still that very file, and the read marks it answered for. */
export function removeDraft(root: string, d: Draft, taken: Taken): void {
  const file = path.join(draftsDir(root), fileName(d));
  const st = lstatOrNull(file);
  if (st !== null && st.isFile() && draftId(st) === taken.id) removeName(file, draftShown(d));
  for (const m of taken.marks) removeName(path.join(draftsDir(root), m), m);
}

// The reads of `kind` in the hour before the shared draft was written: one may be its writer's;
// two or more, and the draft may be another session's (their token is the same), so it is refused.
function sharedReads(root: string, kind: Kind, writtenMs: number): string[] {
  const marks = readdirSync(draftsDir(root)).filter((name) => {
    const st = READ_MARK.exec(name)?.[1] === kind ? lstatOrNull(path.join(draftsDir(root), name)) : null;
    return st !== null && st.mtimeMs <= writtenMs && st.mtimeMs > writtenMs - LEFT_BEHIND_MS;
  });
  if (marks.length < 2) return marks;
  // No mark for this name: the check runs under no pause switch, and its write needs none.
  const own = draftShown({ kind, id: randomBytes(4).toString("hex") });
  throw new Refused(
    `${draftShown({ kind, id: null })} may be another session's draft: ${marks.length} reads of ${kind} ` +
      `came before it was written, and a save must publish only its own document. It was kept. ` +
      `Write your whole document to ${own} with your file tool, then run ` +
      `\`write ${kind} --from-draft ${own} --expected-current-sha256 <token>\``,
  );
}

/** Creates `<dir>/.gitignore` ignoring everything there when there is none (a user's own is kept). Best effort. */
export function ensureIgnored(dir: string, text = DRAFTS_IGNORED): void {
  createExclusive(path.join(dir, ".gitignore"), text);
}

/** Removes what draft saves left (`recover`): the shared drafts, and drafts and marks left behind. */
export function removeLeftoverDrafts(root: string): string[] {
  if (treeVerdict(root) !== "ok" || lstatOrNull(draftsDir(root)) === null) return [];
  ensureIgnored(draftsDir(root));
  return removeLeftBehind(root, true);
}

// One pass over drafts/: drafts and marks left behind, and marks past the newest MARKS_KEPT; with `shared`, the
// shared drafts of any age too. Files or links only (never followed), never a directory. @returns one line a draft.
function removeLeftBehind(root: string, shared: boolean): string[] {
  const dir = draftsDir(root);
  const out: string[] = [];
  const marks: Array<{ name: string; ms: number }> = [];
  const old = Date.now() - LEFT_BEHIND_MS;
  for (const name of readdirSync(dir)) {
    const isMark = READ_MARK.test(name);
    const isShared = SHARED.test(name);
    const st = isMark || isShared || PER_READ.test(name) ? lstatOrNull(path.join(dir, name)) : null;
    if (st === null || st.isDirectory()) continue;
    if (isMark && st.mtimeMs > old) marks.push({ name, ms: st.mtimeMs });
    else if (isMark) removeName(path.join(dir, name), name);
    else if ((shared && isShared) || st.mtimeMs <= old) {
      removeName(path.join(dir, name), `${draftShown()}/${name}`);
      out.push(`removed a leftover draft ${draftShown()}/${name} (drafts are private; write it again to save it)`);
    }
  }
  marks.sort((a, b) => b.ms - a.ms);
  for (const m of marks.slice(MARKS_KEPT)) removeName(path.join(dir, m.name), m.name);
  return out;
}
