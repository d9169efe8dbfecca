import { Refused } from "../errors.ts";
import { findInvisible } from "../guard/invisible.ts";
import { formatRedactionReport, redactText } from "../guard/redact.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes text from stdin for saving: refuses empty input, NUL bytes and invalid UTF-8,
 * drops a leading BOM and turns CRLF into LF (saying so), and refuses invisible and control
 * characters out of their allowed context (docs/design.md#redaction, docs/design.md#files-on-disk).
 * @throws Refused (exit 2) with the reason and what to do.
 */
export function decodeInput(raw: Buffer, what: string): { text: string; notes: string[] } {
  if (raw.length === 0) throw new Refused(`stdin is empty: send the whole ${what} on stdin`);
  const nul = raw.indexOf(0);
  if (nul >= 0) throw new Refused(`the ${what} contains a NUL byte (at byte ${nul}); send text only`);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new Refused(`the ${what} is not valid UTF-8; convert it to UTF-8 and retry`);
  }
  const notes: string[] = [];
  if (text.startsWith("\uFEFF")) {
    text = text.slice(1);
    notes.push("note: dropped a leading UTF-8 byte order mark");
  }
  if (text.includes("\r\n")) {
    text = text.replace(/\r\n/g, "\n");
    notes.push("note: converted CRLF line ends to LF");
  }
  const hits = findInvisible(text);
  if (hits.length > 0) {
    const list = hits
      .slice(0, 5)
      .map((h) => `line ${h.line}, column ${h.column}: ${h.codePoint} (${h.name})`)
      .join("; ");
    const more = hits.length > 5 ? `; ${hits.length - 5} more` : "";
    throw new Refused(`the ${what} contains invisible or control characters (${list}${more}); remove them and retry`);
  }
  return { text, notes };
}

/**
 * Redacts secrets from `text` (docs/design.md#redaction), returning the text and the stderr report.
 * `exemptLines` (1-based) are left untouched (anchor lines; docs/design.md#redaction).
 */
export function redactForSave(text: string, exemptLines?: ReadonlySet<number>): { text: string; notes: string[] } {
  const { text: clean, findings } = redactText(text, exemptLines ? { exemptLines } : {});
  return { text: clean, notes: findings.length > 0 ? [formatRedactionReport(findings)] : [] };
}

