import { nodeCrypto } from "../builtins.ts";
import { shownWarning } from "./file-verdict.ts";
import { renderVisible } from "./invisible.ts";

type Enveloped = { out: Buffer; warning: string | null };

/** 16 fresh hex characters that `holds` says the content does not contain: the content cannot forge the END line. */
function nonceFor(holds: (nonce: string) => boolean): string {
  let nonce: string;
  do {
    nonce = nodeCrypto().randomBytes(8).toString("hex");
  } while (holds(nonce));
  return nonce;
}

/** File bytes in the envelope after `CURRENT-SHA256: <token>`, refused code points and bad bytes shown, warned. */
export function renderEnvelope(file: string, token: string, bytes: Uint8Array): Enveloped {
  const shown = renderVisible(bytes);
  const body = shown.changed > 0 ? Buffer.from(shown.text, "utf8") : Buffer.from(bytes);
  const nonce = nonceFor((n) => body.includes(n));
  const parts = [Buffer.from(`CURRENT-SHA256: ${token}\n<<<BEGIN UNTRUSTED ${file} ${nonce}>>>\n`), body];
  if (body.length > 0 && body[body.length - 1] !== 0x0a) parts.push(Buffer.from("\n"));
  parts.push(Buffer.from(`<<<END UNTRUSTED ${file} ${nonce}>>>\n`));
  return { out: Buffer.concat(parts), warning: shown.changed > 0 ? shownWarning(file, shown.changed) : null };
}

/** Helper-drafted text carrying file-controlled values (the brief) between BEGIN/END lines, with no token line. */
export function envelopeText(file: string, text: string): string {
  const nonce = nonceFor((n) => text.includes(n));
  const body = text.length > 0 && !text.endsWith("\n") ? `${text}\n` : text;
  return `<<<BEGIN UNTRUSTED ${file} ${nonce}>>>\n${body}<<<END UNTRUSTED ${file} ${nonce}>>>\n`;
}
