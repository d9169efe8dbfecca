/** The one verdict on a memory file's bytes: unsafe (a NUL), shown (`<0xNN>` / `<U+XXXX>`, warned), or clean. */
import { Refused } from "../errors.ts";

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
