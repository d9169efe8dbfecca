// PLACEHOLDER until issue 4 lands: the guard helper replaces this file.
/** One secret found by redaction (contract §4). Lines and columns are 1-based; length in characters. */
export interface RedactionFinding {
  kind: string;
  line: number;
  column: number;
  length: number;
}

/** Replaces each secret in `text` with `<redacted: KIND>`; pure. */
export function redactText(text: string): { text: string; findings: RedactionFinding[] } {
  return { text, findings: [] };
}
