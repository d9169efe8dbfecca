import path from "node:path";
import { quotedValue } from "../guard/quote.ts";
import { Refused, UsageError } from "../errors.ts";
import { homeFolder } from "../store/home.ts";
import { memoryDir } from "../store/paths.ts";
import { realOrNull } from "../store/files.ts";
import { AGENTS, isAgentName } from "./index.ts";
import { shellQuote } from "./command.ts";
import { shownOf, userPath } from "./plan.ts";
import type { Agent, AgentName, HelperLocation } from "./types.ts";

export const AGENT_NAMES = Object.keys(AGENTS).join("|");

/** Options shared by install, uninstall and init. */
export const AGENT_OPTIONS = {
  agent: { type: "string", multiple: true },
  root: { type: "string" },
  global: { type: "boolean" },
  "dry-run": { type: "boolean" },
} as const;

/** The lines `install --help` and `uninstall --help` share. */
export const AGENT_HELP = `  --dry-run     say what would change, change nothing
  --global      edit the per-user files (~/.claude or CLAUDE_CONFIG_DIR,
                ~/.codex, ~/.config/opencode, ~/.gemini) instead of the
                project's; cline and cursor have none
  --root DIR    the project root`;
export const AGENT_EXIT = `exit:   0 done; 2 refused (usage, unsafe file, malformed markers, JSON that does
        not parse, a read-only file, a concurrent edit);
        4 paused; 5 another install or uninstall held the install lock for 10 s.`;

export type Env = Record<string, string | undefined>;

/** What a verb knows of its caller that install and uninstall need. */
export interface Caller {
  values: Record<string, unknown>;
  env: Env;
  cwd: string;
  helperPath?: string;
}

const real = (p: string): string => realOrNull(p) ?? path.resolve(p);

/** `scripts/memory_io.mjs` of the skill folder the running helper belongs to. */
export function helperLocation(ctx: Pick<Caller, "cwd" | "helperPath">, root: string | null): HelperLocation {
  const running = ctx.helperPath ?? path.join(ctx.cwd, "scripts", "memory_io.mjs");
  const abs = path.join(real(path.dirname(path.dirname(path.resolve(ctx.cwd, running)))), "scripts", "memory_io.mjs");
  if (root === null) return { abs, rel: null };
  const rel = path.relative(real(root), abs);
  return { abs, rel: rel.startsWith("..") || path.isAbsolute(rel) ? null : rel.split(path.sep).join("/") };
}

/** The running helper as a shell word in a command run from the project root. */
export const helperShown = (ctx: Pick<Caller, "cwd" | "helperPath">, root: string): string =>
  ((h) => shellQuote(h.rel ?? h.abs))(helperLocation(ctx, root));

/** Where install and uninstall act; `planned`: a dry run's texts, shared so each agent sees what the earlier left. */
export function targetOf(agent: Agent, root: string | null, helper: HelperLocation, env: Env, dryRun: boolean,
  planned: Map<string, string | null>) {
  const global = root === null;
  const home = homeFolder(env);
  const base = root ?? real(home);
  const targets = () => agent.edits(helper, global).map((edit) => {
    const file = userPath(base, edit.file, global ? env : undefined);
    return { edit, file, shown: shownOf(edit, file, global ? base : null) };
  });
  const memDir = root === null ? null : memoryDir(root);
  return { agent, global, base, home, memDir, helper, targets, dryRun, planned };
}

export type Target = ReturnType<typeof targetOf>;

/** Refuses a helper path holding a backslash outside Windows: Node loads no ES module from there, nor runs a hook. */
export function assertLoadable(helper: HelperLocation): void {
  if (process.platform === "win32" || !helper.abs.includes("\\")) return;
  throw new Refused(`the helper path ${quotedValue(helper.abs)} holds a backslash, from which Node cannot load it ` +
    "(ERR_INVALID_MODULE_SPECIFIER), so no hook could run; move it to a path without one (nothing was changed)");
}

/** A target per `--agent` (repeatable, as init's), with `--global`, `--root` (found by `rootOf`) and `--dry-run`. */
export function agentTargets(ctx: Caller, verb: string, rootOf: () => string): Target[] {
  const names = (ctx.values.agent as string[] | undefined) ?? [];
  const bad = names.find((n) => !isAgentName(n));
  if (names.length === 0 || bad !== undefined) {
    const got = bad !== undefined ? `, got ${quotedValue(bad)}` : "";
    throw new UsageError(`${verb} needs --agent ${AGENT_NAMES}${got}`);
  }
  const global = ctx.values.global === true;
  const both = global && typeof ctx.values.root === "string";
  if (both) throw new UsageError(`${verb}: --global and --root exclude each other`);
  const root = global ? null : rootOf();
  const planned = new Map<string, string | null>();
  const dryRun = ctx.values["dry-run"] === true;
  return [...new Set(names as AgentName[])].map((n) => targetOf(AGENTS[n], root, helperLocation(ctx, root), ctx.env,
    dryRun, planned));
}
