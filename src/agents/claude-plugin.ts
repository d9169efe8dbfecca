// Where Claude Code keeps the plugins it installed (seen on 2.1.112 and 2.1.332): read only, as files.
import { existsSync, readFileSync } from "../builtins.ts";
import path from "node:path";
import { orNull } from "../store/files.ts";
import { obj, type Rec } from "./transcripts/types.ts";

/** One install of this skill's plugin; `enabled` is true unless settings' `enabledPlugins` says false. */
export interface PluginInstall {
  key: string;
  scope: string;
  version: string | null;
  enabled: boolean;
  /** SKILL.md at the install's root (not in skills/session-handoff/), which Claude Code 2.1.112 does not list. */
  rootSkill: boolean;
}

const json = (file: string) => orNull(() => obj(JSON.parse(readFileSync(file, "utf8").slice(0, 1_000_000))));

/** Claude Code's per-user folder, where its settings and plugins live: CLAUDE_CONFIG_DIR when set, else ~/.claude. */
export const claudeUserDir = (home: string, env: Record<string, string | undefined>) =>
  env.CLAUDE_CONFIG_DIR || path.join(home, ".claude");

/** The installs of a plugin named `session-handoff` that Claude Code records in its per-user folder. */
export function claudePluginInstalls(home: string, env: Record<string, string | undefined>): PluginInstall[] {
  const dir = claudeUserDir(home, env);
  const plugins = json(path.join(dir, "plugins", "installed_plugins.json"))?.plugins;
  if (plugins === null || typeof plugins !== "object") return [];
  const enabledMap = (json(path.join(dir, "settings.json"))?.enabledPlugins ?? {}) as Rec;
  const out: PluginInstall[] = [];
  for (const [key, list] of Object.entries(plugins as Rec)) {
    if (!key.startsWith("session-handoff@") || !Array.isArray(list)) continue;
    for (const raw of list) {
      const e = obj(raw) ?? {};
      const at = e.installPath;
      const rootSkill = typeof at === "string" && path.isAbsolute(at) && existsSync(path.join(at, "SKILL.md"));
      const scope = typeof e.scope === "string" ? e.scope : "unknown";
      const version = typeof e.version === "string" ? e.version : null;
      out.push({ key, scope, version, enabled: enabledMap[key] !== false, rootSkill });
    }
  }
  return out;
}
