// The `checkpoints/` folder (docs/design.md#checkpoints) as the session-start verbs see it
// (hook, check, read): listing and the hook's delivered-once markers. Retention and leftovers
// are in checkpoint-cleanup.ts.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, unlinkSync } from "node:fs";
import path from "node:path";
import { nodeCrypto } from "../builtins.ts";
import { CHECKPOINT_NAME, headerValue, isAnchorsOnlySource, isCheckpointText } from "../schema/checkpoint-name.ts";
import { parseStrictTime } from "../schema/values.ts";
import { createExclusive } from "./files.ts";
import { hasPrivatePartner } from "./private.ts";
import { memoryDir } from "./paths.ts";

/** The `.gitignore` of ours in checkpoints/: transcript captures are never committed. */
export const CHECKPOINTS_GITIGNORE = "# Written by session-handoff: session checkpoints, never committed.\n*\n";

export function checkpointsDir(root: string): string {
  return path.join(memoryDir(root), "checkpoints");
}

// Names that no two ids share on a case-insensitive file system (macOS, Windows) and that
// Windows can create (docs/design.md#checkpoints).
const FILE_SAFE_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

// The test of guard/token-shape.ts's mayHoldToken, kept here so the session bundle loads no redaction rules.
function mayBeToken(id: string): boolean {
  for (const m of id.matchAll(/[A-Za-z0-9_]{16,}/g)) if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) return true;
  return false;
}

/**
 * The file-name form of a session id: the id itself when it is a safe name on every system (no Windows device
 * name) and holds nothing that may be a token; else the first 16 hex of its SHA-256; `unknown` when missing.
 */
export function sessionFileId(id: unknown): string {
  if (typeof id !== "string" || id === "") return "unknown";
  const reserved = WINDOWS_RESERVED.test(id.split(".", 1)[0]!);
  if (FILE_SAFE_ID.test(id) && !id.endsWith(".") && !reserved && !mayBeToken(id)) return id;
  return nodeCrypto().createHash("sha256").update(id, "utf8").digest("hex").slice(0, 16);
}

/** Whether `checkpoints/` is missing, a real folder (`ok`), or a link or not a folder (`unsafe`: never used). */
export function checkpointsDirState(root: string): "missing" | "ok" | "unsafe" {
  try {
    const st = lstatSync(checkpointsDir(root));
    return st.isDirectory() && !st.isSymbolicLink() ? "ok" : "unsafe";
  } catch {
    return "missing";
  }
}

/** One checkpoint file seen from outside: its session id, its `Saved:` and `Session-start:` instants (ms). */
export interface CheckpointEntry {
  session: string;
  name: string;
  savedMs: number | null;
  sessionStartMs: number | null;
  /** Its `Since-handoff:` token: the save of the session it captures the work after, or null. */
  since: string | null;
  /** True when it holds the anchors only (no transcript read): never announced, never parked. */
  anchorsOnly: boolean;
}

const HEAD = 1024;

/**
 * Reads the first bytes of a regular file with one link (or two, the other being a private
 * temp of an unfinished publication) without following a link or blocking; null otherwise.
 */
export function readHead(filePath: string, bytes = HEAD): string | null {
  return readHeadBytes(filePath, bytes)?.toString("utf8") ?? null;
}

/** {@link readHead}'s bytes, undecoded (at most `bytes`, 1 MB by default here: a handoff's cap). */
export function readHeadBytes(filePath: string, bytes = 1_000_000): Buffer | null {
  return readHeadAndTime(filePath, bytes)?.bytes ?? null;
}

/** {@link readHeadBytes} with the file's mtime in ns, from the same fstat (no second stat of the name). */
function readHeadAndTime(filePath: string, bytes: number): { bytes: Buffer; mtimeNs: bigint } | null {
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
    // still the whole new version, so a crash there hides nothing (docs/design.md#checkpoints).
    const partnered = st.nlink === 2n && hasPrivatePartner(path.dirname(filePath), path.basename(filePath), st.ino);
    if (st.nlink !== 1n && !partnered) return null;
    const want = Math.min(bytes, Number(st.size) + 1);
    const buf = Buffer.alloc(want);
    const n = readSync(fd, buf, 0, want, 0);
    return { bytes: buf.subarray(0, n), mtimeNs: st.mtimeNs };
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
 * marker and `# Session Checkpoint` count (docs/design.md#checkpoints); anything else is ignored.
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
  const mtimes = new Map<string, bigint>();
  for (const name of names) {
    if (!CHECKPOINT_NAME.test(name)) continue;
    const read = readHeadAndTime(path.join(checkpointsDir(root), name), HEAD);
    if (read === null) continue;
    const head = read.bytes.toString("utf8");
    if (!isCheckpointText(head)) continue;
    out.push({
      session: name.slice(0, -3),
      name,
      savedMs: timeOf(headerValue(head, "Saved"), now),
      sessionStartMs: timeOf(headerValue(head, "Session-start"), now),
      since: headerValue(head, "Since-handoff"),
      anchorsOnly: isAnchorsOnlySource(headerValue(head, "Source")),
    });
    mtimes.set(name, read.mtimeNs);
  }
  // `Saved:` has whole seconds: two sessions ending in one second tie, and the one written last
  // is the newer (a name order would name the older one again, after it was already told:
  // docs/decisions/checkpoint-after-last-save.md#once-per-token). Then by name in code-unit
  // order: the same on every machine, and no ICU collator to load (localeCompare's first call
  // cost the hook ~3 ms when two checkpoints shared a second).
  const later = (a: CheckpointEntry, b: CheckpointEntry): number => {
    const ma = mtimes.get(a.name) ?? 0n;
    const mb = mtimes.get(b.name) ?? 0n;
    return ma === mb ? 0 : mb > ma ? 1 : -1;
  };
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return out.sort((a, b) => (b.savedMs ?? -Infinity) - (a.savedMs ?? -Infinity) || later(a, b) || byName(a, b));
}

/** Removes a regular file or a link (never followed), quietly. */
export function rmQuietRegular(p: string): void {
  try {
    const st = lstatSync(p);
    if (st.isFile() || st.isSymbolicLink()) unlinkSync(p);
  } catch {
    // nothing there
  }
}

/** Path of the delivered-once marker of a session (docs/design.md#checkpoints). */
export function deliveredPath(root: string, session: string): string {
  return path.join(checkpointsDir(root), `.delivered-${session}`);
}

/** The token recorded in a session's delivered-once marker, or null (missing, a link, not a file). */
export function readDelivered(root: string, session: string): string | null {
  const text = readHead(deliveredPath(root, session), 128);
  return text === null ? null : text.trim();
}

/**
 * Records that the checkpoint with `token` was announced to `session` (docs/design.md#checkpoints): the old
 * marker is removed, then a new one created exclusively, without following a link; best
 * effort and without the lock. @returns false when it could not be written.
 */
export function writeDelivered(root: string, session: string, token: string): boolean {
  const p = deliveredPath(root, session);
  rmQuietRegular(p);
  return createExclusive(p, `${token}\n`);
}

