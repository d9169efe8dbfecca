import { claudeCode } from "./claude-code.ts";
import { cline } from "./cline.ts";
import { codex } from "./codex.ts";
import { cursor } from "./cursor.ts";
import { gemini } from "./gemini.ts";
import { opencode } from "./opencode.ts";
import type { Agent, AgentName } from "./types.ts";

/**
 * Every agent `install --agent` knows, in the order `doctor` reports them. A new harness is
 * one file here, plus its envelope in `envelopes.ts` when it has a hook format.
 */
export const AGENTS: Record<AgentName, Agent> = {
  "claude-code": claudeCode,
  codex,
  opencode,
  cline,
  gemini,
  cursor,
};

export function isAgentName(s: unknown): s is AgentName {
  return typeof s === "string" && Object.hasOwn(AGENTS, s);
}
