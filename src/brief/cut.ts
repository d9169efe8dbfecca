// How a brief field is brought within its length (docs/decisions/brief-cuts.md): whole clauses
// are dropped first, least important first; a clause still too long is cut at a word boundary
// outside code spans and ends with `…`; nothing follows a cut. Pure, on one-line safe text.

import { sanitize } from "../guard/sanitize.ts";

const ELLIPSIS = "…";

/** Code-point length, as the brief's limits count. */
export function cpLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * The code-point ranges of `s` inside code spans (CommonMark: a backtick run up to the next run
 * of the same length; a run with no closer is a literal backtick). Half-open [start, end).
 */
function codeSpans(cps: readonly string[]): [number, number][] {
  const runs: { at: number; len: number }[] = [];
  for (let i = 0; i < cps.length; ) {
    if (cps[i] !== "`") {
      i++;
      continue;
    }
    let j = i;
    while (cps[j] === "`") j++;
    runs.push({ at: i, len: j - i });
    i = j;
  }
  const spans: [number, number][] = [];
  for (let r = 0; r < runs.length; r++) {
    const open = runs[r]!;
    const close = runs.findIndex((x, k) => k > r && x.len === open.len);
    if (close < 0) continue;
    spans.push([open.at, runs[close]!.at + open.len]);
    r = close;
  }
  return spans;
}

/**
 * Cuts `text` to at most `max` code points: at the last space outside a code span that leaves
 * room for `…`, trailing separators dropped; a span is never left open (no cut falls inside
 * one). A single word longer than the room is cut inside it, the only case that does.
 * @returns the text unchanged when it fits.
 */
export function cutAtWord(text: string, max: number): string {
  const cps = [...text];
  if (cps.length <= max) return text;
  const room = Math.max(0, max - 1);
  const spans = codeSpans(cps);
  const inSpan = (i: number) => spans.some(([a, b]) => i > a && i < b);
  let cut = -1;
  for (let i = Math.min(room, cps.length - 1); i > 0; i--) {
    if (cps[i] === " " && !inSpan(i)) {
      cut = i;
      break;
    }
  }
  // One word longer than the room: cut inside it, on a grapheme boundary.
  if (cut <= 0) return sanitize(text, { max, redact: false });
  const head = cps.slice(0, cut).join("");
  return `${head.replace(/[\s;,:—–-]+$/u, "")}${ELLIPSIS}`;
}

/** One clause of a field: its text and how important it is (higher is kept longer). */
export interface Clause {
  text: string;
  rank: number;
}

/**
 * Joins clauses with `sep` within `max` code points: while too long, the least important clause
 * (the last of equal rank) is dropped; when one is left and still too long, it is cut at a word
 * boundary. Order is kept. Nothing follows a cut.
 */
export function fitClauses(clauses: readonly Clause[], max: number, sep = "; "): string {
  const kept = clauses.filter((c) => c.text !== "");
  const joined = () => kept.map((c) => c.text).join(sep);
  while (kept.length > 1 && cpLength(joined()) > max) {
    let drop = 0;
    for (let i = 1; i < kept.length; i++) if (kept[i]!.rank <= kept[drop]!.rank) drop = i;
    kept.splice(drop, 1);
  }
  return cutAtWord(joined(), max);
}

/**
 * A list field within `max` code points: its last items are dropped first (counted as
 * `(+N more)`); a lone item still too long is cut by `cutOne` (which keeps its cause).
 */
export function fitList(items: readonly string[], shownMax: number, max: number, cutOne: (item: string, room: number) => string, sep = "; "): string {
  let n = Math.min(items.length, shownMax);
  const render = (k: number) => {
    const more = items.length > k ? ` (+${items.length - k} more)` : "";
    return { text: `${items.slice(0, k).join(sep)}${more}`, more };
  };
  while (n > 1 && cpLength(render(n).text) > max) n--;
  const r = render(n);
  if (cpLength(r.text) <= max) return r.text;
  return `${cutOne(items[0]!, max - cpLength(r.more))}${r.more}`;
}
