import { realpathSync } from "node:fs";
import path from "node:path";
import { quotedValue } from "../guard/quote.ts";
import { AGENTS, isAgentName } from "../agents/index.ts";
import { editPath } from "../agents/plan.ts";
import type { Edit, HelperLocation } from "../agents/types.ts";
import { UsageError } from "../errors.ts";
import { homeFolder } from "../store/home.ts";
import { memoryDir } from "../store/paths.ts";
import { rootOption } from "./common.ts";
import type { VerbContext } from "./types.ts";

/** Options shared by install and uninstall. */
export const AGENT_OPTIONS = {
  agent: { type: "string" },
  root: { type: "string" },
  global: { type: "boolean" },
  "dry-run": { type: "boolean" },
} as const;

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** `scripts/memory_io.mjs` of the skill folder the running helper belongs to. */
export function helperLocation(ctx: VerbContext, root: string | null): HelperLocation {
  const running = ctx.helperPath ?? path.join(ctx.cwd, "scripts", "memory_io.mjs");
  const abs = path.join(real(path.dirname(path.dirname(path.resolve(ctx.cwd, running)))), "scripts", "memory_io.mjs");
  if (root === null) return { abs, rel: null };
  const rel = path.relative(real(root), abs);
  return { abs, rel: rel.startsWith("..") || path.isAbsolute(rel) ? null : rel.split(path.sep).join("/") };
}

/**
 * Where install and uninstall act, from `--agent`, `--global`, `--root`, `--dry-run`: `base` is the
 * project root or HOME, `memDir` the memory dir whose PAUSE counts (null with --global). Throws UsageError.
 */
export function agentTarget(ctx: VerbContext, verb: string) {
  const name = ctx.values.agent;
  if (!isAgentName(name)) {
    const got = typeof name === "string" ? `, got ${quotedValue(name)}` : "";
    throw new UsageError(`${verb} needs --agent ${Object.keys(AGENTS).join("|")}${got}`);
  }
  const global = ctx.values.global === true;
  const home = homeFolder(ctx.env);
  if (global && typeof ctx.values.root === "string") {
    throw new UsageError(`${verb}: --global and --root exclude each other`);
  }
  const root = global ? null : rootOption(ctx);
  const agent = AGENTS[name];
  const helper = helperLocation(ctx, root);
  const base = global ? real(home) : root!;
  // The files this agent edits, with the path as shown: relative to the project, or `~/…`.
  const shown = (file: string) => (global ? `~/${file}` : file);
  const target = (edit: Edit) => ({ edit, file: editPath(base, edit), shown: shown(edit.file) });
  const targets = () => agent.edits(helper, global).map(target);
  const memDir = root === null ? null : memoryDir(root);
  return { agent, global, base, home, memDir, helper, targets, dryRun: ctx.values["dry-run"] === true };
}
