// Retention and leftovers of `checkpoints/`: only checkpoint names, markers and the helper's private names go.
import { linkSync, lstatSync, readdirSync, unlinkSync } from "../builtins.ts";
import path from "node:path";
import { CHECKPOINT_NAME } from "./parse.ts";
import { checkpointsDir, checkpointsDirState, listCheckpoints, rmQuietRegular } from "./store.ts";
import { readHead } from "../store/fs.ts";
import { succeeds, tokenOf } from "../store/files.ts";
import { listPrivate } from "../store/private.ts";

const MARKERS_KEPT = 20;
const CHECKPOINT_KEEP = 5;

/** Keeps the checkpoints of the five newest sessions by `Saved:`, and `keep`; deletes the rest and their markers. */
export function pruneCheckpoints(root: string, keep: string): void {
  const list = listCheckpoints(root);
  const survivors = new Set(list.slice(0, CHECKPOINT_KEEP).map((e) => e.name));
  survivors.add(keep);
  let deleted = 0;
  for (const e of list) {
    if (survivors.has(e.name) || deleted >= list.length - CHECKPOINT_KEEP) continue;
    // Gone meanwhile, or not ours to delete: retention is best effort.
    if (succeeds(() => unlinkSync(path.join(checkpointsDir(root), e.name)))) deleted++;
    rmQuietRegular(path.join(checkpointsDir(root), `.delivered-${e.session}`));
  }
}

// A delivered-once marker stays while a checkpoint of its session or token exists: once-per-token reads it.
export function cleanCheckpointLeftovers(root: string): string[] {
  const dir = checkpointsDir(root);
  if (checkpointsDirState(root) !== "ok") return [];
  const actions: string[] = [];
  const entries = listPrivate(dir).filter((e) => CHECKPOINT_NAME.test(e.file));
  for (const e of [...entries.filter((x) => x.role === "tmp"), ...entries.filter((x) => x.role === "claim")]) {
    const st = lstatSync(e.path, { throwIfNoEntry: false });
    if (st === undefined || st.isDirectory()) continue;
    if (e.role === "claim" && st.isFile()) {
      // No link when a checkpoint is current: the claim was the version it replaced.
      if (succeeds(() => linkSync(e.path, path.join(dir, e.file)))) {
        actions.push(`checkpoints/${e.file}: put back the version an interrupted checkpoint had claimed`);
      }
    }
    if (succeeds(() => unlinkSync(e.path))) {
      actions.push(`checkpoints/${e.file}: dropped ${e.name} left by an interrupted checkpoint`);
    }
  }
  try {
    const names = readdirSync(dir);
    const live = new Set<string>();
    for (const name of names) {
      if (name.startsWith(".") || !CHECKPOINT_NAME.test(name)) continue;
      const bytes = readHead(path.join(dir, name));
      if (bytes !== null) live.add(tokenOf(bytes));
    }
    const kept: { name: string; mtimeMs: number }[] = [];
    for (const name of names) {
      const m = /^\.delivered-(.+)$/.exec(name);
      if (!m || !CHECKPOINT_NAME.test(`${m[1]}.md`)) continue;
      const told = readHead(path.join(dir, name), 128)?.toString().trim() ?? "";
      const st = lstatSync(path.join(dir, name), { throwIfNoEntry: false });
      if (readHead(path.join(dir, `${m[1]}.md`), 1) === null && !live.has(told)) rmQuietRegular(path.join(dir, name));
      else if (st !== undefined) kept.push({ name, mtimeMs: st.mtimeMs });
    }
    kept.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : 1));
    for (const k of kept.slice(MARKERS_KEPT)) rmQuietRegular(path.join(dir, k.name));
  } catch {
    // best effort
  }
  return actions;
}

// A context-offer marker's session is long over after a week (a live one is told again at worst).
const OFFER_MARKER_DAYS = 7;

// Run where a checkpoint is written, never on the context hook's path; at most 200 names looked at.
export function pruneOfferMarkers(dir: string, nowMs: number): void {
  try {
    for (const name of readdirSync(dir).filter((n) => n.startsWith(".offered-")).slice(0, 200)) {
      const p = path.join(dir, name);
      if (nowMs - lstatSync(p).mtimeMs > OFFER_MARKER_DAYS * 86_400_000) rmQuietRegular(p);
    }
  } catch {
    // A marker gone already: the rest wait for the next checkpoint.
  }
}
