import { readdirSync } from "node:fs";
import path from "node:path";
import { quotedValue, shellWord } from "../guard/quote.ts";
import { quotedPath, quotePath } from "../schema/anchor-lines.ts";
import { driverPartMissing, MERGE_DRIVER_MISSING, mergeDriverMissing } from "../git/merge-driver-config.ts";
import { AGENTS } from "../agents/index.ts";
import { withoutForeignHooks } from "../agents/json-hooks.ts";
import { blockAgents, findBlock } from "../agents/md-block.ts";
import { editPath, holdsOurs, installText } from "../agents/plan.ts";
import type { Agent, AgentName, Edit, HelperLocation } from "../agents/types.ts";
import { budgetFinding, codexTrust, installShaped, outdatedReasons, readText } from "../agents/doctor-checks.ts";
import { runStart, startCommands, type StartRun } from "../agents/doctor-checks.ts";
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
import { helperLocation } from "../agents/target.ts";
import { homeFolder } from "../store/home.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { Refused } from "../errors.ts";

type Problem = { what: string; fix: string };
type AgentReport = { skill: string[]; install: Record<string, string>; trust?: string; plugin?: PluginInstall[] };

/** Where the report looks, and what it has found so far. */
interface Report {
  root: string;
  home: string;
  global: boolean;
  helper: HelperLocation;
  env: Record<string, string | undefined>;
  agents: Record<string, AgentReport>;
  runs: StartRun[];
  problems: Problem[];
  notes: string[];
}

/** What a skill folder needs beside SKILL.md for its flows to run. */
const HELPER_FILES = ["scripts/memory_io.mjs", "scripts/lib/cli.mjs", "scripts/lib/session.mjs"];
const NO_PASTE = "(a path holds a control character, so no command is printed to paste)";

const installed = (state: string) => state === "current" || state === "outdated";

export const doctorVerb: Verb = {
  name: "doctor",
  options: { root: { type: "string" }, json: { type: "boolean" }, global: { type: "boolean" } },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs doctor [--root DIR | --global] [--json]

A read-only health report: Node; per agent, its skill folders and whether each
hook or block is "not installed", "current" or "outdated" (with why); each
installed SessionStart command run as a harness would; the memory dir. Each
problem comes with the command that fixes it. Changes nothing. Every line it
can print: references/verbs.md#doctor.

options:
  --global    the per-user files (runs from the home folder too)
  --json      one object {"ok", "node", "helper", "agents", "runs", "notes",
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
      // --global works from the home folder too, where cmd and PowerShell start.
      if (!global || typeof ctx.values.root === "string" || !(err instanceof Refused) || home === "") throw err;
      root = path.resolve(home);
    }
    const helper = helperLocation(ctx, root);
    const r: Report = { root, home, global, helper, env: ctx.env, agents: {}, runs: [], problems: [], notes: [] };
    const node = process.versions.node;
    if (Number(node.split(".")[0]) < 20) {
      r.problems.push({ what: `Node ${node} is older than 20`, fix: "install Node.js 20 or newer" });
    }
    for (const [name, agent] of Object.entries(AGENTS) as [AgentName, Agent][]) await agentInstalls(r, name, agent);
    pluginInstalls(r);
    const memory = await memoryState(r);
    const { agents, runs, problems } = r;
    const notes = [...new Set(r.notes)];
    const result = { ok: problems.length === 0, node, helper: helper.abs, agents, runs, notes, memory, problems };
    return ok(`${ctx.values.json ? JSON.stringify(result) : reportText(result)}\n`);
  },
};

/** `node <helper> <verb> --root <root>` to paste; words instead where a path holds a control character. */
function fixCmd(r: Report, verb: string, withRoot = true): string {
  const h = shellWord(r.helper.abs);
  const root = withRoot ? shellWord(r.root) : "";
  if (h !== null && root !== null) return `node ${h} ${verb}${withRoot ? ` --root ${root}` : ""}`;
  const where = `${quotedValue(r.helper.abs)}${withRoot ? ` with --root ${quotedValue(r.root)}` : ""}`;
  return `\`${verb}\` of the helper ${where} ${NO_PASTE}`;
}

/** The fix that runs an agent verb on the files doctor looked at; init --global needs no project. */
function agentFix(r: Report, verb: "init" | "install" | "uninstall", name: AgentName): string {
  return fixCmd(r, `${verb} --agent ${name}${r.global ? " --global" : ""}`, verb !== "init" || !r.global);
}

/** One agent: its skill folders, the state of each file it installs, and what is missing for it to work. */
async function agentInstalls(r: Report, name: AgentName, agent: Agent): Promise<void> {
  const skill = [
    ...agent.skillFolders.project.map((f) => path.join(r.root, f, "session-handoff")),
    ...agent.skillFolders.home.map((f) => path.join(r.home, f, "session-handoff")),
  ].filter((d) => exists(path.join(d, "SKILL.md")));
  let edits: Edit[] = [];
  try {
    edits = agent.edits(r.helper, r.global);
  } catch {
    // Cline and Cursor have no per-user files.
  }
  const install: Record<string, string> = {};
  r.agents[name] = { skill, install };
  for (const edit of edits) install[edit.file] = await installState(r, name, edit);
  // Hooks or rules without a skill folder run, but the agent never loads SKILL.md's flows.
  if (skill.length === 0 && Object.values(install).some(installed)) {
    const where = agent.skillFolders.project.map((f) => `${f}/session-handoff`).join(" or ");
    const what = `${name}: installed, but no session-handoff skill folder where ${name} looks for skills (${where})`;
    r.problems.push({ what, fix: agentFix(r, "init", name) });
  }
  // A SKILL.md alone (an installer that copies only it) gives the agent flows it cannot run.
  for (const dir of skill) {
    const lacking = HELPER_FILES.filter((f) => !exists(path.join(dir, f)));
    if (lacking.length === 0 || r.problems.some((p) => p.what.includes(dir))) continue;
    const what = `${name}: the skill folder ${quotePath(dir)} lacks its helper (${lacking.join(", ")})`;
    r.problems.push({ what, fix: agentFix(r, "init", name) });
  }
}

/** One installed file's state (absent, current, outdated, malformed), its problems, notes and start commands. */
async function installState(r: Report, name: AgentName, edit: Edit): Promise<string> {
  const file = editPath(r.global ? r.home : r.root, edit);
  const text = readText(file);
  if (text === null || !holdsOurs(edit, text)) return "absent";
  const reinstall = agentFix(r, "install", name);
  const state = judge(r, name, edit, text, reinstall);
  const shown = r.global ? `~/${edit.file}` : edit.file;
  const found = startCommands(edit, text, file, state === "current");
  for (const argv of found.run) await startRun(r, shown, argv, name);
  for (const c of found.foreign) {
    const names = "a SessionStart command names memory_io.mjs but is not one install writes (not ours: not run)";
    const what = `${shown}: ${names}: ${quotedValue(c.length > 200 ? `${c.slice(0, 200)}…` : c)}`;
    r.problems.push({ what, fix: `read it in ${shown}; remove it unless you wrote it, then ${reinstall} writes ours` });
  }
  if (!installed(state)) return state;
  if (path.basename(edit.file) === "AGENTS.md") {
    const over = budgetFinding(text, edit.file, reinstall);
    if (over !== null && !r.problems.some((p) => p.what === over.what)) r.problems.push(over);
    const subfolders = "AGENTS.md files in subfolders count toward the same 32 KiB Codex reads";
    if (name === "codex") r.notes.push(`codex: ${subfolders}`);
  }
  if (edit.kind === "json-hooks" && name === "codex") r.agents[name]!.trust = codexTrust(r.env, r.home, file);
  if (edit.kind === "json-hooks" && AGENTS[name].fromStartFolder && !r.global) {
    const only = `project hooks load only when ${name} starts at the project root (not from a subfolder)`;
    r.notes.push(`${name}: ${only}; for monorepos, or to start anywhere, use install --agent ${name} --global`);
  }
  return state;
}

/** Current when install would write the file as it is, else outdated (with why) or malformed. */
function judge(r: Report, name: AgentName, edit: Edit, text: string, reinstall: string): string {
  // Only install's own entries are judged: another tool's hook naming the helper is reported as not ours.
  const ours = edit.kind === "json-hooks" ? withoutForeignHooks(text, (c) => installShaped(edit, c) !== null) : text;
  if (!holdsOurs(edit, ours)) return "absent";
  let want: string;
  try {
    // A shared AGENTS.md block lists the agents that asked for it: another agent's is not this one's install.
    const span = edit.kind === "md-block" ? findBlock(ours, edit.file) : null;
    if (span !== null && !blockAgents(ours, span).includes(name)) return "absent";
    want = installText(edit, name, ours, edit.file);
  } catch (err) {
    const what = `${edit.file}: ${(err as Error).message.split("\n")[0]}`;
    r.problems.push({ what, fix: `fix ${edit.file} by hand, then ${reinstall}` });
    return "malformed";
  }
  if (want === ours) return "current";
  const why = edit.kind === "json-hooks" ? outdatedReasons(ours, edit) : [];
  const what = `${name}: ${edit.file} holds an outdated session-handoff entry${why.length > 0 ? ": " : ""}`;
  r.problems.push({ what: `${what}${why.join("; ")}`, fix: `${reinstall} (upgrades it in place)` });
  return "outdated";
}

// The Claude Code plugin brings its own hooks: installed SessionStart hooks as well give every session two notices.
function pluginInstalls(r: Report): void {
  const plugins = claudePluginInstalls(r.home);
  if (plugins.length === 0) return;
  const claude = r.agents["claude-code"]!;
  claude.plugin = plugins;
  for (const p of plugins) {
    const state = `${p.scope} scope${p.version ? `, ${p.version}` : ""}, ${p.enabled ? "enabled" : "disabled"}`;
    r.notes.push(`claude-code: the plugin ${p.key} is installed (${state})`);
    if (!p.rootSkill) continue;
    const unlisted = `which Claude Code 2.1.112 does not list ("Unknown skill")`;
    const fix = `reinstall it from the dist-plugin branch (README, "Install")`;
    r.notes.push(`claude-code: the plugin ${p.key} has its SKILL.md at its root, ${unlisted}: ${fix}`);
  }
  const hooked = Object.entries(claude.install).some(([f, st]) => f.endsWith("settings.json") && installed(st));
  if (plugins.some((p) => p.enabled) && hooked) {
    const what = "claude-code: the plugin and the installed .claude/settings.json hooks both announce parked memory";
    const uninstall = agentFix(r, "uninstall", "claude-code");
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
  if (interrupted) problems.push({ what: "an interrupted save needs recovery", fix: fixCmd(r, "recover") });
  // A writer takes a lock over only after watching it unchanged for 10 s: no single look can judge this one.
  const lock = lockState(memoryDir(root));
  if (lock.unproven) {
    const owner = `process ${lock.pid} on ${quotedValue(lock.host ?? "")}, dated ahead of this clock`;
    const who = lock.host === null ? "an unreadable owner file" : owner;
    const fix = `${fixCmd(r, "recover")} takes it over after watching it 10 s (if no writer is at work there)`;
    problems.push({ what: `the memory lock ${path.join(".ai", "memory", LOCK_NAME)} names ${who}`, fix });
  }
  if (unsafe) {
    const fix = "inspect .ai/memory by hand (a link, a hard link, a FIFO or no v1 marker); move the file away";
    problems.push({ what: "a memory file failed safety or schema checks", fix });
  }
  if (mergeDriverMissing(root, r.env)) problems.push({ what: MERGE_DRIVER_MISSING, fix: fixCmd(r, "publish") });
  const driverGone = await driverPartMissing(root, r.env);
  if (driverGone !== null) {
    const what = `${driverGone}: memory files merge as text (conflict markers)`;
    problems.push({ what, fix: fixCmd(r, "publish") });
  }
  let archives = 0;
  try {
    archives = readdirSync(archiveDir(root)).filter((n) => ARCHIVE_NAME.test(n)).length;
  } catch {
    // No archive yet.
  }
  const journal = journalState(r);
  const paused = pauseSwitch(memoryDir(root), r.env);
  if (paused?.startsWith("SESSION_HANDOFF_DISABLE")) {
    problems.push({ what: `memory writes are paused by ${paused}`, fix: "unset SESSION_HANDOFF_DISABLE" });
  } else if (paused) {
    const word = shellWord(paused);
    const fix = word !== null ? `rm ${word}` : `remove the file ${quotedValue(paused)} ${NO_PASTE}`;
    problems.push({ what: `memory writes are paused by ${quotedPath(paused)}`, fix });
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

/** One installed start command, run as the harness runs it: what a session would see. */
async function startRun(r: Report, shown: string, argv: string[], name: AgentName): Promise<void> {
  const run = await runStart(shown, argv, r.root, r.env);
  r.runs.push(run);
  // A command doctor has no shell for is not run, and not broken (Windows without Git Bash).
  if (run.notRun !== undefined) r.notes.push(`${run.file} SessionStart: not run: ${run.notRun}`);
  else if (run.code !== 0) {
    const stderr = run.stderr ? `: ${quotedValue(run.stderr.trim().split("\n")[0]!)}` : "";
    const what = `${run.file}: its SessionStart command exited ${run.code ?? "by a signal or timeout"}${stderr}`;
    r.problems.push({ what, fix: agentFix(r, "install", name) });
  }
}

/** The report as text: paths quoted as anchors print them, and nothing raw a file put there. */
function reportText(result: {
  node: string; helper: string; agents: Record<string, AgentReport>; runs: StartRun[]; notes: string[];
  problems: Problem[]; memory: Awaited<ReturnType<typeof memoryState>>;
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
  // Hook output, lock owners, journal lines and file names are file-controlled: no raw control reaches the screen.
  return showRefused(lines.join("\n")).text;
}
