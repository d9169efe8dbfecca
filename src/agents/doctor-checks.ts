import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { HELPER_FILE, oursIn } from "./json-hooks.ts";
import { nodeRun } from "./command.ts";
import { windowsShaped } from "./harness-path.ts";
import { PROBE_SESSION_PREFIX } from "../store/probe-session.ts";
import { SESSION_MATCHER } from "./envelope.ts";
import { blockEndByte, CODEX_BUDGET, findBlock } from "./md-block.ts";
import type { Agent, Edit } from "./types.ts";

/** One finding of `doctor` about an agent's files: what is wrong and the command that fixes it. */
export interface AgentFinding {
  what: string;
  fix: string;
}

/**
 * Why an installed settings file of ours is outdated, in words (bare `node`, a start
 * matcher without `fork`, a hook of ours on an event we no longer install), or [] when
 * none of these applies. `edit` is the agent's json-hooks edit of that file.
 */
export function outdatedReasons(text: string, edit: Extract<Edit, { kind: "json-hooks" }>): string[] {
  const out: string[] = [];
  // Only the commands install writes are ours to judge: another tool's entry is never outdated.
  const forms = installedForms(edit);
  const ours = oursIn(text).filter((h) => installShaped(edit, h.command) !== null);
  const elsewhere = [...new Set(ours.filter((h) => !forms.includes(h.command)).map((h) => installShaped(edit, h.command)!))];
  if (elsewhere.length > 0) out.push(`its commands run another copy of the helper (${elsewhere.map((f) => JSON.stringify(f)).join(", ")})`);
  if (ours.some((h) => /(^|[;|&]\s*|\|\|\s*)node "\$f"/.test(h.command))) {
    out.push("its commands run bare node, which fails where node is not on the hook's PATH (nvm, fnm, volta, a harness started from a GUI)");
  }
  const start = edit.hooks.find((h) => h.event === "SessionStart");
  if (start?.matcher !== undefined && ours.some((h) => h.event === "SessionStart" && h.matcher !== null && !h.matcher.split("|").includes("fork"))) {
    out.push(`its SessionStart matcher lacks fork (now ${SESSION_MATCHER})`);
  }
  const events = new Set(edit.hooks.map((h) => h.event));
  const stray = [...new Set(ours.filter((h) => !events.has(h.event)).map((h) => h.event))];
  if (stray.length > 0) out.push(`it holds a hook of ours on ${stray.join(", ")}, which install no longer adds`);
  return out;
}

/**
 * Codex's review of a hook (harnesses.md): `[hooks.state."<abs hooks.json>:session_start:<g>:<h>"]`
 * in `$CODEX_HOME/config.toml` (default `~/.codex`). Read only; the hash recipe is not
 * known, so all doctor can tell is whether an entry exists.
 */
export function codexTrust(env: Record<string, string | undefined>, home: string, hooksFile: string): "no trust entry" | "entry present (review again if the command changed)" {
  const codexHome = env.CODEX_HOME ? env.CODEX_HOME : path.join(home, ".codex");
  let toml = "";
  try {
    const p = path.join(codexHome, "config.toml");
    if (lstatSync(p).isFile()) toml = readFileSync(p, "utf8");
  } catch {
    // No config: no entry.
  }
  const key = `[hooks.state.${JSON.stringify(`${hooksFile}:session_start:`).slice(0, -1)}`;
  return toml.split("\n").some((l) => l.trim().startsWith(key)) ? "entry present (review again if the command changed)" : "no trust entry";
}

/** Where a Markdown block of ours ends past Codex's 32 KiB, the finding; null otherwise. */
export function budgetFinding(text: string, file: string, fixCmd: string): AgentFinding | null {
  let span;
  try {
    span = findBlock(text, file);
  } catch {
    return null; // malformed: reported elsewhere
  }
  if (span === null) return null;
  const end = blockEndByte(text, span);
  if (end <= CODEX_BUDGET) return null;
  return {
    what: `${file}: the session-handoff block ends at byte ${end}, past the ${CODEX_BUDGET} bytes of AGENTS.md text Codex reads; Codex never sees it`,
    fix: `${fixCmd} (it moves the block to the top)`,
  };
}

/** The sentence doctor prints when Claude Code or Gemini project hooks are installed. */
export function startFolderNote(agent: Agent): string {
  return `${agent.name}: project hooks load only when ${agent.name} starts at the project root (not from a subfolder); for monorepos, or to start anywhere, use install --agent ${agent.name} --global`;
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
export const POSIX_SHELL = "/bin/sh";

/**
 * The POSIX shell a harness runs hook commands with: `/bin/sh`; on Windows, Git for Windows'
 * `sh.exe` (Claude Code's choice there), found under Program Files or on PATH, else null.
 */
export function posixShell(env: Record<string, string | undefined>, platform = process.platform): string | null {
  if (platform !== "win32") return POSIX_SHELL;
  const dirs = [env.ProgramFiles, env["ProgramFiles(x86)"]].filter((d): d is string => !!d).map((d) => path.win32.join(d, "Git", "bin"));
  for (const dir of [...dirs, ...(env.PATH ?? env.Path ?? "").split(";").filter((d) => d !== "")]) {
    const sh = path.win32.join(dir, "sh.exe");
    if (existsSync(sh)) return sh;
  }
  return null;
}

/**
 * Runs one installed session-start command as a harness would (docs/design.md#integrations):
 * `/bin/sh -c <command>` (or the Cline script itself) with `PATH=/usr/bin:/bin`, the
 * project variables set to `root`, stdin a SessionStart input of source `startup` and a
 * session id of its own (PROBE_SESSION_PREFIX): the hook neither reads nor writes a
 * delivered-once marker for it. Checkpoint commands are never run. 10 s at most; output cut
 * at 2,000 bytes. On Windows the shell is Git for Windows' `sh.exe` with the user's PATH; without
 * one nothing is run and `notRun` says so: a command doctor cannot run is not a broken one.
 */
export function runStart(file: string, argv: string[], root: string, env: Record<string, string | undefined>, platform = process.platform): Promise<StartRun> {
  const windows = platform === "win32";
  const shell = argv[0] === POSIX_SHELL ? posixShell(env, platform) : argv[0]!;
  if (shell === null) {
    return Promise.resolve({ file, code: null, stdout: "", stderr: "", notRun: "no POSIX shell (Git for Windows' sh.exe) was found to run it as the harness would" });
  }
  const childEnv: Record<string, string> = { PATH: windows ? (env.PATH ?? env.Path ?? "") : "/usr/bin:/bin", CLAUDE_PROJECT_DIR: root, GEMINI_PROJECT_DIR: root };
  // Windows programs need these to start at all; cmd and PowerShell set them.
  const keep = windows ? ["USERPROFILE", "SystemRoot", "SystemDrive", "TEMP", "TMP", "ProgramFiles", "APPDATA", "LOCALAPPDATA"] : [];
  for (const k of ["HOME", "XDG_CONFIG_HOME", "SESSION_HANDOFF_NODE", "SESSION_HANDOFF_DISABLE", "TMPDIR", ...keep]) if (env[k]) childEnv[k] = env[k]!;
  const input = JSON.stringify({ session_id: `${PROBE_SESSION_PREFIX}${randomBytes(4).toString("hex")}`, cwd: root, hook_event_name: "SessionStart", source: "startup" });
  return new Promise((resolve) => {
    const child = spawn(shell, argv.slice(1), { cwd: root, env: childEnv, stdio: ["pipe", "pipe", "pipe"], timeout: 10_000 });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => resolve({ file, code: null, stdout: "", stderr: e.message }));
    child.on("close", (code) => resolve({ file, code, stdout: Buffer.concat(out).toString("utf8").slice(0, 2000), stderr: Buffer.concat(err).toString("utf8").slice(0, 2000) }));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/**
 * The commands `install` writes into a settings file (docs/design.md#hook-commands-find-node),
 * for every hook it installs: the current form, and the bare-`node` form of before, which
 * doctor calls outdated. Exact strings; anything else naming the helper is not ours.
 */
export function installedForms(edit: Extract<Edit, { kind: "json-hooks" }>): string[] {
  // Named `forms`: test/docs/sentences.test.ts reads the pushes onto `out` in this file as sentences.
  const forms: string[] = [];
  for (const h of edit.hooks) {
    const now = edit.command(h.args);
    const tail = `${nodeRun(h.args)}; :`;
    forms.push(now);
    if (now.endsWith(tail)) forms.push(`${now.slice(0, -tail.length)}node "$f" ${h.args}`);
  }
  return forms;
}

// The file word of a hook command as `hookCommand` writes it (docs/design.md#hook-commands-find-node):
// bare safe characters or one single-quoted word, after an optional `"$VAR"/`.
const FILE_WORD = /^(?:"\$[A-Za-z_][A-Za-z0-9_]*"\/)?([A-Za-z0-9_./:@%+=-]+|\x27(?:[^\x27]|\x27\\\x27\x27)*\x27)$/;
const FILE_HEAD = "f=";
const FILE_TAIL = '; [ ! -f "$f" ] || ';

/**
 * The helper path a settings command runs when it is one of `installedForms` but for the
 * helper's path (install's own entry written from another copy of the helper, which `install`
 * rewrites in place: docs/design.md#integrations); the form's own path for an exact
 * form; null for anything else (another tool's command naming memory_io.mjs). Pure.
 */
export function installShaped(edit: Extract<Edit, { kind: "json-hooks" }>, command: string): string | null {
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
    if ((windowsShaped(name) ? path.win32 : path.posix).basename(name) === HELPER_FILE) return `${word[0].slice(0, word[0].length - word[1]!.length)}${name}`;
  }
  return null;
}

/**
 * The SessionStart commands naming the helper in an installed file: `run`, as argv for
 * `runStart`, those exactly as `install` writes them (a file may come with a clone, so
 * nothing else is ever run); `foreign`, the other commands but install's own entry for another
 * copy of the helper (`installShaped`), reported "not ours: not run".
 * A Cline script runs only when `current` (byte for byte what install writes).
 */
export function startCommands(edit: Edit, text: string, file: string, current: boolean): { run: string[][]; foreign: string[] } {
  if (edit.kind === "json-hooks") {
    const forms = installedForms(edit);
    const all = oursIn(text).filter((h) => h.event === "SessionStart").map((h) => h.command);
    // Install's entry for another copy of the helper is ours (outdated), but not run.
    return { run: all.filter((c) => forms.includes(c)).map((c) => [POSIX_SHELL, "-c", c]), foreign: all.filter((c) => installShaped(edit, c) === null) };
  }
  if (edit.kind === "owned-file" && edit.mode === 0o755) return current ? { run: [[POSIX_SHELL, file]], foreign: [] } : { run: [], foreign: [`/bin/sh ${edit.file}`] };
  return { run: [], foreign: [] };
}
