/**
 * The invisible-character guard (docs/design.md#redaction): code points that can hide or
 * reorder text for a human reviewer while a model still reads them (field report #11), and
 * controls; living scripts pass (field report #26: Persian ZWNJ, Indic and Sinhala ZWJ,
 * Hebrew and Arabic marks, the flags of England, Scotland and Wales). `write` and `promote`
 * refuse a text holding one ({@link findInvisible}); `read` shows them ({@link renderVisible});
 * text printed outside the envelope shows them too ({@link showRefused}). Pure: no IO. The
 * Unicode tables are generated from the UCD by tools/unicode-tables.mjs.
 */
import { findRefused, refusedIndexesIn, renderBytes, renderCodePoints } from "./invisible-rules.ts";

/** A refused character found in a text (docs/design.md#redaction). Line and column are 1-based. */
export interface InvisibleHit {
  line: number;
  /** 1-based, counted in Unicode code points from the start of the line. */
  column: number;
  /** e.g. "U+200B" */
  codePoint: string;
  /**
   * Its class: `bidi control`, `tag character`, `zero-width character`, `variation selector`,
   * `Hangul filler`, `control character`, `line or paragraph separator`.
   */
  name: string;
}

// One pass finds every candidate; most texts hold none and stop here. (TAB and LF are fine;
// CR is a candidate because only a CR before LF is.)
const CANDIDATE =
  /[\x00-\x08\x0B-\x1F\x7F-\x9F\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2028\u2029\u2060-\u2064\u2066-\u2069\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/u;
/**
 * Lists the refused characters of `text` (docs/design.md#redaction: invisible characters
 * out of their allowed context, and controls), in order; pure. `write` and `promote` call it
 * after CRLF normalisation, so a CR found then is a lone one. Line and column are 1-based,
 * the column counted in code points. The rules themselves (invisible-rules.ts) run only
 * when a candidate code point is there.
 */
export function findInvisible(text: string): InvisibleHit[] {
  return CANDIDATE.test(text) ? findRefused(text) : [];
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
 * The code point indexes (0-based) of `text` that {@link findInvisible} would refuse there,
 * as if `text` sat after a space on a line of its own text (a path on an anchor line): so a
 * leading U+FEFF, joiner or selector counts as refused. For `quotePath` (docs/design.md#redaction). Pure.
 */
export function refusedIndexes(text: string): Set<number> {
  return CANDIDATE.test(text) ? refusedIndexesIn(text) : new Set();
}

/**
 * `text` with every refused code point (as {@link findInvisible} finds them) written as a
 * visible `<U+XXXX>`; `changed` counts them. For text printed outside the envelope
 * (guard/sanitize.ts). Pure.
 */
export function showRefused(text: string): { text: string; changed: number } {
  if (!CANDIDATE.test(text)) return { text, changed: 0 };
  return renderCodePoints(Array.from(text, (ch) => ch.codePointAt(0)!));
}

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Renders file bytes for display (`read`; docs/design.md#redaction): refused code points become
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
  return renderBytes(bytes);
}

