/**
 * The invisible-character guard (contract §4): code points that can hide or reorder text for
 * a human reviewer while a model still reads them (field report #11). `write` and `promote`
 * refuse a text holding one ({@link findInvisible}); `read` shows them ({@link renderVisible}).
 * Pure: no IO.
 */

/** An invisible character found in a text (contract §4). Line and column are 1-based. */
export interface InvisibleHit {
  line: number;
  /** 1-based, counted in Unicode code points from the start of the line. */
  column: number;
  /** e.g. "U+200B" */
  codePoint: string;
  /** Its class: `bidi control`, `tag character`, `zero-width character`, `variation selector`, `Hangul filler`. */
  name: string;
}

const ZWJ = 0x200d;
const BOM = 0xfeff;
const VS16 = 0xfe0f;

// One pass finds every candidate; most texts hold none and stop here.
const CANDIDATE =
  /[\u061C\u115F\u1160\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\u3164\uFE00-\uFE0D\uFEFF\uFFA0\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

/** The contract §4 class of `cp`, or undefined when `cp` is not on the list. */
function classOf(cp: number): string | undefined {
  if (cp === 0x061c || cp === 0x200e || cp === 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
    return "bidi control";
  }
  if (cp >= 0xe0000 && cp <= 0xe007f) return "tag character";
  if (cp === 0x200b || cp === 0x200c || cp === ZWJ || cp === 0x2060 || cp === BOM) return "zero-width character";
  if ((cp >= 0xfe00 && cp <= 0xfe0d) || (cp >= 0xe0100 && cp <= 0xe01ef)) return "variation selector";
  if (cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0) return "Hangul filler";
  return undefined;
}

function isEmoji(cp: number | undefined): boolean {
  return cp !== undefined && cp >= 0xa9 && PICTOGRAPHIC.test(String.fromCodePoint(cp));
}

/** Skin-tone modifiers sit between an emoji and its joiner (👩🏽‍💻). */
function isEmojiModifier(cp: number): boolean {
  return cp >= 0x1f3fb && cp <= 0x1f3ff;
}

/**
 * True when the code point at `i` of `cps` is forbidden in its context: U+FEFF passes only as
 * the very first character, U+200D only between two emoji (after U+FE0F or a skin tone too),
 * as in ZWJ sequences like 👨‍👩‍👧. Negative entries (invalid bytes) are never emoji.
 */
function forbiddenAt(cps: readonly number[], i: number): string | undefined {
  const cp = cps[i]!;
  const name = classOf(cp);
  if (name === undefined) return undefined;
  if (cp === BOM && i === 0) return undefined;
  if (cp === ZWJ) {
    let j = i - 1;
    while (j >= 0 && (cps[j] === VS16 || isEmojiModifier(cps[j]!))) j--;
    if (j >= 0 && isEmoji(cps[j]) && isEmoji(cps[i + 1])) return undefined;
  }
  return name;
}

function hex(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Lists the forbidden invisible characters of `text` (contract §4), in order; pure.
 * Line and column are 1-based, the column counted in code points.
 */
export function findInvisible(text: string): InvisibleHit[] {
  if (!CANDIDATE.test(text)) return [];
  const cps: number[] = [];
  for (const ch of text) cps.push(ch.codePointAt(0)!);
  const hits: InvisibleHit[] = [];
  let line = 1;
  let column = 1;
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    const name = forbiddenAt(cps, i);
    if (name !== undefined) hits.push({ line, column, codePoint: hex(cp), name });
    if (cp === 0x0a) {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return hits;
}

/**
 * One line per hit, for refusals: `invisible character U+202E (bidi control) at line 3,
 * column 7`; past 10 hits the rest are counted. Never includes the text itself.
 */
export function describeInvisible(hits: readonly InvisibleHit[]): string {
  const shown = hits.slice(0, 10).map((h) => `${h.codePoint} (${h.name}) at line ${h.line}, column ${h.column}`);
  const more = hits.length > 10 ? `, … and ${hits.length - 10} more` : "";
  return `${hits.length === 1 ? "invisible character" : `${hits.length} invisible characters`}: ${shown.join("; ")}${more}`;
}

/**
 * Strict UTF-8 decoding to code points (WHATWG rules: no overlongs, no surrogates, nothing
 * past U+10FFFF). Each byte that does not begin a valid sequence becomes `-(byte + 1)`, so a
 * broken sequence shows every one of its bytes.
 */
function decodeUtf8(bytes: Uint8Array): number[] {
  const out: number[] = [];
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      out.push(b);
      i++;
      continue;
    }
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    let cp = 0;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      cp = b & 0x0f;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      cp = b & 0x07;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    }
    let ok = need > 0;
    for (let k = 1; ok && k <= need; k++) {
      const c = bytes[i + k];
      // Only the second byte has a narrowed range; later ones are plain continuations.
      const min = k === 1 ? lo : 0x80;
      const max = k === 1 ? hi : 0xbf;
      if (c === undefined || c < min || c > max) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    if (ok) {
      out.push(cp);
      i += need + 1;
    } else {
      out.push(-(b + 1));
      i++;
    }
  }
  return out;
}

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Renders file bytes for display (contract §4, `read`): forbidden invisible code points become
 * `<U+XXXX>`, invalid UTF-8 bytes `<0xNN>`; everything else is decoded as is (a leading BOM
 * and emoji joiners included). `changed` counts the replacements; 0 means `text` is exactly
 * the bytes' UTF-8 decoding.
 */
export function renderVisible(bytes: Uint8Array): { text: string; changed: number } {
  let fast: string | undefined;
  try {
    fast = STRICT.decode(bytes);
  } catch {
    fast = undefined;
  }
  if (fast !== undefined && !CANDIDATE.test(fast)) return { text: fast, changed: 0 };
  const cps = decodeUtf8(bytes);
  const parts: string[] = [];
  let changed = 0;
  let runStart = 0;
  const flush = (end: number): void => {
    if (end > runStart) parts.push(String.fromCodePoint(...cps.slice(runStart, end)));
  };
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    let shown: string | undefined;
    if (cp < 0) shown = `<0x${(-cp - 1).toString(16).toUpperCase().padStart(2, "0")}>`;
    else if (forbiddenAt(cps, i) !== undefined) shown = `<${hex(cp)}>`;
    if (shown === undefined) {
      // Long runs go out in slices: String.fromCodePoint takes its input as arguments.
      if (i - runStart >= 8192) {
        flush(i);
        runStart = i;
      }
      continue;
    }
    flush(i);
    parts.push(shown);
    changed++;
    runStart = i + 1;
  }
  flush(cps.length);
  return { text: parts.join(""), changed };
}
