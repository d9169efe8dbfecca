import { Refused } from "../errors.ts";
import { findInvisible } from "../guard/invisible.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes a document sent on stdin: refuses empty input, a NUL byte and invalid UTF-8. */
export function decodeStdin(raw: Buffer, what: string): string {
  if (raw.length === 0) throw new Refused(`stdin is empty: send the whole ${what} on stdin`);
  const nul = raw.indexOf(0);
  if (nul >= 0) throw new Refused(`the ${what} contains a NUL byte (at byte ${nul}); send text only`);
  try {
    return utf8.decode(raw);
  } catch {
    throw new Refused(`the ${what} is not valid UTF-8; convert it to UTF-8 and retry`);
  }
}

/** `decodeStdin`, then refuses invisible characters; drops a leading BOM and turns CRLF into LF, saying so. */
export function decodeInput(raw: Buffer, what: string): { text: string; notes: string[] } {
  let text = decodeStdin(raw, what);
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
    const list = hits.slice(0, 5).map((h) => `line ${h.line}, column ${h.column}: ${h.codePoint} (${h.name})`);
    if (hits.length > 5) list.push(`${hits.length - 5} more`);
    const found = `invisible or control characters (${list.join("; ")})`;
    throw new Refused(`the ${what} contains ${found}; remove them and retry`);
  }
  return { text, notes };
}
