// The Linux side of the Windows suite (docs/windows.md): paths as Wine shows them, and one Wine
// start per batch of helper calls (test/windows/runner.cjs runs them inside a Windows Node).
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { copyHelper } from "../helpers.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Set by test/windows/run.mjs: the Wine loader, the Windows node.exe, the Wine prefix. */
export const WINE = process.env.SH_WINE ?? "";
export const WIN_NODE = process.env.SH_WIN_NODE ?? "";
const PREFIX = process.env.WINEPREFIX ?? "";
if (!WINE || !WIN_NODE || !PREFIX) throw new Error("run the Windows suite with `npm run test:windows` (test/windows/run.mjs sets Wine up)");

/** A Linux path as a Windows program under Wine sees it (the Z: drive maps `/`). */
export function winPath(p: string): string {
  return `Z:${p.replace(/\//g, "\\")}`;
}

/** One helper call (or a cmd.exe line, or another program) for the runner. */
export interface Step {
  id: string;
  kind?: "helper" | "cmd" | "exe";
  /** A helper other than the suite's own copy (a Windows path). */
  helper?: string;
  args?: string[];
  command?: string;
  file?: string;
  /** A Windows path. */
  cwd?: string;
  /** Overrides of the runner's environment (HOME is always unset); null removes one. */
  env?: Record<string, string | null>;
  stdin?: string;
  timeoutMs?: number;
  /** Steps started together (a race). */
  parallel?: Step[];
  /** Steps run in order (one case of a pool). */
  sequence?: Step[];
  /** Independent steps, a few at a time, each to its end. */
  pool?: Step[];
}

export interface Result {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** How often Wine failed to create the process before it ran (see runner.cjs). */
  retries: number;
}

/** A temp folder for this file's tests, removed after them; its real path. */
export function scratch(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A copy of the built helper (scripts/ and scripts/lib/) at `<dir>/scripts/memory_io.mjs`; its Windows path. */
export function helperIn(dir: string): string {
  const file = path.join(dir, "scripts", "memory_io.mjs");
  copyHelper(file);
  return winPath(file);
}

/**
 * A user's home as cmd and PowerShell set it: USERPROFILE (and APPDATA, LOCALAPPDATA) under
 * `dir`, HOME unset, and no PAUSE or failpoint from outside.
 */
export function windowsUser(dir: string): { home: string; env: Record<string, string | null> } {
  const home = path.join(dir, "Users", "dev");
  mkdirSync(path.join(home, "AppData", "Local"), { recursive: true });
  mkdirSync(path.join(home, "AppData", "Roaming"), { recursive: true });
  const env = {
    USERPROFILE: winPath(home),
    APPDATA: winPath(path.join(home, "AppData", "Roaming")),
    LOCALAPPDATA: winPath(path.join(home, "AppData", "Local")),
    HOME: null,
    XDG_CONFIG_HOME: null,
    SESSION_HANDOFF_DISABLE: null,
    SESSION_HANDOFF_PAUSE: null,
    MEMORY_IO_FAILPOINT: null,
    // The walk stops at the test's folder: a stray /tmp/.git (Z:\tmp\.git) is not ours.
    GIT_CEILING_DIRECTORIES: winPath(dir),
  };
  return { home, env };
}

function withDefaults(s: Step): Step {
  const nested = (list?: Step[]) => list?.map(withDefaults);
  return { kind: "helper", args: [], ...s, parallel: nested(s.parallel), sequence: nested(s.sequence), pool: nested(s.pool) };
}

/**
 * Runs `steps` in order (a `parallel` step's children at once) in one Windows Node under Wine;
 * `helper` is the Windows path of the helper the steps run. Returns each step's result by id.
 */
export function runBatch(helper: string, steps: Step[], timeoutMs = 300_000): Record<string, Result> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "sh-wine-batch-")));
  try {
    const planFile = path.join(dir, "plan.json");
    const resultsFile = path.join(dir, "results.json");
    writeFileSync(planFile, JSON.stringify({ helper, dir: winPath(dir), steps: steps.map(withDefaults) }));
    const log = openSync(path.join(dir, "wine.log"), "w");
    const env: NodeJS.ProcessEnv = { ...process.env, WINEDEBUG: "-all" };
    delete env.DISPLAY;
    const r = spawnSync(WINE, [WIN_NODE, winPath(path.join(HERE, "runner.cjs")), winPath(planFile), winPath(resultsFile)], { env, stdio: ["ignore", log, log], timeout: timeoutMs });
    closeSync(log);
    let text: string;
    try {
      text = readFileSync(resultsFile, "utf8");
    } catch {
      throw new Error(`the Windows runner wrote no results (wine exit ${r.status}, ${r.error?.message ?? ""}): ${readFileSync(path.join(dir, "wine.log"), "utf8").slice(0, 2000)}`);
    }
    const results = JSON.parse(text) as Record<string, Result> & { __error?: string };
    if (results.__error) throw new Error(`the Windows runner failed: ${results.__error}`);
    const restarted = Object.entries(results as Record<string, Result>).filter(([, x]) => x.retries > 0)
      .map(([id, x]) => `${id} ×${x.retries}`);
    if (restarted.length > 0) console.log(`wine: started again after "spawn UNKNOWN": ${restarted.join(", ")}`);
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A result by id, failing clearly when the runner never ran that step. */
export function get(results: Record<string, Result>, id: string): Result {
  const r = results[id];
  if (r === undefined) throw new Error(`no result for step ${id}`);
  return r;
}
