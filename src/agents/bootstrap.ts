import { shellQuote } from "./command.ts";
import type { AgentName, HelperLocation } from "./types.ts";

/** The markers around our block in AGENTS.md, GEMINI.md and rule files (docs/design.md#integrations). */
export const BLOCK_BEGIN = "<!-- session-handoff:begin -->";
export const BLOCK_END = "<!-- session-handoff:end -->";

/** Prefix of the block's line naming the agents that asked for it (docs/design.md#integrations). */
export const AGENTS_LINE = "Installed by session-handoff for:";

/**
 * The bootstrap instruction for harnesses that read instruction files (docs/design.md#integrations,
 * references/session-start-hook.md): run `check` at session start and act on its code.
 * Short on purpose: Codex caps all AGENTS.md text at 32 KiB (harnesses.md).
 */
export function bootstrapBody(helper: HelperLocation, agents: AgentName[]): string {
  const h = helper.rel !== null ? shellQuote(helper.rel) : shellQuote(helper.abs);
  const where = helper.rel !== null ? "from the project root" : "";
  return [
    `${AGENTS_LINE} ${agents.join(", ")}.`,
    `At session start run \`node ${h} check --root .\`${where ? ` ${where}` : ""}.`,
    "Exit 2: a handoff is parked; offer to resume it with the session-handoff skill. Exit 1: a save",
    `was interrupted; run \`node ${h} recover --root .\`, then check again.`,
    "Exit 3: memory failed safety or schema checks; don't load it, tell the user. Exit 0: nothing parked.",
  ].join("\n");
}

/** The whole block, markers included, without a trailing newline. */
export function block(body: string): string {
  return `${BLOCK_BEGIN}\n${body}\n${BLOCK_END}`;
}
