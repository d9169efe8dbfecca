import { existsSync, lstatSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
import { AGENTS, isAgentName } from "../agents/index.ts";
import { applySteps, CANONICAL, copySteps, detectAgents, dropCopyRecord, editedFiles, linkFolderFor, linkOnTheWay,
  linkState, makeLink, readCopyRecord, skillFiles, unwritable, writeCopyRecord } from "../agents/skill-place.ts";
import { dirsBelow, removeEmptyDirs, removeEmptyUpTo } from "../agents/agent-file.ts";
import type { Agent } from "../agents/types.ts";
import { install, uninstall } from "../agents/installer.ts";
import { underInstallLock } from "../agents/install-lock.ts";
import { helperLocation, targetOf } from "../agents/target.ts";
import { Refused, UsageError } from "../errors.ts";
import { quotedValue } from "../guard/quote.ts";
import { assertDriverFits } from "../git/merge-driver-config.ts";
import { findRoot } from "../git/root.ts";
import { homeFolder } from "../store/home.ts";
import { ok, type Verb, type VerbContext } from "./types.ts";

const NAMES = Object.keys(AGENTS).join("|");
const SAY = `say "write a handoff" when you stop, and "resume where we left off" when you come back`;

type Plan = ReturnType<typeof planOf>;

export const initVerb: Verb = {
  name: "init",
  options: {
    agent: { type: "string", multiple: true },
    root: { type: "string" },
    global: { type: "boolean" },
    "dry-run": { type: "boolean" },
    undo: { type: "boolean" },
    replace: { type: "boolean" },
  },
  positionals: [0, 0],
  help: `usage: npx session-handoff init [--agent NAME]... [--root DIR | --global]
         [--dry-run] [--replace]
       npx session-handoff init --undo [--agent NAME]... [--root DIR | --global]
         [--dry-run]
       (or: node <skill>/scripts/memory_io.mjs init …)

Sets the skill up in a project in one step: copies the skill (SKILL.md, LICENSE,
agents/, references/, templates/, scripts/) into .agents/skills/session-handoff/
(Codex, OpenCode, Gemini CLI and Cursor read it); links it (a relative link; a copy
on Windows) into .claude/skills/ for Claude Code and .cline/skills/ for Cline; then
runs \`install --agent NAME\` for each agent from that copy. Agents are those whose
folder is in the project (.claude/ or CLAUDE.md, .codex/, .opencode/, .clinerules/,
.gemini/ or GEMINI.md, .cursor/), or those named with --agent (${NAMES}).

--global  the same in HOME (~/.agents/skills/session-handoff/, \`install --global\`).
--dry-run says what it would do and changes nothing.
--undo    \`uninstall\` for each agent, then the links and the copy go (folders init
          made go when empty); a file of the copy you edited stays.
--replace overwrite the files of the copy you edited since init copied them (else
          init refuses, naming them; .init.json in the copy records what it copied).

A second run changes no byte. Refused, with nothing changed: no project (pass
--root), no agent found and none named, a file or folder it cannot write, a skill
folder that is something else, and whatever install refuses (tried first with
--dry-run). stdout: one line per thing done, then what to say to the agent.
exit:   0 done; 2 refused or usage; 4 paused; 5 the install lock stayed busy.
`,
  async run(ctx) {
    const plan = planOf(ctx);
    return ctx.values.undo === true ? undo(ctx, plan) : init(ctx, plan);
  },
};

function planOf(ctx: VerbContext) {
  const global = ctx.values.global === true;
  const both = global && typeof ctx.values.root === "string";
  if (both) throw new UsageError("init: --global and --root exclude each other");
  const named = (ctx.values.agent as string[] | undefined) ?? [];
  for (const n of named) {
    if (!isAgentName(n)) throw new UsageError(`init: unknown agent ${quotedValue(n)}; name one of ${NAMES}`);
  }
  if (!ctx.env.HOME || !existsSync(ctx.env.HOME)) {
    throw new Refused("init needs HOME set to an existing folder (install records Node there); nothing was changed");
  }
  let base: string;
  if (global) base = realpathSync(homeFolder(ctx.env));
  else {
    const given = typeof ctx.values.root === "string";
    const found = findRoot(path.resolve(ctx.cwd, given ? (ctx.values.root as string) : "."), ctx.env);
    if (!given && found.by === "start") {
      const fix = "Run init at your project's root (after `git init`), or pass --root <project>";
      const why = `${found.root} has no .git and no folder above it has one`;
      throw new Refused(`no project here: ${why}; nothing was changed. ${fix}`);
    }
    base = found.root;
    if (ctx.values.undo !== true) assertDriverFits(base, ctx.env);
  }
  let agents = named.length > 0
    ? [...new Set(named)].map((n) => AGENTS[n as keyof typeof AGENTS])
    : detectAgents(Object.values(AGENTS), base, global);
  if (agents.length === 0 && ctx.values.undo !== true) {
    const markers = [...new Set(Object.values(AGENTS).flatMap((a) => a.markers[global ? "home" : "project"]))];
    const fix = `Name them: init --agent claude-code --agent codex (${NAMES})`;
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
  const shown = (p: string) => `${global ? "~/" : ""}${path.relative(base, p).split(path.sep).join("/")}`;
  const dryRun = ctx.values["dry-run"] === true;
  return { base, global, dryRun, source, dest: path.join(base, CANONICAL), agents, shown };
}

/** `install` or `uninstall` for one agent, under the install lock, as if run from the copied skill. */
async function agentRun(ctx: VerbContext, plan: Plan, run: typeof install, agent: Agent, dryRun: boolean) {
  const root = plan.global ? null : plan.base;
  const helper = helperLocation({ cwd: ctx.cwd, helperPath: path.join(plan.dest, "scripts", "memory_io.mjs") }, root);
  const values = { "dry-run": dryRun, ...(plan.global ? { global: true } : { root: plan.base }) };
  const t = targetOf(agent, root, helper, ctx.env, dryRun);
  const out = await underInstallLock({ ...ctx, values }, run === uninstall, () => run(t, ctx.env));
  return { lines: out.lines.map((l) => `${agent.name}: ${l}`), notes: out.notes };
}

/** The link places of the agents that do not read the copy's folder. */
function linkPlaces(plan: Plan, agents: Agent[]): string[] {
  const places = agents.map((a) => linkFolderFor(a, plan.global)).filter((f): f is string => f !== null);
  return [...new Set(places)].map((f) => path.join(plan.base, f, "session-handoff"));
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

async function init(ctx: VerbContext, plan: Plan) {
  const { dest, source, shown } = plan;
  refuseLinkOnTheWay(plan);
  const running = dest === source || (existsSync(dest) && realpathSync(dest) === source);
  if (!running && existsSync(dest) && lstatSync(dest).isSymbolicLink()) {
    throw new Refused(`${shown(dest)} is a link to another folder; nothing was changed. Remove it and run init again`);
  }
  const steps = running ? [] : copySteps(source, dest);
  const record = running ? null : readCopyRecord(dest);
  const edited = running ? [] : editedFiles(dest, steps, record);
  if (edited.length > 0 && ctx.values.replace !== true) {
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
  if (steps.length === 0) lines.unshift(`unchanged ${shown(dest)}`);
  else {
    if (!plan.dryRun) applySteps(source, dest, steps);
    lines.unshift(`${plan.dryRun ? "would copy" : "copied"} the skill to ${shown(dest)} (${counted(steps)})`);
  }
  const after: string[] = [];
  for (const l of links) {
    if (l.asCopy) {
      if (!plan.dryRun) applySteps(source, l.place, l.copy);
      const copied = `${plan.dryRun ? "would copy" : "copied"} the skill to ${shown(l.place)} (${counted(l.copy)})`;
      after.push(l.copy.length === 0 ? `unchanged ${shown(l.place)}` : copied);
    } else if (l.state === "ours") after.push(`unchanged ${shown(l.place)}`);
    else {
      if (!plan.dryRun) makeLink(l.place, dest);
      after.push(`${plan.dryRun ? "would link" : "linked"} ${shown(l.place)} -> ${shown(dest)}`);
    }
  }
  lines.splice(1, 0, ...after);
  if (!plan.dryRun && !running && (steps.length > 0 || made.length > 0 || record === null)) {
    writeCopyRecord(dest, [...new Set([...(record?.createdDirs ?? []), ...made])]);
  }
  for (const agent of plan.dryRun ? [] : plan.agents) take(await agentRun(ctx, plan, install, agent, false));
  const who = plan.agents.map((a) => a.name).join(", ");
  // doctor from the copy: the package's own helper would call the copy's hooks another copy's.
  const copy = shown(path.join(dest, "scripts", "memory_io.mjs"));
  if (!plan.dryRun) lines.push(`check: node ${copy} doctor${plan.global ? " --global" : ""}`);
  lines.push(`next: start a new session (${who}) and ${SAY}`);
  return ok(`${lines.join("\n")}\n`, notes);
}

async function undo(ctx: VerbContext, plan: Plan) {
  const { dest, source, shown } = plan;
  refuseLinkOnTheWay(plan);
  const record = readCopyRecord(dest);
  const { lines, notes, take } = collected();
  for (const agent of plan.agents) take(await agentRun(ctx, plan, uninstall, agent, plan.dryRun));
  const would = plan.dryRun ? "would remove" : "removed";
  for (const place of linkPlaces(plan, Object.values(AGENTS))) {
    const state = linkState(place, dest);
    const sameCopy = state === "copy" && copySteps(source, place).every((s) => s.action === "remove");
    const ours = state === "ours" || sameCopy;
    if (state === "absent") continue;
    if (!ours || linkOnTheWay(plan.base, place) !== null) {
      lines.push(`left ${shown(place)}: it is not a link to or a copy of this skill`);
      continue;
    }
    if (!plan.dryRun) {
      rmSync(place, { recursive: state === "copy", force: true });
      // Up to the agent's own folder (.claude), which stays.
      removeEmptyUpTo(path.dirname(place), path.join(plan.base, path.relative(plan.base, place).split(path.sep)[0]!));
    }
    lines.push(`${would} ${shown(place)}`);
  }
  // A file the user edited since init copied it stays (with no record, every file goes).
  const all = skillFiles(dest);
  const kept = record === null ? [] : editedFiles(dest, all.map((rel) => ({ rel, action: "remove" })), record);
  const files = all.filter((rel) => !kept.includes(rel));
  if (files.length > 0 && !(existsSync(dest) && lstatSync(dest).isSymbolicLink())) {
    if (!plan.dryRun) {
      for (const rel of files) rmSync(path.join(dest, rel), { force: true });
      if (kept.length === 0) dropCopyRecord(dest);
      for (const rel of files) removeEmptyUpTo(path.dirname(path.join(dest, rel)), plan.base);
    }
    lines.push(`${would} ${shown(dest)} (${files.length} files)`);
    for (const rel of kept) lines.push(`left ${shown(path.join(dest, rel))}: you edited it since init copied it`);
  }
  // The folders init made (.cline/ for Cline's link), deepest first, when empty and not reached through a link; only
  // those on the way to the copy or a link, since the record is a file in the project anyone can edit.
  const places = [dest, ...linkPlaces(plan, Object.values(AGENTS)).map((p) => path.dirname(p))];
  const mayMake = new Set(places.flatMap((d) => dirsBelow(plan.base, d)));
  const made = (record?.createdDirs ?? []).map((rel) => path.join(plan.base, rel)).filter((d) => mayMake.has(d));
  if (!plan.dryRun) removeEmptyDirs(made.filter((d) => linkOnTheWay(plan.base, d) === null));
  if (lines.length === 0) lines.push("nothing of session-handoff's init to undo here");
  return ok(`${lines.join("\n")}\n`, notes);
}
