// The `checkpoints/` folder as hook, check and read see it: its names, listing and delivered-once markers, a
// checkpoint's header lines and sections (apart from its rendering: the hook never loads that); its retention and
// leftovers, where only checkpoint names, markers and the helper's private names go.
import { linkSync, lstatSync, readdirSync, unlinkSync } from "../builtins.ts";
import path from "node:path";
import { mayHoldToken } from "../guard/quote.ts";
import { MARKER, parseStrictTime } from "../schema/values.ts";
import { createExclusive, listDir, listPrivate, lstatOrNull, orNull, readHead, readHeadAndTime, succeeds, tokenOf
  } from "../store/files.ts";
import { memoryDir } from "../store/paths.ts";

export const CHECKPOINT_HEADING = "# Session Checkpoint";
/** A checkpoint's file name: the session-id pattern plus `.md` (docs/design.md#checkpoints). */
export const CHECKPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.md$/;
type HeaderName = "Saved" | "Session" | "Session-start" | "Trigger" | "Source" | "Since-handoff";

export function headerValue(text: string, name: HeaderName) {
  for (const line of text.split("\n", 12)) if (line.startsWith(`${name}: `)) return line.slice(name.length + 2).trim();
  return null;
}

export function isCheckpointText(text: string): boolean {
  const lines = text.split("\n", 4);
  return lines[0] === MARKER && lines.includes(CHECKPOINT_HEADING);
}

// A checkpoint of the anchors only is never announced as work nor parked.
export function isAnchorsOnlySource(source: string | null): boolean {
  return source?.startsWith("anchors only") === true;
}

/** A checkpoint as written: `Trigger:` then its `(earlier: …)` ones oldest first; item lines and left-out counts. */
export interface CheckpointSections {
  triggers: string[];
  source: string | null;
  items: Map<string, string[]>;
  dropped: Map<string, number>;
}

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

export const CHECKPOINTS_GITIGNORE = "# Written by session-handoff: session checkpoints, never committed.\n*\n";

export function checkpointsDir(root: string): string {
  return path.join(memoryDir(root), "checkpoints");
}

// Names that no two ids share on a case-insensitive file system and that Windows can create.
const FILE_SAFE_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/** A session id as a file name: itself when safe everywhere and not token-like, else 16 hex of its SHA-256. */
export function sessionFileId(id: unknown): string {
  if (typeof id !== "string" || id === "") return "unknown";
  const reserved = WINDOWS_RESERVED.test(id.split(".", 1)[0]!);
  if (FILE_SAFE_ID.test(id) && !id.endsWith(".") && !reserved && !mayHoldToken(id)) return id;
  return tokenOf(id).slice(0, 16);
}

/** `unsafe`: a link or not a folder, never used. */
export function checkpointsDirState(root: string): "missing" | "ok" | "unsafe" {
  const st = lstatOrNull(checkpointsDir(root));
  if (st === null) return "missing";
  return st.isDirectory() ? "ok" : "unsafe";
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

export function timeOf(value: string | null, now: number): number | null {
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
  // A tie goes to the one written last (checkpoint-after-last-save.md); code-unit order needs no ICU (~3 ms).
  const order = <T extends bigint | string>(a: T, b: T) => (a === b ? 0 : a < b ? -1 : 1);
  const saved = (e: CheckpointEntry) => e.savedMs ?? -Infinity;
  return out.sort((a, b) => saved(b) - saved(a) || order(b.mtimeNs, a.mtimeNs) || order(a.name, b.name));
}

export function rmQuietRegular(p: string): void {
  const st = lstatOrNull(p);
  if (st?.isFile() || st?.isSymbolicLink()) orNull(() => unlinkSync(p));
}

function deliveredPath(root: string, session: string): string {
  return path.join(checkpointsDir(root), `.delivered-${session}`);
}

export function readDelivered(root: string, session: string): string | null {
  return readHead(deliveredPath(root, session), 128)?.toString().trim() ?? null;
}

/** Records that the checkpoint `token` was told to `session`: best effort, without the lock or a link. */
export function writeDelivered(root: string, session: string, token: string): boolean {
  const p = deliveredPath(root, session);
  rmQuietRegular(p);
  return createExclusive(p, `${token}\n`);
}

const MARKERS_KEPT = 20;
const CHECKPOINT_KEEP = 5;
const RECENT_MS = 604_800_000; // 7 days
const CHECKPOINTS_MAX = 50;

// Work a later save may not hold: a file edited or a command failed.
function holdsWork(root: string, e: CheckpointEntry): boolean {
  const { items } = readCheckpointText(readHead(path.join(checkpointsDir(root), e.name), 8192)?.toString() ?? "");
  const failed = (line: string) => /— (?:exit -?[1-9]\d*|failed)$/.test(line);
  return (items.get("## Files edited")?.length ?? 0) > 0 || (items.get("## Commands")?.some(failed) ?? false);
}

/** Keeps the five newest sessions' checkpoints, `keep`, and others saved in the last 7 days up to 50 files. */
export function pruneCheckpoints(root: string, keep: string): void {
  const now = Date.now();
  const list = listCheckpoints(root, now);
  // Count alone must not delete recent unsaved work (a loop of scripted sessions); 50 keeps the hook's listing small.
  const recent = list.slice(CHECKPOINT_KEEP).filter((e) => e.savedMs !== null && now - e.savedMs <= RECENT_MS);
  const room = CHECKPOINTS_MAX - CHECKPOINT_KEEP;
  if (recent.length > room) {
    // Past the bound, those holding work outlast those that don't; newer first within each (a stable sort).
    const work = new Map(recent.map((e) => [e, holdsWork(root, e)]));
    recent.sort((a, b) => Number(work.get(b)) - Number(work.get(a)));
  }
  const kept = [...list.slice(0, CHECKPOINT_KEEP), ...recent.slice(0, room)];
  const survivors = new Set([keep, ...kept.map((e) => e.name)]);
  for (const e of list) {
    if (survivors.has(e.name)) continue;
    // Gone meanwhile, or not ours to delete: retention is best effort.
    orNull(() => unlinkSync(path.join(checkpointsDir(root), e.name)));
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
