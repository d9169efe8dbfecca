import { closeSync, fstatSync, lstatSync, readSync } from "node:fs";
import path from "node:path";
import { firstNul } from "../guard/file-verdict.ts";
import { openRegular } from "./files.ts";
import { FILE_OF, HEADING_OF, MARKER, MAX_DOCUMENT_BYTES, memoryDir, treeVerdict, type Kind } from "./paths.ts";
import { hasPrivatePartner, listPrivate, lockState, lstatBig } from "./private.ts";
import { archiveExcess, pendingRepairs, plantedPrivate } from "./recover.ts";

/** What a memory file looks like from outside, without using its text (docs/design.md#integrations). */
export type FileStatus = "missing" | "present" | "foreign" | "unsafe" | "interrupted";

/** The state of one memory file, and its modification time when present (ms since epoch). */
export interface FileInspection {
  kind: Kind;
  status: FileStatus;
  mtimeMs: number | null;
  /**
   * With `{ text: true }` and status `present`: the whole file (at most the size limit;
   * docs/design.md#files-on-disk), for numbers derived from it such as the state time (docs/design.md#integrations);
   * null when it changed while it was read. Never printed.
   */
  text?: string | null;
}

const HEAD_BYTES = 4096;

/** Whether the memory tree is unsafe to use (treeVerdict); null when `.ai` or the memory dir is missing. */
export function treeUnsafe(root: string): boolean | null {
  const verdict = treeVerdict(root);
  return verdict === "missing" ? null : verdict !== "ok";
}

/** True when the open file holds a NUL byte within the size limit (`head` holds its first bytes already). */
function holdsNul(fd: number, head: Buffer, n: number): boolean {
  if (firstNul(head.subarray(0, n)) >= 0) return true;
  if (n < head.length) return false;
  const buf = Buffer.allocUnsafe(65536);
  for (let pos = n; pos <= MAX_DOCUMENT_BYTES; ) {
    const got = readSync(fd, buf, 0, buf.length, pos);
    if (got === 0) return false;
    if (firstNul(buf.subarray(0, got)) >= 0) return true;
    pos += got;
  }
  return false;
}

/** Classifies a memory file by its shape only (marker, heading, one link), never returning its text. */
export function inspectFile(root: string, kind: Kind, retry = true, opts: { text?: boolean } = {}): FileInspection {
  const unsafe = treeUnsafe(root);
  if (unsafe === null) return { kind, status: "missing", mtimeMs: null };
  if (unsafe) return { kind, status: "unsafe", mtimeMs: null };
  const memDir = memoryDir(root);
  const file = FILE_OF[kind];
  const mine = listPrivate(memDir).filter((e) => e.file === file);
  // A private name holding what no save leaves (a link, a directory, a foreign hard link): `recover` refuses it, so
  // it is unsafe, not an interrupted save (docs/design.md#tokens-and-the-publication-protocol).
  const planted = mine.length > 0 && plantedPrivate(root).some((p) => p.entry.file === file);
  if (planted) return { kind, status: "unsafe", mtimeMs: null };
  const writerLive = () => liveWriter(memDir);
  let opened;
  try {
    opened = openRegular(path.join(memDir, file));
  } catch {
    // A link, a FIFO, a directory, an unreadable file: all unsafe to load.
    return { kind, status: "unsafe", mtimeMs: null };
  }
  if (opened === null) {
    if (mine.some((e) => e.role === "claim")) {
      // Claimed by a save: in progress (the file is there, being replaced) or interrupted.
      return { kind, status: writerLive() ? "present" : "interrupted", mtimeMs: null };
    }
    // Missing when listed and when opened, unless a save was publishing it meanwhile: look again.
    const again = mine.length > 0 || lstatBig(path.join(memDir, file)) !== null;
    if (retry && again) return inspectFile(root, kind, false, opts);
    return { kind, status: "missing", mtimeMs: null };
  }
  const { fd, stat } = opened;
  try {
    const mtimeMs = Number(stat.mtimeMs);
    if (stat.nlink !== 1n) {
      if (!hasPrivatePartner(memDir, file, stat.ino)) {
        // A save that finished since the open dropped its temp: then the file is whole now.
        const now = lstatBig(path.join(memDir, file));
        if (now !== null && now.ino === stat.ino && now.nlink === 1n) return { kind, status: "present", mtimeMs };
        return { kind, status: "unsafe", mtimeMs };
      }
      return { kind, status: writerLive() ? "present" : "interrupted", mtimeMs };
    }
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    const lines = buf.subarray(0, n).toString("utf8").replace(/^\uFEFF/, "").split(/\r?\n/);
    const ok = lines[0] === MARKER && lines.slice(0, 4).includes(HEADING_OF[kind]);
    if (!ok) return { kind, status: "foreign", mtimeMs };
    // Asked for the text (the hook's state time), the file is read once, NUL check included;
    // past the size limit it is not read whole (docs/design.md#integrations) and its age is unknown.
    if (opts.text && stat.size <= BigInt(MAX_DOCUMENT_BYTES)) {
      const whole = wholeBytes(fd, path.join(memDir, file), stat);
      if (whole !== null && firstNul(whole) >= 0) return { kind, status: "unsafe", mtimeMs };
      if (whole !== null) return { kind, status: "present", mtimeMs, text: whole.toString("utf8") };
    }
    if (holdsNul(fd, buf, n)) return { kind, status: "unsafe", mtimeMs };
    return opts.text ? { kind, status: "present", mtimeMs, text: null } : { kind, status: "present", mtimeMs };
  } finally {
    closeSync(fd);
  }
}

// The whole file through the open descriptor; null when it changed meanwhile ("age unknown").
function wholeBytes(fd: number, filePath: string, before: { size: bigint; mtimeNs: bigint; ino: bigint }) {
  const size = Number(before.size);
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, size - off, off);
    if (n === 0) return null;
    off += n;
  }
  const after = fstatSync(fd, { bigint: true });
  const named = lstatBig(filePath);
  const same = after.size === before.size && after.mtimeNs === before.mtimeNs;
  if (!same || named === null || named.ino !== before.ino) return null;
  return buf;
}

// A lock one look cannot judge is no proof of a writer at work: what it guards is an interrupted save.
function liveWriter(memDir: string): boolean {
  const lock = lockState(memDir);
  return lock.state === "held" && !lock.unproven;
}

/** True when an interrupted save left work for `recover` and no live writer is at it (planted names are unsafe). */
export function interruptedSave(root: string): boolean {
  const unsafe = treeUnsafe(root);
  if (unsafe === true) return false;
  const pending = pendingRepairs(root);
  if (pending.length > 0 && plantedPrivate(root).length > 0) return false;
  // No memory dir (so no lock): only a promote's private files at the root can be left.
  if (unsafe === null) return pending.length > 0;
  if (liveWriter(memoryDir(root))) return false;
  return pending.length > 0 || archiveExcess(root) > 0;
}

/** True when a private name in the memory dir or the root holds what no save leaves (`check` 3). */
export function unsafePrivate(root: string): boolean {
  return treeUnsafe(root) !== true && pendingRepairs(root).length > 0 && plantedPrivate(root).length > 0;
}
