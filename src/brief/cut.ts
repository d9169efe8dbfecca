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

/** Cuts `text` to at most `max` code points at the last space outside a code span, ending with `…`, or with `tell`
 * (of the rest), which starts `…`: then whole when no such cut fits. */
export function cutAtWord(text: string, max: number, tell?: (rest: string) => string): string {
  // What `tell` says of the whole text is the most it can say of any rest: its room is kept first.
  const reserve = tell === undefined ? 0 : cpLength(tell(text)) - 1;
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
  if (cps.length <= max && tell === undefined) return text;
  const room = Math.min(cps.length - 1, Math.max(0, max - 1 - reserve));
  // Only spans opening before the cut can hold it: at most `room` of them are looked at.
  const spans = room === 0 ? [] : codeSpans(text, offsets[room]!);
  const inSpan = (i: number) => spans.some(([a, b]) => offsets[i]! > a && offsets[i]! < b);
  let cut = -1;
  for (let i = room; i > 0; i--) {
    if (cps[i] === " " && !inSpan(i)) {
      cut = i;
      break;
    }
  }
  if (cut <= 0 && tell !== undefined) return cps.length <= max ? text : cutAtWord(text, max);
  // One word longer than the room: cut inside it, on a grapheme boundary.
  if (cut <= 0) return sanitize(text, { max, redact: false });
  const head = cps.slice(0, cut).join("").replace(/[\s;,:—–-]+$/u, "");
  return `${head}${tell === undefined ? ELLIPSIS : tell(text.slice(offsets[cut]))}`;
}

// The clauses listing quoted files as `"a", "b" and 2 more` (key files, the fates), and how many they name.
const FILE_LIST = /^(key files|dirty at the save|dirty in the clone)/;
const filesIn = (s: string) =>
  (s.match(/"(?:[^"\\]|\\.)*"/g)?.length ?? 0) + Number(/ and (\d+) more$/.exec(s)?.[1] ?? 0);
const more = (n: number, what: string) => (n === 0 ? [] : [`+${n} ${what}${n === 1 ? "" : "s"}`]);

/** What a fit left out, from `…`: the words of a clause's cut `rest`, the files and other facts of `dropped`. */
function leftOut(dropped: readonly string[], rest = ""): string {
  const lists = dropped.filter((t) => FILE_LIST.test(t) && filesIn(t) > 0);
  const files = lists.reduce((n, t) => n + filesIn(t), 0);
  const words = rest.split(/\s+/).filter(Boolean).length;
  const bits = [...more(words, "word"), ...more(files, "file"), ...more(dropped.length - lists.length, "fact")];
  return bits.length === 0 ? ELLIPSIS : `${ELLIPSIS} ${bits.join(", ")}`;
}

// How much the count of what was dropped matters: above the other facts and stashes, below the dirty counts.
const COUNTED = 80;

/** One clause of a field; a higher rank is kept longer. */
export interface Clause {
  text: string;
  rank: number;
}

/**
 * Joins clauses within `max` code points, dropping the least important (the last of equal rank) first, then taking
 * back those that fit; the end counts what was dropped (`; … +3 files, +1 fact`) for the reader, bare `; …` only
 * where the count would cost a clause ranked `COUNTED` or above.
 */
export function fitClauses(clauses: readonly Clause[], max: number): string {
  const all = clauses.filter((c) => c.text !== "");
  let kept = [...all];
  const dropped = () => all.filter((c) => !kept.includes(c)).map((c) => c.text);
  const joined = (mark = ELLIPSIS) => [...kept.map((c) => c.text), ...(kept.length < all.length ? [mark] : [])]
    .join("; ");
  const out: Clause[] = [];
  while (kept.length > 1 && cpLength(joined()) > max) {
    let drop = 0;
    for (let i = 1; i < kept.length; i++) if (kept[i]!.rank <= kept[drop]!.rank) drop = i;
    out.unshift(...kept.splice(drop, 1));
  }
  // A clause dropped before a long one made room comes back, in its place, when it fits now.
  for (const c of out) {
    const before = kept;
    kept = all.filter((x) => x === c || before.includes(x));
    if (cpLength(joined()) > max) kept = before;
  }
  if (kept.length === all.length && cpLength(joined()) <= max) return joined();
  // The count outranks the facts below `COUNTED`: they go, least important first, to make room for it.
  const fitted = kept;
  while (kept.length > 1 && cpLength(joined(leftOut(dropped()))) > max) {
    let low: Clause | undefined;
    for (const c of kept) if (c.rank < COUNTED && (!low || c.rank <= low.rank)) low = c;
    if (low === undefined) break;
    kept = kept.filter((c) => c !== low);
  }
  if (cpLength(joined(leftOut(dropped()))) <= max) return joined(leftOut(dropped()));
  kept = fitted;
  if (cpLength(joined()) <= max) return joined();
  // A lone survivor too long: cut, saying what the cut and the drops left out (whole when that cannot fit).
  return cutAtWord(kept[0]!.text, max, (rest) => leftOut(dropped(), rest));
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
