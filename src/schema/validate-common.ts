// The validation result's shapes and the one loop that runs a rule table and a part table.
import type { RedactionFinding } from "../guard/redact.ts";
import { conflictIssue } from "./conflicted.ts";
import type { Flag } from "./grammar.ts";

/** One error or finding: a kebab-case rule id, a 1-based line (0: the document as a whole), a message. */
export interface Issue {
  rule: string;
  line: number;
  message: string;
}

/** One part of the score: points earned out of points possible. */
export interface ScorePart {
  score: number;
  max: number;
}

/** A validation: `valid` exactly when no error; `score` 0–100; `dropped`: open items of the previous handoff lost. */
export interface Validation {
  valid: boolean;
  errors: Issue[];
  score: number;
  parts: Record<string, ScorePart>;
  findings: Issue[];
  dropped: string[];
}

/** What a rule reports: a line (1-based; 0: the whole document), a message, and its severity when it can vary. */
export interface Hit {
  line: number;
  message: string;
  severity?: "error" | "finding";
}

/** A rule (docs/decisions/validation-table.md): `error or finding` when each hit says which. */
export interface Rule<C, P extends string = string> {
  id: string;
  severity: "error" | "finding" | "error or finding";
  part: P | null;
  checks: string;
  check(c: C): Hit[];
}

/** A part of the score: its name, its weight (points possible) and its points; null leaves the part out. */
export interface PartRule<C, P extends string = string> {
  part: P;
  weight: number;
  score(c: C): number | null;
}

/** Every document's context: the text as given, LF-normalised without a BOM, its lines and the grammar's flags. */
export interface DocumentText {
  input: string;
  text: string;
  lines: string[];
  flags: readonly Flag[];
}

/** The rules every memory document shares: BOM and CR findings, the final newline, conflict markers. */
export const TEXT_RULES = {
  bom: {
    id: "bom",
    severity: "finding",
    part: null,
    checks: "the text starts with a UTF-8 byte order mark",
    check: (c: DocumentText): Hit[] => {
      const message = "a UTF-8 byte order mark starts the text; write drops it";
      return c.input.startsWith("\uFEFF") ? [{ line: 1, message }] : [];
    },
  },
  crlf: {
    id: "crlf",
    severity: "finding",
    part: null,
    checks: "CR or CRLF line ends",
    check: (c: DocumentText): Hit[] =>
      c.input.includes("\r") ? [{ line: 1, message: "CR or CRLF line ends; write turns them into LF" }] : [],
  },
  newline: {
    // Write refuses a text without its final newline.
    id: "newline",
    severity: "error",
    part: null,
    checks: "the text ends with a newline",
    check: (c: DocumentText): Hit[] =>
      c.text.endsWith("\n") ? [] : [{ line: c.lines.length, message: "the document must end with a newline" }],
  },
  markdown: {
    // The line grammar reads such a line as plain text: the finding says what to write instead.
    id: "markdown",
    severity: "finding",
    part: null,
    checks: "every line in the helper's Markdown grammar (no setext heading, indented code, quote, HTML block…)",
    check: (c: DocumentText): Hit[] => c.flags.map((f) => ({ line: f.line, message: f.message })),
  },
  conflicted: {
    id: "conflicted",
    severity: "error",
    part: null,
    checks: "git's conflict markers, at column 0 outside fenced code (docs/design.md#verdicts-and-the-brief)",
    check: (c: DocumentText): Hit[] => {
      const issue = conflictIssue(c.text);
      return issue === null ? [] : [{ line: issue.line, message: issue.message }];
    },
  },
} as const satisfies Record<string, Rule<DocumentText, never>>;

/** Runs a rule table and a part table: issues by line, whole-document findings last, table order on one line. */
export function runRules<C>(rules: readonly Rule<C>[], parts: readonly PartRule<C>[], c: C, dropped: string[] = []) {
  const errors: Issue[] = [];
  const findings: Issue[] = [];
  for (const rule of rules) {
    for (const hit of rule.check(c)) {
      const severity = hit.severity ?? (rule.severity === "error" ? "error" : "finding");
      (severity === "error" ? errors : findings).push({ rule: rule.id, line: hit.line, message: hit.message });
    }
  }
  const scored: Record<string, ScorePart> = {};
  for (const p of parts) {
    const score = p.score(c);
    if (score !== null) scored[p.part] = { score, max: p.weight };
  }
  errors.sort((a, b) => a.line - b.line);
  findings.sort((a, b) => (a.line === 0 ? 1 : 0) - (b.line === 0 ? 1 : 0) || a.line - b.line);
  const valid = errors.length === 0;
  const listed = { errors: bounded(errors, "error(s)"), findings: bounded(findings, "finding(s)") };
  const result: Validation = { valid, ...listed, score: totalScore(scored), parts: scored, dropped };
  return result;
}

/** Most errors and findings a result lists; the rest are counted in one last entry (1 MB of headings). */
export const MAX_LISTED_ISSUES = 200;

/** Bounds a list of issues: the first `MAX_LISTED_ISSUES`, then one entry counting the rest. */
export function bounded(list: Issue[], what: string): Issue[] {
  if (list.length <= MAX_LISTED_ISSUES) return list;
  const rest = list.length - MAX_LISTED_ISSUES;
  return [...list.slice(0, MAX_LISTED_ISSUES), { rule: "more", line: 0, message: `… and ${rest} more ${what}` }];
}

/** A part scored in proportion: `good` of `total` items earn their share of `max` (full when there are none). */
export function proportion(good: number, total: number, max: number): ScorePart {
  return { score: total === 0 ? max : Math.round((good / total) * max), max };
}

/** The total score: the parts' points over their maxima, as a whole number 0–100. */
export function totalScore(parts: Record<string, ScorePart>): number {
  let got = 0;
  let max = 0;
  for (const p of Object.values(parts)) {
    got += p.score;
    max += p.max;
  }
  return max === 0 ? 100 : Math.round((got / max) * 100);
}

/** How much of a file's text a finding quotes (guard/sanitize.ts `quoted`): 80 grapheme clusters. */
export const QUOTE_CUT = { max: 80 } as const;

/** 1-based line number of a character offset, given the offsets where lines start. */
export function lineAt(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Offsets at which each line of `text` starts. */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Levenshtein distance, capped: inputs past 100 characters are cut (a heading, not an essay). */
export function editDistance(a: string, b: string): number {
  const s = a.slice(0, 100);
  const t = b.slice(0, 100);
  let prev = Array.from({ length: t.length + 1 }, (_, i) => i);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[t.length]!;
}

/** The name nearest to `title` (case ignored) when near enough to be a misspelling of it, or null. */
export function nearest(title: string, names: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const n of names) {
    const d = editDistance(title.toLowerCase(), n.toLowerCase());
    if (d < bestD) [bestD, best] = [d, n];
  }
  return best !== null && bestD <= Math.max(2, Math.floor(best.length / 4)) ? best : null;
}

/** Renders issues as the lines `write` and `validate` print: `line L: <rule>: <message>`. */
export function issueLines(list: readonly Issue[]): string[] {
  return list.map((i) => (i.rule === "more" ? i.message : `line ${i.line}: ${i.rule}: ${i.message}`));
}

/** `score: N/100 (part a/b, …)`: the one-line score `write` prints on stderr. */
export function scoreLine(v: Validation): string {
  const parts = Object.entries(v.parts).map(([name, p]) => `${name} ${p.score}/${p.max}`);
  return `score: ${v.score}/100 (${parts.join(", ")})`;
}

/** A redaction pass over a text: the redacted text and its secrets, at lines of the text as given. */
export interface RedactedText {
  text: string;
  findings: readonly RedactionFinding[];
}

/** Maps lines of a redacted text to the text as given: a secret over N lines is one line once redacted. */
export function lineMaps(pass: RedactedText): { toOriginal(line: number): number; toRedacted(line: number): number } {
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

/** `v` with every issue's line moved from the redacted text to the text as given. */
export function onOriginalLines(v: Validation, pass: RedactedText): Validation {
  const maps = lineMaps(pass);
  for (const i of [...v.errors, ...v.findings]) i.line = maps.toOriginal(i.line);
  return v;
}
