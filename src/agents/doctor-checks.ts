import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { installedForms, installShaped, oursIn } from "./json-hooks.ts";
import { PROBE_SESSION_PREFIX } from "../store/probe-session.ts";
import { blockEndByte, CODEX_BUDGET, findBlock } from "./md-block.ts";
import type { Edit, JsonHooksEdit } from "./types.ts";

/** A regular file's text; null when it is missing, a link or unreadable. */
export function readText(p: string): string | null {
  try {
    return lstatSync(p).isFile() ? readFileSync(p, "utf8") : null;
  } catch {
    return null;
  }
}

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

// A file's SessionStart commands naming the helper: `run` (argv) only those exactly as install writes them here, as
// a file may come with a clone; `foreign`, those install never writes. Cline's script runs when current.
export function startCommands(edit: Edit, text: string, file: string, current: boolean) {
  if (edit.kind !== "json-hooks") {
    return { run: current && edit.file.endsWith("TaskStart") ? [["/bin/sh", file]] : [], foreign: [] };
  }
  const forms = installedForms(edit);
  const all = oursIn(text).filter((h) => h.event === "SessionStart").map((h) => h.command);
  const run = all.filter((c) => forms.includes(c)).map((c) => ["/bin/sh", "-c", c]);
  return { run, foreign: all.filter((c) => installShaped(edit, c) === null) };
}

// Codex records its review of a hook under `[hooks.state."<hooks.json>:session_start:…"]` with a hash of unknown
// recipe: doctor tells only whether an entry exists.
export function codexTrust(env: Record<string, string | undefined>, home: string, hooksFile: string): string {
  const toml = readText(path.join(env.CODEX_HOME || path.join(home, ".codex"), "config.toml")) ?? "";
  const key = `[hooks.state.${JSON.stringify(`${hooksFile}:session_start:`).slice(0, -1)}`;
  const found = toml.split("\n").some((l) => l.trim().startsWith(key));
  return found ? "entry present (review again if the command changed)" : "no trust entry";
}

/** The finding for a block of ours in AGENTS.md ending past the 32 KiB Codex reads; null otherwise. */
export function budgetFinding(text: string, file: string, fixCmd: string): { what: string; fix: string } | null {
  const span = findBlock(text, file);
  const end = span === null ? 0 : blockEndByte(text, span);
  if (end <= CODEX_BUDGET) return null;
  const past = `past the ${CODEX_BUDGET} bytes of AGENTS.md text Codex reads; Codex never sees it`;
  const fix = `${fixCmd} (it moves the block to the top)`;
  return { what: `${file}: the session-handoff block ends at byte ${end}, ${past}`, fix };
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

// Runs one installed start command as a harness would, for 10 s at most, with a probe's session id, for which the
// hook keeps no delivered-once marker. Without a shell nothing runs: a command doctor cannot run is not broken.
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
