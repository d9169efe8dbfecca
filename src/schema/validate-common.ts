// What every `validate` result is made of (contract §8 `validate --json`; docs/design.md#files-on-disk), and small helpers
// shared by the handoff and ledger validators. Pure.

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

/**
 * The result of validating one memory document (docs/design.md#files-on-disk): `valid` is false exactly when
 * `errors` is non-empty; `score` is 0–100, the parts' points over their maxima; `dropped`
 * lists open items of the previous handoff that this one neither carries over nor closes.
 */
export interface Validation {
  valid: boolean;
  errors: Issue[];
  score: number;
  parts: Record<string, ScorePart>;
  findings: Issue[];
  dropped: string[];
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

/** Renders issues as the lines `write` and `validate` print: `line L: <rule>: <message>` (ruling 35, docs/design.md#verdicts-and-the-brief). */
export function issueLines(list: readonly Issue[]): string[] {
  return list.map((i) => (i.rule === "more" ? i.message : `line ${i.line}: ${i.rule}: ${i.message}`));
}

/** `score: N/100 (part a/b, …)`: the one-line score `write` prints on stderr. */
export function scoreLine(v: Validation): string {
  const parts = Object.entries(v.parts).map(([name, p]) => `${name} ${p.score}/${p.max}`);
  return `score: ${v.score}/100 (${parts.join(", ")})`;
}
