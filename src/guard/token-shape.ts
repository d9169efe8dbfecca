/** Branch names and paths are never redacted except a vendor's exact token shape. Pure. */
import { redactVendorShapes } from "./redact.ts";

/** Every vendor shape has a run of 16+ letters, digits and underscores mixing letters and digits. */
export function mayHoldToken(text: string): boolean {
  for (const m of text.matchAll(/[A-Za-z0-9_]{16,}/g)) if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) return true;
  return false;
}

export function withoutTokens(text: string): string {
  return mayHoldToken(text) ? redactVendorShapes(text) : text;
}

/** Anchor lines with tokens redacted in branch and path lines; `- HEAD:` and `- Date:` hold none. */
export function anchorsWithoutTokens<T extends string | string[]>(lines: T): T {
  const one = (l: string): string => (l.startsWith("- HEAD: ") || l.startsWith("- Date: ") ? l : withoutTokens(l));
  return (typeof lines === "string" ? lines.split("\n").map(one).join("\n") : lines.map(one)) as T;
}
