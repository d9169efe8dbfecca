import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { quotedValue, shellWord } from "../guard/quote.ts";
import { quotedPath, quotePath } from "../schema/anchor-lines.ts";
import { driverPartMissing, MERGE_DRIVER_MISSING, mergeDriverMissing } from "../git/merge-driver-config.ts";
import { AGENTS } from "../agents/index.ts";
import { withoutForeignHooks } from "../agents/json-hooks.ts";
import { blockAgents, findBlock } from "../agents/md-block.ts";
import { editPath, holdsOurs, installText } from "../agents/plan.ts";
import type { Agent, AgentName, Edit, HelperLocation } from "../agents/types.ts";
import { budgetFinding, codexTrust, installShaped, outdatedReasons, runStart } from "../agents/doctor-checks.ts";
import { startCommands, startFolderNote, type StartRun } from "../agents/doctor-checks.ts";
import { claudePluginInstalls, type PluginInstall } from "../agents/claude-plugin.ts";
import { runGit } from "../git/run.ts";
import { ARCHIVE_NAME } from "../store/archive.ts";
import { inspectFile, interruptedSave } from "../store/inspect.ts";
import { archiveDir, memoryDir, type Kind } from "../store/paths.ts";
import { parseJournal } from "../journal/entry.ts";
import { journalDir, journalOff, listJournal, readJournalFile } from "../journal/store.ts";
import { exists, pauseSwitch } from "../store/pause.ts";
import { LOCK_NAME, lockState } from "../store/private.ts";
import { showRefused } from "../guard/invisible.ts";
import { helperLocation } from "./agent-files.ts";
import { homeFolder } from "../store/home.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { Refused } from "../errors.ts";

/** One finding of `doctor`: what is wrong and the command that fixes it. */
type Problem = { what: string; fix: string };

function readText(p: string): string | null {
  try {
    return lstatSync(p).isFile() ? readFileSync(p, "utf8") : null;
  } catch {
    return null;
  }
}

const NO_PASTE = "(a path holds a control character, so no command is printed to paste)";

/** The command removing a PAUSE file, shell-quoted; words instead when its path holds a control character. */
function removePause(file: string): string {
  const w = shellWord(file);
  return w !== null ? `rm ${w}` : `remove the file ${quotedValue(file)} ${NO_PASTE}`;
}

/** What a skill folder needs beside SKILL.md for its flows to run. */
const HELPER_FILES = ["scripts/memory_io.mjs", "scripts/lib/cli.mjs", "scripts/lib/session.mjs"];

export const doctorVerb: Verb = {
  name: "doctor",
  options: { root: { type: "string" }, json: { type: "boolean" }, global: { type: "boolean" } },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs doctor [--root DIR | --global] [--json]

A read-only health report: the Node version; per agent, where the skill is and
whether its hook or block is "not installed", "current" or "outdated" (with why);
each installed SessionStart command run as a harness would (/bin/sh -c with
PATH=/usr/bin:/bin; on Windows Git's sh.exe, or not run) and what it printed;
Codex's trust entry; an AGENTS.md block past the 32 KiB Codex reads; a Claude Code
plugin beside installed hooks; and the memory dir: \`check\`'s verdict, archives,
the journal, the kill switch, the lock, the merge driver, git's view of .ai/. Each
problem comes with the command that fixes it. Changes nothing. Every line it can
print: references/verbs.md#doctor.

options:
  --global    report the per-user files instead of the project's (runs from the
              home folder too)
  --json      print one object {"ok", "node", "agents", "runs", "notes",
              "memory", "problems": [{"what", "fix"}]}
  --root DIR  the project root
${ROOT_HELP}
stdout: the report, or the JSON object.
exit:   always 0 -- problems are in the output, and "ok": false in the JSON.
`,
  async run(ctx) {
    const home = homeFolder(ctx.env);
    const global = ctx.values.global === true;
    let root: string;
    try {
      root = rootOption(ctx);
    } catch (err) {
      // `--global` is about the per-user files: it works from the home folder too, where cmd and
      // PowerShell start (the home folder is never a project, so its memory is read as is).
      if (!global || typeof ctx.values.root === "string" || !(err instanceof Refused) || home === "") throw err;
      root = path.resolve(home);
    }
    const helper = helperLocation(ctx, root);
    // A command to paste: shell-quoted words, or words saying why not.
    const nodeRun = (verb: string, rootArg: boolean) => {
      const h = shellWord(helper.abs);
      const r = rootArg ? shellWord(root) : "";
      if (h !== null && r !== null) return `node ${h} ${verb}${rootArg ? ` --root ${r}` : ""}`;
      const where = `${quotedValue(helper.abs)}${rootArg ? ` with --root ${quotedValue(root)}` : ""}`;
      return `\`${verb}\` of the helper ${where} ${NO_PASTE}`;
    };
    const r: Report = { root, home, global, helper, env: ctx.env, nodeRun, problems: [], notes: [] };
    const node = process.versions.node;
    if (Number(node.split(".")[0]) < 20) {
      r.problems.push({ what: `Node ${node} is older than 20`, fix: "install Node.js 20 or newer" });
    }
    const { agents, starts } = agentInstalls(r);
    pluginInstalls(r, agents);
    const memory = await memoryState(r);
    const runs = await startRuns(r, starts);
    const notes = [...new Set(r.notes)];
    const { problems } = r;
    const result = { ok: problems.length === 0, node, helper: helper.abs, agents, runs, notes, memory, problems };
    return ok(`${ctx.values.json ? JSON.stringify(result) : reportText(result)}\n`);
  },
};

/** What every part of the report shares: where it looks, and the problems and notes found so far. */
interface Report {
  root: string;
  home: string;
  global: boolean;
  helper: HelperLocation;
  env: Record<string, string | undefined>;
  nodeRun(verb: string, rootArg: boolean): string;
  problems: Problem[];
  notes: string[];
}

type AgentReport = { skill: string[]; install: Record<string, string>; trust?: string; plugin?: PluginInstall[] };
type Agents = Record<string, AgentReport>;
type Start = { shown: string; argv: string[]; agent: AgentName };

const cmd = (r: Report, verb: string) => r.nodeRun(verb, true);
const gflag = (r: Report) => (r.global ? " --global" : "");

// An agent's files, the project's or the per-user ones (none for cline and cursor there).
function editsOf(r: Report, agent: Agent): Edit[] {
  try {
    return agent.edits(r.helper, r.global);
  } catch {
    return [];
  }
}

/** Per agent: its skill folders and the state of each of its installs; the start commands to run. */
function agentInstalls(r: Report): { agents: Record<string, AgentReport>; starts: Start[] } {
  const agents: Record<string, AgentReport> = {};
  const starts: Start[] = [];
  for (const [name, agent] of Object.entries(AGENTS) as [AgentName, Agent][]) {
    const skill = [
      ...agent.skillFolders.project.map((f) => path.join(r.root, f, "session-handoff")),
      ...agent.skillFolders.home.map((f) => path.join(r.home, f, "session-handoff")),
    ].filter((d) => exists(path.join(d, "SKILL.md")));
    const install: Record<string, string> = {};
    for (const edit of editsOf(r, agent)) {
      install[edit.file] = installState(r, name, edit, editPath(r.global ? r.home : r.root, edit), agents, starts);
    }
    agents[name] = { ...agents[name], skill, install };
    // Hooks or rules installed for an agent that finds no skill folder: the hooks run, but
    // the agent never loads SKILL.md's flows.
    if (skill.length === 0 && Object.values(install).some((st) => st === "current" || st === "outdated")) {
      const where = agent.skillFolders.project.map((f) => `${f}/session-handoff`).join(" or ");
      const what = `${name}: installed, but no session-handoff skill folder where ${name} looks for skills (${where})`;
      r.problems.push({ what, fix: r.nodeRun(`init --agent ${name}${gflag(r)}`, !r.global) });
    }
    // A SKILL.md alone (an installer that copies only it) gives the agent flows it cannot run.
    for (const dir of skill) {
      const lacking = HELPER_FILES.filter((f) => !exists(path.join(dir, f)));
      if (lacking.length === 0 || r.problems.some((p) => p.what.includes(dir))) continue;
      const what = `${name}: the skill folder ${quotePath(dir)} lacks its helper (${lacking.join(", ")})`;
      r.problems.push({ what, fix: r.nodeRun(`init --agent ${name}${gflag(r)}`, !r.global) });
    }
  }
  return { agents, starts };
}

/** One agent file's install state (absent, current, outdated, malformed), with its problems and start commands. */
function installState(r: Report, name: AgentName, edit: Edit, file: string, agents: Agents, starts: Start[]): string {
  const agent = AGENTS[name];
  const reinstall = cmd(r, `install --agent ${name}${gflag(r)}`);
  const text = readText(file);
  // Settings files are judged on our own entries only: another tool's hook naming the helper
  // is reported as not ours below, never called outdated.
  let judged = text;
  if (text !== null && edit.kind === "json-hooks") {
    judged = withoutForeignHooks(text, (c) => installShaped(edit, c) !== null);
  }
  let state = "absent";
  if (judged !== null && holdsOurs(edit, judged)) {
    try {
      // A shared AGENTS.md block lists the agents that asked for it: another agent's block is
      // not this one's install, current or outdated.
      const span = edit.kind === "md-block" ? findBlock(judged, edit.file) : null;
      if (span !== null && !blockAgents(judged, span).includes(name)) return "absent";
      state = installText(edit, name, judged, edit.file) === judged ? "current" : "outdated";
    } catch (err) {
      state = "malformed";
      const fix = `fix ${edit.file} by hand, then ${reinstall}`;
      r.problems.push({ what: `${edit.file}: ${(err as Error).message.split("\n")[0]}`, fix });
    }
  }
  if (state === "outdated") {
    const why = edit.kind === "json-hooks" && judged !== null ? outdatedReasons(judged, edit) : [];
    const what = `${name}: ${edit.file} holds an outdated session-handoff entry`;
    const fix = `${reinstall} (upgrades it in place)`;
    r.problems.push({ what: why.length > 0 ? `${what}: ${why.join("; ")}` : what, fix });
  }
  const installed = state === "current" || state === "outdated";
  if (installed && text !== null) {
    if (edit.kind === "md-block" && path.basename(edit.file) === "AGENTS.md") {
      const over = budgetFinding(text, edit.file, reinstall);
      if (over !== null && !r.problems.some((p) => p.what === over.what)) r.problems.push(over);
      const subfolders = "codex: AGENTS.md files in subfolders count toward the same 32 KiB Codex reads";
      if (name === "codex") r.notes.push(subfolders);
    }
    if (edit.kind === "json-hooks" && name === "codex") {
      agents[name] = { ...agents[name]!, trust: codexTrust(r.env, r.home, file) };
    }
    const fromStart = agent.fromStartFolder === true;
    if (edit.kind === "json-hooks" && fromStart && !r.global) r.notes.push(startFolderNote(agent));
  }
  // A settings file holding only another tool's entries still has them reported.
  const withStarts = edit.kind === "json-hooks" || (installed && !edit.file.endsWith("TaskResume"));
  if (withStarts && text !== null && holdsOurs(edit, text)) {
    const shown = r.global ? `~/${edit.file}` : edit.file;
    const found = startCommands(edit, text, file, state === "current");
    for (const argv of found.run) starts.push({ shown, argv, agent: name });
    // A settings file may come with a clone: only the exact commands install writes are run.
    for (const c of found.foreign) {
      const fix = `read it in ${shown}; remove it unless you wrote it, then ${reinstall} writes ours`;
      const names = "a SessionStart command names memory_io.mjs but is not one install writes (not ours: not run)";
      const command = quotedValue(c.length > 200 ? `${c.slice(0, 200)}…` : c);
      r.problems.push({ what: `${shown}: ${names}: ${command}`, fix });
    }
  }
  return state;
}

// The Claude Code plugin form: its hooks bring their own notice, so installed SessionStart
// hooks as well give every session two notices.
function pluginInstalls(r: Report, agents: Record<string, AgentReport>): void {
  const plugins = claudePluginInstalls(r.home);
  if (plugins.length === 0) return;
  agents["claude-code"] = { ...agents["claude-code"]!, plugin: plugins };
  for (const p of plugins) {
    const state = `${p.scope} scope${p.version ? `, ${p.version}` : ""}, ${p.enabled ? "enabled" : "disabled"}`;
    r.notes.push(`claude-code: the plugin ${p.key} is installed (${state})`);
  }
  const unlisted = `which Claude Code 2.1.112 does not list ("Unknown skill"): reinstall it from the dist-plugin`;
  for (const p of plugins.filter((p) => p.rootSkill)) {
    const note = `the plugin ${p.key} has its SKILL.md at its root, ${unlisted} branch (README, "Install")`;
    r.notes.push(`claude-code: ${note}`);
  }
  const installed = Object.entries(agents["claude-code"]?.install ?? {});
  const hooked = installed.some(([f, st]) => f.endsWith("settings.json") && (st === "current" || st === "outdated"));
  if (plugins.some((p) => p.enabled) && hooked) {
    const what = "claude-code: the plugin and the installed .claude/settings.json hooks both announce parked memory";
    const uninstall = cmd(r, `uninstall --agent claude-code${gflag(r)}`);
    const fix = `${uninstall} (the plugin's hooks stay), or disable the plugin with /plugin`;
    r.problems.push({ what: `${what}: every session gets the notice twice`, fix });
  }
}

/** The memory dir: check's verdict, the lock, the merge driver, archives, the journal, the kill switch, git. */
async function memoryState(r: Report) {
  const { root, problems } = r;
  const kinds: Kind[] = ["handoff", "lessons", "solutions"];
  const files = Object.fromEntries(kinds.map((k) => [k, inspectFile(root, k).status]));
  const interrupted = interruptedSave(root) || Object.values(files).includes("interrupted");
  const unsafe = Object.values(files).some((s) => s === "unsafe" || s === "foreign");
  const verdict = interrupted ? "interrupted" : unsafe ? "unsafe" : files.handoff === "present" ? "parked" : "clean";
  if (interrupted) problems.push({ what: "an interrupted save needs recovery", fix: cmd(r, "recover") });
  // A lock no single look can judge: a writer takes it over only after watching it unchanged
  // for 10 s, so a short --lock-timeout keeps saying busy.
  const lock = lockState(memoryDir(root));
  if (lock.unproven) {
    const owner = `process ${lock.pid} on ${quotedValue(lock.host ?? "")}, dated ahead of this clock`;
    const who = lock.host === null ? "an unreadable owner file" : owner;
    const fix = `${cmd(r, "recover")} takes it over after watching it 10 s (if no writer is at work there)`;
    problems.push({ what: `the memory lock ${path.join(".ai", "memory", LOCK_NAME)} names ${who}`, fix });
  }
  if (unsafe) {
    const fix = "inspect .ai/memory by hand (a link, a hard link, a FIFO or no v1 marker); move the file away";
    problems.push({ what: "a memory file failed safety or schema checks", fix });
  }
  if (mergeDriverMissing(root)) problems.push({ what: MERGE_DRIVER_MISSING, fix: cmd(r, "publish") });
  const driverGone = await driverPartMissing(root, r.env);
  // Git then merges memory files as text: the driver's guard falls back to conflict markers.
  if (driverGone !== null) {
    problems.push({ what: `${driverGone}: memory files merge as text (conflict markers)`, fix: cmd(r, "publish") });
  }
  let archives = 0;
  try {
    archives = readdirSync(archiveDir(root)).filter((n) => ARCHIVE_NAME.test(n)).length;
  } catch {
    // No archive yet.
  }
  const journal = journalState(r);
  const paused = pauseSwitch(memoryDir(root), r.env);
  if (paused) {
    const byEnv = paused.startsWith("SESSION_HANDOFF_DISABLE");
    const what = `memory writes are paused by ${byEnv ? paused : quotedPath(paused)}`;
    problems.push({ what, fix: byEnv ? "unset SESSION_HANDOFF_DISABLE" : removePause(paused) });
  }
  return { verdict, files, archives, paused, git: await gitState(r), journal };
}

/** The journal's files, its OFF switch, and the first line of each file that breaks its schema. */
function journalState(r: Report) {
  const journalFiles = listJournal(r.root);
  const problems: { file: string; line: number; message: string }[] = [];
  for (const f of journalFiles) {
    const file = `journal/${f.name}`;
    try {
      const read = readJournalFile(journalDir(r.root), f.name);
      const first = read === null ? undefined : parseJournal(read.bytes.toString("utf8"), f.kind).problems[0];
      if (first) problems.push({ file, ...first });
    } catch (err) {
      problems.push({ file, line: 0, message: (err as Error).message });
    }
  }
  for (const p of problems) {
    const where = `${path.join(".ai", "memory", p.file)} line ${p.line}`;
    const what = `${where}: ${p.message}; saves add no entry to it until it is fixed`;
    r.problems.push({ what, fix: "fix that line by hand, or move the file away" });
  }
  return { files: journalFiles.length, off: journalOff(r.root), problems };
}

/** Whether git ignores and tracks the memory dir; null outside a repository. */
async function gitState(r: Report): Promise<{ ignored: boolean; tracked: boolean } | null> {
  try {
    const ig = await runGit(r.root, ["check-ignore", "-q", "--", ".ai/memory/HANDOFF.md"], r.env, 5000);
    if (ig.code !== 0 && ig.code !== 1) return null;
    const tr = await runGit(r.root, ["ls-files", "--", ".ai/memory"], r.env, 5000);
    return { ignored: ig.code === 0, tracked: tr.stdout.length > 0 };
  } catch {
    return null;
  }
}

/** The installed start commands, run as the harness runs them: what a session would see. */
async function startRuns(r: Report, starts: Start[]): Promise<StartRun[]> {
  const runs: StartRun[] = [];
  for (const s of starts) {
    const run = await runStart(s.shown, s.argv, r.root, r.env);
    runs.push(run);
    // A command doctor has no shell for is not run, and not broken (Windows without Git Bash).
    if (run.notRun !== undefined) r.notes.push(`${run.file} SessionStart: not run: ${run.notRun}`);
    else if (run.code !== 0) {
      const stderr = run.stderr ? `: ${quotedValue(run.stderr.trim().split("\n")[0]!)}` : "";
      const what = `${run.file}: its SessionStart command exited ${run.code ?? "by a signal or timeout"}${stderr}`;
      r.problems.push({ what, fix: cmd(r, `install --agent ${s.agent}${gflag(r)}`) });
    }
  }
  return runs;
}

/** The report as text: paths quoted as anchors print them, and nothing raw a file put there. */
function reportText(result: {
  node: string; helper: string; agents: Agents; runs: StartRun[]; notes: string[]; problems: Problem[];
  memory: Awaited<ReturnType<typeof memoryState>>;
}): string {
  const { agents, runs, notes, memory, problems } = result;
  const lines = [`node ${result.node}`, `helper ${quotePath(result.helper)}`];
  for (const [name, a] of Object.entries(agents)) {
    // "absent" is about this agent's entries: the file itself may hold another agent's.
    const inst = Object.entries(a.install).map(([f, s]) => `${f} ${s === "absent" ? "not installed" : s}`).join(", ");
    const skill = a.skill.length > 0 ? a.skill.map(quotePath).join(", ") : "not found";
    lines.push(`${name}: skill ${skill}; ${inst}${a.trust ? `; Codex hook review: ${a.trust}` : ""}`);
  }
  for (const run of runs) {
    // What a hook printed is quoted as every file-controlled value is: <U+XXXX>, never \u escapes.
    const out = run.stdout.trim();
    const said = out === "" ? "printed nothing" : `printed ${quotedValue(out.slice(0, 300))}`;
    const stderr = run.stderr.trim() ? `; stderr ${quotedValue(run.stderr.trim().slice(0, 300))}` : "";
    lines.push(`ran ${run.file} SessionStart (PATH=/usr/bin:/bin): exit ${run.code ?? "none"}, ${said}${stderr}`);
  }
  for (const n of notes) lines.push(`note: ${n}`);
  const { verdict, archives, journal, paused, git } = memory;
  const tracked = git?.tracked ? "tracked" : "untracked";
  const gitWords = git === null ? "not a repository" : `${git.ignored ? "ignored" : "not ignored"}, ${tracked}`;
  const journalWords = `journal: ${journal.files} file(s)${journal.off ? ", off (journal/OFF)" : ""}`;
  const pausedWords = paused ? `paused (${paused})` : "not paused";
  lines.push(`memory: ${verdict}; ${archives} archive(s); ${journalWords}; ${pausedWords}; git: ${gitWords}`);
  lines.push(problems.length === 0 ? "ok" : `${problems.length} problem(s):`);
  for (const p of problems) lines.push(`- ${p.what}\n  fix: ${p.fix}`);
  // Hook output, lock owners, journal lines and file names are file-controlled: nothing printed
  // holds a raw control or a code point \`write\` refuses.
  return showRefused(lines.join("\n")).text;
}
