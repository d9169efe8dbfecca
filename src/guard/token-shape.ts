/** Branch names and paths are never redacted except a vendor's exact token shape. Pure. */
import { mayHoldToken } from "./quote.ts";
import { redactVendorShapes } from "./redact.ts";

export function withoutTokens(text: string): string {
  return mayHoldToken(text) ? redactVendorShapes(text) : text;
}

/** Anchor lines with tokens redacted in branch and path lines; `- HEAD:` and `- Date:` hold none. */
export function anchorsWithoutTokens<T extends string | string[]>(lines: T): T {
  const one = (l: string): string => (l.startsWith("- HEAD: ") || l.startsWith("- Date: ") ? l : withoutTokens(l));
  return (typeof lines === "string" ? lines.split("\n").map(one).join("\n") : lines.map(one)) as T;
}
