import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { HELPER_FILE, oursIn } from "./json-hooks.ts";
import { nodeRun } from "./command.ts";
import { windowsShaped } from "./harness-path.ts";
import { PROBE_SESSION_PREFIX } from "../store/probe-session.ts";
import { SESSION_MATCHER } from "./index.ts";
import { blockEndByte, CODEX_BUDGET, findBlock } from "./md-block.ts";
import type { Agent, Edit, JsonHooksEdit } from "./types.ts";

/** Why an installed settings file of ours is outdated, in words, or [] when it is not. */
export function outdatedReasons(text: string, edit: JsonHooksEdit): string[] {
  const out: string[] = [];
  // Only the commands install writes are ours to judge: another tool's entry is never outdated.
  const forms = installedForms(edit);
  const ours = oursIn(text).filter((h) => installShaped(edit, h.command) !== null);
  const others = ours.filter((h) => !forms.includes(h.command))
    .map((h) => JSON.stringify(installShaped(edit, h.command)));
  if (others.length > 0) out.push(`its commands run another copy of the helper (${[...new Set(others)].join(", ")})`);
  if (ours.some((h) => /(^|[;|&]\s*|\|\|\s*)node "\$f"/.test(h.command))) {
    const where = "nvm, fnm, volta, a harness started from a GUI";
    out.push(`its commands run bare node, which fails where node is not on the hook's PATH (${where})`);
  }
  const start = edit.hooks.find((h) => h.event === "SessionStart");
  const noFork = (h: { event: string; matcher: string | null }) =>
    h.event === "SessionStart" && h.matcher !== null && !h.matcher.split("|").includes("fork");
  if (start?.matcher !== undefined && ours.some(noFork)) {
    out.push(`its SessionStart matcher lacks fork (now ${SESSION_MATCHER})`);
  }
  const events = new Set(edit.hooks.map((h) => h.event));
  const stray = [...new Set(ours.filter((h) => !events.has(h.event)).map((h) => h.event))];
  if (stray.length > 0) out.push(`it holds a hook of ours on ${stray.join(", ")}, which install no longer adds`);
  return out;
}

/**
 * Codex's review of a hook: `[hooks.state."<abs hooks.json>:session_start:<g>:<h>"]` in
 * `$CODEX_HOME/config.toml`. Its hash recipe is not known: doctor tells only whether an entry exists.
 */
export function codexTrust(env: Record<string, string | undefined>, home: string, hooksFile: string): string {
  let toml = "";
  try {
    const p = path.join(env.CODEX_HOME || path.join(home, ".codex"), "config.toml");
    if (lstatSync(p).isFile()) toml = readFileSync(p, "utf8");
  } catch {
    // No config: no entry.
  }
  const key = `[hooks.state.${JSON.stringify(`${hooksFile}:session_start:`).slice(0, -1)}`;
  const found = toml.split("\n").some((l) => l.trim().startsWith(key));
  return found ? "entry present (review again if the command changed)" : "no trust entry";
}

/** Where a Markdown block of ours ends past Codex's 32 KiB, the finding; null otherwise. */
export function budgetFinding(text: string, file: string, fixCmd: string): { what: string; fix: string } | null {
  let span;
  try {
    span = findBlock(text, file);
  } catch {
    return null; // malformed: reported elsewhere
  }
  if (span === null) return null;
  const end = blockEndByte(text, span);
  if (end <= CODEX_BUDGET) return null;
  const past = `past the ${CODEX_BUDGET} bytes of AGENTS.md text Codex reads; Codex never sees it`;
  const fix = `${fixCmd} (it moves the block to the top)`;
  return { what: `${file}: the session-handoff block ends at byte ${end}, ${past}`, fix };
}

/** The sentence doctor prints when Claude Code or Gemini project hooks are installed. */
export function startFolderNote({ name }: Agent): string {
  const anywhere = `for monorepos, or to start anywhere, use install --agent ${name} --global`;
  return `${name}: project hooks load only when ${name} starts at the project root (not from a subfolder); ${anywhere}`;
}

/** What running one installed SessionStart command printed; `notRun` says why it was not run. */
export interface StartRun {
  file: string;
  code: number | null;
  stdout: string;
  stderr: string;
  notRun?: string;
}

/** Where argv's first word is this, `runStart` puts the POSIX shell a harness would use. */
const POSIX_SHELL = "/bin/sh";

/** The POSIX shell a harness runs hooks with: `/bin/sh`; on Windows Git for Windows' `sh.exe`, else null. */
export function posixShell(env: Record<string, string | undefined>, platform = process.platform): string | null {
  if (platform !== "win32") return POSIX_SHELL;
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

/**
 * Runs one installed session-start command as a harness would: `/bin/sh -c` (or the Cline script)
 * with `PATH=/usr/bin:/bin`, the project variables set to `root`, a startup input whose session id
 * is a probe's (the hook keeps no delivered-once marker for it); 10 s at most, output cut at
 * 2,000 bytes. On Windows without Git's `sh.exe` nothing runs: a command doctor cannot run is not broken.
 */
export function runStart(
  file: string, argv: string[], root: string, env: Record<string, string | undefined>, platform = process.platform,
): Promise<StartRun> {
  const windows = platform === "win32";
  const shell = argv[0] === POSIX_SHELL ? posixShell(env, platform) : argv[0]!;
  if (shell === null) {
    const notRun = "no POSIX shell (Git for Windows' sh.exe) was found to run it as the harness would";
    return Promise.resolve({ file, code: null, stdout: "", stderr: "", notRun });
  }
  const PATH = windows ? (env.PATH ?? env.Path ?? "") : "/usr/bin:/bin";
  const childEnv: Record<string, string> = { PATH, CLAUDE_PROJECT_DIR: root, GEMINI_PROJECT_DIR: root };
  for (const k of [...KEPT_ENV, ...(windows ? WINDOWS_ENV : [])]) if (env[k]) childEnv[k] = env[k]!;
  const session_id = `${PROBE_SESSION_PREFIX}${randomBytes(4).toString("hex")}`;
  const input = JSON.stringify({ session_id, cwd: root, hook_event_name: "SessionStart", source: "startup" });
  return new Promise((resolve) => {
    const child = spawn(shell, argv.slice(1), { cwd: root, env: childEnv, timeout: 10_000 });
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

/** The exact commands install writes for each hook: the current form, and the outdated bare-`node` one. */
function installedForms(edit: JsonHooksEdit): string[] {
  const forms: string[] = [];
  for (const h of edit.hooks) {
    const now = edit.command(h.args);
    const tail = `${nodeRun(h.args)}; :`;
    forms.push(now);
    if (now.endsWith(tail)) forms.push(`${now.slice(0, -tail.length)}node "$f" ${h.args}`);
  }
  return forms;
}

// The file word of a hook command as `hookCommand` writes it: bare safe characters or one
// single-quoted word, after an optional `"$VAR"/`.
const FILE_WORD = /^(?:"\$[A-Za-z_][A-Za-z0-9_]*"\/)?([A-Za-z0-9_./:@%+=-]+|\x27(?:[^\x27]|\x27\\\x27\x27)*\x27)$/;
const FILE_HEAD = "f=";
const FILE_TAIL = '; [ ! -f "$f" ] || ';

/**
 * The helper path of a command that is one of `installedForms` but for that path (install's entry
 * from another copy of the helper, which install rewrites in place); null for another tool's command.
 */
export function installShaped(edit: JsonHooksEdit, command: string): string | null {
  for (const form of installedForms(edit)) {
    const at = form.indexOf(FILE_TAIL);
    if (!form.startsWith(FILE_HEAD) || at === -1) {
      if (form === command) return "";
      continue;
    }
    const tail = form.slice(at);
    if (!command.startsWith(FILE_HEAD) || !command.endsWith(tail)) continue;
    const word = FILE_WORD.exec(command.slice(FILE_HEAD.length, command.length - tail.length));
    if (word === null) continue;
    const name = word[1]!.startsWith("'") ? word[1]!.slice(1, -1).replace(/\x27\\\x27\x27/g, "'") : word[1]!;
    // A Windows helper path (`C:\…\memory_io.mjs`) is read as Windows reads it.
    if ((windowsShaped(name) ? path.win32 : path.posix).basename(name) !== HELPER_FILE) continue;
    return `${word[0].slice(0, word[0].length - word[1]!.length)}${name}`;
  }
  return null;
}

/**
 * The SessionStart commands naming the helper in an installed file: `run` (argv), only those exactly
 * as install writes them, as a file may come with a clone; `foreign`, those not install-shaped.
 * A Cline script runs only when `current` (byte for byte what install writes).
 */
export function startCommands(edit: Edit, text: string, file: string, current: boolean) {
  if (edit.kind === "json-hooks") {
    const forms = installedForms(edit);
    const all = oursIn(text).filter((h) => h.event === "SessionStart").map((h) => h.command);
    // Install's entry for another copy of the helper is ours (outdated), but not run.
    const run = all.filter((c) => forms.includes(c)).map((c) => [POSIX_SHELL, "-c", c]);
    return { run, foreign: all.filter((c) => installShaped(edit, c) === null) };
  }
  if (edit.kind !== "owned-file" || edit.mode !== 0o755) return { run: [], foreign: [] };
  return current ? { run: [[POSIX_SHELL, file]], foreign: [] } : { run: [], foreign: [`/bin/sh ${edit.file}`] };
}
