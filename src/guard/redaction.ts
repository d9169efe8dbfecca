// The redaction entry every caller imports (types may come from ./redact.ts); it counts passes for the tests.
import { redactText as scan, type RedactionFinding, type RedactOptions } from "./redact.ts";

export { formatRedactionReport, REDACTION_RULES, redactTranscript, redactVendorShapes } from "./redact.ts";

/**
 * Every pass of {@link redactText} made through this module, counted: calls and characters
 * scanned. Read by tests only (test/verbs/write-redaction-passes.test.ts proves write's one pass
 * per document, docs/design.md#redaction); nothing in the helper reads it.
 */
export const redactionPasses = { calls: 0, chars: 0 };

/** The redaction of guard/redact.ts (the same rules), counted in {@link redactionPasses}. */
export function redactText(text: string, options: RedactOptions = {}): { text: string; findings: RedactionFinding[] } {
  redactionPasses.calls++;
  redactionPasses.chars += text.length;
  return scan(text, options);
}
