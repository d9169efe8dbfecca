/** `hook --format` envelopes and harness names, apart from the agent table: the session bundle loads only this file. */
export const ENVELOPES = {
  text: (text) => `${text}\n`,
  // Claude Code drops JSON without hookEventName; Codex's schema allows exactly these keys.
  claude: (text) => sessionStartJson(text),
  codex: (text) => sessionStartJson(text),
  gemini: (text) => sessionStartJson(text),
  // Cursor: its own key only, never Claude's as well (*unverified* key).
  cursor: (text) => `${JSON.stringify({ additional_context: text })}\n`,
  cline: (text) => `${JSON.stringify({ cancel: false, contextModification: text, errorMessage: "" })}\n`,
} satisfies Record<string, (text: string) => string>;

export type HookFormat = keyof typeof ENVELOPES;

/** The harness of a `--format`, by the name a save records (`agentOfEnv` in index.ts gives it from the env). */
export const AGENT_OF_FORMAT: Record<string, string> = { claude: "Claude Code", codex: "Codex" };

function sessionStartJson(text: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: text } })}\n`;
}

export function isHookFormat(s: unknown): s is HookFormat {
  return typeof s === "string" && Object.hasOwn(ENVELOPES, s);
}

/** The sentences in `format`'s envelope, whole output under `limit` characters: the last (least important) go first. */
export function renderHook(format: HookFormat, text: string, limit: number): string {
  const lines = text.split("\n").filter((l) => l !== "");
  if (lines.length === 0) return "";
  for (;;) {
    const out = ENVELOPES[format](lines.join("\n"));
    if (out.length < limit) return out;
    if (lines.length > 1) {
      lines.pop();
      continue;
    }
    // One sentence longer than the limit (none is): cut it rather than break the harness.
    lines[0] = lines[0]!.slice(0, Math.max(0, lines[0]!.length - (out.length - limit) - 1));
  }
}
