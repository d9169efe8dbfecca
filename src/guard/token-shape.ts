/**
 * Branch names and paths are never redacted (docs/design.md#redaction) except a vendor's exact token shape
 * (docs/decisions/redaction-prefixes.md): {@link withoutTokens} redacts those, and runs the
 * redaction rules only when {@link mayHoldToken} says a name could hold one. Pure.
 */
import { redactVendorShapes } from "./redact.ts";

/**
 * Whether a branch name, path or anchor line may hold a vendor's token at all: every shape of
 * the redaction rules has a run of 16 or more letters, digits and underscores mixing letters
 * and digits; names of words (`feature/login-2024-fix`) have none.
 */
export function mayHoldToken(text: string): boolean {
  for (const m of text.matchAll(/[A-Za-z0-9_]{16,}/g)) if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) return true;
  return false;
}

/** `text` with each vendor-shaped token replaced by `<redacted: KIND>`; the same string when none. */
export function withoutTokens(text: string): string {
  return mayHoldToken(text) ? redactVendorShapes(text) : text;
}

/**
 * Anchor lines (a rendered block, or its lines) with tokens redacted in the branch and path
 * lines; `- HEAD:` and `- Date:` hold object ids and times, never a vendor's token.
 */
export function anchorsWithoutTokens<T extends string | string[]>(lines: T): T {
  const one = (l: string): string => (l.startsWith("- HEAD: ") || l.startsWith("- Date: ") ? l : withoutTokens(l));
  return (typeof lines === "string" ? lines.split("\n").map(one).join("\n") : lines.map(one)) as T;
}
