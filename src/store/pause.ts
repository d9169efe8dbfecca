import { quotedValue } from "../guard/quote.ts";
import path from "node:path";
import { Paused } from "../errors.ts";
import { homeFolder, userDir } from "./home.ts";
import { exists } from "./files.ts";

/** True when `SESSION_HANDOFF_DISABLE` is set to anything but empty, `0`, `false`, `no` or `off`. */
export function disabledByEnv(env: Record<string, string | undefined>): boolean {
  const v = env.SESSION_HANDOFF_DISABLE;
  return v !== undefined && !["", "0", "false", "no", "off"].includes(v.trim().toLowerCase());
}

/** The first kill switch that is on, as the thing to remove to resume, or null. */
export function pauseSwitch(memDir: string | null, env: Record<string, string | undefined>): string | null {
  if (disabledByEnv(env)) {
    const v = env.SESSION_HANDOFF_DISABLE!.slice(0, 40);
    return `SESSION_HANDOFF_DISABLE=${/^[A-Za-z0-9._+-]+$/.test(v) ? v : quotedValue(v)} from the environment`;
  }
  // The file SESSION_HANDOFF_PAUSE names, `~` expanded, is the second of three.
  const named = env.SESSION_HANDOFF_PAUSE || null;
  const home = named !== null && /^~(\/|$)/.test(named) ? path.join(homeFolder(env), named.slice(1)) : named;
  const files = [memDir === null ? null : path.join(memDir, "PAUSE"), home, path.join(userDir(env), "PAUSE")];
  return files.find((p) => p !== null && exists(p)) ?? null;
}

export function assertNotPaused(memDir: string | null, env: Record<string, string | undefined>): void {
  const sw = pauseSwitch(memDir, env);
  if (sw !== null) throw new Paused(sw);
}
