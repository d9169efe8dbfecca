import { quotedValue } from "./quote.ts";

/** `1 commit`, `2 commits`. Pure. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
/** A branch quoted and marked (docs/design.md#text-outside-the-envelope); `tokens` comes in: redact.ts is too big. */
export const branchWords = (name: string, tokens = (s: string) => s): string => quotedValue(tokens(name));
/** Names for a sentence: the first three (each through `words`), then how many more. Pure. */
export const namesList = (names: readonly string[], words = (s: string) => s): string =>
  names.slice(0, 3).map(words).join(", ") + (names.length > 3 ? ` and ${names.length - 3} more` : "");
