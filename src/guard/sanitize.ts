/**
 * The one sanitiser for file text that the helper prints outside the untrusted envelope
 * (docs/design.md#verdicts-and-the-brief): `write`'s note on dropped open items, `brief`'s fields, `drift`'s branch
 * names and summary, later archive listings. A planted or hand-edited file must not reach a terminal or an agent's
 * context with its secrets, ANSI/OSC escapes, bidi overrides or tag characters intact, nor with a surrogate pair cut
 * in half. Pure.
 *
 * In order: redaction (skipped for branch names and paths; docs/design.md#redaction), then LF (CRLF included) and TAB
 * folded to spaces (one-line fields), then every control and every code point `write` would refuse shown as
 * `<U+XXXX>` (the same rule as `read`, guard/invisible.ts), then a cut on grapheme-cluster boundaries
 * (Intl.Segmenter), where a `<U+XXXX>` or `<redacted: KIND>` marker counts as one unit and is never split. Paths are
 * not prose: they are quoted with octal escapes (schema/anchor-lines.ts `quotePath`; docs/design.md#redaction).
 */
import { showRefused } from "./invisible.ts";
import { redactText } from "./redact.ts";
import { inQuotes, markText } from "./quote.ts";

/** How {@link sanitize} shapes a text. */
export interface SanitizeOptions {
  /** Longest result, in grapheme clusters (a marker counts as one), `…` included; no cut when absent. */
  max?: number;
  /** Fold line breaks, tabs and runs of whitespace into one space and trim (default true). */
  oneLine?: boolean;
  /** Redact secrets first (default true); false for branch names and paths (docs/design.md#redaction). */
  redact?: boolean;
}

const MARKER = /<U\+[0-9A-F]{4,6}>|<redacted: [a-z0-9-]+>|<0x[0-9A-F]{2}>/g;

let segmenter: Intl.Segmenter | undefined;

// Printable ASCII and LF: every code point is a grapheme cluster of its own (UAX #29 gives
// none of them a joining property), so no segmenter is needed -- its first use costs ~8 ms
// (ICU's break rules load), which `checkpoint` paid for every long item it cut.
const SIMPLE = /^[\n\x20-\x7e]*$/;

/** The text's first `limit + 1` units at most (to know whether it is longer): markers and grapheme clusters whole. */
function units(text: string, limit: number): string[] {
  const simple = SIMPLE.test(text);
  if (!simple) segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const out: string[] = [];
  let at = 0;
  const rest = (end: number): void => {
    const piece = text.slice(at, end);
    if (simple) {
      for (let i = 0; i < piece.length && out.length <= limit; i++) out.push(piece[i]!);
      return;
    }
    for (const s of segmenter!.segment(piece)) {
      if (out.length > limit) return;
      out.push(s.segment);
    }
  };
  for (const m of text.matchAll(MARKER)) {
    rest(m.index);
    if (out.length > limit) return out;
    out.push(m[0]);
    at = m.index + m[0].length;
  }
  rest(text.length);
  return out;
}

/**
 * Makes file text safe to print outside the envelope (see the module comment). Pure.
 * @returns the text redacted, folded (one-line), with refused code points as `<U+XXXX>`, and
 * cut to `max` grapheme clusters ending with `…` when it was longer.
 */
export function sanitize(text: string, opts: SanitizeOptions = {}): string {
  const out = markText(opts.redact === false ? text : redactText(text).text, opts.oneLine !== false);
  const max = opts.max;
  // Fewer code points than the limit: fewer units too, nothing to cut (no segmenter needed).
  if (max === undefined || out.length <= max || [...out].length <= max) return out;
  const all = units(out, max);
  if (all.length <= max) return out;
  // Once more after the cut: a joiner or mark whose letter or RTL context was cut away would
  // otherwise stand refused next to the `…` (a checkpoint saved so would be refused by write).
  return showRefused(`${all.slice(0, Math.max(0, max - 1)).join("").trimEnd()}…`).text;
}

/**
 * A file-controlled value (handoff text, a commit author, a branch name) in human output,
 * marked as data (docs/design.md#verdicts-and-the-brief): {@link sanitize}d with `opts` (redacted unless
 * `redact: false`, one line, `<U+XXXX>` for what `write` refuses), then in double quotes with
 * `"` and `\` written `\"` and `\\`, so it can neither close its quotation nor pose as a line or
 * a label of its own. File names use `quotedPath` (schema/anchor-lines.ts). Pure.
 */
export function quoted(text: string, opts: SanitizeOptions = {}): string {
  return inQuotes(sanitize(text, opts));
}
