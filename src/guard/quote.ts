/**
 * The marking steps of the one quoting rule for file-controlled values in human output
 * (docs/design.md#verdicts-and-the-brief), without redaction or cutting: small, so the hot part (the
 * hook, `check`, refusals in cli.ts) uses it without the sanitiser's segmenter code.
 * guard/sanitize.ts runs the same {@link markText} after redaction and before its cut, so
 * `quotedValue(x)` and `quoted(x, { redact: false })` print the same. Pure.
 */
import { showRefused } from "./invisible.ts";

// Line breaks (CRLF is LF by then) and tabs: folded in one-line fields. A lone CR and the
// rarer breaks (VT, FF, NEL, U+2028, U+2029) are shown as <U+XXXX> like every other control
// (docs/design.md#redaction): a file has no honest use for them, and a lone CR can hide text on a terminal.
const BREAKS = /[\t\n]+/g;

/**
 * CRLF as LF; with `oneLine`, LF and TAB runs folded to one space and the ends trimmed (spaces
 * only: U+FEFF and U+2029 must stay to be shown); then every code point `write` refuses as
 * `<U+XXXX>`, a leading U+FEFF too.
 */
export function markText(text: string, oneLine = true): string {
  let out = text.replace(/\r\n/g, "\n");
  if (oneLine) out = out.replace(BREAKS, " ").replace(/ {2,}/g, " ").replace(/^ | $/g, "");
  out = showRefused(out).text;
  // A BOM passes `write` only as a file's first character; here it would be invisible.
  return out.startsWith("\uFEFF") ? `<U+FEFF>${out.slice(1)}` : out;
}

/**
 * `text` (already marked) in double quotes, `"` and `\` written `\"` and `\\`: it can neither close its quotation nor
 * pose as a line or a label of its own.
 */
export function inQuotes(marked: string): string {
  return `"${marked.replace(/["\\]/g, "\\$&")}"`;
}

/**
 * A file-controlled value (or an argument echoed in a refusal) in human output, unredacted:
 * one line, `<U+XXXX>` for what `write` refuses, in double quotes. The same as
 * `quoted(text, { redact: false })` of guard/sanitize.ts. File names use `quotedPath`
 * (schema/anchor-lines.ts; docs/design.md#redaction). Pure.
 */
export function quotedValue(text: string): string {
  return inQuotes(markText(text));
}

/**
 * `text` as one word for a POSIX shell, for a command the user pastes: as is when it holds only
 * characters no shell reads specially, else in single quotes (`'` written `'\''`). Null when it
 * holds a control character or a code point `write` refuses: a pasted command must show what it
 * runs, so the caller says so instead of printing one (docs/design.md#verdicts-and-the-brief). Pure.
 */
export function shellWord(text: string): string | null {
  if (markText(text, false) !== text || /[\n\t]/.test(text)) return null;
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, "'\\''")}'`;
}
