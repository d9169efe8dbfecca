/** The one verdict on a memory file's bytes: unsafe (a NUL), shown (`<0xNN>` / `<U+XXXX>`, warned), or clean. */
import { isUtf8 } from "node:buffer";
import { Refused } from "../errors.ts";
import { decodeUtf8, renderCodePoints, renderVisible } from "./invisible.ts";

export function firstNul(bytes: Uint8Array): number {
  return bytes.indexOf(0);
}

/** The refusal every verb gives a memory file holding a NUL byte at byte `at` (exit 2). */
export function unsafeBytes(file: string, at: number): Refused {
  return new Refused(
    `${file} holds a NUL byte (at byte ${at}): it is unsafe and was not loaded; tell the user ` +
      "(another program wrote it: remove the byte or move the file away, then check again)",
  );
}

/** The stderr sentence for a file loaded with `n` bytes or characters shown as `<0xNN>` / `<U+XXXX>`. */
export function shownWarning(file: string, n: number): string {
  const what = `${n} invisible or control character(s) or invalid UTF-8 byte(s) that write would refuse`;
  return `warning: ${file} holds ${what}, shown as <U+XXXX> / <0xNN>; the token covers the bytes on disk`;
}

/** An invalid UTF-8 byte: 1-based line, column in code points, and the byte. */
export interface InvalidByte {
  line: number;
  column: number;
  byte: number;
}

interface MemoryText {
  /** Each invalid byte `<0xNN>` (never U+FFFD); refused code points kept for the printers. */
  text: string;
  invalid: InvalidByte[];
  /** The warning to print when `read` would show code points or bytes as `<U+XXXX>` / `<0xNN>`. */
  warning: string | null;
}

/** Decodes a memory file's bytes; throws Refused (exit 2) when they hold a NUL. */
export function memoryText(file: string, bytes: Uint8Array): MemoryText {
  const nul = firstNul(bytes);
  if (nul >= 0) throw unsafeBytes(file, nul);
  const shown = renderVisible(bytes).changed;
  const warning = shown > 0 ? shownWarning(file, shown) : null;
  if (isUtf8(bytes)) return { text: Buffer.from(bytes).toString("utf8"), invalid: [], warning };
  // Invalid UTF-8 is rare: walk the code points only then.
  const cps = decodeUtf8(bytes);
  const invalid: InvalidByte[] = [];
  let line = 1;
  let lineStart = 0;
  cps.forEach((cp, i) => {
    if (cp < 0) invalid.push({ line, column: i - lineStart + 1, byte: -cp - 1 });
    if (cp === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  });
  return { text: renderCodePoints(cps, true).text, invalid, warning };
}
