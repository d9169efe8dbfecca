/**
 * Matcher of our SessionStart entries (docs/design.md#integrations): every source, `fork` included (Codex
 * fires nothing for `codex exec fork` without it; harnesses.md).
 */
export const SESSION_MATCHER = "startup|resume|clear|compact|fork";
