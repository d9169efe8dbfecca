import { quotedValue } from "../guard/quote.ts";
import { lstatSync } from "node:fs";
import path from "node:path";
import { Paused } from "../errors.ts";
import { homeFolder, userDir } from "./home.ts";

/** True when anything (a link too) is at `p`. */
export function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string, env: Record<string, string | undefined>): string {
  if (p === "~") return homeFolder(env);
  if (p.startsWith("~/")) return path.join(homeFolder(env), p.slice(2));
  return p;
}

/**
 * True when `SESSION_HANDOFF_DISABLE` switches the helper off (docs/design.md#tokens-and-the-publication-protocol):
 * set to any value but empty, `0`, `false`, `no` or `off` (any case, surrounding spaces ignored).
 */
export function disabledByEnv(env: Record<string, string | undefined>): boolean {
  const v = env.SESSION_HANDOFF_DISABLE;
  return v !== undefined && !["", "0", "false", "no", "off"].includes(v.trim().toLowerCase());
}

/**
 * The kill switch (docs/design.md#tokens-and-the-publication-protocol): the first switch that is on, as the thing to
 * remove to resume, or null. Checked in this order: `SESSION_HANDOFF_DISABLE` (see `disabledByEnv`), `<memory
 * dir>/PAUSE`, the file named by `SESSION_HANDOFF_PAUSE` (`~` expanded: the seed engine forgot to),
 * `${XDG_CONFIG_HOME:-~/.config}/session-handoff/PAUSE`.
 */
export function pauseSwitch(memDir: string | null, env: Record<string, string | undefined>): string | null {
  if (disabledByEnv(env)) {
    const v = env.SESSION_HANDOFF_DISABLE!.slice(0, 40);
    // A plain word as it is (`=1`); anything else in the one quoting style, never a JSON escape
    // (docs/design.md#verdicts-and-the-brief).
    return `SESSION_HANDOFF_DISABLE=${/^[A-Za-z0-9._+-]+$/.test(v) ? v : quotedValue(v)} from the environment`;
  }
  if (memDir !== null && exists(path.join(memDir, "PAUSE"))) return path.join(memDir, "PAUSE");
  const named = env.SESSION_HANDOFF_PAUSE;
  if (named) {
    const p = expandHome(named, env);
    if (exists(p)) return p;
  }
  const global = path.join(userDir(env), "PAUSE");
  if (exists(global)) return global;
  return null;
}

/** @throws Paused (exit 4) when any kill switch is on. */
export function assertNotPaused(memDir: string | null, env: Record<string, string | undefined>): void {
  const sw = pauseSwitch(memDir, env);
  if (sw !== null) throw new Paused(sw);
}
