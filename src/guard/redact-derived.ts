/**
 * The derived forms a secret hides in (docs/decisions/redaction-prefixes.md): base64 runs
 * decoded, and tokens split over consecutive lines under one constant prefix, joined. Each
 * derived text is built in one pass over the original and maps its offsets back to it; the
 * shape rules then run once over it (redact.ts). Pure; linear.
 */
import { tally } from "./redact-kit.ts";

/** A derived text and the original range a span of it came from (null: not one whole piece). */
export interface Derived {
  text: string;
  original(start: number, end: number): [number, number] | null;
}

const EMPTY: Derived = { text: "", original: () => null };

/** Pieces of a derived text: [derived start, derived end, original start, original end, group]. */
type Piece = [number, number, number, number, number];

/** The piece holding derived offset `at` (binary search over pieces sorted by derived start). */
function pieceAt(pieces: readonly Piece[], at: number): Piece | undefined {
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (pieces[mid]![0] <= at) lo = mid;
    else hi = mid - 1;
  }
  const p = pieces[lo];
  return p !== undefined && p[0] <= at && at < p[1] ? p : undefined;
}

/** Shortest base64 run decoded: the shortest vendor token (20 characters) takes 28. */
const MIN_BASE64 = 24;
const BASE64_RUN = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])/g;

/** True when at least 95% of the bytes are printable ASCII, tab, CR or LF: decoded text, not noise. */
function printable(bytes: Buffer): boolean {
  let bad = 0;
  for (const b of bytes) if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b > 0x7e) bad++;
  return bad * 20 <= bytes.length;
}

/**
 * Every base64 or base64url run of 24+ characters not already redacted (`covered`), decoded
 * when its bytes are text, one per line. A span found in a decoded run stands for the whole run.
 */
export function decodedRuns(text: string, covered: (start: number, end: number) => boolean): Derived {
  const parts: string[] = [];
  const pieces: Piece[] = [];
  let length = 0;
  BASE64_RUN.lastIndex = 0;
  tally(text.length);
  for (const m of text.matchAll(BASE64_RUN)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[0].length < MIN_BASE64 || covered(start, end)) continue;
    const bytes = Buffer.from(m[0], "base64");
    tally(m[0].length);
    if (bytes.length === 0 || !printable(bytes)) continue;
    const decoded = bytes.toString("latin1");
    pieces.push([length, length + decoded.length, start, end, pieces.length]);
    parts.push(decoded, "\n");
    length += decoded.length + 1;
  }
  if (parts.length === 0) return EMPTY;
  return {
    text: parts.join(""),
    original(a, b) {
      const p = pieceAt(pieces, a);
      return p !== undefined && b <= p[1] ? [p[2], p[3]] : null;
    },
  };
}

/** Characters of a split token's piece; a line's piece is its trailing run of them. */
const PIECE_CHAR = /[A-Za-z0-9_+/=.-]/;
/** Longest constant prefix of a split token's lines, in characters. */
const MAX_PREFIX = 24;

/**
 * Tokens split over consecutive lines: each line is a constant prefix (`# `, `> `, four spaces,
 * none) and one run of token characters; two or more such lines with the same prefix are
 * joined, one group per line of the derived text. A span counts only when it crosses from one
 * line's piece into the next (a span inside one line was judged on the line itself), and then
 * covers the original from its first character to its last, prefixes between included.
 */
export function splitRuns(text: string, covered: (start: number, end: number) => boolean): Derived {
  const parts: string[] = [];
  const pieces: Piece[] = [];
  let length = 0;
  let group: Array<[number, number]> = [];
  let groupPrefix: string | null = null;
  let groups = 0;
  const flush = (): void => {
    if (group.length >= 2) {
      for (const [a, b] of group) {
        pieces.push([length, length + (b - a), a, b, groups]);
        parts.push(text.slice(a, b));
        length += b - a;
      }
      parts.push("\n");
      length++;
      groups++;
    }
    group = [];
    groupPrefix = null;
  };
  tally(text.length);
  for (let lineStart = 0; lineStart <= text.length; ) {
    let lineEnd = text.indexOf("\n", lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    let e = lineEnd;
    while (e > lineStart && (text[e - 1] === " " || text[e - 1] === "\t" || text[e - 1] === "\r")) e--;
    let b = e;
    while (b > lineStart && PIECE_CHAR.test(text[b - 1]!)) b--;
    const prefix = b - lineStart <= MAX_PREFIX ? text.slice(lineStart, b) : null;
    if (b === e || prefix === null || /[A-Za-z0-9]/.test(prefix) || covered(b, e)) flush();
    else {
      if (groupPrefix !== prefix) flush();
      groupPrefix = prefix;
      group.push([b, e]);
    }
    lineStart = lineEnd + 1;
  }
  flush();
  if (pieces.length === 0) return EMPTY;
  return {
    text: parts.join(""),
    original(a, z) {
      const first = pieceAt(pieces, a);
      const last = pieceAt(pieces, z - 1);
      if (first === undefined || last === undefined || first === last || first[4] !== last[4]) return null;
      return [first[2] + (a - first[0]), last[2] + (z - last[0])];
    },
  };
}

/** Narrowest line a wrapped token's lines are cut at. */
const MIN_WRAP = 40;
/** The widths tools wrap at (base64, PEM, MIME, terminals): a two-line group needs one of them. */
const WRAP_WIDTHS = new Set([64, 76, 80]);

/**
 * Tokens wrapped at a fixed width: a line ending in token characters, then lines of one
 * constant prefix (none, `# `, `> `…) and token characters, every line but the last as wide as
 * the first. Unlike {@link splitRuns} the first line may start with anything (`KEY=sk-proj-…`),
 * and its piece may already be redacted on its own: the joined span then takes over the rest.
 */
export function wrappedRuns(text: string): Derived {
  const parts: string[] = [];
  const pieces: Piece[] = [];
  let length = 0;
  let groups = 0;
  const lines: Array<[number, number]> = [];
  for (let s = 0; s <= text.length; ) {
    let e = text.indexOf("\n", s);
    if (e === -1) e = text.length;
    let t = e;
    while (t > s && (text[t - 1] === " " || text[t - 1] === "\t" || text[t - 1] === "\r")) t--;
    lines.push([s, t]);
    s = e + 1;
  }
  tally(text.length);
  const pieceStart = (a: number, z: number): number => {
    let b = z;
    while (b > a && PIECE_CHAR.test(text[b - 1]!)) b--;
    return b;
  };
  for (let i = 0; i < lines.length - 1; ) {
    const [a, z] = lines[i]!;
    const width = z - a;
    const head = pieceStart(a, z);
    const next = lines[i + 1]!;
    const prefixEnd = pieceStart(next[0], next[1]);
    const prefix = text.slice(next[0], prefixEnd);
    const badPrefix = prefix.length > MAX_PREFIX || /[A-Za-z0-9]/.test(prefix) || !text.startsWith(prefix, a);
    if (width < MIN_WRAP || head === z || prefixEnd === next[1] || badPrefix) {
      i++;
      continue;
    }
    const group: Array<[number, number]> = [[head, z]];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const [la, lz] = lines[j]!;
      const body = la + prefix.length;
      if (lz - la > width || !text.startsWith(prefix, la) || lz === body || pieceStart(la, lz) !== body) break;
      group.push([la + prefix.length, lz]);
      if (lz - la < width) {
        j++;
        break;
      }
    }
    // Two lines of any width are too common to call a wrap; three, or a tool's width, are not.
    if (group.length >= 3 || (group.length === 2 && WRAP_WIDTHS.has(width))) {
      for (const [b, e] of group) {
        pieces.push([length, length + (e - b), b, e, groups]);
        parts.push(text.slice(b, e));
        length += e - b;
      }
      parts.push("\n");
      length++;
      groups++;
    }
    i = Math.max(i + 1, j);
  }
  if (pieces.length === 0) return EMPTY;
  return {
    text: parts.join(""),
    original(x, y) {
      const first = pieceAt(pieces, x);
      const last = pieceAt(pieces, y - 1);
      // A wrapped token fills its last line: `PORT=8080` after a key is the next line, not its tail.
      if (first === undefined || last === undefined || first === last || first[4] !== last[4]) return null;
      if (y !== last[1]) return null;
      return [first[2] + (x - first[0]), last[2] + (y - last[0])];
    },
  };
}

/**
 * The text with every line continuation (a backslash ending a line) removed, as a shell or a
 * C compiler joins it: a span counts only when it crosses a continuation, and then covers the
 * original from its first character to its last.
 */
export function continuedRuns(text: string): Derived {
  if (!text.includes("\\\n") && !text.includes("\\\r\n")) return EMPTY;
  const parts: string[] = [];
  const pieces: Piece[] = [];
  let length = 0;
  tally(text.length);
  for (const m of text.matchAll(/[^]*?(?:\\\r?\n|$)/g)) {
    if (m[0] === "") break;
    const cut = m[0].endsWith("\\\r\n") ? 3 : m[0].endsWith("\\\n") ? 2 : 0;
    const piece = m[0].slice(0, m[0].length - cut);
    pieces.push([length, length + piece.length, m.index, m.index + piece.length, 0]);
    parts.push(piece);
    length += piece.length;
  }
  return {
    text: parts.join(""),
    original(a, z) {
      const first = pieceAt(pieces, a);
      const last = pieceAt(pieces, z - 1);
      if (first === undefined || last === undefined || first === last) return null;
      return [first[2] + (a - first[0]), last[2] + (z - last[0])];
    },
  };
}
