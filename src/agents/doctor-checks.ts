import { childProcess, existsSync, readFileSync } from "../builtins.ts";
import path from "node:path";
import { installedForms, installShaped, oursIn, strictSkip } from "./json-hooks.ts";
import { AGENTS } from "./index.ts";
import { blockEndByte, CODEX_BUDGET, findBlock } from "./md-block.ts";
import { keepingUserStatusLine } from "./installer.ts";
import { CANONICAL } from "./skill-place.ts";
import { claudeUserDir, holdsAgentEntries, holdsOurs, installText, shownOf, userPath } from "./plan.ts";
import { obj, type Rec } from "./transcripts/types.ts";
import type { Agent, AgentName, Edit, HelperLocation, JsonHooksEdit } from "./types.ts";
import { driverPartMissing, MERGE_DRIVER_MISSING, mergeDriverMissing } from "../git/merge-driver-config.ts";
import { GitUnavailable, runGit } from "../git/run.ts";
import { exists, listDir, orNull, randomHex8, readSmall, realOrNull, unreadReason } from "../store/files.ts";
import { LOCK_NAME, lockState } from "../store/lock.ts";
import { ARCHIVE_NAME } from "../store/archive.ts";
import { inspectFile, interruptedSave } from "../store/inspect.ts";
import { archiveDir, memoryDir, type Kind } from "../store/paths.ts";
import { pauseSwitch } from "../store/pause.ts";
import { PROBE_SESSION_PREFIX } from "./harness-path.ts";
import { quotedPath, quotedValue, quotePath, shellWord } from "../guard/quote.ts";

/** Why a settings file of ours is outdated, in words; only install's own entries are judged. */
export function outdatedReasons(text: string, edit: JsonHooksEdit): string[] {
  const forms = installedForms(edit);
  const ours = oursIn(text).filter((h) => installShaped(edit, h.command) !== null);
  const others = ours.filter((h) => !forms.includes(h.command));
  const copies = new Set(others.map((h) => JSON.stringify(installShaped(edit, h.command))));
  const events = new Set(edit.hooks.map((h) => h.event));
  const stray = new Set(ours.filter((h) => !events.has(h.event)).map((h) => h.event));
  const matcher = edit.hooks.find((h) => h.event === "SessionStart")?.matcher;
  const noFork = ours.some((h) => h.event === "SessionStart" && h.matcher?.split("|").includes("fork") === false);
  const out: string[] = [];
  if (copies.size > 0) out.push(`its commands run another copy of the helper (${[...copies].join(", ")})`);
  if (ours.some((h) => h.command.includes('|| node "$f" '))) {
    const where = "nvm, fnm, volta, a harness started from a GUI";
    out.push(`its commands run bare node, which fails where node is not on the hook's PATH (${where})`);
  }
  if (matcher !== undefined && noFork) out.push(`its SessionStart matcher lacks fork (now ${matcher})`);
  if (stray.size > 0) out.push(`it holds a hook of ours on ${[...stray].join(", ")}, which install no longer adds`);
  return out;
}

// Only commands exactly as install writes them here are run, as a file may come with a clone; Cline's when current.
export function startCommands(edit: Edit, text: string, file: string, current: boolean) {
  if (edit.kind !== "json-hooks") {
    return { run: current && edit.file.endsWith("TaskStart") ? [["/bin/sh", file]] : [], foreign: [] };
  }
  const forms = installedForms(edit);
  const all = oursIn(text).filter((h) => h.event === "SessionStart").map((h) => h.command);
  const run = all.filter((c) => forms.includes(c)).map((c) => ["/bin/sh", "-c", c]);
  return { run, foreign: all.filter((c) => installShaped(edit, c) === null) };
}

// Codex's `[hooks.state."<hooks.json>:session_start:…"]` hash has an unknown recipe: only the entry's presence is told.
export function codexTrust(env: Record<string, string | undefined>, home: string, hooksFile: string): string {
  const toml = readSmall(path.join(env.CODEX_HOME || path.join(home, ".codex"), "config.toml")) ?? "";
  const key = `[hooks.state.${JSON.stringify(`${hooksFile}:session_start:`).slice(0, -1)}`;
  const found = toml.split("\n").some((l) => l.trim().startsWith(key));
  return found ? "entry present (review again if the command changed)" : "no trust entry";
}

/** What running one installed SessionStart command printed; `notRun` says why it was not run. */
export type StartRun = { file: string; code: number | null; stdout: string; stderr: string; notRun?: string };

/** The POSIX shell a harness runs hooks with: `/bin/sh`; on Windows Git for Windows' `sh.exe`, else null. */
export function posixShell(env: Record<string, string | undefined>, platform = process.platform): string | null {
  if (platform !== "win32") return "/bin/sh";
  const programs = [env.ProgramFiles, env["ProgramFiles(x86)"]].filter((d) => !!d);
  const git = programs.map((d) => path.win32.join(d!, "Git", "bin"));
  for (const dir of [...git, ...(env.PATH ?? env.Path ?? "").split(";").filter((d) => d !== "")]) {
    const sh = path.win32.join(dir, "sh.exe");
    if (existsSync(sh)) return sh;
  }
  return null;
}

// Windows programs need these to start at all; cmd and PowerShell set them.
const WINDOWS_ENV = [
  "USERPROFILE", "SystemRoot", "SystemDrive", "TEMP", "TMP", "ProgramFiles", "APPDATA", "LOCALAPPDATA",
];
const KEPT_ENV = ["HOME", "XDG_CONFIG_HOME", "SESSION_HANDOFF_NODE", "SESSION_HANDOFF_DISABLE", "TMPDIR"];

// Runs a start command as a harness would, with a probe's session id so the hook keeps no delivered-once marker.
export function runStart(
  file: string, argv: string[], root: string, env: Record<string, string | undefined>, platform = process.platform,
): Promise<StartRun> {
  const windows = platform === "win32";
  const shell = argv[0] === "/bin/sh" ? posixShell(env, platform) : argv[0]!;
  if (shell === null) {
    const notRun = "no POSIX shell (Git for Windows' sh.exe) was found to run it as the harness would";
    return Promise.resolve({ file, code: null, stdout: "", stderr: "", notRun });
  }
  const PATH = windows ? (env.PATH ?? env.Path ?? "") : "/usr/bin:/bin";
  const childEnv: Record<string, string> = { PATH, CLAUDE_PROJECT_DIR: root, GEMINI_PROJECT_DIR: root };
  for (const k of [...KEPT_ENV, ...(windows ? WINDOWS_ENV : [])]) if (env[k]) childEnv[k] = env[k]!;
  const session_id = `${PROBE_SESSION_PREFIX}${randomHex8()}`;
  const input = JSON.stringify({ session_id, cwd: root, hook_event_name: "SessionStart", source: "startup" });
  return new Promise((resolve) => {
    const child = childProcess().spawn(shell, argv.slice(1), { cwd: root, env: childEnv, timeout: 10_000 });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const text = (bufs: Buffer[]) => Buffer.concat(bufs).toString("utf8").slice(0, 2000);
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => resolve({ file, code: null, stdout: "", stderr: e.message }));
    child.on("close", (code) => resolve({ file, code, stdout: text(out), stderr: text(err) }));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

export type Problem = { what: string; fix: string };
export type AgentReport = {
  skill: string[]; install: Record<string, string>; trust?: string; plugin?: PluginInstall[];
};

/** Where the report looks, and what it has found so far. */
export interface Report {
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
type JournalHealth = { files: number; off: boolean; problems: { file: string; line: number; message: string }[] };
const installed = (state: string) => ["current", "outdated", "not loaded"].includes(state);

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
  // A helper outside a project holding init's copy (another version) would write its own path into team files.
  const copied = !r.global && r.helper.rel === null && exists(path.join(r.root, CANONICAL, "SKILL.md"));
  if (verb === "install" && copied) verb = "init";
  return fixCmd(r, `${verb} --agent ${name}${r.global ? " --global" : ""}`, verb !== "init" || !r.global);
}

// Cline and Cursor have no per-user files: their `edits` throw with `global`.
const editsOf = (r: Report, agent: Agent, global: boolean) => orNull(() => agent.edits(r.helper, global)) ?? [];

/** One agent: its skill folders, the state of each file it installs, and what is missing for it to work. */
export async function agentInstalls(r: Report, name: AgentName, agent: Agent): Promise<void> {
  const skill = [
    ...agent.skillFolders.project.map((f) => path.join(r.root, f, "session-handoff")),
    ...agent.skillFolders.home.map((f) => path.join(userPath(r.home, f, r.env), "session-handoff")),
  ].filter((d) => exists(path.join(d, "SKILL.md")));
  const install: Record<string, string> = {};
  r.agents[name] = { skill, install };
  for (const edit of editsOf(r, agent, r.global)) install[edit.file] = await installState(r, name, edit);
  if (!r.global && Object.values(install).some(installed)) doubleInstall(r, name, agent);
  // install writes all of an agent's files: one missing beside the others was kept out of git or removed.
  const absent = Object.keys(install).filter((f) => install[f] === "absent");
  if (Object.values(install).some(installed) && absent.length > 0) {
    const what = `${name}: ${absent.join(", ")} not installed (its other files are; a clone lacks the files that name`;
    r.problems.push({ what: `${what} the clone's own path)`, fix: agentFix(r, "install", name) });
  }
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

// Start hooks of ours in the project's file and in the user's run twice at every start: two notices, two writers.
function doubleInstall(r: Report, name: AgentName, agent: Agent): void {
  for (const edit of editsOf(r, agent, true)) {
    const file = userPath(r.home, edit.file, r.env);
    if (edit.kind !== "json-hooks" || file === userPath(r.root, edit.file)) continue;
    const text = readSmall(file);
    const start = text === null ? [] : oursIn(text).filter((h) => h.event === "SessionStart");
    if (!start.some((h) => installShaped(edit, h.command) !== null)) continue;
    const what = `${name}: installed in this project and for your user (${shownOf(edit, file, r.home)}) too`;
    const user = fixCmd(r, `uninstall --agent ${name} --global`, false);
    const fix = `${user} (or this project's: ${agentFix(r, "uninstall", name)})`;
    r.problems.push({ what: `${what}: every session start runs both (two notices, two checkpoint writers)`, fix });
  }
}

/** One installed file's state (absent, current, outdated, malformed), its problems, notes and start commands. */
async function installState(r: Report, name: AgentName, edit: Edit): Promise<string> {
  const file = r.global ? userPath(r.home, edit.file, r.env) : userPath(r.root, edit.file);
  // doctor only reads: a file linked from a dotfiles folder (install refuses to edit it) is judged by what it holds.
  const text = readSmall(file) ?? readSmall(realOrNull(file) ?? file);
  const reinstall = agentFix(r, "install", name);
  const shown = shownOf(edit, file, r.global ? r.home : null);
  const why = text === null ? unreadReason(realOrNull(file) ?? file) : null;
  const what = `${shown} ${why}: doctor cannot tell which agents' entries it holds`;
  const fix = `make it a readable file of at most 1 MB, then run ${reinstall}`;
  if (why !== null && !r.problems.some((p) => p.what === what)) r.problems.push({ what, fix });
  if (text === null) return why === null ? "absent" : "unreadable";
  const judged = judge(r, name, edit, text, reinstall);
  // Ours as install writes it, in a file the harness never loads: "current" would be a lie.
  const skipped = edit.kind === "json-hooks" && installed(judged) ? strictSkip(edit, text, shown) : null;
  if (skipped !== null) r.problems.push(skipped);
  const state = skipped === null ? judged : "not loaded";
  const found = startCommands(edit, text, file, state === "current");
  for (const argv of found.run) {
    const run = await runStart(shown, argv, r.root, r.env);
    r.runs.push(run);
    // A command doctor has no shell for is not run, and not broken (Windows without Git Bash).
    if (run.notRun !== undefined) r.notes.push(`${run.file} SessionStart: not run: ${run.notRun}`);
    else if (run.code !== 0) {
      const stderr = run.stderr ? `: ${quotedValue(run.stderr.trim().split("\n")[0]!)}` : "";
      const what = `${run.file}: its SessionStart command exited ${run.code ?? "by a signal or timeout"}${stderr}`;
      r.problems.push({ what, fix: reinstall });
    }
  }
  for (const c of found.foreign) {
    const names = "a SessionStart command names memory_io.mjs but is not one install writes (not ours: not run)";
    const what = `${shown}: ${names}: ${quotedValue(c.length > 200 ? `${c.slice(0, 200)}…` : c)}`;
    r.problems.push({ what, fix: `read it in ${shown}; remove it unless you wrote it, then ${reinstall} writes ours` });
  }
  if (!installed(state)) return state;
  if (path.basename(edit.file) === "AGENTS.md") {
    // A block of ours ending past the 32 KiB of AGENTS.md text Codex reads.
    const span = findBlock(text, edit.file);
    const end = span === null ? 0 : blockEndByte(text, span);
    const past = `past the ${CODEX_BUDGET} bytes of AGENTS.md text Codex reads; Codex never sees it`;
    const what = `${edit.file}: the session-handoff block ends at byte ${end}, ${past}`;
    const fix = `${reinstall} (it moves the block to the top)`;
    if (end > CODEX_BUDGET && !r.problems.some((p) => p.what === what)) r.problems.push({ what, fix });
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
function judge(r: Report, name: AgentName, edit: Edit, ours: string, reinstall: string): string {
  if (!holdsOurs(edit, ours)) return "absent";
  let want: string;
  try {
    // A shared AGENTS.md block lists the agents that asked for it: another agent's is not this one's install.
    if (!holdsAgentEntries(edit, name, ours)) return "absent";
    want = installText(keepingUserStatusLine(edit, ours, r.global, r.home, r.env), name, ours, edit.file);
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

/** One install of this skill's plugin, as Claude Code records it; `enabled` unless `enabledPlugins` says false. */
interface PluginInstall {
  key: string;
  scope: string;
  version: string | null;
  enabled: boolean;
  /** SKILL.md at the install's root (not in skills/session-handoff/), which Claude Code 2.1.112 does not list. */
  rootSkill: boolean;
}

const json = (file: string) => orNull(() => obj(JSON.parse(readFileSync(file, "utf8").slice(0, 1_000_000))));

/** The installs of a plugin named `session-handoff` that Claude Code records in its per-user folder. */
function claudePluginInstalls(home: string, env: Record<string, string | undefined>): PluginInstall[] {
  const dir = claudeUserDir(home, env);
  const plugins = json(path.join(dir, "plugins", "installed_plugins.json"))?.plugins;
  if (plugins === null || typeof plugins !== "object") return [];
  const enabledMap = (json(path.join(dir, "settings.json"))?.enabledPlugins ?? {}) as Rec;
  const out: PluginInstall[] = [];
  for (const [key, list] of Object.entries(plugins as Rec)) {
    if (!key.startsWith("session-handoff@") || !Array.isArray(list)) continue;
    for (const raw of list) {
      const e = obj(raw) ?? {};
      const at = e.installPath;
      const rootSkill = typeof at === "string" && path.isAbsolute(at) && existsSync(path.join(at, "SKILL.md"));
      const scope = typeof e.scope === "string" ? e.scope : "unknown";
      const version = typeof e.version === "string" ? e.version : null;
      out.push({ key, scope, version, enabled: enabledMap[key] !== false, rootSkill });
    }
  }
  return out;
}

// The Claude Code plugin brings its own hooks: installed SessionStart hooks as well give every session two notices.
export function pluginInstalls(r: Report): void {
  const plugins = claudePluginInstalls(r.home, r.env);
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

// Claude Code's `disableAllHooks` stops every hook; a project's local file, then its shared one, win over the user's.
export function claudeHooksOff(r: Report): void {
  const claude = r.agents["claude-code"]!;
  if (!Object.values(claude.install).some(installed) && !claude.plugin?.some((p) => p.enabled)) return;
  const user = path.join(claudeUserDir(r.home, r.env), "settings.json");
  const userShown = user === path.join(r.home, ".claude", "settings.json") ? "~/.claude/settings.json" : user;
  const project = r.global ? [] : [".claude/settings.local.json", ".claude/settings.json"];
  const files = [...project.map((f) => [f, path.join(r.root, f)] as const), [userShown, user] as const];
  // A file that is not strict JSON is skipped by Claude Code: its key counts for nothing.
  const said = files.map(([f, p]) => [f, json(p)?.disableAllHooks] as const).filter(([, v]) => v !== undefined);
  if (said[0]?.[1] !== true) return;
  const where = said.filter(([, v]) => v === true).map(([f]) => f).join(" and ");
  const none = "no notice at session start, no checkpoint, no context offer";
  const what = `claude-code: "disableAllHooks": true in ${where}: Claude Code runs none of the installed hooks`;
  r.problems.push({ what: `${what} (${none})`, fix: `remove "disableAllHooks" from ${where}` });
}

// install registers the driver and commits nothing (publish commits memory, which only the user asks for).
function driverFix(r: Report): string {
  const here = (n: string) => !r.global && Object.values(r.agents[n]!.install).some(installed);
  const names = Object.keys(r.agents).filter(here);
  if (names.length > 0) return fixCmd(r, `install ${names.map((n) => `--agent ${n}`).join(" ")}`);
  return `${fixCmd(r, "init")} (add --agent NAME when it finds no agent's folder)`;
}

/** The memory dir: check's verdict, the lock, the merge driver, archives, the journal, the kill switch, git. */
export async function memoryState(r: Report, journal: JournalHealth) {
  const { root, problems } = r;
  const kinds: Kind[] = ["handoff", "lessons", "solutions"];
  const inspections = kinds.map((k) => inspectFile(root, k));
  const files = Object.fromEntries(inspections.map((i) => [i.kind, i.status]));
  const interrupted = interruptedSave(root) || Object.values(files).includes("interrupted");
  const unsafe = Object.values(files).some((s) => s === "unsafe" || s === "foreign");
  const verdict = interrupted ? "interrupted" : unsafe ? "unsafe" : files.handoff === "present" ? "parked" : "clean";
  if (interrupted) problems.push({ what: "an interrupted save needs recovery", fix: fixCmd(r, "recover") });
  if (process.platform !== "win32" && root.includes("\\")) {
    const what = "the project path holds a backslash: Node cannot load a helper copy in it, so hooks running one fail";
    problems.push({ what, fix: "move the project to a path without one, then run init again" });
  }
  // A writer takes a lock over only after watching it unchanged for 10 s: no single look can judge this one.
  const lock = lockState(memoryDir(root));
  if (lock.unproven) {
    const owner = `process ${lock.pid} on ${quotedValue(lock.host ?? "")}, dated ahead of this clock`;
    const who = lock.host === null ? "an unreadable owner file" : owner;
    const fix = `${fixCmd(r, "recover")} takes it over after watching it 10 s (if no writer is at work there)`;
    problems.push({ what: `the memory lock ${path.join(".ai", "memory", LOCK_NAME)} names ${who}`, fix });
  }
  if (unsafe) {
    // The sentence brief refuses with, when the file's shape says it; else what to look for.
    const fix = inspections.find((i) => i.reason !== undefined)?.reason ??
      "inspect .ai/memory by hand (a link, a hard link, a FIFO or no v1 marker); move the file away";
    problems.push({ what: "a memory file failed safety or schema checks", fix });
  }
  const md = await mergeDriverMissing(root, r.env);
  const unread = "make .gitattributes a readable file of at most 1 MB";
  if (md !== null) problems.push({ what: md, fix: md === MERGE_DRIVER_MISSING ? driverFix(r) : unread });
  const driverGone = await driverPartMissing(root, r.env);
  if (driverGone !== null) {
    const what = `${driverGone}: memory files merge as text (conflict markers)`;
    problems.push({ what, fix: driverFix(r) });
  }
  const archives = listDir(archiveDir(root)).filter((n) => ARCHIVE_NAME.test(n)).length;
  for (const p of journal.problems) {
    const file = path.join(".ai", "memory", p.file);
    if (p.line === 0) {
      const what = `${file} ${p.message}: saves add no entry to it and search skips it`;
      const copy = "(a link: with a copy of the file it points to)";
      problems.push({ what, fix: `replace it with a regular file of at most 1 MB ${copy}, or move it away` });
      continue;
    }
    const what = `${file} line ${p.line}: ${p.message}; saves add no entry to it until it is fixed`;
    problems.push({ what, fix: "fix that line by hand, or move the file away" });
  }
  const paused = pauseSwitch(memoryDir(root), r.env);
  if (paused?.startsWith("SESSION_HANDOFF_DISABLE")) {
    problems.push({ what: `memory writes are paused by ${paused}`, fix: "unset SESSION_HANDOFF_DISABLE" });
  } else if (paused) {
    const word = shellWord(paused);
    const fix = word !== null ? `rm ${word}` : `remove the file ${quotedValue(paused)} ${NO_PASTE}`;
    problems.push({ what: `memory writes are paused by ${quotedPath(paused)}`, fix });
  }
  const git = await gitState(r);
  // Git overwrites no untracked file: a pull bringing a teammate's published memory stops until this is published.
  const h = ".ai/memory/HANDOFF.md";
  const mine = files.handoff === "present" && typeof git === "object" && git !== null && !git.tracked;
  if (mine && (await runGit(root, ["cat-file", "-e", `@{upstream}:./${h}`], r.env, 5000)).code === 0) {
    const what = `this clone's memory is untracked and its upstream holds a published ${h}: \`git pull\` stops ` +
      "(untracked working tree files would be overwritten)";
    problems.push({ what, fix: `${fixCmd(r, "publish")} first (it commits this clone's memory), then \`git pull\`` });
  }
  // A folder with no git, no memory and nothing of ours is where doctor was run by mistake: "ok" would mislead.
  const bare = Object.values(r.agents).every((a) => a.skill.length === 0 && !Object.values(a.install).some(installed));
  if (!r.global && git === null && bare && !exists(memoryDir(root))) {
    const what = `${quotedPath(root)} is not a project: no git repository, no .ai/memory and nothing installed`;
    problems.push({ what, fix: "run doctor in your project (or pass --root <project>); init there sets it up" });
  }
  return { verdict, files, archives, paused, git, journal };
}

/** Whether git ignores and tracks the memory dir; null outside a repository; a sentence when git is not on PATH. */
async function gitState(r: Report): Promise<{ ignored: boolean; tracked: boolean } | string | null> {
  try {
    const ig = await runGit(r.root, ["check-ignore", "-q", "--", ".ai/memory/HANDOFF.md"], r.env, 5000);
    if (ig.code !== 0 && ig.code !== 1) return null;
    const tr = await runGit(r.root, ["ls-files", "--", ".ai/memory"], r.env, 5000);
    return { ignored: ig.code === 0, tracked: tr.stdout.length > 0 };
  } catch (err) {
    return err instanceof GitUnavailable && err.reason === "missing" ? "git was not found on PATH" : null;
  }
}
