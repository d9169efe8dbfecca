// Drafts for `write --from-draft`: each `read <kind>` names its own, so two sessions saving at once never share one.
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, openSync, readdirSync, unlinkSync,
  type Stats } from "../builtins.ts";
import path from "node:path";
import { Refused, UsageError } from "../errors.ts";
import { createExclusive, lstatOrNull, randomHex8, readAll } from "./files.ts";
import { checkTree, ensureDir, MAX_DOCUMENT_BYTES, memoryDir, treeVerdict, type Kind } from "./paths.ts";
import { pauseSwitch } from "./pause.ts";

const DRAFTS_IGNORED = "# Written by session-handoff: drafts of `write --from-draft`, never committed.\n*\n";
const PER_READ = /^(handoff|lessons|solutions)-([0-9a-f]{8})\.md$/;
// The shared drafts and read marks of older flows, never taken now: removed at any age.
const RETIRED = /^(handoff|lessons|solutions)\.md$|^\.read-(handoff|lessons|solutions)-[0-9a-f]{8}$/;
// A draft untouched this long was left behind: its session saved, gave up or died.
const LEFT_BEHIND_MS = 60 * 60 * 1000;

/** The draft one read named, `<kind>-<id>.md`. */
export interface Draft {
  kind: Kind;
  id: string;
}

const draftsDir = (root: string): string => path.join(memoryDir(root), "drafts");
const fileName = (d: Draft): string => `${d.kind}-${d.id}.md`;

/** How every sentence names a draft (or, with none, the folder): relative to the root, where the agent writes it. */
export function draftShown(d?: Draft): string {
  return d === undefined ? ".ai/memory/drafts" : `.ai/memory/drafts/${fileName(d)}`;
}

/** Only the name of the path is used, always inside drafts/, so no other file can be read through it. */
export function parseDraftName(kind: Kind, arg: string | undefined): Draft {
  if (arg === undefined || path.basename(arg) === `${kind}.md`) {
    // An older SKILL.md's shared drafts/<kind>.md: two sessions would share it, so a path of its own is named.
    const own = draftShown({ kind, id: randomHex8() });
    throw new UsageError(
      `--from-draft takes the path \`read ${kind}\` printed on its DRAFT: line; the shared ` +
        `${draftShown()}/${kind}.md is not read any more. Write your whole document to ${own} with your file tool, ` +
        `then run \`write ${kind} --from-draft ${own} --expected-current-sha256 <token>\``,
    );
  }
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

/** A new draft name for one `read`; drafts/ is made, ignored by git and cleared of leftovers unless paused. */
export function newDraft(root: string, kind: Kind, env: Record<string, string | undefined>): Draft {
  const d: Draft = { kind, id: randomHex8() };
  try {
    if (pauseSwitch(memoryDir(root), env) !== null || !checkTree(root, { create: true })) return d;
    ensureDir(draftsDir(root));
    ensureIgnored(draftsDir(root));
    removeLeftBehind(root);
  } catch {
    // Nothing cleared: the name printed is still this read's own.
  }
  return d;
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

/** A draft read by `takeDraft`: its bytes and its identity. */
export interface Taken {
  bytes: Buffer;
  id: string;
}

/** Reads a draft (kept until `removeDraft`); a link, FIFO or hard-linked file is refused and removed unread. */
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
    if (bytes.length === 0) throw new Refused(`the draft ${rel} is empty: ${again}`);
    return { bytes, id: draftId(now) };
  } finally {
    closeSync(fd);
  }
}

// A draft's identity: a draft written again since it was read is another one, never removed for it.
function draftId(st: Stats): string {
  return `${st.ino} ${st.size} ${st.mtimeMs}`;
}

/** Removes the draft `takeDraft` read while it is still that very file. */
export function removeDraft(root: string, d: Draft, taken: Taken): void {
  const file = path.join(draftsDir(root), fileName(d));
  const st = lstatOrNull(file);
  if (st !== null && st.isFile() && draftId(st) === taken.id) removeName(file, draftShown(d));
}

/** Creates `<dir>/.gitignore` ignoring everything there when there is none (a user's own is kept). Best effort. */
export function ensureIgnored(dir: string, text = DRAFTS_IGNORED): void {
  createExclusive(path.join(dir, ".gitignore"), text);
}

/** Removes what draft saves left (`recover`): drafts left behind, and older flows' shared drafts and marks. */
export function removeLeftoverDrafts(root: string): string[] {
  if (treeVerdict(root) !== "ok" || lstatOrNull(draftsDir(root)) === null) return [];
  ensureIgnored(draftsDir(root));
  return removeLeftBehind(root);
}

// One pass over drafts/: files or links (never followed, never a directory). @returns one line a draft removed.
function removeLeftBehind(root: string): string[] {
  const dir = draftsDir(root);
  const out: string[] = [];
  const old = Date.now() - LEFT_BEHIND_MS;
  for (const name of readdirSync(dir)) {
    const retired = RETIRED.test(name);
    const st = retired || PER_READ.test(name) ? lstatOrNull(path.join(dir, name)) : null;
    if (st === null || st.isDirectory() || (!retired && st.mtimeMs > old)) continue;
    removeName(path.join(dir, name), `${draftShown()}/${name}`);
    if (!name.startsWith(".read-")) {
      out.push(`removed a leftover draft ${draftShown()}/${name} (drafts are private; write it again to save it)`);
    }
  }
  return out;
}
