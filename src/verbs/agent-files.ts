import { quotedValue } from "../guard/quote.ts";
import { realpathSync } from "node:fs";
import path from "node:path";
import { AGENTS, isAgentName } from "../agents/index.ts";
import { editPath } from "../agents/plan.ts";
import type { Agent, Edit, HelperLocation } from "../agents/types.ts";
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

/** Where install and uninstall act: the agent, the base folder, HOME, and the helper. */
export interface AgentTarget {
  agent: Agent;
  global: boolean;
  /** The project root, or HOME with --global. */
  base: string;
  home: string;
  /** The memory dir whose PAUSE counts (null with --global). */
  memDir: string | null;
  helper: HelperLocation;
  dryRun: boolean;
}

/** The home folder from the environment (HOME; USERPROFILE on Windows), as `os.homedir()` reads it. */
export const homeOf = homeFolder;

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The helper's own file: `scripts/memory_io.mjs` of the skill folder the running helper
 * belongs to (from src/main.ts in development, the same folder's scripts/).
 */
export function helperLocation(ctx: VerbContext, root: string | null): HelperLocation {
  const running = ctx.helperPath ?? path.join(ctx.cwd, "scripts", "memory_io.mjs");
  const abs = path.join(real(path.dirname(path.dirname(path.resolve(ctx.cwd, running)))), "scripts", "memory_io.mjs");
  if (root === null) return { abs, rel: null };
  const rel = path.relative(real(root), abs);
  return { abs, rel: rel.startsWith("..") || path.isAbsolute(rel) ? null : rel.split(path.sep).join("/") };
}

/** Parses `--agent`, `--global`, `--root`, `--dry-run`. @throws UsageError. */
export function agentTarget(ctx: VerbContext, verb: string): AgentTarget {
  const name = ctx.values.agent;
  if (!isAgentName(name)) {
    const got = typeof name === "string" ? `, got ${quotedValue(name)}` : "";
    throw new UsageError(`${verb} needs --agent ${Object.keys(AGENTS).join("|")}${got}`);
  }
  const global = ctx.values.global === true;
  const home = homeOf(ctx.env);
  if (global && typeof ctx.values.root === "string") {
    throw new UsageError(`${verb}: --global and --root exclude each other`);
  }
  const root = global ? null : rootOption(ctx);
  return {
    agent: AGENTS[name],
    global,
    base: global ? real(home) : root!,
    home,
    memDir: root === null ? null : memoryDir(root),
    helper: helperLocation(ctx, root),
    dryRun: ctx.values["dry-run"] === true,
  };
}

/** One agent file `install` or `uninstall` edits: its edit, absolute path, and path as shown. */
export interface EditTarget {
  edit: Edit;
  file: string;
  /** Relative to the project, or `~/…` with --global. */
  shown: string;
}

/** The files the target's agent edits, where this run edits them. */
export function editTargets(t: AgentTarget): EditTarget[] {
  const shown = (edit: Edit) => (t.global ? `~/${edit.file}` : edit.file);
  return t.agent.edits(t.helper, t.global).map((edit) => ({ edit, file: editPath(t.base, edit), shown: shown(edit) }));
}
