/** A found secret's value looked for wherever else the text holds it, in the forms it is written in. Linear. */
import { joinedLines } from "./redact-derived.ts";

/** A value shorter than this is not looked for elsewhere: a short password repeated may be a common word. */
const REPEAT_MIN = 8;
/** At most this many found values are looked for elsewhere, so that a crafted text cannot make the scan slow. */
const REPEAT_VALUES = 32;
/** A token's body is looked for without its prefix only from this length: shorter tails occur in names. */
const BODY_MIN = 16;

/** Letters and spaces alone, shorter than 16, may be words (postgres, changeme): blanking them would eat prose. */
function wordLike(v: string): boolean {
  return v.length < REPEAT_MIN || (v.length < 16 && !/[^\p{L}\s]/u.test(v));
}

/** A found value's forms: as found, URL- or form-encoded or decoded, shell-escaped or not, base64, a token's body. */
function formsOf(value: string, prefixes: readonly string[] | undefined): string[] {
  const plus = value.replace(/\+/g, " ");
  const b64 = Buffer.from(value).toString("base64");
  // Escaped for the shell: bare (`printf %q`), in double quotes, in single quotes (`'\''`); and unescaped.
  const forms = [value, plus, b64, b64.replace(/=+$/, ""), value.replace(/[^\w@%+=:,./-]/g, "\\$&"),
    value.replace(/[$`"\\!]/g, "\\$&"), value.replaceAll("'", "'\\''"), value.replace(/\\(.)/g, "$1")];
  try {
    const encoded = encodeURIComponent(value);
    const every = encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    // Encoded as `encodeURIComponent` does, and as most URL builders do: every sign, `!` as `%21`.
    forms.push(...(/%[0-9A-Fa-f]{2}/.test(value) ? [decodeURIComponent(value), decodeURIComponent(plus)]
      : [encoded, every, every.replaceAll("%20", "+")]));
  } catch {
    // A lone `%` or half a surrogate pair: the value is looked for as it was found.
  }
  // The body after the rule's keyword (`ghp_`, `sk-`), and after a lower-case infix too (`proj-`, `b-`).
  const lower = value.toLowerCase();
  for (const k of prefixes ?? []) {
    const at = lower.indexOf(k);
    const body = at === -1 || at > 12 ? "" : value.slice(at + k.length);
    for (const b of [body, body.replace(/^[a-z]{1,8}[_-]/, "")]) if (b.length >= BODY_MIN) forms.push(b);
  }
  // A copy is as distinctive as the secret: a space a form brings in must not make words (`12+chars`, `12 chars`).
  const phrase = (f: string): boolean =>
    !/\s/.test(value) && /^(?:(?:\p{L}+|\d+)(?:-(?:\p{L}+|\d+))*\s+)+(?:\p{L}+|\d+)(?:-(?:\p{L}+|\d+))*$/u.test(f);
  return forms.filter((f, i) => !wordLike(f) && !phrase(f) && (i === 0 || f !== value));
}

/** Every other place `text` holds a found secret's value in any of its forms, broken over lines too, as its kind. */
export function repeatedSecrets(
  text: string,
  found: ReadonlyArray<{ start: number; end: number; kind: string }>,
  prefixes: (kind: string) => readonly string[] | undefined,
): Array<[number, number, string]> {
  const kinds = new Map<string, string>();
  const values = new Set<string>();
  for (const s of found) {
    if (values.size === REPEAT_VALUES) break;
    const value = joinedLines(text.slice(s.start, s.end)).text;
    const forms = values.has(value) ? [] : formsOf(value, prefixes(s.kind));
    if (forms.length > 0) values.add(value);
    for (const form of forms) if (!kinds.has(form)) kinds.set(form, s.kind);
  }
  if (kinds.size === 0) return [];
  // A position is tried only when a value starts with its first characters, against at most a few values.
  const byHead = new Map<string, string[]>();
  for (const v of [...kinds.keys()].sort((x, y) => y.length - x.length)) {
    byHead.set(v.slice(0, REPEAT_MIN), [...(byHead.get(v.slice(0, REPEAT_MIN)) ?? []), v]);
  }
  // Most positions fail on their first two characters, tested without building a string.
  const pairs = new Set([...kinds.keys()].map((v) => v.charCodeAt(0) * 65536 + v.charCodeAt(1)));
  const joined = joinedLines(text);
  const at = joined.text;
  const out: Array<[number, number, string]> = [];
  for (let i = 0; i + REPEAT_MIN <= at.length; i++) {
    if (!pairs.has(at.charCodeAt(i) * 65536 + at.charCodeAt(i + 1))) continue;
    const candidates = byHead.get(at.slice(i, i + REPEAT_MIN));
    const value = candidates?.find((v) => at.startsWith(v, i));
    const original = value === undefined ? null : joined.original(i, i + value.length);
    if (original === null) continue;
    out.push([...original, kinds.get(value!)!]);
    i += value!.length - 1;
  }
  return out;
}
