import path from "node:path";
import { Refused } from "../errors.ts";
import { hasPrivatePartner, listPrivate, lstatBig, readStable, UnsafeFile } from "./files.ts";
import { lockState } from "./lock.ts";
import { FILE_OF, checkTree, memoryDir, type Kind } from "./paths.ts";

function inProgressOrInterrupted(memDirOrRoot: string, lockDir: string, file: string, leftover: () => boolean) {
  const lock = lockState(lockDir);
  // A save may have finished since the look: only a private file still there with no live writer is interrupted.
  if (lock.state === "held" || !leftover()) {
    const by = lock.pid ? ` by process ${lock.pid}` : "";
    const where = path.join(memDirOrRoot, file);
    return new Refused(`${where} changed while it was read (a save is in progress${by}); read it again`);
  }
  const fix = "run `recover`, then read again";
  return new Refused(`an interrupted save left ${file} in recovery in ${memDirOrRoot}; ${fix}`);
}

function changedWhileRead(filePath: string): Refused {
  return new Refused(`${filePath} changed while it was read (a save finished meanwhile); read it again`);
}

/** Reads a managed file whole, never with a false absence: a claimed or half-published file is refused. */
export async function readManagedFile(dir: string, file: string, memDir: string, opts: { failpoint?: string } = {}) {
  const filePath = path.join(dir, file);
  const got = await readStable(filePath, opts);
  const mine = () => listPrivate(dir).filter((e) => e.file === file);
  if (got === null) {
    // Missing when opened: a save may have claimed it, or published it and dropped its claim since; no false absence.
    const claimed = () => mine().some((e) => e.role === "claim");
    if (claimed()) throw inProgressOrInterrupted(dir, memDir, file, claimed);
    if (lstatBig(filePath) !== null || mine().some((e) => e.role === "claim")) throw changedWhileRead(filePath);
    return null;
  }
  if (got.stat.nlink !== 1n) {
    const partner = () => hasPrivatePartner(dir, file, got.stat.ino);
    if (partner()) throw inProgressOrInterrupted(dir, memDir, file, partner);
    // A publication's temp may have been dropped since the open: then a save was finishing, not a hard-linked file.
    const now = lstatBig(filePath);
    if (now === null || now.ino !== got.stat.ino || now.nlink !== got.stat.nlink) throw changedWhileRead(filePath);
    throw new UnsafeFile("hard-linked", filePath);
  }
  return got;
}

/** Reads the memory file of `kind`; null when it (or the memory dir) is absent. */
export async function readMemoryFile(root: string, kind: Kind, opts: { failpoint?: string } = {}) {
  if (!checkTree(root)) return null;
  const memDir = memoryDir(root);
  return readManagedFile(memDir, FILE_OF[kind], memDir, opts);
}
