// The validation result's shapes and the one loop that runs a rule table and a part table.
import type { Redacted, RedactionFinding } from "../guard/redact.ts";
import { conflictSides, CONFLICTED_MESSAGE } from "./conflicted.ts";
import type { Flag } from "./grammar.ts";
import { MARKER } from "./values.ts";

/** One error or finding; line 0 is the document as a whole. */
export interface Issue {
  rule: string;
  line: number;
  message: string;
}

/** A validation: `valid` exactly when no error; `score` 0–100; `dropped`: open items of the previous handoff lost. */
export interface Validation {
  valid: boolean;
  errors: Issue[];
  score: number;
  parts: Record<string, { score: number; max: number }>;
  findings: Issue[];
  dropped: string[];
}

/** What a rule reports, with its severity when the rule's can vary. */
export interface Hit {
  line: number;
  message: string;
  severity?: "error" | "finding";
}

type Severity = "error" | "finding" | "error or finding";

/** A row of a rule table (docs/decisions/validation-table.md): its id, severity, the part it lowers, its check. */
export interface Rule<C> {
  id: string;
  severity: Severity;
  part: string | null;
  check: (c: C) => Hit[];
}

/** A part of the score: its points and the shares its rules' hits take (null: not judged; absent: one share). */
export interface Part<C> {
  part: string;
  weight: number;
  of?: (c: C) => number | null;
}

/** A rule table's row maker, typed by the table's context. */
export function ruleOf<C>() {
  return (id: string, severity: Severity, part: string | null, check: (c: C) => Hit[]): Rule<C> => ({
    id, severity, part, check,
  });
}

export const at = (line: number, message: string, severity?: "error" | "finding"): Hit => ({ line, message, severity });

/** Every document's context: the text as given, then LF-normalised without a BOM. */
export interface DocumentText {
  input: string;
  text: string;
  lines: string[];
  flags: readonly Flag[];
  secrets: readonly RedactionFinding[];
}

export const BEGIN = `the document must begin with the line ${MARKER}`;
export const titleMissing = (title: string) => `the document must have the heading "${title}" in its first four lines`;
export const lineCount = (c: DocumentText) => (c.text.endsWith("\n") ? c.lines.length - 1 : c.lines.length);

const rule = ruleOf<DocumentText>();
/** The rules every memory document shares: BOM and CR findings, the final newline, conflict markers. */
export const TEXT_RULES = {
  bom: rule("bom", "finding", null, (c) =>
    c.input.startsWith("\uFEFF") ? [at(1, "a UTF-8 byte order mark starts the text; write drops it")] : []),
  crlf: rule("crlf", "finding", null, (c) =>
    c.input.includes("\r") ? [at(1, "CR or CRLF line ends; write turns them into LF")] : []),
  newline: rule("newline", "error", null, (c) =>
    c.text.endsWith("\n") ? [] : [at(c.lines.length, "the document must end with a newline")]),
  markdown: rule("markdown", "finding", null, (c) => c.flags.map((f) => at(f.line, f.message))),
  conflicted: rule("conflicted", "error", null, (c) => {
    const sides = conflictSides(c.text);
    return sides === null ? [] : [at(sides.line, CONFLICTED_MESSAGE)];
  }),
};

/** Most errors and findings a result lists; the rest are counted in one last entry (1 MB of headings). */
const MAX_LISTED_ISSUES = 200;

function bounded(list: Issue[], what: string): Issue[] {
  if (list.length <= MAX_LISTED_ISSUES) return list;
  const rest = list.length - MAX_LISTED_ISSUES;
  return [...list.slice(0, MAX_LISTED_ISSUES), { rule: "more", line: 0, message: `… and ${rest} more ${what}` }];
}

/** Runs a rule table over the redacted text, so no message quotes a secret; issues are at the author's lines. */
export function runRules<C extends DocumentText>(
  rules: readonly Rule<C>[], parts: readonly Part<C>[], pass: Redacted, c: C, dropped: string[] = [],
): Validation {
  const maps = lineMaps(pass);
  c.secrets = pass.findings.map((f) => ({ ...f, line: maps.toRedacted(f.line) }));
  const errors: Issue[] = [];
  const findings: Issue[] = [];
  const lost = new Map<string | null, number>();
  for (const rule of rules) {
    for (const hit of rule.check(c)) {
      const severity = hit.severity ?? (rule.severity === "error" ? "error" : "finding");
      const issue = { rule: rule.id, line: maps.toOriginal(hit.line), message: hit.message };
      (severity === "error" ? errors : findings).push(issue);
      lost.set(rule.part, (lost.get(rule.part) ?? 0) + 1);
    }
  }
  const scored: Validation["parts"] = {};
  let got = 0;
  let max = 0;
  for (const { part, weight, of } of parts) {
    const shares = of ? of(c) : 1;
    if (shares === null) continue;
    const score = Math.round((weight * Math.max(0, shares - (lost.get(part) ?? 0))) / shares);
    scored[part] = { score, max: weight };
    got += score;
    max += weight;
  }
  errors.sort((a, b) => a.line - b.line);
  findings.sort((a, b) => (a.line === 0 ? 1 : 0) - (b.line === 0 ? 1 : 0) || a.line - b.line);
  const score = max === 0 ? 100 : Math.round((got / max) * 100);
  const listed = { errors: bounded(errors, "error(s)"), findings: bounded(findings, "finding(s)") };
  return { valid: errors.length === 0, ...listed, score, parts: scored, dropped };
}

export const QUOTE_CUT = { max: 80 } as const;

/** Edit distance, a swap of neighbours counting 1 (`breif`, `brief`); cut at 100 characters (a heading). */
export function editDistance(a: string, b: string): number {
  const [s, t] = [a.slice(0, 100), b.slice(0, 100)];
  const d = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => i + j));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
      const swapped = i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1];
      if (swapped) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[s.length]![t.length]!;
}

// A section title within this many edits of a known one is taken for a misspelling of it.
const misspelt = (best: string): number => Math.max(2, Math.floor(best.length / 4));

/** The name nearest to `word` (case ignored, ties to the first) within `limit(best)` edits, or null. */
export function nearest(word: string, names: readonly string[], limit = misspelt): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const n of names) {
    const d = editDistance(word.toLowerCase(), n.toLowerCase());
    if (d < bestD) [bestD, best] = [d, n];
  }
  return best !== null && bestD <= limit(best) ? best : null;
}

/** Issues as `write` and `validate` print them. */
export function issueLines(list: readonly Issue[]): string[] {
  return list.map((i) => (i.rule === "more" ? i.message : `line ${i.line}: ${i.rule}: ${i.message}`));
}

/** The one-line score `write` prints on stderr. */
export function scoreLine(v: Validation): string {
  const parts = Object.entries(v.parts).map(([name, p]) => `${name} ${p.score}/${p.max}`);
  return `score: ${v.score}/100 (${parts.join(", ")})`;
}

/** A secret over N lines is one line once redacted: lines move between the two texts (0, no line, stays 0). */
export function lineMaps(pass: Redacted): { toOriginal(line: number): number; toRedacted(line: number): number } {
  const spans = pass.findings.filter((f) => (f.lines ?? 1) > 1).map((f) => ({ line: f.line, extra: f.lines! - 1 }));
  spans.sort((a, b) => a.line - b.line);
  return {
    toOriginal(line) {
      let acc = 0;
      for (const s of spans) {
        if (line <= s.line - acc) break;
        acc += s.extra;
      }
      return line === 0 ? 0 : line + acc;
    },
    toRedacted(line) {
      let acc = 0;
      for (const s of spans) {
        if (line <= s.line) break;
        acc += Math.min(s.extra, line - s.line);
      }
      return line === 0 ? 0 : line - acc;
    },
  };
}
