/**
 * The one verdict on a memory file's bytes that every verb consults (docs/design.md#one-verdict-on-a-files-bytes):
 * `check` and the hook (store/inspect.ts), `read`, `brief`, `drift`, `validate`, `archives`
 * and the merge driver. Three answers, never two for one file:
 *
 * - **unsafe**: a NUL byte anywhere (docs/design.md#files-on-disk: a NUL makes a memory
 *   file unsafe, `check` 3). No verb loads it: each refuses with {@link unsafeBytes}'s sentence
 *   (exit 2), `archives list` marks the entry unsafe, the merge driver leaves git's conflict.
 * - **shown**: invalid UTF-8, or a code point `write` refuses (docs/design.md#redaction). Loaded, never
 *   silently: `read` shows it as `<0xNN>` / `<U+XXXX>` (docs/design.md#redaction), and every verb that reads it
 *   says so on stderr with {@link shownWarning}, the sentence `read` has always printed.
 * - **clean**: what `write` accepts at the character level.
 *
 * The decoding lives in memory-text.ts ({@link memoryText} there): the hook and `check` need only
 * the NUL test. Pure.
 */
import { Refused } from "../errors.ts";
import { renderVisible } from "./invisible.ts";

/** The offset of the first NUL byte in `bytes`, or -1: the unsafe test, in one place. */
export function firstNul(bytes: Uint8Array): number {
  return bytes.indexOf(0);
}

/**
 * The refusal every verb gives a memory file holding a NUL byte (docs/design.md#one-verdict-on-a-files-bytes).
 * @param file the name to show, e.g. `HANDOFF.md`, `archive/<name>`, `stdin`.
 * @param at the byte offset of the first NUL.
 * @returns a Refused (exit 2) naming the file and the offset, and what to do.
 */
export function unsafeBytes(file: string, at: number): Refused {
  return new Refused(`${file} holds a NUL byte (at byte ${at}): it is unsafe and was not loaded; tell the user (another program wrote it: remove the byte or move the file away, then check again)`);
}

/** The stderr sentence for a file loaded with `n` bytes or characters shown as `<0xNN>` / `<U+XXXX>`. */
export function shownWarning(file: string, n: number): string {
  return `warning: ${file} holds ${n} invisible or control character(s) or invalid UTF-8 byte(s) that write would refuse, shown as <U+XXXX> / <0xNN>; the token covers the bytes on disk`;
}

/**
 * The text of clean bytes (no NUL, valid UTF-8, nothing `write` refuses), or null: the common
 * case, decided without the full decoder (memory-text.ts handles the rest).
 */
export function cleanText(bytes: Uint8Array): string | null {
  if (firstNul(bytes) >= 0) return null;
  const r = renderVisible(bytes);
  return r.changed === 0 ? r.text : null;
}
