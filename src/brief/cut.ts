// How a brief field is brought within its length (docs/decisions/brief-cuts.md): whole clauses go first, least
// important first; a clause still too long is cut at a word boundary outside code spans and ends with `…`.
import { sanitize } from "../guard/sanitize.ts";

const ELLIPSIS = "…";

/** Code-point length, as the brief's limits count. */
function cpLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// The code spans opening before `limit`, as half-open UTF-16 ranges; a run length with no closer left is not
// searched again, so the cost stays linear.
function codeSpans(s: string, limit: number): [number, number][] {
  const runEnd = (k: number): number => {
    while (s.charCodeAt(k) === 96) k++;
    return k;
  };
  const spans: [number, number][] = [];
  const exhausted = new Set<number>();
  for (let i = s.indexOf("`"); i !== -1 && i < limit;) {
    const j = runEnd(i);
    const len = j - i;
    let close = -1;
    if (!exhausted.has(len)) {
      for (let k = s.indexOf("`", j); k !== -1; k = s.indexOf("`", runEnd(k))) {
        if (runEnd(k) - k === len) {
          close = k;
          break;
        }
      }
      if (close === -1) exhausted.add(len);
    }
    if (close === -1) {
      i = s.indexOf("`", j);
      continue;
    }
    spans.push([i, close + len]);
    i = s.indexOf("`", close + len);
  }
  return spans;
}

/** Cuts `text` to at most `max` code points at the last space outside a code span, ending with `…`. */
export function cutAtWord(text: string, max: number): string {
  // Only the first max + 1 code points are split out: a long text costs one native scan.
  const cps: string[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const c of text) {
    if (cps.length > max) break;
    cps.push(c);
    offsets.push(offset);
    offset += c.length;
  }
  if (cps.length <= max) return text;
  const room = Math.max(0, max - 1);
  // Only spans opening before the cut can hold it: at most `room` of them are looked at.
  const spans = codeSpans(text, offsets[room]!);
  const inSpan = (i: number) => spans.some(([a, b]) => offsets[i]! > a && offsets[i]! < b);
  let cut = -1;
  for (let i = room; i > 0; i--) {
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

/** One clause of a field; a higher rank is kept longer. */
export interface Clause {
  text: string;
  rank: number;
}

/** Joins clauses within `max` code points, dropping the least important (the last of equal rank) first; a dropped
 * clause leaves `; …` at the end, so that a reader knows the full text (drift's summary) says more. */
export function fitClauses(clauses: readonly Clause[], max: number): string {
  const kept = clauses.filter((c) => c.text !== "");
  const all = kept.length;
  const joined = () => `${kept.map((c) => c.text).join("; ")}${kept.length < all ? `; ${ELLIPSIS}` : ""}`;
  while (kept.length > 1 && cpLength(joined()) > max) {
    let drop = 0;
    for (let i = 1; i < kept.length; i++) if (kept[i]!.rank <= kept[drop]!.rank) drop = i;
    kept.splice(drop, 1);
  }
  // A lone survivor too long with the mark is better whole (or cut, which ends with `…` anyway).
  return cutAtWord(kept.length === 1 && cpLength(joined()) > max ? kept[0]!.text : joined(), max);
}

/** A list field within `max` code points: its last items go first (`(+N more)`); a lone item is cut by `cutOne`. */
export function fitList(
  items: readonly string[], shownMax: number, max: number, cutOne: (item: string, room: number) => string,
): string {
  let n = Math.min(items.length, shownMax);
  const render = (k: number) => {
    const more = items.length > k ? ` (+${items.length - k} more)` : "";
    return { text: `${items.slice(0, k).join("; ")}${more}`, more };
  };
  while (n > 1 && cpLength(render(n).text) > max) n--;
  const r = render(n);
  if (cpLength(r.text) <= max) return r.text;
  return `${cutOne(items[0]!, max - cpLength(r.more))}${r.more}`;
}
