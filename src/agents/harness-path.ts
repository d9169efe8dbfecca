// What the hook verbs (hook, context, checkpoint, statusline) share about how a harness runs them: input, paths.
import { existsSync } from "../builtins.ts";
import path from "node:path";
import { quotedPath, quotedValue } from "../guard/quote.ts";
import { orNull } from "../store/files.ts";
import { obj } from "./transcripts/types.ts";

/** A hook input's string field, or null when it is missing or empty. */
export const nonEmpty = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

// doctor's session id for the hooks it runs: the hook keeps no delivered-once marker for it, so doctor changes nothing.
export const PROBE_SESSION_PREFIX = "session-handoff-doctor-";

export function isProbeSession(id: unknown): boolean {
  return typeof id === "string" && id.startsWith(PROBE_SESSION_PREFIX);
}

type HookStdin = { stdinIsTTY: boolean; readStdinWithin(ms: number, maxBytes?: number): Promise<Buffer | null> };

/** The harness's JSON object on stdin: undefined with none, null when it is not one or over `max` bytes. */
export async function readHookJson(ctx: HookStdin, max = 65_536): Promise<Record<string, unknown> | null | undefined> {
  // A harness may keep stdin open: never wait more than a second.
  return ctx.stdinIsTTY ? undefined : hookObject(await ctx.readStdinWithin(1000, max), max);
}

/** As readHookJson, for stdin already read. */
export function hookObject(data: Buffer | null, max: number): Record<string, unknown> | null | undefined {
  if (data === null || data.length === 0) return undefined;
  return data.length > max ? null : orNull(() => obj(JSON.parse(data.toString("utf8"))));
}

// A per-user helper fires in every project; one without .ai/memory never used the skill (checkpoint-without-memory.md).
export function userHelperWithoutMemory(skillDir: string | null | undefined, home: string, root: string): boolean {
  if (!skillDir || home === "" || existsSync(path.join(root, ".ai", "memory"))) return false;
  const under = (dir: string, base: string) => {
    const rel = path.relative(base, dir);
    return !rel.startsWith("..") && !path.isAbsolute(rel);
  };
  return under(skillDir, home) && !under(skillDir, root);
}

/** A Windows path (`C:\…`, `C:/…`, `C:…`, `\\…`), which POSIX reads as relative: off Windows it is refused by name. */
export function windowsShaped(p: string): boolean {
  return /^([A-Za-z]:|\\\\)/.test(p);
}

type HarnessPath = { ok: true; path: string } | { ok: false; reason: string; windows: boolean };

/** The absolute path `p` a harness gave for `what` as this OS opens it, or why it cannot be used. Never throws. */
export function harnessPath(what: string, p: string, platform: NodeJS.Platform = process.platform): HarnessPath {
  const windows = windowsShaped(p);
  const absolute = (windows || platform === "win32" ? path.win32 : path.posix).isAbsolute(p);
  if (p.includes("\0") || !absolute) return { ok: false, reason: `${what} is not an absolute path`, windows };
  if (windows && platform !== "win32") {
    const reason = `${what} ${quotedPath(p.slice(0, 200))} is a Windows path and this helper runs on ${platform}`;
    return { ok: false, reason, windows };
  }
  return { ok: true, path: platform === "win32" ? path.win32.normalize(p) : p };
}

/** The hook input's `cwd` to start the root walk from, or null; one that cannot be used throws: never guess. */
export function hookCwd(cwd: unknown, platform: NodeJS.Platform = process.platform): string | null {
  if (cwd === undefined || cwd === null) return null;
  const what = "the hook input's cwd";
  if (typeof cwd !== "string") throw new Error(`${what} is not a string (pass --root <project>)`);
  if (cwd === "") throw new Error(`${what} is empty (pass --root <project>)`);
  const got = harnessPath(what, cwd, platform);
  if (got.ok) return got.path;
  if (got.windows) throw new Error(`${got.reason} (pass --root <project>)`);
  throw new Error(`${what} ${quotedValue(cwd.slice(0, 200))} is not an absolute path (pass --root <project>)`);
}

// The project folder Claude Code and Gemini CLI give their hook commands: the input's cwd follows the agent's `cd`.
const PROJECT_VARS: Record<string, string> = { claude: "CLAUDE_PROJECT_DIR", gemini: "GEMINI_PROJECT_DIR" };

/** The root walk's start for a hook verb: the harness's project folder when it sets one, else `hookCwd(cwd)`. */
export function hookStart(cwd: unknown, env: Record<string, string | undefined>, format: unknown): string | null {
  const dir = env[PROJECT_VARS[String(format)] ?? ""];
  const got = dir ? harnessPath("the project folder", dir) : null;
  return got?.ok ? got.path : hookCwd(cwd);
}
