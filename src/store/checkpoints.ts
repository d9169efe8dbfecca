// The `checkpoints/` folder as the session-start verbs see it (hook, check, read): listing, reading and
// the hook's delivered-once markers. Retention and leftovers are in checkpoint-cleanup.ts.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, unlinkSync } from "node:fs";
import path from "node:path";
import { CHECKPOINT_NAME, headerValue, isAnchorsOnlySource, isCheckpointText } from "../schema/checkpoint-name.ts";
import type { CheckpointSections } from "../schema/checkpoint.ts";
import { parseStrictTime } from "../schema/values.ts";
import { createExclusive, tokenOf } from "./files.ts";
import { hasPrivatePartner, listDir } from "./private.ts";
import { memoryDir } from "./paths.ts";

export const CHECKPOINTS_GITIGNORE = "# Written by session-handoff: session checkpoints, never committed.\n*\n";

export function checkpointsDir(root: string): string {
  return path.join(memoryDir(root), "checkpoints");
}

// Names that no two ids share on a case-insensitive file system and that Windows can create.
const FILE_SAFE_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

// The test of guard/token-shape.ts's mayHoldToken, kept here so the session bundle loads no redaction rules.
function mayBeToken(id: string): boolean {
  for (const m of id.matchAll(/[A-Za-z0-9_]{16,}/g)) if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) return true;
  return false;
}

/** A session id as a file name: itself when safe everywhere and not token-like, else 16 hex of its SHA-256. */
export function sessionFileId(id: unknown): string {
  if (typeof id !== "string" || id === "") return "unknown";
  const reserved = WINDOWS_RESERVED.test(id.split(".", 1)[0]!);
  if (FILE_SAFE_ID.test(id) && !id.endsWith(".") && !reserved && !mayBeToken(id)) return id;
  return tokenOf(id).slice(0, 16);
}

/** `unsafe`: a link or not a folder, never used. */
export function checkpointsDirState(root: string): "missing" | "ok" | "unsafe" {
  try {
    const st = lstatSync(checkpointsDir(root));
    return st.isDirectory() && !st.isSymbolicLink() ? "ok" : "unsafe";
  } catch {
    return "missing";
  }
}

export interface CheckpointEntry {
  session: string;
  name: string;
  savedMs: number | null;
  sessionStartMs: number | null;
  // Its `Since-handoff:`: the token of the save it captures the work after.
  since: string | null;
  // No transcript was read: never announced, never parked.
  anchorsOnly: boolean;
}

/** One reading of a checkpoint as written: its triggers oldest first, its source, and each section's items. */
export function readCheckpointText(text: string): CheckpointSections {
  const trigger = /^Trigger: ([a-z-]+)(?: \(earlier: ([a-z, -]+)\))?$/m.exec(text);
  const triggers = trigger === null ? [] : [...(trigger[2]?.split(", ") ?? []), trigger[1]!];
  const source = /^Source: (.*)$/m.exec(text)?.[1] ?? null;
  const items = new Map<string, string[]>();
  const dropped = new Map<string, number>();
  let section: string | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) {
      section = line;
      items.set(section, []);
    } else if (section !== null && line.startsWith("- ") && line !== "- none captured") {
      const older = /^- \((\d+) older left out\)$/.exec(line);
      if (older) dropped.set(section, Number(older[1]));
      else items.get(section)!.push(line);
    }
  }
  return { triggers, source, items, dropped };
}

/** The first bytes of a regular file without following a link or blocking; null otherwise. */
export function readHead(filePath: string, bytes = 1024): string | null {
  return readHeadAndTime(filePath, bytes)?.bytes.toString("utf8") ?? null;
}

export function readHeadBytes(filePath: string, bytes = 1_000_000): Buffer | null {
  return readHeadAndTime(filePath, bytes)?.bytes ?? null;
}

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
    // Two links only while a publication is unfinished (its temp is the other): still the whole new version.
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
  const t = value === null ? null : parseStrictTime(value, now);
  return t !== null && "ms" in t ? t.ms : null;
}

/** The checkpoints in `checkpoints/`, newest `Saved:` first; anything not shaped like one is ignored. */
export function listCheckpoints(root: string, now = Date.now()): CheckpointEntry[] {
  if (checkpointsDirState(root) !== "ok") return [];
  const out: (CheckpointEntry & { mtimeNs: bigint })[] = [];
  for (const name of listDir(checkpointsDir(root))) {
    if (!CHECKPOINT_NAME.test(name)) continue;
    const read = readHeadAndTime(path.join(checkpointsDir(root), name), 1024);
    const head = read?.bytes.toString("utf8") ?? "";
    if (read === null || !isCheckpointText(head)) continue;
    const savedMs = timeOf(headerValue(head, "Saved"), now);
    const sessionStartMs = timeOf(headerValue(head, "Session-start"), now);
    const since = headerValue(head, "Since-handoff");
    const anchorsOnly = isAnchorsOnlySource(headerValue(head, "Source"));
    out.push({ session: name.slice(0, -3), name, savedMs, sessionStartMs, since, anchorsOnly, mtimeNs: read.mtimeNs });
  }
  // Two sessions ending in one second tie on `Saved:`: the one written last is the newer (a name order would
  // tell the older one again: docs/decisions/checkpoint-after-last-save.md#once-per-token). Then code-unit name
  // order: the same on every machine, and no ICU collator to load (~3 ms of the hook).
  const order = <T extends bigint | string>(a: T, b: T) => (a === b ? 0 : a < b ? -1 : 1);
  const saved = (e: CheckpointEntry) => e.savedMs ?? -Infinity;
  return out.sort((a, b) => saved(b) - saved(a) || order(b.mtimeNs, a.mtimeNs) || order(a.name, b.name));
}

export function rmQuietRegular(p: string): void {
  try {
    const st = lstatSync(p);
    if (st.isFile() || st.isSymbolicLink()) unlinkSync(p);
  } catch {
    // nothing there
  }
}

function deliveredPath(root: string, session: string): string {
  return path.join(checkpointsDir(root), `.delivered-${session}`);
}

export function readDelivered(root: string, session: string): string | null {
  return readHead(deliveredPath(root, session), 128)?.trim() ?? null;
}

/** Records that the checkpoint `token` was told to `session`: best effort, without the lock or a link. */
export function writeDelivered(root: string, session: string, token: string): boolean {
  const p = deliveredPath(root, session);
  rmQuietRegular(p);
  return createExclusive(p, `${token}\n`);
}
