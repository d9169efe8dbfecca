/** The quoting rule's marking steps and the token-shape test, without redaction: small enough for the hook. */
import { refusedIndexes, showRefused } from "./invisible.ts";

// Tabs and LF fold in one-line fields; a lone CR and rarer breaks are shown as <U+XXXX>: they can hide text.
const BREAKS = /[\t\n]+/g;

/** CRLF as LF; with `oneLine`, breaks and tabs folded to one space; then refused code points as `<U+XXXX>`. */
export function markText(text: string, oneLine = true): string {
  let out = text.replace(/\r\n/g, "\n");
  if (oneLine) out = out.replace(BREAKS, " ").replace(/ {2,}/g, " ").replace(/^ | $/g, "");
  out = showRefused(out).text;
  // A BOM passes `write` only as a file's first character; here it would be invisible.
  return out.startsWith("\uFEFF") ? `<U+FEFF>${out.slice(1)}` : out;
}

/** Marked text in double quotes, `"` and `\` escaped: it cannot close its quotation nor pose as a line. */
export function inQuotes(marked: string): string {
  return `"${marked.replace(/["\\]/g, "\\$&")}"`;
}

/** A file-controlled value in human output, unredacted: `quoted(text, { redact: false })` of sanitize.ts. */
export function quotedValue(text: string): string {
  return inQuotes(markText(text));
}

/** `text` as one POSIX shell word, or null when it holds a control or refused code point: show what runs. */
export function shellWord(text: string): string | null {
  if (markText(text, false) !== text || /[\n\t]/.test(text)) return null;
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** Every vendor token shape has a run of 16+ letters, digits and underscores mixing letters and digits. */
export function mayHoldToken(text: string): boolean {
  for (const m of text.matchAll(/[A-Za-z0-9_]{16,}/g)) if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) return true;
  return false;
}

// Beyond git's rule, a path that would read as an anchor list's words (`none`, `…`, ` @ `) is quoted.
const NEEDS_QUOTES = /[,"\\\x00-\x1f\x7f]|^\s|\s$|^\u2026| @ /;
const ESCAPES: Record<string, string> = {
  "\x07": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\",
};

/** A path as is, or C-quoted like git's when needed, so `write` accepts and `drift` reads what `anchors` prints. */
export function quotePath(p: string): string {
  const refused = refusedIndexes(p);
  if (!NEEDS_QUOTES.test(p) && p !== "none" && refused.size === 0) return p;
  let out = '"';
  let k = 0;
  for (const ch of p) {
    const code = ch.codePointAt(0)!;
    if (ESCAPES[ch] !== undefined) out += ESCAPES[ch];
    else if (code < 0x20 || code === 0x7f || refused.has(k)) {
      for (const byte of Buffer.from(ch, "utf8")) out += `\\${byte.toString(8).padStart(3, "0")}`;
    } else out += ch;
    k++;
  }
  return `${out}"`;
}

/** A path in human output: always in double quotes, so a file name never poses as words of the sentence. */
export function quotedPath(p: string): string {
  const q = quotePath(p);
  return q.startsWith('"') ? q : `"${q}"`;
}
