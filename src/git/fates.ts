// What became of each file dirty at the save (docs/design.md#what-became-of-the-dirty-files):
// exactly one fate per file, told from git's own records, so that drift's summary, its JSON
// and the brief read one answer and can never disagree.
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import path from "node:path";
import type { DirtyHash } from "../schema/anchor-lines.ts";
import type { GitResult } from "./run.ts";

/** One file's fate since the save; `commit` and `stash` say where its saved content now is. */
export type DirtyFate =
  | { path: string; fate: "committed"; commit: string; onHead: boolean }
  | { path: string; fate: "stashed"; stash: string }
  | { path: string; fate: "reverted" | "changed" | "unchanged" | "dirty" | "not-here" | "clean" };

/** One commit (or stash entry) of a `--raw -z` log: its name and the new blob id of each path it touched. */
interface Touch {
  name: string;
  paths: Map<string, string>;
}

/** Parses `git log --raw --no-abbrev --no-renames -z --format=%x01<name>`. Pure. */
export function parseRawLog(out: Buffer | string): Touch[] {
  const text = typeof out === "string" ? out : out.toString("utf8");
  return text
    .split("\x01")
    .slice(1)
    .map((rec) => {
      const [name = "", ...rest] = rec.split("\0");
      const paths = new Map<string, string>();
      for (let i = 0; i + 1 < rest.length; i += 2) {
        const meta = rest[i]!.replace(/^\n/, "");
        if (!meta.startsWith(":")) break;
        // `:<old mode> <new mode> <old id> <new id> <status>`: a deletion's new id is all zeros.
        paths.set(rest[i + 1]!, meta.split(" ")[3] ?? "");
      }
      return { name: name.trim(), paths };
    });
}

const ZERO = /^0+$/;

/** Inputs of `fatesOf`: the saved anchors, the status now, and the logs git gave (null: not run or failed). */
export interface FateInputs {
  savedDirty: readonly string[];
  hashes: readonly DirtyHash[];
  nowDirty: readonly string[];
  /** Blob id of a path's working-tree file now, or null (absent, a folder). */
  blobNow: (p: string) => string | null;
  /** Commits since the save on HEAD, newest first. */
  onHead: Touch[] | null;
  /** Commits since the save on other refs (never refs/stash), newest first. */
  elsewhere: Touch[] | null;
  /** Stash entries, `stash@{0}` first, each diffed against the commit it was made on. */
  stashes: Touch[] | null;
  /** The handoff was saved in another clone: its uncommitted work is not here. */
  fromElsewhere: boolean;
  /** The walks started at the saved commit (its object is here): finding nothing then means reverted. */
  fromSaved: boolean;
}

/** Each saved dirty path's one fate, in the saved order. Pure. */
export function fatesOf(i: FateInputs): DirtyFate[] {
  const hashOf = new Map(i.hashes.map((h) => [h.path, h.id]));
  return i.savedDirty.map((p): DirtyFate => {
    const saved = hashOf.get(p);
    const known = saved !== undefined && saved !== "over 8 MB";
    if (i.nowDirty.includes(p)) {
      if (!known) return { path: p, fate: "dirty" };
      const now = i.blobNow(p);
      return { path: p, fate: (saved === "deleted" ? now === null : now === saved) ? "unchanged" : "changed" };
    }
    // A folder (untracked when saved) is taken in by any change under it; a file by its saved content.
    const sameContent = (id: string) => !known || (saved === "deleted" ? ZERO.test(id) : id === saved);
    const holds = (t: Touch) =>
      [...t.paths].some(([q, id]) => (p.endsWith("/") ? q.startsWith(p) : q === p && sameContent(id)));
    const head = i.onHead?.find(holds);
    if (head) return { path: p, fate: "committed", commit: head.name, onHead: true };
    const stash = i.stashes?.find(holds);
    if (stash) return { path: p, fate: "stashed", stash: stash.name };
    const other = i.elsewhere?.find(holds);
    if (other) return { path: p, fate: "committed", commit: other.name, onHead: false };
    if (i.fromElsewhere) return { path: p, fate: "not-here" };
    if (!i.fromSaved || i.onHead === null || i.stashes === null) return { path: p, fate: "clean" };
    return { path: p, fate: "reverted" };
  });
}

/**
 * True when this clone was made after `savedMs`: the first line of its HEAD reflog is git's
 * `clone:` entry, dated later. Such a clone cannot hold the saving machine's uncommitted work.
 */
export function clonedAfter(gitDir: string | null, savedMs: number | null): boolean {
  if (gitDir === null || savedMs === null) return false;
  try {
    const fd = openSync(path.join(gitDir, "logs", "HEAD"), "r");
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    closeSync(fd);
    const m = / (\d+) [+-]\d{4}\tclone: /.exec(buf.subarray(0, n).toString("utf8").split("\n")[0] ?? "");
    return m !== null && Number(m[1]) * 1000 >= savedMs;
  } catch {
    return false;
  }
}

const RAW = ["--raw", "--no-abbrev", "--no-renames", "-z"];

/**
 * Runs the logs `fatesOf` needs, only for the saved dirty files clean now (none: no process):
 * commits since the save on HEAD and on other refs, and the stash's entries, in parallel.
 * `savedHead` is null when its object is not here: the saved date then bounds the walk.
 */
export async function gatherFateLogs(
  git: (args: readonly string[]) => Promise<GitResult>,
  opts: {
    top: string;
    commonDir: string | null;
    savedHead: string | null;
    savedDateMs: number | null;
    cleaned: readonly string[];
    headExists: boolean;
  },
): Promise<Pick<FateInputs, "onHead" | "elsewhere" | "stashes">> {
  if (opts.cleaned.length === 0) return { onHead: [], elsewhere: [], stashes: [] };
  const specs = ["--", ...opts.cleaned.map((p) => `:(top,literal)${p}`)];
  const since = opts.savedDateMs === null ? [] : [`--since=@${Math.floor(opts.savedDateMs / 1000)}`];
  const bound = opts.savedHead !== null ? [`^${opts.savedHead}`] : [...since, "--max-count=500"];
  const run = async (args: string[]) => {
    const r = await git(args);
    return r.code === 0 ? parseRawLog(r.stdout) : null;
  };
  const hasStash = opts.commonDir !== null && existsSync(path.join(opts.commonDir, "logs", "refs", "stash"));
  const notHead = opts.headExists ? ["^HEAD"] : [];
  const [onHead, elsewhere, stashes] = await Promise.all([
    opts.headExists ? run(["log", ...RAW, "--format=%x01%H", "HEAD", ...bound, ...specs]) : [],
    run(["log", ...RAW, "--format=%x01%H", "--exclude=refs/stash", "--all", ...notHead, ...bound, ...specs]),
    hasStash ? run(["log", "-g", "--diff-merges=first-parent", ...RAW, "--format=%x01%gd", "refs/stash", ...specs])
      : [],
  ]);
  return { onHead, elsewhere, stashes };
}
