/** A memory file's bytes decoded by the one verdict: a NUL refuses, invalid UTF-8 reads as `<0xNN>`. */
import { cleanText, firstNul, shownWarning, unsafeBytes } from "./file-verdict.ts";
import { decodeUtf8, renderVisible } from "./invisible.ts";

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** An invalid UTF-8 byte: 1-based line, column in code points, and the byte. */
export interface InvalidByte {
  line: number;
  column: number;
  byte: number;
}

export interface MemoryText {
  /** The exact decoding, each invalid byte `<0xNN>` (never U+FFFD); refused code points kept for the printers. */
  text: string;
  /** How many code points and bytes `read` would show as `<U+XXXX>` / `<0xNN>`. */
  shown: number;
  invalid: InvalidByte[];
}

type Loaded = { text: string; warning: string | null; invalid: InvalidByte[] };

/** Decodes a memory file's bytes; throws Refused (exit 2) when they hold a NUL. */
export function memoryText(file: string, bytes: Uint8Array): MemoryText {
  const clean = cleanText(bytes);
  if (clean !== null) return { text: clean, shown: 0, invalid: [] };
  const nul = firstNul(bytes);
  if (nul >= 0) throw unsafeBytes(file, nul);
  const shown = renderVisible(bytes).changed;
  let text: string;
  try {
    text = STRICT.decode(bytes);
  } catch {
    return { ...withInvalidBytes(bytes), shown };
  }
  return { text, shown, invalid: [] };
}

/** Like {@link memoryText}, with the warning to print when anything would be shown. */
export function loadMemoryText(file: string, bytes: Uint8Array): Loaded {
  const m = memoryText(file, bytes);
  return { text: m.text, warning: m.shown > 0 ? shownWarning(file, m.shown) : null, invalid: m.invalid };
}

// Invalid UTF-8 is rare: walk the bytes only then.
function withInvalidBytes(bytes: Uint8Array): { text: string; invalid: InvalidByte[] } {
  const cps = decodeUtf8(bytes);
  const parts: string[] = [];
  const invalid: InvalidByte[] = [];
  let line = 1;
  let column = 0;
  for (const cp of cps) {
    column++;
    if (cp < 0) {
      const byte = -cp - 1;
      invalid.push({ line, column, byte });
      parts.push(`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`);
      continue;
    }
    parts.push(String.fromCodePoint(cp));
    if (cp === 0x0a) {
      line++;
      column = 0;
    }
  }
  return { text: parts.join(""), invalid };
}
