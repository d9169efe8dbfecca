/**
 * The session-start JSON both Claude Code and Codex read (harnesses.md): exactly
 * `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}`. Codex's
 * schema is strict, so no other key is ever added; Claude Code drops JSON without
 * `hookEventName`.
 */
export function sessionStartJson(text: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: text } })}\n`;
}

/** Matcher of our SessionStart entries (contract §9). */
export const SESSION_MATCHER = "startup|resume|clear|compact";
