// Which handoffs this clone saved (docs/design.md#verdicts-and-the-brief): the tokens of its
// last handoff saves in `<git dir>/session-handoff/saves`, never in the memory dir (which a
// pull or a merge brings from elsewhere). Files only, no git process: the hook reads it.
import { closeSync, constants, lstatSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import path from "node:path";
import { commonDirOf } from "./git-files.ts";
import { gitDirOf, gitTopOf } from "./in-progress.ts";

/** How many tokens a clone keeps. */
export const SAVES_KEPT = 10;

/** `<common git dir>/session-handoff/saves` for the repository holding `root`; null outside git. */
export function savesPath(root: string): string | null {
  const top = gitTopOf(root);
  const gitDir = top === null ? null : gitDirOf(top);
  return gitDir === null ? null : path.join(commonDirOf(gitDir), "session-handoff", "saves");
}

/** The tokens this clone recorded, newest last; null outside git or before its first save with this version. */
export function readSaves(root: string): string[] | null {
  const p = savesPath(root);
  if (p === null) return null;
  try {
    if (!lstatSync(p).isFile()) return null;
    return readFileSync(p, "utf8").slice(0, 8192).split("\n").filter((l) => /^[0-9a-f]{64}$/.test(l));
  } catch {
    return null;
  }
}

/**
 * Records a handoff save's token (the last SAVES_KEPT kept), through a temp file and a rename.
 * Never throws: provenance is a note, never a reason to fail a save that already happened.
 */
export function recordSave(root: string, token: string): void {
  const p = savesPath(root);
  if (p === null || !/^[0-9a-f]{64}$/.test(token)) return;
  try {
    mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
    const kept = (readSaves(root) ?? []).filter((t) => t !== token);
    kept.push(token);
    const tmp = `${p}.tmp-${process.pid}`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      writeSync(fd, `${kept.slice(-SAVES_KEPT).join("\n")}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, p);
  } catch {
    // a read-only git dir: the save stands, provenance is unknown
  }
}

/** True when this clone's record exists and does not hold `token`; false outside git or before the first recorded save. */
export function notSavedHere(root: string, token: string): boolean {
  const saves = readSaves(root);
  return saves !== null && !saves.includes(token);
}
