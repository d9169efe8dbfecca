import { closeSync, fstatSync } from "../builtins.ts";
import path from "node:path";
import { firstNul, unsafeBytes } from "../guard/file-verdict.ts";
import { hasPrivatePartner, listPrivate, lstatBig, openRegular, readAll, UnsafeFile } from "./files.ts";
import { lockState } from "./lock.ts";
import { FILE_OF, HEADING_OF, memoryDir, treeRefusal, treeVerdict, type Kind } from "./paths.ts";
import { MARKER } from "../schema/values.ts";
import { pendingRepairs, plantedPrivate } from "./recover.ts";

/** A memory file as seen from outside; `text` (asked with `{ text: true }`) is null when it changed while read. */
export interface FileInspection {
  kind: Kind;
  status: "missing" | "present" | "foreign" | "unsafe" | "interrupted";
  text?: string | null;
  /** Unsafe: what is wrong and what to do, the sentence a verb that reads it refuses with. */
  reason?: string;
}

/** Whether the memory tree is unsafe to use (treeVerdict); null when `.ai` or the memory dir is missing. */
export function treeUnsafe(root: string): boolean | null {
  const verdict = treeVerdict(root);
  return verdict === "missing" ? null : verdict !== "ok";
}

/** Classifies a memory file by its shape (marker, heading, one link, no NUL), never printing its text. */
export function inspectFile(root: string, kind: Kind, retry = true, opts: { text?: boolean } = {}): FileInspection {
  const tree = treeVerdict(root);
  if (tree === "missing") return { kind, status: "missing" };
  if (tree !== "ok") return { kind, status: "unsafe", reason: treeRefusal(tree) };
  const memDir = memoryDir(root);
  const file = FILE_OF[kind];
  const filePath = path.join(memDir, file);
  const mine = listPrivate(memDir).filter((e) => e.file === file);
  // A private name holding what no save leaves: `recover` refuses it, so it is unsafe, not an interrupted save.
  const planted = mine.length > 0 && plantedPrivate(root).some((p) => p.entry.file === file);
  if (planted) return { kind, status: "unsafe" };
  let opened;
  try {
    opened = openRegular(filePath);
  } catch (err) {
    return { kind, status: "unsafe", reason: (err as Error).message };
  }
  if (opened === null) {
    if (mine.some((e) => e.role === "claim")) {
      // Claimed by a save: in progress (the file is there, being replaced) or interrupted.
      return { kind, status: liveWriter(memDir) ? "present" : "interrupted" };
    }
    // Missing when listed and when opened, unless a save was publishing it meanwhile: look again.
    const again = mine.length > 0 || lstatBig(filePath) !== null;
    if (retry && again) return inspectFile(root, kind, false, opts);
    return { kind, status: "missing" };
  }
  const { fd, stat } = opened;
  try {
    if (stat.nlink !== 1n) {
      if (!hasPrivatePartner(memDir, file, stat.ino)) {
        // A save that finished since the open dropped its temp: then the file is whole now.
        const now = lstatBig(filePath);
        if (now !== null && now.ino === stat.ino && now.nlink === 1n) return { kind, status: "present" };
        return { kind, status: "unsafe", reason: new UnsafeFile("hard-linked", filePath).message };
      }
      return { kind, status: liveWriter(memDir) ? "present" : "interrupted" };
    }
    // openRegular refused a file over the size limit, so it is read whole once.
    const bytes = readAll(fd, undefined, 0);
    const lines = bytes.subarray(0, 4096).toString("utf8").replace(/^\uFEFF/, "").split(/\r?\n/);
    const ok = lines[0] === MARKER && lines.slice(0, 4).includes(HEADING_OF[kind]);
    if (!ok) return { kind, status: "foreign" };
    const nul = firstNul(bytes);
    if (nul >= 0) return { kind, status: "unsafe", reason: unsafeBytes(file, nul).message };
    if (!opts.text) return { kind, status: "present" };
    // A file changed while it was read gives no text ("age unknown").
    const after = fstatSync(fd, { bigint: true });
    const same = BigInt(bytes.length) === stat.size && after.size === stat.size && after.mtimeNs === stat.mtimeNs;
    const text = same && lstatBig(filePath)?.ino === stat.ino ? bytes.toString("utf8") : null;
    return { kind, status: "present", text };
  } finally {
    closeSync(fd);
  }
}

// A lock one look cannot judge is no proof of a writer at work: what it guards is an interrupted save.
function liveWriter(memDir: string): boolean {
  const lock = lockState(memDir);
  return lock.state === "held" && !lock.unproven;
}

/** True when an interrupted save left work for `recover` and no live writer is at it (planted names are unsafe). */
export function interruptedSave(root: string): boolean {
  // More archives than are kept is no mark of one: a stash, a checkout or a merge of two clones' archives leaves that.
  const unsafe = treeUnsafe(root);
  if (unsafe === true || pendingRepairs(root).length === 0 || plantedPrivate(root).length > 0) return false;
  // No memory dir (so no lock): only a promote's private files at the root can be left.
  return unsafe === null || !liveWriter(memoryDir(root));
}

/** True when a private name in the memory dir or the root holds what no save leaves (`check` 3). */
export function unsafePrivate(root: string): boolean {
  return treeUnsafe(root) !== true && pendingRepairs(root).length > 0 && plantedPrivate(root).length > 0;
}
