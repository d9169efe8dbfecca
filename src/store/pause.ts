import { lstatSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { Paused } from "../errors.ts";

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string): string {
  if (p === "~") return homedir();
  if (p.startsWith("~/")) return path.join(homedir(), p.slice(2));
  return p;
}

/**
 * The kill switch (contract §6): the first switch that is on, as the thing to remove to
 * resume, or null. Checked in this order: `SESSION_HANDOFF_DISABLE=1`, `<memory dir>/PAUSE`,
 * the file named by `SESSION_HANDOFF_PAUSE` (`~` expanded: the seed engine forgot to),
 * `${XDG_CONFIG_HOME:-~/.config}/session-handoff/PAUSE`.
 */
export function pauseSwitch(memDir: string | null, env: Record<string, string | undefined>): string | null {
  if (env.SESSION_HANDOFF_DISABLE === "1") return "SESSION_HANDOFF_DISABLE=1 from the environment";
  if (memDir !== null && exists(path.join(memDir, "PAUSE"))) return path.join(memDir, "PAUSE");
  const named = env.SESSION_HANDOFF_PAUSE;
  if (named) {
    const p = expandHome(named);
    if (exists(p)) return p;
  }
  const config = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(homedir(), ".config");
  const global = path.join(config, "session-handoff", "PAUSE");
  if (exists(global)) return global;
  return null;
}

/** @throws Paused (exit 4) when any kill switch is on. */
export function assertNotPaused(memDir: string | null, env: Record<string, string | undefined>): void {
  const sw = pauseSwitch(memDir, env);
  if (sw !== null) throw new Paused(sw);
}
