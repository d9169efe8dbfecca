import { quotedPath } from "../guard/quote.ts";
import { readdirSync } from "../builtins.ts";
import path from "node:path";
import { Absent, Refused } from "../errors.ts";
import { ARCHIVE_NAME, newestFirst } from "./archive.ts";
import { lstatOrNull, type ReadFile, readSmall, readStable, UnsafeFile } from "./files.ts";
import { archiveDir, checkTree } from "./paths.ts";

/** The archived handoffs, newest first; `regular` is false for an entry listed but never read (a link, say). */
export function listArchives(root: string): { name: string; mtimeMs: number; regular: boolean }[] {
  if (!checkTree(root)) return [];
  const dir = archiveDir(root);
  const st = lstatOrNull(dir);
  if (st === null) return [];
  if (st.isSymbolicLink() || !st.isDirectory()) throw new Refused(`${dir} is a link or not a directory; move it away`);
  const out = [];
  for (const name of readdirSync(dir)) {
    // Null when gone since the listing.
    const s = ARCHIVE_NAME.test(name) ? lstatOrNull(path.join(dir, name)) : null;
    if (s !== null) out.push({ name, mtimeMs: s.mtimeMs, regular: s.isFile() && !s.isSymbolicLink() && s.nlink === 1 });
  }
  return out.sort(newestFirst);
}

/** @throws Refused (exit 2) for a name that is not an archive's. */
export function assertArchiveName(name: string): void {
  if (!ARCHIVE_NAME.test(name)) {
    const shape = "HANDOFF-<letters, digits, . _ ->.md";
    throw new Refused(`${quotedPath(name.slice(0, 100))} is not an archive name (${shape}); run \`archives list\``);
  }
}

/** Reads one archived handoff by its bare name, safely. @throws Refused (exit 2); Absent (exit 3) for none. */
export async function readArchive(root: string, name: string): Promise<ReadFile> {
  assertArchiveName(name);
  const got = checkTree(root) ? await readStable(path.join(archiveDir(root), name)) : null;
  // A merge commit carries no archive: the one a pulled `Merged-with:` line names stays in the clone that merged.
  const merged = readSmall(path.join(archiveDir(root), "..", "HANDOFF.md"))?.includes(`Merged-with: archive/${name}`);
  const where = merged ? "; HANDOFF.md's Merged-with: line names it, but the clone that made that merge holds it " +
    "until it runs `publish` (a merge commit carries no archive): ask whoever merged to publish" : "";
  if (got === null) throw new Absent(`no archived handoff named ${name}${where}; run \`archives list\``);
  if (got.stat.nlink !== 1n) throw new UnsafeFile("hard-linked", path.join(archiveDir(root), name));
  return got;
}
