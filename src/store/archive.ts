import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import path from "node:path";
import { randomHex8 } from "./files.ts";

/** How many archived handoffs are kept (contract §1). */
export const ARCHIVE_KEEP = 5;

/** Archive names `show`/`restore` accept, as the reference's (contract §5). */
export const ARCHIVE_NAME = /^HANDOFF-[A-Za-z0-9._-]+\.md$/;

/**
 * The names pruning may delete, and the only ones its unsafe-entry check looks at (contract
 * §2, §13 ruling 28): the names the helpers make themselves. A user's own file in `archive/`
 * (`HANDOFF-my notes (copy).md`, `HANDOFF-linked.md`) is never deleted nor blocks pruning.
 */
export const PRUNABLE_NAME = /^HANDOFF-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3,6}Z-[0-9a-f]{8}\.md$/;

const NAME_TIME = /^HANDOFF-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})(?:\.(\d{1,9}))?Z-/;

/**
 * The archive time stamp: UTC `%Y-%m-%dT%H-%M-%S.%fZ` with six fraction digits (milliseconds
 * padded with zeros, as contract §1 allows).
 */
export function archiveStamp(now: Date): string {
  return now.toISOString().replace(/:/g, "-").replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** A fresh archive name for `prefix` (`HANDOFF`, `LESSONS`, …): `<prefix>-<stamp>-<8 hex>.md`. */
export function archiveName(prefix: string, now = new Date()): string {
  return `${prefix}-${archiveStamp(now)}-${randomHex8()}.md`;
}

function sortKey(name: string, mtimeMs: number): string {
  const m = NAME_TIME.exec(name);
  if (m) return `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}`;
  return archiveStamp(new Date(mtimeMs)).replace(/Z$/, "").padEnd(29, "0");
}

/** Result of pruning the handoff archive. */
export interface PruneResult {
  deleted: string[];
  warnings: string[];
}

/**
 * Keeps the `ARCHIVE_KEEP` newest archived handoffs (by the time in their names, then by
 * modification time) and deletes the rest; `justArchived`, the entry the current save made,
 * is always among those kept. Only names matching `PRUNABLE_NAME` are candidates; if any of
 * them is a link, has more than one link or is not a regular file, nothing is deleted and a
 * warning says why (contract §2, ruling 28). Failures are warnings, never refusals: the save already succeeded.
 */
export function pruneArchive(dir: string, justArchived: string | null = null): PruneResult {
  const warnings: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    return { deleted: [], warnings: [`archive pruning skipped: cannot list ${dir}: ${(err as Error).message}`] };
  }
  const entries: { name: string; key: string; mtimeMs: number }[] = [];
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
        warnings: [`archive pruning skipped: archive/${name} is a link, hard-linked or not a regular file; nothing was deleted (move it away to resume pruning)`],
      };
    }
    entries.push({ name, key: sortKey(name, st.mtimeMs), mtimeMs: st.mtimeMs });
  }
  entries.sort((a, b) => (a.key === b.key ? b.mtimeMs - a.mtimeMs : a.key < b.key ? 1 : -1));
  // The version this save just archived is never the one pruned, even when other names carry
  // later times (a clock that ran ahead, archives pulled from another machine): it would be
  // lost in the same save that reported keeping it (contract §3).
  const kept = entries.filter((e) => e.name === justArchived);
  const rest = entries.filter((e) => e.name !== justArchived);
  const doomed = rest.slice(Math.max(0, ARCHIVE_KEEP - kept.length));
  const deleted: string[] = [];
  for (const entry of doomed) {
    try {
      unlinkSync(path.join(dir, entry.name));
      deleted.push(entry.name);
    } catch (err) {
      warnings.push(`archive pruning: could not delete archive/${entry.name}: ${(err as Error).message}`);
    }
  }
  return { deleted, warnings };
}
