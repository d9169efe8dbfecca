// The `checkpoints/` folder of contract §12 (rulings 22–23): listing, retention, leftovers
// and the hook's delivered-once markers. Only names matching the checkpoint pattern are ever
// deleted as checkpoints; only `.delivered-<id>` and private temp/claim names otherwise.
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readdirSync, readSync, unlinkSync, writeSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { CHECKPOINT_NAME, headerValue, isCheckpointText, SESSION_ID } from "../schema/checkpoint.ts";
import { parseStrictTime } from "../schema/values.ts";
import { hasPrivatePartner, listPrivate } from "./private.ts";
import { memoryDir } from "./paths.ts";

/** Checkpoints of this many sessions are kept (contract §12). */
export const CHECKPOINT_KEEP = 5;

/** `<root>/.ai/memory/checkpoints`. */
export function checkpointsDir(root: string): string {
  return path.join(memoryDir(root), "checkpoints");
}

/**
 * The file-name form of a session id (ruling 22): the id itself when it matches
 * `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`, else the first 16 hex of its SHA-256; `unknown`
 * when missing or empty.
 */
export function sessionFileId(id: unknown): string {
  if (typeof id !== "string" || id === "") return "unknown";
  if (SESSION_ID.test(id)) return id;
  return createHash("sha256").update(id, "utf8").digest("hex").slice(0, 16);
}

/** Whether `checkpoints/` is missing, a real folder (`ok`), or a link or not a folder (`unsafe`: never used, ruling 23). */
export function checkpointsDirState(root: string): "missing" | "ok" | "unsafe" {
  try {
    const st = lstatSync(checkpointsDir(root));
    return st.isDirectory() && !st.isSymbolicLink() ? "ok" : "unsafe";
  } catch {
    return "missing";
  }
}

/** One checkpoint file as seen from outside: its session id, its `Saved:` and `Session-start:` instants (ms) when they parse. */
export interface CheckpointEntry {
  session: string;
  name: string;
  savedMs: number | null;
  sessionStartMs: number | null;
}

const HEAD = 1024;

/**
 * Reads the first bytes of a regular file with one link (or two, the other being a private
 * temp of an unfinished publication) without following a link or blocking; null otherwise.
 */
export function readHead(filePath: string, bytes = HEAD): string | null {
  let fd: number;
  try {
    fd = openSync(filePath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile()) return null;
    // Two links only while a checkpoint's publication is unfinished (its temp is the other):
    // still the whole new version, so a crash there hides nothing (ruling 23).
    if (st.nlink !== 1n && !(st.nlink === 2n && hasPrivatePartner(path.dirname(filePath), path.basename(filePath), st.ino))) return null;
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function timeOf(value: string | null, now: number): number | null {
  if (value === null) return null;
  const t = parseStrictTime(value, now);
  return "ms" in t ? t.ms : null;
}

/**
 * The checkpoints in `checkpoints/`, newest `Saved:` first (unparseable times last). Only
 * regular single-link files whose name matches the pattern and whose first lines hold the
 * marker and `# Session Checkpoint` count (ruling 22); anything else is ignored (ruling 23).
 */
export function listCheckpoints(root: string, now = Date.now()): CheckpointEntry[] {
  if (checkpointsDirState(root) !== "ok") return [];
  let names: string[];
  try {
    names = readdirSync(checkpointsDir(root));
  } catch {
    return [];
  }
  const out: CheckpointEntry[] = [];
  for (const name of names) {
    if (!CHECKPOINT_NAME.test(name)) continue;
    const head = readHead(path.join(checkpointsDir(root), name));
    if (head === null || !isCheckpointText(head)) continue;
    out.push({ session: name.slice(0, -3), name, savedMs: timeOf(headerValue(head, "Saved"), now), sessionStartMs: timeOf(headerValue(head, "Session-start"), now) });
  }
  return out.sort((a, b) => (b.savedMs ?? -Infinity) - (a.savedMs ?? -Infinity) || a.name.localeCompare(b.name));
}

/**
 * Keeps the checkpoints of the five newest sessions by `Saved:` (contract §12, ruling 22),
 * never `keep` (the one just written); deletes only names matching the checkpoint pattern,
 * and their delivered-once markers. @returns the names deleted.
 */
export function pruneCheckpoints(root: string, keep: string): string[] {
  const list = listCheckpoints(root);
  const survivors = new Set(list.slice(0, CHECKPOINT_KEEP).map((e) => e.name));
  survivors.add(keep);
  const deleted: string[] = [];
  for (const e of list) {
    if (survivors.has(e.name) || deleted.length >= list.length - CHECKPOINT_KEEP) continue;
    try {
      unlinkSync(path.join(checkpointsDir(root), e.name));
      deleted.push(e.name);
    } catch {
      // Gone meanwhile, or not ours to delete: retention is best effort.
    }
    rmQuietRegular(path.join(checkpointsDir(root), `.delivered-${e.session}`));
  }
  return deleted;
}

function rmQuietRegular(p: string): void {
  try {
    const st = lstatSync(p);
    if (st.isFile() || st.isSymbolicLink()) unlinkSync(p);
  } catch {
    // nothing there
  }
}

/**
 * Removes what an interrupted checkpoint left in `checkpoints/` (ruling 23): temp files are
 * dropped; a claim goes back as the checkpoint when none is there, else it is dropped (a
 * checkpoint is never archived); markers of sessions with no checkpoint are dropped. Only
 * private names of the helper are touched, and only regular files or links (never followed).
 * @returns one line per action.
 */
export function cleanCheckpointLeftovers(root: string): string[] {
  const dir = checkpointsDir(root);
  if (checkpointsDirState(root) !== "ok") return [];
  const actions: string[] = [];
  const entries = listPrivate(dir).filter((e) => CHECKPOINT_NAME.test(e.file));
  for (const e of [...entries.filter((x) => x.role === "tmp"), ...entries.filter((x) => x.role === "claim")]) {
    let st;
    try {
      st = lstatSync(e.path);
    } catch {
      continue;
    }
    if (st.isDirectory()) continue;
    if (e.role === "claim" && st.isFile()) {
      try {
        linkSync(e.path, path.join(dir, e.file));
        actions.push(`checkpoints/${e.file}: put back the version an interrupted checkpoint had claimed`);
      } catch {
        // A checkpoint is current: the claim was the version it replaced.
      }
    }
    try {
      unlinkSync(e.path);
      actions.push(`checkpoints/${e.file}: dropped ${e.name} left by an interrupted checkpoint`);
    } catch {
      // gone meanwhile
    }
  }
  try {
    for (const name of readdirSync(dir)) {
      const m = /^\.delivered-(.+)$/.exec(name);
      if (m && !CHECKPOINT_NAME.test(`${m[1]}.md`)) continue;
      if (m && readHead(path.join(dir, `${m[1]}.md`), 1) === null) rmQuietRegular(path.join(dir, name));
    }
  } catch {
    // best effort
  }
  return actions;
}

/** Path of the delivered-once marker of a session (ruling 23). */
export function deliveredPath(root: string, session: string): string {
  return path.join(checkpointsDir(root), `.delivered-${session}`);
}

/** The token recorded in a session's delivered-once marker, or null (missing, a link, not a file). */
export function readDelivered(root: string, session: string): string | null {
  const text = readHead(deliveredPath(root, session), 128);
  return text === null ? null : text.trim();
}

/**
 * Records that the checkpoint with `token` was announced to `session` (ruling 23): the old
 * marker is removed, then a new one created exclusively, without following a link; best
 * effort and without the lock. @returns false when it could not be written.
 */
export function writeDelivered(root: string, session: string, token: string): boolean {
  const p = deliveredPath(root, session);
  rmQuietRegular(p);
  let fd: number;
  try {
    fd = openSync(p, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch {
    return false;
  }
  try {
    writeSync(fd, `${token}\n`);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

