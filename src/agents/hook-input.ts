// What the hook verbs (hook, context, checkpoint, statusline) share about how a harness runs them.
import { existsSync } from "../builtins.ts";
import path from "node:path";
import { orNull } from "../store/files.ts";
import { obj } from "./transcripts/types.ts";

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
