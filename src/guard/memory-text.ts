/** A memory file's bytes decoded by the one verdict: a NUL refuses, invalid UTF-8 reads as `<0xNN>`. */
import { isUtf8 } from "node:buffer";
import { firstNul, shownWarning, unsafeBytes } from "./file-verdict.ts";
import { decodeUtf8, renderCodePoints, renderVisible } from "./invisible.ts";

/** An invalid UTF-8 byte: 1-based line, column in code points, and the byte. */
export interface InvalidByte {
  line: number;
  column: number;
  byte: number;
}

interface MemoryText {
  /** Each invalid byte `<0xNN>` (never U+FFFD); refused code points kept for the printers. */
  text: string;
  /** How many code points and bytes `read` would show as `<U+XXXX>` / `<0xNN>`. */
  shown: number;
  invalid: InvalidByte[];
}

/** Decodes a memory file's bytes; throws Refused (exit 2) when they hold a NUL. */
export function memoryText(file: string, bytes: Uint8Array): MemoryText {
  const nul = firstNul(bytes);
  if (nul >= 0) throw unsafeBytes(file, nul);
  const shown = renderVisible(bytes).changed;
  if (isUtf8(bytes)) return { text: Buffer.from(bytes).toString("utf8"), shown, invalid: [] };
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
  return { text: renderCodePoints(cps, true).text, shown, invalid };
}

/** Like {@link memoryText}, with the warning to print when anything would be shown. */
export function loadMemoryText(file: string, bytes: Uint8Array): MemoryText & { warning: string | null } {
  const m = memoryText(file, bytes);
  return { ...m, warning: m.shown > 0 ? shownWarning(file, m.shown) : null };
}
