import { accessSync, closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync,
  renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { tokenOf } from "../store/files.ts";
import { exists, lstatOrNull } from "../store/fs.ts";
import { removeEmptyUpTo } from "./agent-file.ts";
import type { Agent } from "./types.ts";

/** What `init` copies and every install channel delivers. */
const SKILL_ENTRIES = ["SKILL.md", "LICENSE", "agents", "references", "templates", "scripts"];
/** The one copy, in the project or in HOME (the skills installers' place too). */
export const CANONICAL = ".agents/skills/session-handoff";

export function detectAgents(agents: Agent[], base: string, global: boolean): Agent[] {
  return agents.filter((a) => a.markers[global ? "home" : "project"].some((m) => exists(path.join(base, m))));
}

/** The folder (relative to the base) where `agent` finds the skill when it does not read the copy's folder. */
export function linkFolderFor(agent: Agent, global: boolean): string | null {
  const folders = agent.skillFolders[global ? "home" : "project"];
  if (folders.length === 0 || folders.includes(".agents/skills")) return null;
  return folders[0]!;
}

/** Every file under the skill's entries of `dir`, relative to it, `/`-separated, sorted. */
export function skillFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    const st = lstatOrNull(abs);
    if (st === null) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(abs).sort()) walk(rel === "" ? name : `${rel}/${name}`);
    } else if (st.isFile()) out.push(rel);
  };
  for (const e of SKILL_ENTRIES) walk(e);
  return out.sort();
}

type FileStep = { rel: string; action: "create" | "update" | "remove" };

/** What copying `from`'s skill files into `to` changes: files to create or update, stale ones to remove. */
export function copySteps(from: string, to: string): FileStep[] {
  const want = skillFiles(from);
  const steps: FileStep[] = [];
  for (const rel of want) {
    const dest = path.join(to, rel);
    let have: Buffer | null = null;
    try {
      have = lstatSync(dest).isFile() ? readFileSync(dest) : null;
    } catch {
      // Absent, or a file where a folder belongs: the writes' own checks refuse that.
    }
    if (have === null) steps.push({ rel, action: exists(dest) ? "update" : "create" });
    else if (!have.equals(readFileSync(path.join(from, rel)))) steps.push({ rel, action: "update" });
  }
  const wanted = new Set(want);
  for (const rel of skillFiles(to)) if (!wanted.has(rel)) steps.push({ rel, action: "remove" });
  return steps;
}

/** What init records beside its copy: each file's hash as copied, and the folders it made (relative, `/`). */
type CopyRecord = { files: Record<string, string>; createdDirs: string[] };

// Outside the skill's entries: never copied or listed.
const RECORD = ".init.json";

/** The first folder from `base` (exclusive) down to `p`'s parent that is a link, or null. */
export function linkOnTheWay(base: string, p: string): string | null {
  const parts = path.relative(base, path.dirname(p)).split(path.sep).filter((x) => x !== "");
  if (parts[0] === "..") return path.dirname(p);
  let at = base;
  for (const part of parts) {
    at = path.join(at, part);
    // Null past a file where a folder belongs: the writes' own checks refuse it.
    const st = lstatOrNull(at);
    if (st === null || !st.isDirectory()) return st?.isSymbolicLink() ? at : null;
  }
  return null;
}

// A folder init recorded as made: relative and inside the base.
const safeDir = (d: unknown): d is string =>
  typeof d === "string" && d !== "" && !path.isAbsolute(d) && !d.split(/[\\/]/).includes("..");

/** The copy's record, or null (none, or not JSON of its shape); a link, a FIFO or over 1 MB is refused. */
export function readCopyRecord(dir: string): CopyRecord | null {
  const file = path.join(dir, RECORD);
  // Null too for a file where the copy's folder belongs: init's own checks refuse it.
  const st = lstatOrNull(file);
  if (st === null) return null;
  if (!st.isFile() || st.size > 1_000_000) {
    throw new Refused(`${file} is not init's record (a link, not a file, or over 1 MB); nothing was changed. ` +
      "Remove it, then run init again");
  }
  try {
    const r = JSON.parse(readFileSync(file, "utf8")) as { files?: unknown; createdDirs?: unknown };
    const files = r.files;
    if (typeof files !== "object" || files === null || Array.isArray(files)) return null;
    if (!Array.isArray(r.createdDirs)) return null;
    if (!Object.values(files).every((h) => typeof h === "string")) return null;
    return { files: files as Record<string, string>, createdDirs: r.createdDirs.filter(safeDir) };
  } catch {
    return null;
  }
}

/** Records what `dir` now holds as init's copy (never through a link: readCopyRecord refused one). */
export function writeCopyRecord(dir: string, createdDirs: string[]): void {
  const files = Object.fromEntries(skillFiles(dir).map((rel) => [rel, tokenOf(readFileSync(path.join(dir, rel)))]));
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  const fd = openSync(path.join(dir, RECORD), flags, 0o644);
  try {
    writeFileSync(fd, `${JSON.stringify({ files, createdDirs }, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
}

export function dropCopyRecord(dir: string): void {
  rmSync(path.join(dir, RECORD), { force: true });
}

/** The files `steps` would replace or remove that are not as init copied them (with no record: any that differ). */
export function editedFiles(dir: string, steps: FileStep[], record: CopyRecord | null): string[] {
  const changed = (rel: string) => {
    const file = path.join(dir, rel);
    return !lstatSync(file, { throwIfNoEntry: false })?.isFile() || record?.files[rel] !== tokenOf(readFileSync(file));
  };
  return steps.filter((s) => s.action !== "create" && changed(s.rel)).map((s) => s.rel);
}

/** A link place's state: absent, our link, a copy, or what else it is, in words. */
export function linkState(place: string, target: string): "absent" | "ours" | "copy" | string {
  const st = lstatOrNull(place);
  if (st === null) return "absent";
  if (st.isSymbolicLink()) {
    const to = readlinkSync(place);
    return path.resolve(path.dirname(place), to) === target ? "ours" : `a link to ${to}`;
  }
  // A real folder holding a SKILL.md is an earlier copy of the skill: it is kept up to date as a copy.
  if (st.isDirectory()) return exists(path.join(place, "SKILL.md")) ? "copy" : "a folder that is not this skill";
  return "a file";
}

/** Why `file` (to be created or replaced) cannot be written, or null. */
export function unwritable(file: string): string | null {
  let dir = path.dirname(file);
  for (let i = 0; i < 64 && !exists(dir); i++) dir = path.dirname(dir);
  if (!lstatSync(dir).isDirectory()) return `${dir} is not a folder`;
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return `${dir} is not writable`;
  }
  try {
    if (exists(file) && lstatSync(file).isFile()) accessSync(file, constants.W_OK);
  } catch {
    return `${file} is not writable`;
  }
  return null;
}

/** Applies `steps` (from {@link copySteps}): each file through a temp name and a rename. */
export function applySteps(from: string, to: string, steps: FileStep[]): void {
  for (const s of steps) {
    const dest = path.join(to, s.rel);
    if (s.action === "remove") {
      rmSync(dest, { force: true });
      removeEmptyUpTo(path.dirname(dest), to);
      continue;
    }
    mkdirSync(path.dirname(dest), { recursive: true });
    const temp = `${dest}.tmp-${process.pid}`;
    const src = path.join(from, s.rel);
    writeFileSync(temp, readFileSync(src), { mode: statSync(src).mode & 0o777 });
    renameSync(temp, dest);
  }
}

/** Links `place` to `target`, relative so that a committed link works in every clone. */
export function makeLink(place: string, target: string): void {
  mkdirSync(path.dirname(place), { recursive: true });
  symlinkSync(path.relative(path.dirname(place), target), place, "dir");
}
