// The redaction rules as a chunk of their own (src/cold/, build.mjs): `write`, `promote` and the
// sanitiser need them, `hook`, `read` and `check` never do, and the rules are the largest part
// of the guard (about 35,000 characters V8 would otherwise pre-parse at every session start).
// Every module that calls redaction imports it from here, so that one instance serves all
// chunks (types may come from ./redact.ts).
export { formatRedactionReport, REDACTION_RULES, redactText, redactTranscript, redactVendorShapes } from "../guard/redact.ts";
