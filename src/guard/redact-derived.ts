/** Forms a secret hides in (base64 decoded, split or wrapped lines, continuations, copies of one found). Linear. */
import { partitionPoint } from "./redact-kit.ts";

/** A derived text and the original range a span of it came from (null: not one whole piece). */
export interface Derived {
  text: string;
  original(start: number, end: number): [number, number] | null;
}

const EMPTY: Derived = { text: "", original: () => null };

/** [derived start, derived end, original start, original end, group]. */
type Piece = [number, number, number, number, number];

/** The pieces of a derived text; each group ends with a line break. */
class Pieces {
  readonly parts: string[] = [];
  readonly list: Piece[] = [];
  length = 0;
  groups = 0;

  add(piece: string, start: number, end: number): void {
    this.list.push([this.length, this.length + piece.length, start, end, this.groups]);
    this.parts.push(piece);
    this.length += piece.length;
  }

  /** Text that maps to nothing in the original (a name put before a decoded value). */
  skip(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }

  endGroup(): void {
    this.parts.push("\n");
    this.length++;
    this.groups++;
  }

  /** The piece holding derived offset `at`. */
  at(at: number): Piece | undefined {
    const p = this.list[partitionPoint(this.list.length, (i) => this.list[i]![0] <= at) - 1];
    return p !== undefined && at < p[1] ? p : undefined;
  }

  /** The original of a span crossing from one piece into a later one of its group (or within one, when `one`). */
  across(a: number, z: number, one = false): [number, number] | null {
    const first = this.at(a);
    const last = this.at(z - 1);
    if (first === undefined || last === undefined || (first === last && !one) || first[4] !== last[4]) return null;
    return [first[2] + (a - first[0]), last[2] + (z - last[0])];
  }

  /** The derived text; a span's original is by default its whole piece (a decoded run stands for all of it). */
  derived(original = (a: number, z: number): [number, number] | null => {
    const p = this.at(a);
    return p !== undefined && z <= p[1] ? [p[2], p[3]] : null;
  }): Derived {
    return this.list.length === 0 ? EMPTY : { text: this.parts.join(""), original };
  }
}

/** A base64 run of 24+ characters: the shortest vendor token (20 characters) takes 28. */
const BASE64_RUN = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])/g;

/** True when at least 95% of the bytes are printable ASCII, tab, CR or LF: decoded text, not noise. */
function printable(bytes: Buffer): boolean {
  const bad = bytes.filter((b) => (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b > 0x7e).length;
  return bad * 20 <= bytes.length;
}

/** Base64 runs not yet redacted, decoded when their bytes are text: a span found stands for the whole run. */
export function decodedRuns(text: string, covered: (start: number, end: number) => boolean): Derived {
  const out = new Pieces();
  BASE64_RUN.lastIndex = 0;
  for (const m of text.matchAll(BASE64_RUN)) {
    const start = m.index;
    const end = start + m[0].length;
    if (covered(start, end)) continue;
    const bytes = Buffer.from(m[0], "base64");
    if (bytes.length === 0 || !printable(bytes)) continue;
    out.add(bytes.toString("latin1"), start, end);
    out.endGroup();
  }
  return out.derived();
}

/** A base64 value alone on its line after a name: `KEY: …` in YAML or JSON (a Kubernetes Secret's `data`), `KEY=…`. */
const NAMED_BASE64 =
  /^[ \t]*["']?(?<key>[\w.-]{1,128})["']?[ \t]*[:=][ \t]*["']?(?<value>[A-Za-z0-9+/]{8,}={0,2})["']?,?[ \t]*\r?$/gm;
const CREDENTIAL_KEY = /pass|pwd|secret|token|credential|auth|dsn|conn|(?:url|uri)$/i;

/** Base64 values under a credential's name, or any in a Kubernetes Secret, decoded after their name (`KEY=…`). */
export function namedBase64(text: string): Derived {
  const out = new Pieces();
  const secret = /^[ \t]*"?kind"?:[ \t]*"?Secret"?,?[ \t]*\r?$/m.test(text);
  for (const m of text.matchAll(NAMED_BASE64)) {
    const { key, value } = m.groups!;
    if (!secret && !CREDENTIAL_KEY.test(key!)) continue;
    const bytes = Buffer.from(value!, "base64");
    if (!printable(bytes)) continue;
    const start = m.index + m[0].lastIndexOf(value!);
    out.skip(`${key}=`);
    out.add(bytes.toString("latin1"), start, start + value!.length);
    out.endGroup();
  }
  return out.derived();
}

/** A joined form's base64 runs decoded (a blob wrapped at a width), each mapped back through the join. */
export function decodedJoin(joined: Derived): Derived {
  const decoded = decodedRuns(joined.text, () => false);
  return { text: decoded.text, original: (a, z) => {
    const run = decoded.original(a, z);
    return run === null ? null : joined.original(...run);
  } };
}

/** Characters of a split token's piece; a line's piece is its trailing run of them. */
const PIECE_CHAR = /[A-Za-z0-9_+/=.-]/;
/** Longest constant prefix of a split token's lines, in characters. */
const MAX_PREFIX = 24;

/** Where the trailing run of piece characters in text[a, z) starts. */
function pieceStart(text: string, a: number, z: number): number {
  let b = z;
  while (b > a && PIECE_CHAR.test(text[b - 1]!)) b--;
  return b;
}

/** Each line as [start, end without trailing blanks]. */
function linesOf(text: string): Array<[number, number]> {
  const lines: Array<[number, number]> = [];
  for (let s = 0; s <= text.length; ) {
    let e = text.indexOf("\n", s);
    if (e === -1) e = text.length;
    let t = e;
    while (t > s && (text[t - 1] === " " || text[t - 1] === "\t" || text[t - 1] === "\r")) t--;
    lines.push([s, t]);
    s = e + 1;
  }
  return lines;
}

/** Two or more lines of one constant prefix (`# `, `> `, none) and a run of token characters each, joined. */
export function splitRuns(text: string, covered: (start: number, end: number) => boolean): Derived {
  const out = new Pieces();
  let group: Array<[number, number]> = [];
  let groupPrefix: string | null = null;
  const flush = (): void => {
    if (group.length >= 2) {
      for (const [a, b] of group) out.add(text.slice(a, b), a, b);
      out.endGroup();
    }
    group = [];
    groupPrefix = null;
  };
  for (const [lineStart, e] of linesOf(text)) {
    const b = pieceStart(text, lineStart, e);
    const prefix = b - lineStart <= MAX_PREFIX ? text.slice(lineStart, b) : null;
    if (b === e || prefix === null || /[A-Za-z0-9]/.test(prefix) || covered(b, e)) flush();
    else {
      if (groupPrefix !== prefix) flush();
      groupPrefix = prefix;
      group.push([b, e]);
    }
  }
  flush();
  return out.derived((a, z) => out.across(a, z));
}

/** What starts a continued line before its text: indentation, then quote or comment marks each with a blank. */
const LINE_LEAD = /[ \t]*(?:(?:>|#+|\/\/|\*)[ \t]+)*/y;

/** Where a continued line's text starts, past its {@link LINE_LEAD}. */
function leadEnd(text: string, a: number, z: number): number {
  LINE_LEAD.lastIndex = a;
  LINE_LEAD.test(text);
  return Math.min(LINE_LEAD.lastIndex, z);
}

/** The text's lines joined, each without its lead and trailing blanks; a blank line parts two groups. */
export function joinedLines(text: string): Derived {
  if (!text.includes("\n")) return { text, original: (a, z) => [a, z] };
  const out = new Pieces();
  for (const [a, z] of linesOf(text)) {
    const b = leadEnd(text, a, z);
    if (b < z) out.add(text.slice(b, z), b, z);
    else if (out.list.at(-1)?.[4] === out.groups) out.endGroup();
  }
  return out.derived((a, z) => out.across(a, z, true));
}

/** A token broken at a line's end into the next lines' starts (a wrapped bullet): the runs either side, joined. */
export function brokenRuns(text: string, ended: (start: number, end: number) => boolean): Derived {
  const out = new Pieces();
  const lines = linesOf(text);
  for (let i = 0; i < lines.length - 1; i++) {
    const [a, z] = lines[i]!;
    const head = pieceStart(text, a, z);
    let j = i + 1;
    let joined = 0;
    // A piece already found whole as a token ends the group: the next line does not continue it.
    for (let last = [head, z] as const; head < z && j < lines.length && !ended(...last); j++) {
      const b = leadEnd(text, ...lines[j]!);
      let e = b;
      while (e < lines[j]![1] && PIECE_CHAR.test(text[e]!)) e++;
      if (e === b) break;
      if (joined++ === 0) out.add(text.slice(head, z), head, z);
      out.add(text.slice(b, e), b, e);
      last = [b, e];
      // Prose after the run: the token ends here, and this line's own last run may begin another.
      if (e < lines[j]![1]) break;
    }
    if (joined > 0) {
      out.endGroup();
      i = j - 1;
    }
  }
  return out.derived((a, z) => out.across(a, z));
}

/** Narrowest line a wrapped token's lines are cut at. */
const MIN_WRAP = 40;
/** The widths tools wrap at (base64, PEM, MIME, terminals): a two-line group needs one of them. */
const WRAP_WIDTHS = new Set([64, 76, 80]);

/** Tokens wrapped at a fixed width: a line ending in a token (`KEY=sk-proj-…`), then lines as wide, one prefix. */
export function wrappedRuns(text: string): Derived {
  const out = new Pieces();
  const lines = linesOf(text);
  for (let i = 0; i < lines.length - 1; ) {
    const [a, z] = lines[i]!;
    const width = z - a;
    const head = pieceStart(text, a, z);
    const next = lines[i + 1]!;
    const prefixEnd = pieceStart(text, next[0], next[1]);
    const prefix = text.slice(next[0], prefixEnd);
    const badPrefix = prefix.length > MAX_PREFIX || /[A-Za-z0-9]/.test(prefix) || !text.startsWith(prefix, a);
    if (width < MIN_WRAP || head === z || prefixEnd === next[1] || badPrefix) {
      i++;
      continue;
    }
    const group: Array<[number, number]> = [[head, z]];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const [la, lz] = lines[j]!;
      const body = la + prefix.length;
      if (lz - la > width || !text.startsWith(prefix, la) || lz === body || pieceStart(text, la, lz) !== body) break;
      group.push([body, lz]);
      if (lz - la < width) {
        j++;
        break;
      }
    }
    // Two lines of any width are too common to call a wrap; three, or a tool's width, are not.
    if (group.length >= 3 || (group.length === 2 && WRAP_WIDTHS.has(width))) {
      for (const [b, e] of group) out.add(text.slice(b, e), b, e);
      out.endGroup();
    }
    i = Math.max(i + 1, j);
  }
  // A wrapped token fills its last line: `PORT=8080` after a key is the next line, not its tail.
  return out.derived((x, y) => (y === out.at(y - 1)?.[1] ? out.across(x, y) : null));
}

/** The text with every line continuation (a backslash ending a line) removed, as a shell joins it. */
export function continuedRuns(text: string): Derived {
  if (!text.includes("\\\n") && !text.includes("\\\r\n")) return EMPTY;
  const out = new Pieces();
  for (const m of text.matchAll(/[^]*?(?:\\\r?\n|$)/g)) {
    if (m[0] === "") break;
    const cut = m[0].endsWith("\\\r\n") ? 3 : m[0].endsWith("\\\n") ? 2 : 0;
    const piece = m[0].slice(0, m[0].length - cut);
    out.add(piece, m.index, m.index + piece.length);
  }
  return { text: out.parts.join(""), original: (a, z) => out.across(a, z) };
}

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
