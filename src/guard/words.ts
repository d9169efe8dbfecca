import { quotedValue } from "./quote.ts";

/** `1 commit`, `2 commits`. Pure. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
/** A branch name in human output, quoted and marked (docs/design.md#text-outside-the-envelope); `tokens`: drift's
 * `withoutTokens`, for a vendor token in a handoff's branch name (redact.ts is too big for the session bundle). */
export const branchWords = (name: string, tokens = (s: string) => s): string => quotedValue(tokens(name));
