// What became of each file dirty at the save: one fate per file, so drift's summary, JSON and the brief agree.
import { readFileSync } from "../builtins.ts";
import path from "node:path";
import type { DirtyHash } from "../schema/anchor-lines.ts";
import { hashBlob, stashEntries } from "./git-dir.ts";
import { pathspecOf, rawPaths, type Git } from "./run.ts";
import { orNull } from "../store/files.ts";

/** One file's fate: where its saved content is (`as`: renamed; `eol`: other line endings); `edited`: changed since. */
export type DirtyFate =
  | { path: string; fate: "committed"; commit: string; onHead: boolean; as?: string; eol?: true; reverted?: string }
  | ({ path: string; fate: "edited"; as?: string } & ({ commit: string } | { stash: string }))
  | { path: string; fate: "stashed"; stash: string; as?: string; eol?: true }
  | { path: string; fate: "renamed"; to: string }
  | { path: string; fate: "unchanged"; eol?: true }
  | { path: string; fate: "reverted" | "changed" | "dirty" | "not-here" | "clean" };

/** One commit (or stash entry) of a `--raw -z` log: its name, committer second, each path's new blob id and mode. */
type Touch = { name: string; time: number | null; paths: Map<string, string>; modes?: Map<string, string> } & {
  olds?: Map<string, string>; // each path's blob id before a commit of one parent
  since?: boolean; // since the save by ancestry (docs/decisions/reachability-skew.md), when the history log told it
};

// Parses `git log --raw --no-abbrev --no-renames -z --format=%x01<name> %ct`.
function parseRawLog(out: Buffer): Touch[] {
  return out.toString("utf8").split("\x01").slice(1).map((rec) => {
    const [name = "", ...rest] = rec.split("\0");
    const raw = rawPaths(rest);
    // A deletion's new id is all zeros.
    const paths = new Map(raw.map((e) => [e.path, e.ids.at(-1) ?? ""]));
    const modes = new Map(raw.map((e) => [e.path, e.modes.at(-1) ?? ""]));
    const olds = new Map(raw.flatMap((e) => (e.ids.length === 2 ? [[e.path, e.ids[0]!] as const] : [])));
    const [id = "", ct] = name.trim().split(" ");
    return { name: id, time: ct === undefined ? null : Number(ct), paths, modes, olds };
  });
}

const ZERO = /^0+$/;
// Names git has no file by: written redacted by a save, or not UTF-8 (read as U+FFFD).
const UNASKED = /<redacted: |\uFFFD/;

/** The logs newest first (null: not run); `fromSaved`: the walks started at the saved commit, so none is reverted. */
interface FateInputs {
  savedDirty: readonly string[];
  hashes: readonly DirtyHash[];
  modes?: ReadonlyMap<string, string>;
  nowDirty: readonly string[];
  blobNow: (p: string) => string | null;
  modeNow?: (p: string) => string;
  /** `<saved id> <id>`: the blob `id` is the saved one but for its line endings (`eolPairs`). */
  eol?: ReadonlySet<string>;
  onHead: Touch[] | null;
  elsewhere: Touch[] | null;
  stashes: Touch[] | null;
  renames: ReadonlyMap<string, string>;
  savedSec: number | null;
  unasked?: ReadonlySet<string>; // paths no stash entry's untracked tree was asked about
  fromElsewhere: boolean;
  fromSaved: boolean;
}

// The newest commit on HEAD to touch the committed file, when it gave back the content from before that commit
// (`git revert`, or the same undone by hand): told by the blobs, never by a commit message.
function undone(onHead: readonly Touch[], held: Touch, q: string): { reverted?: string } {
  const last = onHead.find((t) => t.paths.has(q));
  const before = held.olds?.get(q);
  return last !== held && before !== undefined && last?.paths.get(q) === before ? { reverted: last.name } : {};
}

/** Each saved dirty path's one fate, in the saved order. Pure. */
export function fatesOf(i: FateInputs): DirtyFate[] {
  const hashOf = new Map(i.hashes.map((h) => [h.path, h.id]));
  return i.savedDirty.map((p): DirtyFate => {
    const saved = hashOf.get(p);
    const known = saved !== undefined && saved !== "over 8 MB";
    if (i.nowDirty.includes(p)) {
      const now = known ? i.blobNow(p) : null;
      // No id now (a folder, a file under a filter, git failed): nothing to compare it with.
      if (now === null) return { path: p, fate: "dirty" };
      const mode = i.modes?.get(p);
      const same = mode === undefined || mode === i.modeNow?.(p);
      if (same && now !== saved && i.eol?.has(`${saved} ${now}`)) return { path: p, fate: "unchanged", eol: true };
      return { path: p, fate: same && now === saved ? "unchanged" : "changed" };
    }
    // No log was asked about such a path: its fate is not known.
    if (UNASKED.test(p)) return { path: p, fate: i.fromElsewhere ? "not-here" : "clean" };
    const to = i.renames.get(p);
    const renamed = to === undefined ? {} : { as: to };
    // A folder is taken in by any change under it; a recorded mode is part of the content (a stash's tree has none).
    const mode = i.modes?.get(p);
    const sameContent = (id: string, m = mode) =>
      !known || (saved === "deleted" ? ZERO.test(id) : id === saved && (mode === undefined || m === mode));
    // Held as saved first; else, the saved content with other line endings (core.autocrlf turned off, say).
    const sameEol = (id: string) => i.eol?.has(`${saved} ${id}`) === true;
    for (const [same, eol] of [[sameContent, {}], [sameEol, { eol: true as const }]] as const) {
      const heldAs = (t: Touch) => [...t.paths].find(([q, id]) =>
        (p.endsWith("/") ? q.startsWith(p) : (q === p || q === to) && same(id, t.modes?.get(q))));
      const as = (t: Touch) => (heldAs(t)?.[0] === to ? renamed : {});
      const head = i.onHead?.find(heldAs);
      if (head) return { path: p, fate: "committed", commit: head.name, onHead: true, ...as(head), ...eol,
        ...undone(i.onHead!, head, heldAs(head)![0]) };
      const stash = i.stashes?.find(heldAs);
      if (stash) return { path: p, fate: "stashed", stash: stash.name, ...as(stash), ...eol };
      const other = i.elsewhere?.find(heldAs);
      if (other) return { path: p, fate: "committed", commit: other.name, onHead: false, ...as(other), ...eol };
    }
    if (to !== undefined && i.nowDirty.includes(to)) return { path: p, fate: "renamed", to };
    // Not held anywhere, but changed by a commit or stash since the save (one merged in from before is not since).
    const after = (t: Touch) => t.since ?? (i.savedSec === null || (t.time !== null && t.time >= i.savedSec));
    const touched = (t: Touch) => after(t) && (t.paths.has(p) || t.paths.has(to ?? p));
    const since = i.onHead?.find(touched);
    const stashed = i.savedSec === null ? undefined : i.stashes?.find(touched);
    // The newer of the two; a commit made in the stash's second counts as the later.
    const newer = stashed && !(since && since.time! >= stashed.time!);
    const where = newer ? { stash: stashed.name } : since && { commit: since.name };
    if (where) return { path: p, fate: "edited", ...where, ...renamed };
    if (i.fromElsewhere) return { path: p, fate: "not-here" };
    if (!i.fromSaved || i.onHead === null || i.stashes === null || i.unasked?.has(p)) return { path: p, fate: "clean" };
    return { path: p, fate: "reverted" };
  });
}

/** `<saved id> <id>` for each blob that is a saved one but for its line endings (all CRLF or all LF). */
export function eolPairs(
  blobs: readonly (readonly [string, Buffer | null])[], savedIds: ReadonlySet<string>, format: "sha1" | "sha256",
): Set<string> {
  const out = new Set<string>();
  for (const [id, bytes] of blobs) {
    const lf = bytes?.toString("latin1").replace(/\r\n/g, "\n");
    if (lf === undefined || !bytes!.includes(10)) continue;
    for (const text of [lf, lf.replace(/\n/g, "\r\n")]) {
      const variant = hashBlob(Buffer.from(text, "latin1"), format);
      if (variant !== id && savedIds.has(variant)) out.add(`${variant} ${id}`);
    }
  }
  return out;
}

// Whether HEAD's reflog starts with a `clone:` after the save's second (docs/decisions/clone-after-save.md).
export function clonedAfter(gitDir: string | null, savedMs: number | null): boolean {
  if (gitDir === null || savedMs === null) return false;
  const first = orNull(() => readFileSync(path.join(gitDir, "logs", "HEAD"), "utf8").split("\n", 1)[0]!);
  const m = / (\d+) [+-]\d{4}\tclone: /.exec(first ?? "");
  return m !== null && Number(m[1]) > Math.floor(savedMs / 1000);
}

const RAW = ["--raw", "--no-abbrev", "--no-renames", "-z"];
// A merge's own change only: first-parent diffs would show a branch's older commits as the merge's.
const MERGES = "--diff-merges=combined";

/** What each stash entry's untracked tree (`stash@{n}^3`, what `git stash -u` takes) holds of `paths`. */
async function untrackedInStashes(git: Git, count: number, paths: readonly string[]) {
  const asks = Array.from({ length: Math.min(count, 100) }, (_, n) => paths.map((p) => ({ n, p }))).flat();
  // A batch line ends at a line break: such a path is not asked about, and its fate is not told (`unasked`).
  const safe = asks.filter((a) => !/[\r\n]/.test(a.p));
  const revs = safe.map((a) => `stash@{${a.n}}^3:${a.p.replace(/\/+$/, "")}\n`).join("");
  const r = safe.length === 0 ? null : await git(["cat-file", "--batch-check"], revs);
  // `<id> <type> <size>` per line, or `<rev> missing`.
  const lines = r?.code === 0 ? r.stdout.toString("utf8").split("\n") : [];
  const ids = lines.map((l) => /^([0-9a-f]{40,64}) /.exec(l)?.[1]);
  const found = safe.flatMap((a, i) => (ids[i] ? [{ stash: `stash@{${a.n}}`, p: a.p, id: ids[i] }] : []));
  return { found, unasked: new Set(asks.filter((a) => !safe.includes(a)).map((a) => a.p)) };
}

/** The logs `fatesOf` needs, in parallel, for the saved dirty files clean now; without `savedHead`, bound by date. */
export async function gatherFateLogs(
  git: Git, opts: { gitDir: string | null; savedHead: string | null; savedDateMs: number | null;
    cleaned: readonly string[]; gone: readonly string[]; staged: readonly (readonly [string, string])[];
    headExists: boolean; moves?: Map<string, string> | null },
): Promise<Pick<FateInputs, "onHead" | "elsewhere" | "stashes" | "renames" | "unasked">> {
  if (opts.cleaned.length === 0) return { onHead: [], elsewhere: [], stashes: [], renames: new Map() };
  // Where each of `gone` went: staged as renamed, else renamed by a commit since the save (drift's `diff -M`).
  const moves = new Map<string, string>([...(opts.moves ?? []), ...opts.staged]);
  const renames = new Map(opts.gone.flatMap((p) => (moves.has(p) ? [[p, moves.get(p)!] as const] : [])));
  const paths = [...new Set([...opts.cleaned, ...renames.values()])].filter((p) => !UNASKED.test(p));
  if (paths.length === 0) return { onHead: [], elsewhere: [], stashes: [], renames };
  const specs = ["--", ...paths.map((p) => pathspecOf(p))];
  const since = opts.savedDateMs === null ? [] : [`--since=@${Math.floor(opts.savedDateMs / 1000)}`];
  const bound = opts.savedHead !== null ? [`^${opts.savedHead}`] : [...since, "--max-count=500"];
  const run = async (args: string[]) => {
    const r = await git(args);
    return r.code === 0 ? parseRawLog(r.stdout) : null;
  };
  const entries = opts.gitDir === null ? [] : stashEntries(opts.gitDir);
  const stashes = entries.length;
  const notHead = opts.headExists ? ["^HEAD"] : [];
  const format = "--format=%x01%H %ct";
  const stashLog = ["log", "-g", "--diff-merges=first-parent", ...RAW, "--format=%x01%gd", "refs/stash", ...specs];
  const [onHead, elsewhere, tracked, untracked] = await Promise.all([
    opts.headExists ? run(["log", MERGES, ...RAW, format, "HEAD", ...bound, ...specs]) : [],
    run(["log", MERGES, ...RAW, format, "--exclude=refs/stash", "--all", ...notHead, ...bound, ...specs]),
    stashes > 0 ? run(stashLog) : [], untrackedInStashes(git, stashes, paths),
  ]);
  // An entry's untracked files count as what it changed, beside its tracked changes; its time is its reflog line's.
  const n = (name: string) => Number(/\d+/.exec(name)?.[0] ?? 0);
  const byName = new Map<string, Touch>();
  for (const t of tracked ?? []) byName.set(t.name, t);
  for (const u of untracked.found) {
    const t = byName.get(u.stash) ?? { name: u.stash, time: null, paths: new Map<string, string>() };
    t.paths.set(u.p, u.id);
    byName.set(u.stash, t);
  }
  for (const t of byName.values()) t.time = entries[n(t.name)]?.sec ?? null;
  // Another worktree's stash entry holds none of this one's work.
  const own = [...byName.values()].filter((t) => entries[n(t.name)]?.own !== false);
  const all = tracked === null ? null : own.sort((a, b) => n(a.name) - n(b.name));
  return { onHead, elsewhere, stashes: all, renames, unasked: untracked.unasked };
}
