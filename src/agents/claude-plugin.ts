// Where Claude Code keeps the plugins it installed (seen on 2.1.112 and 2.1.332, harnesses.md):
// `~/.claude/plugins/installed_plugins.json` lists each install, `~/.claude/settings.json`'s
// `enabledPlugins` says which are on. Read only, as files (docs/design.md#integrations).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** One install of this skill's plugin. */
export interface PluginInstall {
  /** `session-handoff@<marketplace>`. */
  key: string;
  scope: string;
  version: string | null;
  /** `enabledPlugins[key]` in the user's settings; true when absent (Claude Code enables on install). */
  enabled: boolean;
  /**
   * True when the install folder holds SKILL.md at its root (installed from the default branch
   * before the dist-plugin ref: docs/decisions/distribution-ref.md), which Claude Code 2.1.112
   * does not list; the dist-plugin layout has it in skills/session-handoff/.
   */
  rootSkill: boolean;
}

function json(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8").slice(0, 1_000_000)) as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The installs of a plugin named `session-handoff` that Claude Code records under `home` (none when none). */
export function claudePluginInstalls(home: string): PluginInstall[] {
  const installed = json(path.join(home, ".claude", "plugins", "installed_plugins.json"));
  const plugins = installed?.plugins;
  if (plugins === null || typeof plugins !== "object") return [];
  const enabledMap = (json(path.join(home, ".claude", "settings.json"))?.enabledPlugins ?? {}) as Record<string, unknown>;
  const out: PluginInstall[] = [];
  for (const [key, list] of Object.entries(plugins as Record<string, unknown>)) {
    if (!key.startsWith("session-handoff@") || !Array.isArray(list)) continue;
    for (const raw of list) {
      const e = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
      const rootSkill = typeof e.installPath === "string" && path.isAbsolute(e.installPath) && existsSync(path.join(e.installPath, "SKILL.md"));
      out.push({ key, scope: typeof e.scope === "string" ? e.scope : "unknown", version: typeof e.version === "string" ? e.version : null, enabled: enabledMap[key] !== false, rootSkill });
    }
  }
  return out;
}
