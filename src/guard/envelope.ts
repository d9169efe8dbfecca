import { randomBytes } from "node:crypto";
import { shownWarning } from "./file-verdict.ts";
import { renderVisible } from "./invisible.ts";

/**
 * Wraps file bytes in the untrusted envelope (docs/design.md#tokens-and-the-publication-protocol):
 * `CURRENT-SHA256: <token>`, `<<<BEGIN UNTRUSTED <FILE> <nonce>>>`, the bytes (a newline
 * added when a non-empty file lacks one), `<<<END UNTRUSTED <FILE> <nonce>>>`. The nonce is
 * 16 fresh hex characters that the content does not contain, so the file cannot forge the
 * END line. Invisible characters and invalid UTF-8 are shown visibly (docs/design.md#redaction); the
 * token still covers the exact bytes on disk.
 * @returns the output bytes and a warning for stderr when anything was made visible.
 */
export function renderEnvelope(file: string, token: string, bytes: Uint8Array): { out: Buffer; warning: string | null } {
  const shown = renderVisible(bytes);
  const body = shown.changed > 0 ? Buffer.from(shown.text, "utf8") : Buffer.from(bytes);
  let nonce: string;
  do {
    nonce = randomBytes(8).toString("hex");
  } while (body.includes(nonce));
  const parts = [Buffer.from(`CURRENT-SHA256: ${token}\n<<<BEGIN UNTRUSTED ${file} ${nonce}>>>\n`), body];
  if (body.length > 0 && body[body.length - 1] !== 0x0a) parts.push(Buffer.from("\n"));
  parts.push(Buffer.from(`<<<END UNTRUSTED ${file} ${nonce}>>>\n`));
  const warning =
    shown.changed > 0
      ? shownWarning(file, shown.changed)
      : null;
  return { out: Buffer.concat(parts), warning };
}

/**
 * Wraps helper-drafted text that carries file-controlled values (the brief) in BEGIN/END lines
 * as {@link renderEnvelope} does, without a `CURRENT-SHA256:` line: the text is not a file
 * on disk, so there is no token to hand back (docs/decisions/brief-envelope.md).
 * @param file the FILE word of the markers, e.g. `BRIEF`.
 * @param text the lines to wrap; a newline is added when it lacks one.
 * @returns `<<<BEGIN UNTRUSTED <FILE> <nonce>>>\n<text>\n<<<END UNTRUSTED <FILE> <nonce>>>\n`,
 *   the nonce 16 fresh hex characters the text does not contain.
 */
export function envelopeText(file: string, text: string): string {
  let nonce: string;
  do {
    nonce = randomBytes(8).toString("hex");
  } while (text.includes(nonce));
  const body = text.length > 0 && !text.endsWith("\n") ? `${text}\n` : text;
  return `<<<BEGIN UNTRUSTED ${file} ${nonce}>>>\n${body}<<<END UNTRUSTED ${file} ${nonce}>>>\n`;
}
