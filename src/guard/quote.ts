/** The quoting rule's marking steps and the token-shape test, without redaction: small enough for the hook. */
import { showRefused } from "./invisible.ts";

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
