// git's blob id of a file's raw bytes, computed in JS (no filters, as `git hash-object
// --no-filters` gives it): what the `- Dirty hashes:` anchor records for a dirty file
// (docs/design.md#verdicts-and-the-brief). No process.
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { commonDirOf } from "./git-files.ts";

/** Files larger than this get `over 8 MB` instead of an id. */
export const MAX_HASHED_BYTES = 8 * 1024 * 1024;
/** Most dirty files hashed (the rest are not anchored by content). */
export const MAX_DIRTY_HASHES = 20;

/** The repository's object format, from `extensions.objectFormat` in its config file. */
export function objectFormat(gitDir: string | null): "sha1" | "sha256" {
  if (gitDir === null) return "sha1";
  try {
    const config = readFileSync(path.join(commonDirOf(gitDir), "config"), "utf8");
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? "sha256" : "sha1";
  } catch {
    return "sha1";
  }
}

/**
 * The blob id of the file at `abs` as git would store it with no filters (a link: its target
 * text), `deleted` when it does not exist, `over 8 MB` past MAX_HASHED_BYTES; null for what git
 * stores no blob for (a folder).
 */
export function blobIdOf(abs: string, format: "sha1" | "sha256"): string | null {
  let st;
  try {
    st = lstatSync(abs);
  } catch {
    return "deleted";
  }
  let bytes: Buffer;
  if (st.isSymbolicLink()) bytes = Buffer.from(readlinkSync(abs));
  else if (!st.isFile()) return null;
  else if (st.size > MAX_HASHED_BYTES) return "over 8 MB";
  else {
    try {
      bytes = readFileSync(abs);
    } catch {
      return null;
    }
  }
  return createHash(format).update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}
