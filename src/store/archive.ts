import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import path from "node:path";
import { randomHex8 } from "./files.ts";
import { readSettings } from "./settings.ts";

/** How many archived handoffs are kept unless settings.json says otherwise (docs/design.md#files-on-disk). */
export const ARCHIVE_KEEP = 5;

/** Archive names `show`/`restore` accept, as the reference's (docs/design.md#files-on-disk). */
export const ARCHIVE_NAME = /^HANDOFF-[A-Za-z0-9._-]+\.md$/;

/**
 * The names pruning may delete, and the only ones its unsafe-entry check looks at (docs/decisions/archive-order.md):
 * the names the helpers make themselves, the reference's `HANDOFF-<time>-<8 hex>.md` and ours
 * `HANDOFF-<time>-<seq>-<8 hex>.md`. A user's own file in `archive/` (`HANDOFF-my notes (copy).md`,
 * `HANDOFF-linked.md`) is never deleted nor blocks pruning.
 */
export const PRUNABLE_NAME = /^HANDOFF-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3,6}Z-(?:\d{1,30}-)?[0-9a-f]{8}\.md$/;

const NAME_TIME = /^HANDOFF-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})(?:\.(\d{1,9}))?Z-/;
// Ours carry a sequence number between the time and the random part.
const NAME_SEQ = /^HANDOFF-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{1,9})?Z-(\d{1,30})-[0-9a-f]{8}\.md$/;

/**
 * The archive time stamp: UTC `%Y-%m-%dT%H-%M-%S.%fZ` with six fraction digits (milliseconds
 * padded with zeros, as docs/design.md#files-on-disk allows).
 */
export function archiveStamp(now: Date): string {
  return now.toISOString().replace(/:/g, "-").replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** The sequence number in an archive name of ours, or null for any other name. */
export function archiveSeq(name: string): bigint | null {
  const m = NAME_SEQ.exec(name);
  return m ? BigInt(m[1]!) : null;
}

/**
 * A fresh archive name for `prefix` (`HANDOFF`): `<prefix>-<stamp>-<seq>-<8 hex>.md`, `<seq>`
 * one more than the largest among the names in `dir` (any clone's; no state file), so the
 * newest save ranks first whatever the clocks said (docs/decisions/archive-order.md).
 * Called under the memory lock; `dir` unreadable or absent counts as empty.
 */
export function archiveName(prefix: string, dir: string, now = new Date()): string {
  let top = 0n;
  try {
    for (const name of readdirSync(dir)) {
      const seq = archiveSeq(name);
      if (seq !== null && seq > top) top = seq;
    }
  } catch {
    // No archive yet: the first is 1.
  }
  return `${prefix}-${archiveStamp(now)}-${top + 1n}-${randomHex8()}.md`;
}

// The time in a name, or the modification time for a name without one, as a sortable string.
function timeKey(name: string, mtimeMs: number): string {
  const m = NAME_TIME.exec(name);
  if (m) return `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}`;
  return archiveStamp(new Date(mtimeMs)).replace(/Z$/, "").padEnd(29, "0");
}

/**
 * Newest first (docs/decisions/archive-order.md): names with a `<seq>` by it, ties by the
 * time in the name, then by name; every other name below them, among themselves by the time
 * in the name (or the mtime), then by mtime. For `Array.prototype.sort`.
 */
export function newestFirst(a: { name: string; mtimeMs: number }, b: { name: string; mtimeMs: number }): number {
  const sa = archiveSeq(a.name);
  const sb = archiveSeq(b.name);
  if (sa !== null || sb !== null) {
    if (sa === null) return 1;
    if (sb === null) return -1;
    if (sa !== sb) return sa > sb ? -1 : 1;
  }
  const ka = timeKey(a.name, a.mtimeMs);
  const kb = timeKey(b.name, b.mtimeMs);
  if (ka !== kb) return ka < kb ? 1 : -1;
  if (sa !== null) return a.name === b.name ? 0 : a.name < b.name ? 1 : -1;
  return b.mtimeMs - a.mtimeMs;
}

/** Result of pruning the handoff archive. */
export interface PruneResult {
  deleted: string[];
  warnings: string[];
  /** How many were to be kept (`archivesKept` of settings.json, else ARCHIVE_KEEP). */
  keep: number;
}

/** How many archived handoffs the memory folder above `dir` keeps, and its settings' problems. */
export function archivesKept(dir: string): { keep: number; problems: string[] } {
  const { settings, problems } = readSettings(path.dirname(dir));
  return { keep: settings.archivesKept, problems };
}

/**
 * Keeps the `ARCHIVE_KEEP` newest archived handoffs (`newestFirst`) and deletes the rest; `justArchived`, the entry
 * the current save made, is always among those kept. Only names matching `PRUNABLE_NAME` are candidates; if any of
 * them is a link, has more than one link or is not a regular file, nothing is deleted and a warning says why
 * (docs/design.md#files-on-disk, docs/design.md#tokens-and-the-publication-protocol). Failures are warnings, never
 * refusals: the save already succeeded.
 */
export function pruneArchive(dir: string, justArchived: string | null = null): PruneResult {
  const { keep, problems } = archivesKept(dir);
  const warnings: string[] = [...problems];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    const why = `archive pruning skipped: cannot list ${dir}: ${(err as Error).message}`;
    return { deleted: [], keep, warnings: [...warnings, why] };
  }
  const entries: { name: string; mtimeMs: number }[] = [];
  for (const name of names) {
    if (!PRUNABLE_NAME.test(name)) continue;
    let st;
    try {
      st = lstatSync(path.join(dir, name));
    } catch {
      continue;
    }
    if (st.isSymbolicLink() || !st.isFile() || st.nlink !== 1) {
      return {
        deleted: [],
        keep,
        warnings: [
          ...warnings,
          `archive pruning skipped: archive/${name} is a link, hard-linked or not a regular file; ` +
            "nothing was deleted (move it away to resume pruning)",
        ],
      };
    }
    entries.push({ name, mtimeMs: st.mtimeMs });
  }
  entries.sort(newestFirst);
  // The version this save just archived is never the one pruned, even when other names carry
  // later times (a clock that ran ahead, archives pulled from another machine): it would be
  // lost in the same save that reported keeping it (docs/design.md#tokens-and-the-publication-protocol).
  const kept = entries.filter((e) => e.name === justArchived);
  const rest = entries.filter((e) => e.name !== justArchived);
  const doomed = rest.slice(Math.max(0, keep - kept.length));
  const deleted: string[] = [];
  for (const entry of doomed) {
    try {
      unlinkSync(path.join(dir, entry.name));
      deleted.push(entry.name);
    } catch (err) {
      warnings.push(`archive pruning: could not delete archive/${entry.name}: ${(err as Error).message}`);
    }
  }
  return { deleted, warnings, keep };
}
