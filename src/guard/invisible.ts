/**
 * The invisible-character guard (docs/design.md#redaction): code points that hide or reorder text
 * for a human while a model reads them, and controls; living scripts pass (Persian ZWNJ, Indic
 * ZWJ, Hebrew and Arabic marks, the flags of England, Scotland and Wales). Pure. The Unicode
 * tables are generated from the UCD by tools/unicode-tables.mjs.
 */
import { partitionPoint } from "./partition.ts";
import { RTL_LETTERS, STANDARDIZED_VARIANT_BASES } from "./unicode-tables.ts";

/** A refused character: 1-based line and column (in code points), `U+XXXX`, and its class. */
export interface InvisibleHit {
  line: number;
  column: number;
  codePoint: string;
  name: string;
}

// One pass finds every candidate; most texts hold none. CR is one: only a CR before LF passes.
const CANDIDATE = new RegExp(
  "[\\x00-\\x08\\x0B-\\x1F\\x7F-\\x9F\\u061C\\u115F\\u1160\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2028\\u2029" +
    "\\u2060-\\u2064\\u2066-\\u2069\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}]",
  "u",
);
/** The refused characters of `text`, in order. */
export function findInvisible(text: string): InvisibleHit[] {
  return CANDIDATE.test(text) ? findRefused(text) : [];
}

/** One line for a refusal: `invisible character U+202E (bidi control) at line 3, column 7`, 10 at most. */
export function describeInvisible(hits: readonly InvisibleHit[]): string {
  const shown = hits.slice(0, 10).map((h) => `${h.codePoint} (${h.name}) at line ${h.line}, column ${h.column}`);
  const more = hits.length > 10 ? `, … and ${hits.length - 10} more` : "";
  const head = hits.length === 1 ? "invisible character" : `${hits.length} invisible characters`;
  return `${head}: ${shown.join("; ")}${more}`;
}

/** The refused code point indexes of `text` as if it sat after a space (a path on an anchor line). */
export function refusedIndexes(text: string): Set<number> {
  return CANDIDATE.test(text) ? refusedIndexesIn(text) : new Set();
}

/** `text` with each refused code point written `<U+XXXX>`; `changed` counts them. */
export function showRefused(text: string): { text: string; changed: number } {
  if (!CANDIDATE.test(text)) return { text, changed: 0 };
  return renderCodePoints(Array.from(text, (ch) => ch.codePointAt(0)!));
}

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** File bytes for display: refused code points as `<U+XXXX>`, invalid UTF-8 bytes as `<0xNN>`. */
export function renderVisible(bytes: Uint8Array): { text: string; changed: number } {
  let fast: string | undefined;
  try {
    fast = STRICT.decode(bytes);
  } catch {
    fast = undefined;
  }
  if (fast !== undefined && !CANDIDATE.test(fast)) return { text: fast, changed: 0 };
  return renderCodePoints(decodeUtf8(bytes));
}

const LF = 0x0a;
const CR = 0x0d;
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const BOM = 0xfeff;
const VS15 = 0xfe0e;
const VS16 = 0xfe0f;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const EMOJI = /\p{Emoji}/u;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const HAN_IDEOGRAPH = /[\p{Unified_Ideograph}\uF900-\uFAFF\u{2F800}-\u{2FA1F}]/u;

// The three emoji tag sequences Unicode recommends: 🏴 + gbeng / gbsct / gbwls + cancel tag.
const FLAG_TAGS = ["gbeng", "gbsct", "gbwls"].map((t) => [...t].map((c) => 0xe0000 + c.charCodeAt(0)));

/** The class of a code point on the refused list, or undefined. */
function classOf(cp: number): string | undefined {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return cp === 0x09 || cp === LF ? undefined : "control character";
  if (cp < 0x61c) return undefined;
  const mark = cp === 0x061c || cp === 0x200e || cp === 0x200f;
  if (mark || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return "bidi control";
  if (cp === 0x2028 || cp === 0x2029) return "line or paragraph separator";
  if (cp >= 0xe0000 && cp <= 0xe007f) return "tag character";
  const zeroWidth = cp === 0x200b || cp === ZWNJ || cp === ZWJ || (cp >= 0x2060 && cp <= 0x2064) || cp === 0x180e;
  if (zeroWidth || cp === BOM) return "zero-width character";
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) return "variation selector";
  if (cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0) return "Hangul filler";
  return undefined;
}

const matches = (re: RegExp, cp: number | undefined): boolean =>
  cp !== undefined && cp >= 0 && re.test(String.fromCodePoint(cp));
const isEmoji = (cp: number | undefined): boolean => cp !== undefined && cp >= 0xa9 && matches(PICTOGRAPHIC, cp);

/** Skin-tone modifiers sit between an emoji and its joiner (👩🏽‍💻). */
function isEmojiModifier(cp: number): boolean {
  return cp >= 0x1f3fb && cp <= 0x1f3ff;
}

/** The `gap.length` base-36 ranges of unicode-tables.ts as a flat [start, end, …] array. */
function decodeRanges(encoded: string): Int32Array {
  const parts = encoded === "" ? [] : encoded.split(",");
  const out = new Int32Array(parts.length * 2);
  let prev = -1;
  parts.forEach((part, k) => {
    const [gap, len = "0"] = part.split(".");
    const start = prev + 1 + parseInt(gap!, 36);
    prev = start + parseInt(len, 36);
    out[2 * k] = start;
    out[2 * k + 1] = prev;
  });
  return out;
}

function inRanges(ranges: Int32Array, cp: number): boolean {
  const k = partitionPoint(ranges.length / 2, (i) => ranges[2 * i]! <= cp) - 1;
  return k >= 0 && cp <= ranges[2 * k + 1]!;
}

// Decoded on first use: most texts never hold a selector or a bidi mark.
let rtlLetters: Int32Array | undefined;
let variantBases: Map<number, Int32Array> | undefined;

function isRtlLetter(cp: number): boolean {
  rtlLetters ??= decodeRanges(RTL_LETTERS);
  return cp >= 0x590 && inRanges(rtlLetters, cp);
}

function isStandardizedVariant(base: number, selector: number): boolean {
  variantBases ??= new Map(STANDARDIZED_VARIANT_BASES.map(([sel, enc]) => [sel, decodeRanges(enc)]));
  const bases = variantBases.get(selector);
  return bases !== undefined && inRanges(bases, base);
}

/** True when the tag character at `i` belongs to one of the three flag sequences. */
function inFlagSequence(cps: readonly number[], i: number): boolean {
  for (let k = Math.max(0, i - 6); k < i; k++) {
    if (cps[k] !== BLACK_FLAG || cps[k + 6] !== CANCEL_TAG) continue;
    if (FLAG_TAGS.some((tags) => tags.every((t, n) => cps[k + 1 + n] === t))) return true;
  }
  return false;
}

/** The line around `i` holds a right-to-left letter (LRM, RLM and ALM are allowed there). */
function lineHasRtl(cps: readonly number[], i: number): boolean {
  for (let j = i - 1; j >= 0 && cps[j] !== LF; j--) if (isRtlLetter(cps[j]!)) return true;
  for (let j = i + 1; j < cps.length && cps[j] !== LF; j++) if (isRtlLetter(cps[j]!)) return true;
  return false;
}

/**
 * The class of the code point at `i` when it is refused in its context. Allowed: U+FEFF first;
 * CR before LF; ZWNJ/ZWJ between letters or marks, ZWJ between emoji; LRM, RLM, ALM on a line
 * with a right-to-left letter; tags inside the three flags; U+FE0E/U+FE0F after an emoji, other
 * selectors after a base StandardizedVariants.txt pairs them with, U+E0100+ after an ideograph.
 */
function forbiddenAt(cps: readonly number[], i: number): string | undefined {
  const cp = cps[i]!;
  const name = classOf(cp);
  if (name === undefined) return undefined;
  const prev = cps[i - 1];
  const next = cps[i + 1];
  switch (true) {
    case cp === CR:
      return next === LF ? undefined : name;
    case cp === BOM:
      return i === 0 ? undefined : name;
    case cp === ZWNJ || cp === ZWJ:
      if (matches(LETTER_OR_MARK, prev) && matches(LETTER_OR_MARK, next)) return undefined;
      if (cp === ZWJ) {
        let j = i - 1;
        while (j >= 0 && (cps[j] === VS16 || isEmojiModifier(cps[j]!))) j--;
        if (j >= 0 && isEmoji(cps[j]) && isEmoji(next)) return undefined;
      }
      return name;
    case cp === 0x200e || cp === 0x200f || cp === 0x061c:
      return lineHasRtl(cps, i) ? undefined : name;
    case cp >= 0xe0000 && cp <= 0xe007f:
      return inFlagSequence(cps, i) ? undefined : name;
    case cp >= 0xfe00 && cp <= 0xfe0f:
      if (prev === undefined || prev < 0) return name;
      if ((cp === VS15 || cp === VS16) && matches(EMOJI, prev)) return undefined;
      return isStandardizedVariant(prev, cp) ? undefined : name;
    case cp >= 0xe0100 && cp <= 0xe01ef:
      return matches(HAN_IDEOGRAPH, prev) ? undefined : name;
    default:
      return name;
  }
}

function hex(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

function findRefused(text: string): InvisibleHit[] {
  const cps: number[] = [];
  for (const ch of text) cps.push(ch.codePointAt(0)!);
  const hits: InvisibleHit[] = [];
  let line = 1;
  let column = 1;
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    const name = forbiddenAt(cps, i);
    if (name !== undefined) hits.push({ line, column, codePoint: hex(cp), name });
    if (cp === LF) {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return hits;
}

function refusedIndexesIn(text: string): Set<number> {
  const out = new Set<number>();
  const cps = [0x20];
  for (const ch of text) cps.push(ch.codePointAt(0)!);
  for (let i = 1; i < cps.length; i++) if (forbiddenAt(cps, i) !== undefined) out.add(i - 1);
  return out;
}

/** Strict UTF-8 (WHATWG) to code points; each byte not beginning a valid sequence becomes `-(byte + 1)`. */
export function decodeUtf8(bytes: Uint8Array): number[] {
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

/** Code points written out, refused ones as `<U+XXXX>` and invalid bytes (negative) as `<0xNN>`. */
function renderCodePoints(cps: readonly number[]): { text: string; changed: number } {
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
