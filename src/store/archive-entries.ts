// The archived handoffs as `archives` and `validate` see them (docs/design.md#files-on-disk): names
// matching the reference's broad pattern, newest first, read safely one at a time.
import { quotedPath } from "../schema/anchor-lines.ts";
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { Absent, Refused } from "../errors.ts";
import { ARCHIVE_NAME, newestFirst } from "./archive.ts";
import { readStable, UnsafeFile, type ReadFile } from "./files.ts";
import { archiveDir, checkTree } from "./paths.ts";

/** One archive entry: its bare name, modification time (ms) and whether it is a usable file. */
export interface ArchiveEntry {
  name: string;
  mtimeMs: number;
  /** False for a link, a hard-linked file or anything not a regular file (listed, never read). */
  regular: boolean;
}

/**
 * Lists `archive/HANDOFF-*.md` entries matching `^HANDOFF-[A-Za-z0-9._-]+\.md$` (docs/design.md#files-on-disk),
 * newest first (`newestFirst`: by `<seq>`, names without one below, docs/decisions/archive-order.md). Other files in
 * `archive/` (a user's own, ledger archives) are not listed and never touched.
 * @returns [] when there is no archive folder.
 * @throws Refused (exit 2) when the memory tree is unsafe (a link, not a directory).
 */
export function listArchives(root: string): ArchiveEntry[] {
  if (!checkTree(root)) return [];
  const dir = archiveDir(root);
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return [];
  }
  if (st.isSymbolicLink() || !st.isDirectory()) throw new Refused(`${dir} is a link or not a directory; move it away`);
  const out: ArchiveEntry[] = [];
  for (const name of readdirSync(dir)) {
    if (!ARCHIVE_NAME.test(name)) continue;
    try {
      const s = lstatSync(path.join(dir, name));
      out.push({ name, mtimeMs: s.mtimeMs, regular: s.isFile() && !s.isSymbolicLink() && s.nlink === 1 });
    } catch {
      // Gone since the listing.
    }
  }
  return out.sort(newestFirst);
}

/**
 * Reads one archived handoff by its bare name, safely (no link followed, one link, no torn read).
 * @throws Refused (exit 2) for a name outside the pattern or an unsafe entry; Absent (exit 3)
 *   when there is no such archive (docs/design.md#tokens-and-the-publication-protocol).
 */
export async function readArchive(root: string, name: string): Promise<ReadFile> {
  if (!ARCHIVE_NAME.test(name)) {
    const shape = "HANDOFF-<letters, digits, . _ ->.md";
    throw new Refused(`${quotedPath(name.slice(0, 100))} is not an archive name (${shape}); run \`archives list\``);
  }
  const got = checkTree(root) ? await readStable(path.join(archiveDir(root), name)) : null;
  if (got === null) throw new Absent(`no archived handoff named ${name}; run \`archives list\``);
  if (got.stat.nlink !== 1n) throw new UnsafeFile("hard-linked", path.join(archiveDir(root), name));
  return got;
}
