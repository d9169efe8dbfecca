/** Code points that hide or reorder text for a human while a model reads them, and controls; living scripts pass. */
import { isUtf8 } from "node:buffer";
import { RTL_LETTER, STANDARDIZED_VARIANT_BASES } from "./unicode-tables.ts";

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

function codePoints(text: string): number[] {
  const cps: number[] = [];
  for (const ch of text) cps.push(ch.codePointAt(0)!);
  return cps;
}

export function findInvisible(text: string): InvisibleHit[] {
  if (!CANDIDATE.test(text)) return [];
  const cps = codePoints(text);
  const hits: InvisibleHit[] = [];
  let line = 1;
  let lineStart = 0;
  cps.forEach((cp, i) => {
    const name = forbiddenAt(cps, i);
    if (name !== undefined) hits.push({ line, column: i - lineStart + 1, codePoint: hex(cp), name });
    if (cp === LF) {
      line++;
      lineStart = i + 1;
    }
  });
  return hits;
}

/** The refused code point indexes of `text` as if it sat after a space (a path on an anchor line). */
export function refusedIndexes(text: string): Set<number> {
  const out = new Set<number>();
  if (!CANDIDATE.test(text)) return out;
  const cps = [0x20, ...codePoints(text)];
  for (let i = 1; i < cps.length; i++) if (forbiddenAt(cps, i) !== undefined) out.add(i - 1);
  return out;
}

/** `text` with each refused code point written `<U+XXXX>`; `changed` counts them. */
export function showRefused(text: string): { text: string; changed: number } {
  return CANDIDATE.test(text) ? renderCodePoints(codePoints(text)) : { text, changed: 0 };
}

/** File bytes for display: refused code points as `<U+XXXX>`, invalid UTF-8 bytes as `<0xNN>`. */
export function renderVisible(bytes: Uint8Array): { text: string; changed: number } {
  return isUtf8(bytes) ? showRefused(Buffer.from(bytes).toString("utf8")) : renderCodePoints(decodeUtf8(bytes));
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
const isEmojiModifier = (cp: number): boolean => cp >= 0x1f3fb && cp <= 0x1f3ff;

const isRtlLetter = (cp: number): boolean => cp >= 0x590 && matches(RTL_LETTER, cp);

function isStandardizedVariant(base: number, selector: number): boolean {
  const bases = STANDARDIZED_VARIANT_BASES.get(selector);
  return bases !== undefined && matches(bases, base);
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

/** The class of the code point at `i` when it is refused in its context (docs/design.md#invisible-characters). */
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

/** Unicode's well-formed UTF-8 byte sequences, over bytes read as latin1: a run of them, or one invalid byte. */
const UTF8_RUN = new RegExp(
  "(?:[\\x00-\\x7f]|[\\xc2-\\xdf][\\x80-\\xbf]|\\xe0[\\xa0-\\xbf][\\x80-\\xbf]" +
    "|[\\xe1-\\xec\\xee\\xef][\\x80-\\xbf]{2}|\\xed[\\x80-\\x9f][\\x80-\\xbf]|\\xf0[\\x90-\\xbf][\\x80-\\xbf]{2}" +
    "|[\\xf1-\\xf3][\\x80-\\xbf]{3}|\\xf4[\\x80-\\x8f][\\x80-\\xbf]{2}){1,4096}|(?<bad>[^])",
  "g",
);

/** Strict UTF-8 to code points; each byte not beginning a valid sequence becomes `-(byte + 1)`. */
export function decodeUtf8(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (const m of Buffer.from(bytes).toString("latin1").matchAll(UTF8_RUN)) {
    if (m.groups!["bad"] !== undefined) out.push(-(m[0].charCodeAt(0) + 1));
    else for (const ch of Buffer.from(m[0], "latin1").toString("utf8")) out.push(ch.codePointAt(0)!);
  }
  return out;
}

export function byteMarker(byte: number): string {
  return `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`;
}

/** Code points written out, invalid bytes (negative) as `<0xNN>`, refused ones as `<U+XXXX>` unless `keep`. */
export function renderCodePoints(cps: readonly number[], keep = false): { text: string; changed: number } {
  const parts: string[] = [];
  let changed = 0;
  let from = 0;
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    const shown = cp < 0 ? byteMarker(-cp - 1) : !keep && forbiddenAt(cps, i) !== undefined ? `<${hex(cp)}>` : null;
    // Long runs go out in slices: String.fromCodePoint takes its input as arguments.
    if (shown === null && i - from < 8192) continue;
    parts.push(String.fromCodePoint(...cps.slice(from, i)));
    from = i;
    if (shown === null) continue;
    parts.push(shown);
    changed++;
    from = i + 1;
  }
  parts.push(String.fromCodePoint(...cps.slice(from)));
  return { text: parts.join(""), changed };
}
