import { Refused } from "../errors.ts";
import { findInvisible } from "../guard/invisible.ts";
import { formatRedactionReport, redactText } from "../guard/redaction.cold.ts";
import { HEADING_OF, MARKER, MAX_DOCUMENT_BYTES, type Kind } from "./paths.ts";

/** A text ready to be saved, with the notes for stderr. */
export interface Prepared {
  bytes: Buffer;
  /** Lines for stderr: normalisation and redaction reports (never a secret's value). */
  notes: string[];
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes text from stdin for saving: refuses empty input, NUL bytes and invalid UTF-8,
 * drops a leading BOM and turns CRLF into LF (saying so), and refuses invisible and control
 * characters out of their allowed context (contract §1, §4; rulings 5, 7).
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
    throw new Refused(`the ${what} contains invisible or control characters (${list}${hits.length > 5 ? `; ${hits.length - 5} more` : ""}); remove them and retry`);
  }
  return { text, notes };
}

/**
 * Redacts secrets from `text` (contract §4), returning the text and the stderr report.
 * `exemptLines` (1-based) are left untouched (ruling 6: anchor lines).
 */
export function redactForSave(text: string, exemptLines?: ReadonlySet<number>): { text: string; notes: string[] } {
  const { text: clean, findings } = redactText(text, exemptLines ? { exemptLines } : {});
  return { text: clean, notes: findings.length > 0 ? [formatRedactionReport(findings)] : [] };
}

/**
 * Prepares a memory document for `write`: decode and normalise, check the §1 shape (marker
 * line, the kind's heading in the first four lines, a final newline, at most 1,000,000
 * bytes), then redact. Never checks the §8 schema (that is `validate`'s).
 * @throws Refused (exit 2) naming what is wrong; nothing has touched the disk yet.
 */
export function prepareDocument(raw: Buffer, kind: Kind): Prepared {
  if (raw.length > MAX_DOCUMENT_BYTES + 4096) {
    throw new Refused(`the document is ${raw.length} bytes; memory documents are at most ${MAX_DOCUMENT_BYTES} bytes`);
  }
  const decoded = decodeInput(raw, "document");
  const lines = decoded.text.split("\n");
  if (lines[0] !== MARKER) {
    throw new Refused(`the document must begin with the line ${MARKER}; start from templates/handoff.md`);
  }
  const heading = HEADING_OF[kind];
  if (!lines.slice(0, 4).includes(heading)) {
    throw new Refused(`the document must have the heading "${heading}" in its first four lines`);
  }
  if (!decoded.text.endsWith("\n")) {
    throw new Refused("the document must end with a newline");
  }
  const redacted = redactForSave(decoded.text);
  const bytes = Buffer.from(redacted.text, "utf8");
  if (bytes.length > MAX_DOCUMENT_BYTES) {
    // The size the user sent comes first (issue 10): the redacted text is the helper's, not theirs.
    const after = bytes.length === raw.length ? "" : ` (${bytes.length} after redaction)`;
    throw new Refused(`the document is ${raw.length} bytes${after}; memory documents are at most ${MAX_DOCUMENT_BYTES} bytes (shorten it)`);
  }
  return { bytes, notes: [...decoded.notes, ...redacted.notes] };
}
