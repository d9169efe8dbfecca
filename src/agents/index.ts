import { claudeCode, claudeEnvelope } from "./claude-code.ts";
import { cline, clineEnvelope } from "./cline.ts";
import { codex, codexEnvelope } from "./codex.ts";
import { cursor, cursorEnvelope } from "./cursor.ts";
import { gemini, geminiEnvelope } from "./gemini.ts";
import { opencode } from "./opencode.ts";
import { textEnvelope } from "./text.ts";
import type { Agent, AgentName, HookFormat } from "./types.ts";

/** Every agent `install --agent` knows, in the order `doctor` reports them. */
export const AGENTS: Record<AgentName, Agent> = {
  "claude-code": claudeCode,
  codex,
  opencode,
  cline,
  gemini,
  cursor,
};

/** `hook --format` envelopes: the fixed sentences (joined by newlines) in, stdout out. */
export const ENVELOPES: Record<HookFormat, (text: string) => string> = {
  text: textEnvelope,
  claude: claudeEnvelope,
  codex: codexEnvelope,
  gemini: geminiEnvelope,
  cursor: cursorEnvelope,
  cline: clineEnvelope,
};

export function isAgentName(s: unknown): s is AgentName {
  return typeof s === "string" && Object.hasOwn(AGENTS, s);
}

export function isHookFormat(s: unknown): s is HookFormat {
  return typeof s === "string" && Object.hasOwn(ENVELOPES, s);
}
