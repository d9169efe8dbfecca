import type { HookFormat } from "./types.ts";

/**
 * `hook --format` envelopes (docs/design.md#integrations): the fixed sentences (joined by newlines) in,
 * stdout out. Apart from the harness files so that the session bundle does not carry install's tables.
 */
export const ENVELOPES: Record<HookFormat, (text: string) => string> = {
  // The reference's output: the sentences as they are.
  text: (text) => `${text}\n`,
  // Claude Code drops JSON without hookEventName.
  claude: (text) => sessionStartJson(text),
  // Codex's schema is strict: exactly these keys, nothing else (no sessionTitle).
  codex: (text) => sessionStartJson(text),
  // Gemini CLI: nothing but JSON on stdout; the context in hookSpecificOutput.additionalContext.
  gemini: (text) => sessionStartJson(text),
  // Cursor: its own key only, never Claude's as well (*unverified* key).
  cursor: (text) => `${JSON.stringify({ additional_context: text })}\n`,
  cline: (text) => `${JSON.stringify({ cancel: false, contextModification: text, errorMessage: "" })}\n`,
};

function sessionStartJson(text: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: text } })}\n`;
}

export function isHookFormat(s: unknown): s is HookFormat {
  return typeof s === "string" && Object.hasOwn(ENVELOPES, s);
}
