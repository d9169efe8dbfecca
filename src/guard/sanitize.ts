/** The one sanitiser for file text printed outside the envelope: redacted, marked, cut on grapheme clusters. */
import { showRefused } from "./invisible.ts";
import { redactText } from "./redact.ts";
import { inQuotes, markText } from "./quote.ts";

/** `max`: longest result in grapheme clusters (a marker is one), `…` included; `redact` defaults to true. */
interface SanitizeOptions {
  max?: number;
  redact?: boolean;
}

const MARKER = /<U\+[0-9A-F]{4,6}>|<redacted: [a-z0-9-]+>|<0x[0-9A-F]{2}>/g;

let segmenter: Intl.Segmenter | undefined;

// Printable ASCII and LF are one cluster each: no segmenter, whose first use costs ~8 ms.
const SIMPLE = /^[\n\x20-\x7e]*$/;

/** The text's first `limit + 1` units at most: markers and grapheme clusters whole. */
function units(text: string, limit: number): string[] {
  const simple = SIMPLE.test(text);
  if (!simple) segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const out: string[] = [];
  let at = 0;
  const rest = (end: number): void => {
    const piece = text.slice(at, end);
    for (const c of simple ? piece : segmenter!.segment(piece)) {
      if (out.length > limit) return;
      out.push(typeof c === "string" ? c : c.segment);
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

/** File text made safe to print outside the envelope, cut to `max` clusters ending with `…`. */
export function sanitize(text: string, opts: SanitizeOptions = {}): string {
  const out = markText(opts.redact === false ? text : redactText(text).text);
  const max = opts.max;
  // Fewer code points than the limit: fewer units too, nothing to cut (no segmenter needed).
  if (max === undefined || out.length <= max || [...out].length <= max) return out;
  const all = units(out, max);
  if (all.length <= max) return out;
  // Once more after the cut: a joiner whose letter was cut away would stand refused next to the `…`.
  return showRefused(`${all.slice(0, Math.max(0, max - 1)).join("").trimEnd()}…`).text;
}

/** A file-controlled value in human output: {@link sanitize}d, in double quotes with `"` and `\` escaped. */
export function quoted(text: string, opts: SanitizeOptions = {}): string {
  return inQuotes(sanitize(text, opts));
}
