import { accessSync, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync,
  readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "../builtins.ts";
import path from "node:path";
import { Refused } from "../errors.ts";
import { assertAttributesReadable, assertDriverFits, mergeDriverStep } from "../git/merge-driver-config.ts";
import { findRoot } from "../git/root.ts";
import { runGit } from "../git/run.ts";
import { savesPath } from "../git/saves.ts";
import { memoryDir } from "../store/paths.ts";
import { exists, lstatOrNull, readSmall, tokenOf } from "../store/files.ts";
import { homeFolder } from "../store/home.ts";
import { dirsBelow, removeEmptyDirs, removeEmptyUpTo } from "./agent-file.ts";
import { AGENTS } from "./index.ts";
import { afterWrites, forAgents, install, type Said, underInstallLock, uninstall } from "./installer.ts";
import { AGENT_NAMES, type Caller, helperLocation, helperShown, type Target, targetOf } from "./target.ts";
import { holdsAgentEntries, userPath } from "./plan.ts";
import type { Agent, AgentName } from "./types.ts";

const SAY = `say "write a handoff" when you stop, and "resume where we left off" when you come back`;

/** What `init` copies and every install channel delivers. */
const SKILL_ENTRIES = ["SKILL.md", "LICENSE", "agents", "references", "templates", "scripts"];
/** The one copy, in the project or in HOME (the skills installers' place too). */
export const CANONICAL = ".agents/skills/session-handoff";

/** Every file under the skill's entries of `dir`, relative to it, `/`-separated, sorted. */
function skillFiles(dir: string): string[] {
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
function copySteps(from: string, to: string): FileStep[] {
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
function linkOnTheWay(base: string, p: string): string | null {
  if (path.relative(base, path.dirname(p)).split(path.sep)[0] === "..") return path.dirname(p);
  for (const at of dirsBelow(base, path.dirname(p))) {
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
function readCopyRecord(dir: string): CopyRecord | null {
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
function writeCopyRecord(dir: string, createdDirs: string[]): void {
  const files = Object.fromEntries(skillFiles(dir).map((rel) => [rel, tokenOf(readFileSync(path.join(dir, rel)))]));
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  const fd = openSync(path.join(dir, RECORD), flags, 0o644);
  try {
    writeFileSync(fd, `${JSON.stringify({ files, createdDirs }, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
}

/** The files `steps` would replace or remove that are not as init copied them (with no record: any that differ). */
function editedFiles(dir: string, steps: FileStep[], record: CopyRecord | null): string[] {
  const changed = (rel: string) => {
    const file = path.join(dir, rel);
    return !lstatSync(file, { throwIfNoEntry: false })?.isFile() || record?.files[rel] !== tokenOf(readFileSync(file));
  };
  return steps.filter((s) => s.action !== "create" && changed(s.rel)).map((s) => s.rel);
}

/** A link place's state: absent, our link, a copy, or what else it is, in words. */
function linkState(place: string, target: string): "absent" | "ours" | "copy" | string {
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
function unwritable(file: string): string | null {
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
function applySteps(from: string, to: string, steps: FileStep[]): void {
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

type Plan = ReturnType<typeof planOf>;

/** What `init` was asked, its options checked; `named` may be empty (then the project's agents). */
export type InitAsk = { named: AgentName[]; root?: string } & Record<"global" | "dryRun" | "undo" | "replace", boolean>;

/** Copies and links the skill and installs each agent from the copy, or with `undo` takes all that away. */
export async function initSkill(ctx: Caller, ask: InitAsk) {
  const plan = planOf(ctx, ask);
  if (!ask.undo && plan.agents.length === 0) return driverOnly(ctx, plan);
  return ask.undo ? undo(ctx, plan) : init(ctx, plan, ask.replace);
}

function planOf(ctx: Caller, { named, root, global, dryRun, undo }: InitAsk) {
  if (!ctx.env.HOME || !existsSync(ctx.env.HOME)) {
    throw new Refused("init needs HOME set to an existing folder (install records Node there); nothing was changed");
  }
  let base: string;
  if (global) base = realpathSync(homeFolder(ctx.env));
  else {
    const found = findRoot(path.resolve(ctx.cwd, root ?? "."), ctx.env);
    if (root === undefined && found.by === "start") {
      const fix = "Run init at your project's root (after `git init`), or pass --root <project>";
      const why = `${found.root} has no .git and no folder above it has one`;
      throw new Refused(`no project here: ${why}; nothing was changed. ${fix}`);
    }
    base = found.root;
    if (!undo) assertDriverFits(base, ctx.env);
  }
  const side = global ? "home" : "project";
  // Per-user, Claude Code's folder is CLAUDE_CONFIG_DIR when set, as install --global has it.
  const at = (rel: string) => userPath(base, rel, global ? ctx.env : undefined);
  let agents = named.length > 0
    ? [...new Set(named)].map((n) => AGENTS[n])
    : Object.values(AGENTS).filter((a) => a.markers[side].some((m) => exists(at(m))));
  // Also agents whose files hold install's entries but no marker: AGENTS.md alone, or a teammate's clone (no .codex/).
  if (named.length === 0) {
    agents = Object.values(AGENTS).filter((a) => agents.includes(a) || holdsEntries(a, base, global, ctx.env));
  }
  // A project with memory but no agent's folder (a teammate's skill is per user) still gets the merge driver.
  if (agents.length === 0 && !undo && (global || !exists(memoryDir(base)))) {
    const markers = [...new Set(Object.values(AGENTS).flatMap((a) => a.markers[side]))];
    const fix = `Name them: node ${helperShown(ctx, base)} init --agent claude-code --agent codex (${AGENT_NAMES})`;
    throw new Refused(`no agent found in ${base} (none of ${markers.join(", ")}); nothing was changed. ${fix}`);
  }
  if (global) {
    const without = agents.filter((a) => a.skillFolders.home.length === 0);
    if (without.length > 0 && named.length > 0) {
      const names = without.map((a) => a.name).join(", ");
      throw new Refused(`${names} has no per-user folders; nothing was changed. Run init in the project instead`);
    }
    agents = agents.filter((a) => a.skillFolders.home.length > 0);
  }
  if (!ctx.helperPath) {
    throw new Refused("init cannot tell where its own skill folder is; run it as `npx session-handoff init`");
  }
  const source = realpathSync(path.dirname(path.dirname(path.resolve(ctx.cwd, ctx.helperPath))));
  if (!existsSync(path.join(source, "SKILL.md"))) {
    throw new Refused(`${source} holds no SKILL.md to copy; nothing was changed. Run npx session-handoff init`);
  }
  const rel = (p: string) => path.relative(base, p).split(path.sep).join("/");
  const shown = (p: string) => (rel(p).startsWith("..") ? p : `${global ? "~/" : ""}${rel(p)}`);
  const planned = new Map<string, string | null>();
  return { base, global, dryRun, source, dest: path.join(base, CANONICAL), agents, shown, planned, at };
}

function holdsEntries(agent: Agent, base: string, global: boolean, env: Caller["env"]): boolean {
  try {
    const edits = agent.edits({ abs: path.join(base, CANONICAL, "scripts", "memory_io.mjs"), rel: null }, global);
    return edits.some((edit) => {
      const text = readSmall(userPath(base, edit.file, global ? env : undefined));
      return text !== null && holdsAgentEntries(edit, agent.name, text);
    });
  } catch {
    // No per-user files, or a block too broken to read: uninstall names it when asked.
    return false;
  }
}

// What `check` asks of a clone whose git merges memory as text: the driver, with nothing of any agent's.
async function driverOnly(ctx: Caller, plan: Plan) {
  const helperPath = path.join(plan.source, "scripts", "memory_io.mjs");
  const d = await mergeDriverStep(plan.base, { dryRun: plan.dryRun, helperPath }, ctx.env);
  const none = "no agent found, so only the merge driver; init --agent NAME installs the skill for one";
  const lines = d.lines.length > 0 ? d.lines : ["unchanged the merge driver"];
  if (d.attributes && !plan.dryRun) lines.push("commit: .gitattributes, which names the driver for every clone");
  return { lines: [...lines, `note: ${none}`], notes: d.notes };
}

/** `install` or `uninstall` for one agent, under the install lock, as if run from the copied skill. */
async function agentRun(ctx: Caller, plan: Plan, run: typeof install, agent: Agent, dryRun: boolean) {
  const root = plan.global ? null : plan.base;
  const helper = helperLocation({ cwd: ctx.cwd, helperPath: path.join(plan.dest, "scripts", "memory_io.mjs") }, root);
  const values = { "dry-run": dryRun, ...(plan.global ? { global: true } : { root: plan.base }) };
  const t = targetOf(agent, root, helper, ctx.env, dryRun, plan.planned);
  const each = (x: Target, said: Said) => run(x, ctx.env, said);
  return underInstallLock({ ...ctx, values }, run === uninstall, () => forAgents([t], each, true));
}

/** The link places (each agent's first skills folder) of the agents that do not read the copy's folder. */
function linkPlaces(plan: Plan, agents: Agent[]): string[] {
  const folders = agents.map((a) => a.skillFolders[plan.global ? "home" : "project"]);
  const places = folders.filter((f) => f.length > 0 && !f.includes(".agents/skills")).map((f) => f[0]!);
  return [...new Set(places)].map((f) => path.join(plan.at(f), "session-handoff"));
}

// Whether git sees a change to commit in the copy, its links or a file an agent's install edits (true when git fails).
async function uncommitted(ctx: Caller, plan: Plan): Promise<boolean> {
  const helper = helperLocation({ cwd: ctx.cwd, helperPath: path.join(plan.dest, "scripts", "memory_io.mjs") },
    plan.base);
  const files = plan.agents.flatMap((a) => a.edits(helper, false).map((e) => path.join(plan.base, e.file)));
  const paths = [plan.dest, ...linkPlaces(plan, plan.agents), ...files, path.join(plan.base, ".gitattributes")];
  const args = ["status", "--porcelain", "-z", "--untracked-files=all", "--", ...paths];
  const r = await runGit(plan.base, args, ctx.env).catch(() => null);
  return r === null || r.code !== 0 || r.stdout.length > 0;
}

// The lines and notes of a run, and `take`, which adds an agent's.
function collected() {
  const out = { lines: [] as string[], notes: [] as string[] };
  return { ...out, take: (o: typeof out) => void (out.lines.push(...o.lines), out.notes.push(...o.notes)) };
}

function counted(steps: { action: string }[]): string {
  const n = (a: string) => steps.filter((s) => s.action === a).length;
  const parts = [`${n("create")} new files`, `${n("update")} changed`, `${n("remove")} removed`];
  return parts.filter((s) => !s.startsWith("0 ")).join(", ");
}

function refuseLinkOnTheWay(plan: Plan): void {
  const link = linkOnTheWay(plan.base, plan.dest);
  if (link !== null) {
    const fix = "Replace the link with a folder, or run init where it points";
    const why = "init writes and removes only in the project's own folders, so nothing was changed";
    throw new Refused(`${plan.shown(link)} is a link; ${why}. ${fix}`);
  }
}

async function init(ctx: Caller, plan: Plan, replace: boolean) {
  const { dest, source, shown } = plan;
  refuseLinkOnTheWay(plan);
  const running = dest === source || (existsSync(dest) && realpathSync(dest) === source);
  if (!running && existsSync(dest) && lstatSync(dest).isSymbolicLink()) {
    throw new Refused(`${shown(dest)} is a link to another folder; nothing was changed. Remove it and run init again`);
  }
  const steps = running ? [] : copySteps(source, dest);
  const record = running ? null : readCopyRecord(dest);
  const edited = running ? [] : editedFiles(dest, steps, record);
  if (edited.length > 0 && !replace) {
    const names = edited.slice(0, 5).map((rel) => shown(path.join(dest, rel)));
    const more = edited.length > 5 ? ` and ${edited.length - 5} more` : "";
    const why = "differ from what init copied (edited since, or copied by an older init); nothing was changed";
    const fix = "Keep your edits elsewhere, then run init --replace to overwrite them";
    throw new Refused(`${names.join(", ")}${more} ${why}. ${fix}`);
  }
  const writes = steps.map((s) => path.join(dest, s.rel));
  const links = linkPlaces(plan, plan.agents).map((place) => {
    const state = linkState(place, dest);
    if (state !== "absent" && state !== "ours" && state !== "copy") {
      throw new Refused(`${shown(place)} is ${state}; nothing was changed. Move it away, then run init again`);
    }
    const asCopy = state === "copy" || (state === "absent" && process.platform === "win32");
    const copy = asCopy ? copySteps(source, place) : [];
    if (asCopy) writes.push(...copy.map((s) => path.join(place, s.rel)));
    else if (state === "absent") writes.push(place);
    return { place, state, asCopy, copy };
  });
  const below = [dest, ...links.map((l) => path.dirname(l.place))].flatMap((d) => dirsBelow(plan.base, d));
  const made = below.filter((d) => !existsSync(d)).map((d) => path.relative(plan.base, d).split(path.sep).join("/"));
  for (const file of writes) {
    const why = unwritable(file);
    if (why !== null) {
      throw new Refused(`cannot write ${file}: ${why}; nothing was changed. Fix its permissions, then run init again`);
    }
  }
  // Every install is tried first with --dry-run: a file it would refuse stops init before anything is copied.
  const { lines, notes, take } = collected();
  for (const agent of plan.agents) {
    const dry = await agentRun(ctx, plan, install, agent, true);
    if (plan.dryRun) take(dry);
  }
  const copied = (to: string, copy: { action: string }[]) => copy.length === 0 ? `unchanged ${shown(to)}`
    : `${plan.dryRun ? "would copy" : "copied"} the skill to ${shown(to)} (${counted(copy)})`;
  if (!plan.dryRun) applySteps(source, dest, steps);
  // The record is written beside the copy: counted with it, so the line says how many files init wrote.
  const recorded = !running && (steps.length > 0 || made.length > 0 || record === null);
  const again = exists(path.join(dest, RECORD)) ? "update" : "create";
  lines.unshift(copied(dest, [...steps, ...(recorded ? [{ action: again }] : [])]));
  const after: string[] = [];
  for (const l of links) {
    if (l.asCopy) {
      if (!plan.dryRun) applySteps(source, l.place, l.copy);
      after.push(copied(l.place, l.copy));
    } else if (l.state === "ours") after.push(`unchanged ${shown(l.place)}`);
    else {
      // Relative, so that a committed link works in every clone.
      if (!plan.dryRun) mkdirSync(path.dirname(l.place), { recursive: true });
      if (!plan.dryRun) symlinkSync(path.relative(path.dirname(l.place), dest), l.place, "dir");
      after.push(`${plan.dryRun ? "would link" : "linked"} ${shown(l.place)} -> ${shown(dest)}`);
    }
  }
  lines.splice(1, 0, ...after);
  if (!plan.dryRun && recorded) writeCopyRecord(dest, [...new Set([...(record?.createdDirs ?? []), ...made])]);
  for (const agent of plan.dryRun ? [] : plan.agents) {
    take(await agentRun(ctx, plan, install, agent, false).catch(afterWrites(() => lines)));
  }
  const changed = lines.some((l) => !/^(?:[a-z-]+: )?unchanged /.test(l));
  // doctor from the copy: the package's own helper would call the copy's hooks another copy's.
  const copy = shown(path.join(dest, "scripts", "memory_io.mjs"));
  if (!plan.dryRun) lines.push(`check: node ${copy} doctor${plan.global ? " --global" : ""}`);
  // Uncommitted, the copy and the team files count as the user's work in progress in every handoff.
  if (!plan.dryRun && !plan.global && changed && (await uncommitted(ctx, plan))) {
    lines.push("commit: the skill's copy and the team files above (docs/install.md); each teammate runs `init` once " +
      "in their own clone too: what it writes to .git/config is not committed");
  }
  const who = plan.agents.map((a) => (a.enableHooks ? `${a.name}: ${a.enableHooks} first` : a.name));
  lines.push(`next: start a new session (${who.join("; ")}) and ${SAY}`);
  return { lines, notes };
}

// This clone's records of its saves tell its handoffs from a teammate's: they stay while the memory dir does.
function saveRecords(plan: Plan, env: Caller["env"]): string[] {
  const saves = savesPath(plan.base, env);
  const dir = path.dirname(saves ?? "");
  const names = ["clone-id", "saves", "saved-by", "last-save"]
    .filter((n) => saves !== null && lstatOrNull(path.join(dir, n)));
  if (names.length === 0) return [];
  const shown = `${plan.shown(dir)}/{${names.join(",")}}`;
  if (exists(memoryDir(plan.base))) return [`left ${shown}: this clone's record of its handoffs in .ai/memory`];
  if (!plan.dryRun) {
    for (const n of names) rmSync(path.join(dir, n), { force: true });
    removeEmptyDirs([dir]);
  }
  return [`${plan.dryRun ? "would remove" : "removed"} ${shown}: this clone's record of its saves`];
}

async function undo(ctx: Caller, plan: Plan) {
  const { dest, source, shown } = plan;
  refuseLinkOnTheWay(plan);
  const record = readCopyRecord(dest);
  // Each agent's uninstall checks this for itself, but by then the agents before it are done.
  if (!plan.global) assertAttributesReadable(plan.base, ctx.env);
  const { lines, notes, take } = collected();
  // Every uninstall is tried first with --dry-run, as init's installs: a file one refuses stops all before any write.
  for (const agent of plan.dryRun ? [] : plan.agents) await agentRun(ctx, plan, uninstall, agent, true);
  const said = afterWrites(() => lines);
  for (const agent of plan.agents) take(await agentRun(ctx, plan, uninstall, agent, plan.dryRun).catch(said));
  const would = plan.dryRun ? "would remove" : "removed";
  for (const place of linkPlaces(plan, Object.values(AGENTS))) {
    const state = linkState(place, dest);
    const sameCopy = state === "copy" && copySteps(source, place).every((s) => s.action === "remove");
    const ours = state === "ours" || sameCopy;
    if (state === "absent") continue;
    // A place outside the base (CLAUDE_CONFIG_DIR elsewhere) is checked from its skills folder's parent.
    const from = path.relative(plan.base, place).startsWith("..") ? path.dirname(path.dirname(place)) : plan.base;
    if (!ours || linkOnTheWay(from, place) !== null) {
      lines.push(`left ${shown(place)}: it is not a link to or a copy of this skill`);
      continue;
    }
    if (!plan.dryRun) rmSync(place, { recursive: state === "copy", force: true });
    lines.push(`${would} ${shown(place)}`);
  }
  // What the user edited or added stays, with the record, so that another undo still names what is left and why.
  const folder = lstatOrNull(dest)?.isDirectory() === true;
  const all = folder ? skillFiles(dest) : [];
  const kept = record === null ? [] : editedFiles(dest, all.map((rel) => ({ rel, action: "remove" })), record);
  const others = folder ? readdirSync(dest).filter((n) => n !== RECORD && !SKILL_ENTRIES.includes(n)).sort() : [];
  const recordToo = kept.length + others.length === 0 && exists(path.join(dest, RECORD)) ? [RECORD] : [];
  const files = [...all.filter((rel) => !kept.includes(rel)), ...recordToo];
  if (files.length > 0) {
    if (!plan.dryRun) {
      for (const rel of files) rmSync(path.join(dest, rel), { force: true });
      for (const rel of files) removeEmptyUpTo(path.dirname(path.join(dest, rel)), dest);
    }
    const whole = `${would} ${shown(dest)} (${files.length} files)`;
    lines.push(kept.length + others.length > 0 ? `${would} ${files.length} files of ${shown(dest)}` : whole);
  }
  for (const rel of kept) lines.push(`left ${shown(path.join(dest, rel))}: you edited it since init copied it`);
  for (const n of others) lines.push(`left ${shown(path.join(dest, n))}: init did not copy it`);
  // Only folders on the way to the copy or a link, as the record is a file in the project anyone can edit.
  const places = [dest, ...linkPlaces(plan, Object.values(AGENTS)).map((p) => path.dirname(p))];
  const mayMake = new Set(places.flatMap((d) => dirsBelow(plan.base, d)));
  const made = (record?.createdDirs ?? []).map((rel) => path.join(plan.base, rel)).filter((d) => mayMake.has(d));
  if (!plan.dryRun) removeEmptyDirs(made.filter((d) => linkOnTheWay(plan.base, d) === null));
  if (!plan.global) lines.push(...saveRecords(plan, ctx.env));
  if (lines.length === 0) lines.push("nothing of session-handoff's init to undo here");
  return { lines, notes };
}
