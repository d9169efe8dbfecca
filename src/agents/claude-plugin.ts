// Where Claude Code keeps the plugins it installed (seen on 2.1.112 and 2.1.332): read only, as files.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** One install of this skill's plugin; `enabled` is true unless settings' `enabledPlugins` says false. */
export interface PluginInstall {
  key: string;
  scope: string;
  version: string | null;
  enabled: boolean;
  /** SKILL.md at the install's root (not in skills/session-handoff/), which Claude Code 2.1.112 does not list. */
  rootSkill: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

function json(file: string): Obj | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8").slice(0, 1_000_000)) as unknown;
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

/** The installs of a plugin named `session-handoff` that Claude Code records under `home`. */
export function claudePluginInstalls(home: string): PluginInstall[] {
  const plugins = json(path.join(home, ".claude", "plugins", "installed_plugins.json"))?.plugins;
  if (plugins === null || typeof plugins !== "object") return [];
  const enabledMap = (json(path.join(home, ".claude", "settings.json"))?.enabledPlugins ?? {}) as Obj;
  const out: PluginInstall[] = [];
  for (const [key, list] of Object.entries(plugins as Obj)) {
    if (!key.startsWith("session-handoff@") || !Array.isArray(list)) continue;
    for (const raw of list) {
      const e = isObj(raw) ? raw : {};
      const at = e.installPath;
      const rootSkill = typeof at === "string" && path.isAbsolute(at) && existsSync(path.join(at, "SKILL.md"));
      const scope = typeof e.scope === "string" ? e.scope : "unknown";
      const version = typeof e.version === "string" ? e.version : null;
      out.push({ key, scope, version, enabled: enabledMap[key] !== false, rootSkill });
    }
  }
  return out;
}
