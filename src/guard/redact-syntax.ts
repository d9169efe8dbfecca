/**
 * Redaction rules whose secret is found by reading the syntax around it, not by a vendor
 * shape (docs/design.md#redaction): PEM key blocks, generic assignments and their unquoted runs,
 * YAML block scalars, Markdown tables under a secret-named header, Cookie headers. Every scan
 * here is linear: it reads only characters that become part of the span it returns, or a
 * bounded number past them.
 */
import { PATH_OR_URL, looksLikeCode, notAnAssignedSecret, placeholderOrVariable, shannonEntropy, tally } from "./redact-kit.ts";

// ---------------------------------------------------------------------------------------------
// PEM blocks (issue 10: a key block is marker lines and key material, never arbitrary prose; docs/design.md#redaction)

const PEM_END = /-----END[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----/y;
const PEM_HEADER = /(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset|MessageID):[^\r\n\\]*/y;
const PEM_BODY = /=?[A-Za-z0-9+/]+={0,3}/y;
/**
 * What may sit between two lines of a pasted key (docs/decisions/redaction-prefixes.md):
 * one or more line breaks -- real ones, JSON's `\n` / `\r\n` escapes, the same escaped twice
 * (`\\n`, JSON in JSON), an HTML `<br>`, the `", "` between the strings of a JSON array --
 * each after up to 16 characters of line suffix (`",`, ` |`, `\n" +` of string concatenation), then up to 16 of line
 * prefix (`> `, `# `, ` * `, `| `, `  "`). Neither holds base64, a backslash or a line break, so
 * the pieces never overlap and the scan stays linear. Or spaces and tabs inside one line.
 */
const PEM_JUNK = "(?:[^A-Za-z0-9+/=\\r\\n\\\\<\"-]|\"(?![ \\t]*,[ \\t]*\")|-(?!----)|\\+(?=[ \\t]*\\r?\\n)){0,16}";
const PEM_SEPARATOR = new RegExp(
  `(?:${PEM_JUNK}(?:\\r?\\n|\\\\r\\\\n|\\\\n|\\\\\\\\r\\\\\\\\n|\\\\\\\\n|<br[ \\t]*/?>|"[ \\t]*,[ \\t]*"))+${PEM_JUNK}|[ \\t]+`,
  "y",
);
const PEM_NEWLINE = /\r?\n|\\r\\n|\\n/y;
/** Characters that may end a line of key material (then a separator, a quote, a cell's end). */
const PEM_LINE_END = /[\s\\"'`|,<\]]/;

/** Minimum base64 characters of key material for a block to be a key (documentation shows `...`). */
const PEM_MIN_MATERIAL = 32;

function sticky(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  const hit = pattern.test(text);
  tally(hit ? pattern.lastIndex - at : 1);
  return hit ? pattern.lastIndex : -1;
}

/**
 * The constant prefix of the line a block starts on (`> `, `// `, `  "`), without its spaces:
 * the lines after it repeat it, and a prefix made of base64 characters (`//`) is not junk to
 * {@link PEM_SEPARATOR}. At most 40 characters are looked at; empty when the line has none.
 */
function linePrefix(text: string, start: number): string {
  let k = start;
  while (k > 0 && start - k < 40 && text[k - 1] !== "\n") k--;
  if (k > 0 && text[k - 1] !== "\n") return "";
  tally(start - k);
  return text.slice(k, start).trim();
}

/** After a separator: the block's own line prefix once more, then spaces. */
function skipPrefix(text: string, at: number, prefix: string): number {
  if (prefix === "" || !text.startsWith(prefix, at)) return at;
  let k = at + prefix.length;
  while (text[k] === " " || text[k] === "\t") k++;
  return k;
}

/**
 * private-key's refine: from the BEGIN marker, takes the lines that are key material — base64
 * lines, the `Proc-Type:`/`DEK-Info:` (and PGP armour) headers, blank lines — up to the END
 * marker, whatever constant prefix and suffix each line carries (docs/design.md#redaction). A line of anything
 * else ends the block there: the key is what came before it, and the prose after it is kept.
 * Without an END line (a truncated paste) the material read is still a key. Returns null when
 * the block holds fewer than 32 base64 characters (documentation). PuTTY key files go to
 * {@link refinePutty}.
 */
export function refinePem(text: string, m: RegExpExecArray, start: number, end: number): [number, number] | null {
  if (m[0].startsWith("PuTTY")) return refinePutty(text, start, end);
  const prefix = linePrefix(text, start);
  let i = end;
  let last = end;
  let material = 0;
  let headers = true;
  for (;;) {
    const sep = sticky(PEM_SEPARATOR, text, i);
    if (sep === -1) break;
    const j = skipPrefix(text, sep, prefix);
    const endMarker = sticky(PEM_END, text, j);
    if (endMarker !== -1) {
      last = endMarker;
      break;
    }
    if (headers) {
      const h = sticky(PEM_HEADER, text, j);
      if (h !== -1) {
        i = last = h;
        continue;
      }
    }
    const b = sticky(PEM_BODY, text, j);
    if (b === -1) {
      // A blank line: go on reading after it.
      if (sticky(PEM_NEWLINE, text, j) !== -1) {
        i = j;
        continue;
      }
      break;
    }
    const line = text.slice(j, b);
    // The line must end here: a newline, an escape, a closing quote, a cell's end, a space, or
    // the text's end.
    const after = b < text.length ? text[b]! : "\n";
    if (!PEM_LINE_END.test(after)) break;
    const next = sticky(PEM_SEPARATOR, text, b);
    const beforeEnd = next !== -1 && sticky(PEM_END, text, skipPrefix(text, next, prefix)) !== -1;
    const keyLike = (line.length >= 16 && /[0-9+/=]/.test(line)) || line.length >= 40 || /^=|=$/.test(line) || beforeEnd;
    if (!keyLike) break;
    material += line.replace(/=/g, "").length;
    headers = false;
    i = last = b;
  }
  return material >= PEM_MIN_MATERIAL ? [start, last] : null;
}

const PUTTY_HEADER = /(?:Encryption|Comment|Public-Lines|Private-Lines|Private-MAC|Private-Hash|Key-Derivation|Argon2-[A-Za-z]+): ?[^\r\n\\]{0,200}/y;
const PUTTY_BREAK = PEM_SEPARATOR;

/**
 * A PuTTY private key file (`PuTTY-User-Key-File-N: <algorithm>`, then `Name: value` headers
 * and base64 lines, the private ones after `Private-Lines:`, ending with `Private-MAC:`): the
 * block from its first line to the last header or base64 line, under the same prefixes as a
 * PEM block. Null (kept) without private material: a file's first line quoted in prose.
 */
function refinePutty(text: string, start: number, end: number): [number, number] | null {
  const prefix = linePrefix(text, start);
  let i = end;
  let last = end;
  let privateMaterial = 0;
  let inPrivate = false;
  for (;;) {
    const sep = sticky(PUTTY_BREAK, text, i);
    if (sep === -1) break;
    const j = skipPrefix(text, sep, prefix);
    const h = sticky(PUTTY_HEADER, text, j);
    if (h !== -1) {
      const name = text.slice(j, text.indexOf(":", j));
      inPrivate = name === "Private-Lines";
      if (name === "Private-MAC") privateMaterial += h - j;
      i = last = h;
      continue;
    }
    const b = sticky(PEM_BODY, text, j);
    if (b === -1 || b - j < 16 || !PEM_LINE_END.test(b < text.length ? text[b]! : "\n")) break;
    if (inPrivate) privateMaterial += b - j;
    i = last = b;
  }
  return privateMaterial >= PEM_MIN_MATERIAL ? [start, last] : null;
}

// ---------------------------------------------------------------------------------------------
// Generic assignments

/** Longest unquoted generic value judged, in characters (a longer run is cut here). */
export const GENERIC_VALUE_MAX = 256;

const SPACE = /\s/;
/** `[A-Za-z_]` */
const isNameStart = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
/** `[A-Za-z0-9_.-]` */
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;

/**
 * The end of an unquoted generic value that starts at `start` (docs/design.md#redaction: in `KEY=value`
 * syntax the value runs to whitespace or the end of the line, so `&`, `;`, `,`, `(`, `<`, `>`
 * and backticks inside it are part of it, and its entropy is judged on the whole run). The run
 * stops earlier only where the text is plainly structure, not value:
 * - at a `"` or `'` (a string in code: `r'…'`, `x=a+"b"`);
 * - at a `\n`, `\t`, `\r` or `\"` escape (a JSON log line);
 * - at `&`, `;` or `,` followed by the next `name=` assignment (`;expires=3600`, `,port=5432`);
 * - at a shell `&&` or `||`;
 * - at a `)`, `]` or `}` that closes a bracket opened before the value (`f(password=…)`,
 *   `${VAR:-default}`);
 * - in a URL query (the key follows `?` or `&`), at `&` and `#`.
 * Then a trailing `,`, `;`, `&`, an unmatched `>` or backtick, and sentence punctuation after
 * one of those are dropped: they belong to the code or prose around the value.
 * At most {@link GENERIC_VALUE_MAX} characters are looked at (plus one capped name look-ahead).
 */
/** Characters that never end or shorten a value: a run of them needs no character-by-character reading. */
const PLAIN_RUN = /[^\x00-\x20\s"'\\#|&;,)\]}>`]{0,1024}/y;

/** The last plain run read, reused while the search moves forward through it (`password=` repeated). */
let plain = { text: "", from: 0, to: 0 };

/** Where the plain run holding `start` ends, read at most 1,024 characters at a time. */
function plainRunEnd(text: string, start: number): number {
  const capped = plain.to - plain.from === 1024 && plain.to < text.length;
  if (plain.text !== text || start < plain.from || start >= plain.to || (capped && start + GENERIC_VALUE_MAX > plain.to)) {
    PLAIN_RUN.lastIndex = start;
    PLAIN_RUN.test(text);
    plain = { text, from: start, to: PLAIN_RUN.lastIndex };
    tally(plain.to - start);
  }
  return plain.to;
}

export function genericValueEnd(text: string, start: number, inQuery: boolean): number {
  const limit = Math.min(text.length, start + GENERIC_VALUE_MAX);
  // A value inside a plain run ends at the cap, or at the whitespace or quote that ends the run.
  const run = plainRunEnd(text, start);
  if (run >= limit) return limit;
  const stop = text.charCodeAt(run);
  if (stop <= 0x20 || stop === 0x22 || stop === 0x27 || SPACE.test(text[run]!)) return run;
  let parens = 0;
  let brackets = 0;
  let braces = 0;
  let angles = 0;
  let backticks = 0;
  let end = start;
  // Char codes, not one-character strings: this loop reads every value a rule judges.
  scan: for (; end < limit; end++) {
    const c = text.charCodeAt(end);
    if (c <= 0x20 || (c > 0x7e && SPACE.test(text[end]!))) break;
    const next = end + 1 < text.length ? text.charCodeAt(end + 1) : -1;
    switch (c) {
      case 0x28: // (
        parens++;
        break;
      case 0x5b: // [
        brackets++;
        break;
      case 0x7b: // {
        braces++;
        break;
      case 0x29: // )
        if (parens-- === 0) break scan;
        break;
      case 0x5d: // ]
        if (brackets-- === 0) break scan;
        break;
      case 0x7d: // }
        if (braces-- === 0) break scan;
        break;
      case 0x3c: // <
        angles++;
        break;
      case 0x3e: // >
        angles--;
        break;
      // A quote ends the value: `r'…'`, `f"…"` and `x="a"+y` are code. A backtick does not.
      case 0x22:
      case 0x27:
        break scan;
      // A backslash: `\n`, `\t`, `\r`, `\"` end the value; the line of a JSON log goes on after the escape.
      case 0x5c:
        if (next === 0x6e || next === 0x74 || next === 0x72 || next === 0x22) break scan;
        break;
      case 0x60: // `
        backticks++;
        break;
      case 0x23: // #
        if (inQuery) break scan;
        break;
      case 0x7c: // |
        if (next === 0x7c) break scan;
        break;
      case 0x26: // &
      case 0x3b: // ;
      case 0x2c: {
        if (c === 0x26 && (inQuery || next === 0x26)) break scan;
        if (!isNameStart(next)) break;
        // The next `name=` assignment. Names between separators never overlap, and each
        // look-ahead is capped: linear.
        const cap = Math.min(text.length, end + 2 + GENERIC_VALUE_MAX);
        let k = end + 2;
        while (k < cap && isNameChar(text.charCodeAt(k))) k++;
        tally(k - end);
        if (text.charCodeAt(k) === 0x3d) break scan;
        break;
      }
    }
  }
  const droppable = (at: number): boolean => {
    const c = text[at]!;
    return c === "," || c === ";" || c === "&" || (c === ">" && angles < 0) || (c === "`" && backticks % 2 === 1);
  };
  const drop = (): void => {
    end--;
    const c = text[end]!;
    if (c === ">") angles++;
    else if (c === "`") backticks--;
  };
  tally(end - start);
  while (end > start) {
    if (droppable(end - 1)) {
      drop();
      continue;
    }
    // `…value`.` at the end of a sentence: the period follows the closing backtick.
    const c = text[end - 1]!;
    if ((c === "." || c === ":" || c === "!" || c === "?") && end - 2 >= start && droppable(end - 2)) {
      drop();
      continue;
    }
    break;
  }
  return end;
}

/**
 * generic-secret's refine: quoted values are taken as matched; a YAML block scalar's value is
 * its first line, trailing blanks dropped; an unquoted value is widened to its whole run
 * ({@link genericValueEnd}) and must then be 8 characters or more. A run that begins with a
 * nested assignment (`password: admin_pw=…`) is judged on that assignment's value.
 */
export function refineGenericValue(text: string, m: RegExpExecArray, start: number, end: number): [number, number] | null {
  if (m.groups?.["s4"] !== undefined) {
    let e = end;
    while (e > start && (text[e - 1] === " " || text[e - 1] === "\t" || text[e - 1] === "\r")) e--;
    return e - start >= 8 ? [start, e] : null;
  }
  if (m.groups?.["s3"] === undefined) return [start, end];
  const before = text[m.index - 1];
  const stop = genericValueEnd(text, start, before === "?" || before === "&");
  // `password: admin_pw=<secret>`: the run begins with a nested assignment; its value is the one
  // to judge. The name must read as a name, so `Xk9=…` stays part of the value.
  // One level only: deeper nesting is the same text judged again from the next match.
  let from = start;
  let eq = start;
  while (eq < stop && isNameChar(text.charCodeAt(eq))) eq++;
  if (eq < stop && text[eq] === "=" && isNameStart(text.charCodeAt(start)) && looksLikeCode(text.slice(start, eq))) from = eq + 1;
  if (stop - from < 8) return null;
  return [from, stop];
}

/**
 * The conditions (docs/design.md#redaction) for a name that ends in `_KEY` (`ENCRYPTION_KEY`, `sort_key`): the
 * value needs 16 or more characters, a digit, and not the shape of a dotted identifier
 * (`user.profile.v2`). Other secret names need only the entropy floor.
 */
export function keyNameValueKept(v: string, m: RegExpExecArray): boolean {
  if (m.groups?.["k"] === undefined) return false;
  return v.length < 16 || !/\d/.test(v) || /^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)+$/.test(v);
}

// ---------------------------------------------------------------------------------------------
// Markdown tables (only cells under a secret-named header that pass the entropy floor; docs/design.md#redaction)

/** A header cell or first cell that names a secret (`Password`, `API key`, `DB_PASSWORD`, `token`). */
const SECRET_NAME =
  /^(?:[\w .-]*?[ _.-])?(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[ _.-]?key|apikey|access[ _.-]?key|private[ _.-]?key|secret[ _.-]?key|credentials?|client[ _.-]?secret)$/i;

/** Cells of one table row: [start, end] of each cell's trimmed content, `\|` kept inside a cell. */
function cells(text: string, from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let i = from;
  if (text[i] === "|") i++;
  let cellStart = i;
  for (; i <= to; i++) {
    if (i === to || (text[i] === "|" && text[i - 1] !== "\\")) {
      let a = cellStart;
      let b = i;
      while (a < b && (text[a] === " " || text[a] === "\t")) a++;
      while (b > a && (text[b - 1] === " " || text[b - 1] === "\t" || text[b - 1] === "\r")) b--;
      if (i < to || a < b) out.push([a, b]);
      cellStart = i + 1;
    }
  }
  return out;
}

function unticked(text: string, [a, b]: [number, number]): [number, number] {
  if (b - a >= 2 && text[a] === "`" && text[b - 1] === "`") return [a + 1, b - 1];
  return [a, b];
}

/** The entropy floor of the generic rule, applied to table cells. */
const TABLE_ENTROPY = 3.5;

/**
 * table-secret's spans: in a Markdown table (header row, `---` row, body rows), the cells under
 * a header that names a secret, and the value cells of a row whose first cell names one
 * (`| DB_PASSWORD | … |`). Each must be 8+ characters without spaces and pass the generic
 * rule's entropy floor and allow-list; the engine then applies the global checks.
 */
export function tableSpans(text: string, m: RegExpExecArray): { spans: Array<[number, number]>; end: number } {
  const block = m[0];
  const base = m.index;
  tally(block.length);
  const lines: Array<[number, number]> = [];
  let s = 0;
  for (let i = 0; i <= block.length; i++) {
    if (i === block.length || block[i] === "\n") {
      if (i > s) lines.push([base + s, base + i]);
      s = i + 1;
    }
  }
  const end = base + block.length;
  if (lines.length < 3) return { spans: [], end };
  const header = cells(text, lines[0]![0], lines[0]![1]).map((c) => text.slice(...unticked(text, c)));
  const secretColumns = new Set<number>();
  header.forEach((h, k) => {
    if (SECRET_NAME.test(h)) secretColumns.add(k);
  });
  const out: Array<[number, number]> = [];
  for (const [from, to] of lines.slice(2)) {
    const row = cells(text, from, to);
    const firstNames = row.length > 1 && SECRET_NAME.test(text.slice(...unticked(text, row[0]!)));
    row.forEach((c, k) => {
      if (!(secretColumns.has(k) || (firstNames && k > 0))) return;
      const [a, b] = unticked(text, c);
      const v = text.slice(a, b);
      if (v.length < 8 || /\s/.test(v) || shannonEntropy(v) < TABLE_ENTROPY || notAnAssignedSecret(v)) return;
      out.push([a, b]);
    });
  }
  return { spans: out, end };
}

// ---------------------------------------------------------------------------------------------
// Cookie and Set-Cookie headers

const SESSION_NAME = /sess|sid|token|auth|jwt|csrf|xsrf|remember|login|secret|key/i;
const COOKIE_ATTRIBUTES = /^(?:path|domain|expires|max-age|samesite|secure|httponly|priority|partitioned|version|comment)$/i;

/**
 * cookie-value's spans: the values of a `Cookie:` header's pairs, and the first pair's value of a
 * `Set-Cookie:` header (its attributes are kept). A value is a candidate when it is 16+
 * characters, or 8+ under a session-like name (`session`, `sid`, `token`, `auth`, `csrf`…);
 * values that read as words or are numbers with dots (`GA1.2.1234567890.1700000000`) are kept.
 */
export function cookieSpans(text: string, m: RegExpExecArray): { spans: Array<[number, number]>; end: number } {
  const set = /^set-/i.test(m[0]);
  const out: Array<[number, number]> = [];
  let i = m.index + m[0].length;
  const stopAt = (k: number): boolean => {
    const c = text[k];
    return c === undefined || c === "\n" || c === "\r" || c === '"' || c === "'" || (c === "\\" && /[ntr"]/.test(text[k + 1] ?? ""));
  };
  let first = true;
  while (i < text.length && !stopAt(i)) {
    while (text[i] === " " || text[i] === "\t") i++;
    const nameStart = i;
    while (i < text.length && !stopAt(i) && text[i] !== "=" && text[i] !== ";") i++;
    const name = text.slice(nameStart, i).trim();
    if (text[i] !== "=") {
      if (text[i] === ";") i++;
      first = false;
      continue;
    }
    i++;
    const valueStart = i;
    while (i < text.length && !stopAt(i) && text[i] !== ";" && text[i] !== " " && text[i] !== "\t") i++;
    let a = valueStart;
    let b = i;
    if (b - a >= 2 && text[a] === '"' && text[b - 1] === '"') {
      a++;
      b--;
    }
    const v = text.slice(a, b);
    const judged = set ? first && !COOKIE_ATTRIBUTES.test(name) : true;
    // Numbers with dots (`GA1.2.1234567890.1700000000`, timestamps) are analytics, not sessions.
    const numeric = /^(?:[A-Za-z]{1,4}\d?\.)?[\d.]+$/.test(v);
    if (judged && (v.length >= 16 || (v.length >= 8 && SESSION_NAME.test(name))) && !numeric && !notAnAssignedSecret(v)) {
      out.push([a, b]);
    }
    first = false;
    while (i < text.length && !stopAt(i) && text[i] !== ";") i++;
    if (text[i] === ";") i++;
  }
  tally(i - m.index);
  return { spans: out, end: i };
}

// ---------------------------------------------------------------------------------------------
// Command-line passwords

/**
 * cli-password's allow-list: a variable, a placeholder, a path, a flag after `--password ` (the
 * password is then prompted for), a plain word (`--password prompt` in prose), a port or
 * address (`-p8080:80`), or a value of code.
 */
export function notACliPassword(v: string, m: RegExpExecArray): boolean {
  // Not the assignment allow-list: a human password often reads as code (`Summer2024!`).
  return (
    placeholderOrVariable(v) ||
    PATH_OR_URL.test(v) ||
    // `--password --host db`: the next word is a flag, the password is prompted for.
    (v.startsWith("-") && /^--\w+[ \t]+-/.test(m[0])) ||
    /^[A-Za-z][a-z]*$/.test(v) ||
    /^[\d.:/-]+$/.test(v)
  );
}

/**
 * The Discord bot token's first part is the bot's user id (a decimal snowflake) in base64:
 * `M…`, `N…`, `O…` otherwise collide with long identifiers, so the decoded id is checked.
 */
export function notADiscordBotToken(secret: string, m: RegExpExecArray): boolean {
  // Named by `discord` or `Bot `: any three-part token that is not an identifier path.
  if (m.groups?.["s"] !== undefined || m.groups?.["s1"] !== undefined) return looksLikeCode(secret) || !/\d/.test(secret);
  const id = secret.slice(0, secret.indexOf("."));
  const decoded = Buffer.from(id.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1");
  return !/^\d{17,20}$/.test(decoded);
}

/** Docker's `auth` is base64 of `user:password`; anything else under that name is kept. */
export function notADockerAuth(secret: string): boolean {
  const decoded = Buffer.from(secret, "base64").toString("latin1");
  return !/^[\x21-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

// ---------------------------------------------------------------------------------------------
// AWS secret access keys with no name beside them (docs/decisions/redaction-prefixes.md)

/** Lines looked at on each side of an access key id, and the most characters per side. */
const AWS_NEAR_LINES = 3;
const AWS_NEAR_CHARS = 2048;
/** Longest credentials-file section read after its `[profile]` line. */
const AWS_SECTION_LINES = 40;
const AWS_SECTION_CHARS = 4096;
const AWS_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const AWS_CREDENTIAL_NAME = /aws_(?:secret_access_key|access_key_id|session_token)/i;

/** The 40-character candidates in text[from, to): each must mix cases and hold a digit or `/+`. */
function awsCandidates(text: string, from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const window = text.slice(from, to);
  tally(window.length);
  for (const m of window.matchAll(AWS_SECRET)) {
    const v = m[0];
    if (/[a-z]/.test(v) && /[A-Z]/.test(v) && /[0-9/+]/.test(v)) out.push([from + m.index, from + m.index + 40]);
  }
  return out;
}

/** Offsets of every `\n` in `text`, in order. */
function newlineOffsets(text: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) out.push(i);
  tally(text.length);
  return out;
}

/** Index of the first offset >= `at` in sorted `offsets` (its length when none). */
function firstAtOrAfter(offsets: readonly number[], at: number): number {
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An access key id (not AWS's documentation ids ending in EXAMPLE), or a `[profile]` line. */
const AWS_CONTEXT = /(?<id>(?<![A-Za-z0-9_])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9_]))|(?<ini>(?<=^|\n)[ \t]*\[[^\]\r\n]{1,64}\][ \t]*(?=\r?\n))/g;

/**
 * The unnamed AWS secret access keys (docs/design.md#redaction): beside an access key id, every 40-character
 * candidate within 3 lines on either side; after a `[profile]` line whose section names an
 * `aws_…` credential, every candidate in the section. Windows are capped in characters, so
 * overlapping ones stay linear. The caller judges entropy and the global allow-list.
 */
export function awsUnnamedSpans(text: string): Array<[number, number]> {
  if (!/AKIA|ASIA|ABIA|ACCA|A3T|\[/.test(text)) return [];
  const out: Array<[number, number]> = [];
  tally(text.length);
  // Windows of neighbouring ids overlap: they are merged and each merged one searched once.
  let open: [number, number] | null = null;
  let newlines: number[] | undefined;
  const flush = (): void => {
    if (open !== null) out.push(...awsCandidates(text, open[0], open[1]));
    open = null;
  };
  for (const m of text.matchAll(AWS_CONTEXT)) {
    if (m.groups?.["id"] !== undefined) {
      if (m[0].endsWith("EXAMPLE")) continue;
      // Newline offsets found once and searched by halves: a window costs no walk of its own.
      newlines ??= newlineOffsets(text);
      const after = firstAtOrAfter(newlines, m.index + m[0].length);
      const before = after - 1 - AWS_NEAR_LINES;
      let from = before >= 0 ? newlines[before]! + 1 : 0;
      from = Math.max(from, m.index - AWS_NEAR_CHARS);
      let to = newlines[after + AWS_NEAR_LINES] ?? text.length;
      to = Math.min(to, m.index + AWS_NEAR_CHARS);
      if (open !== null && from <= open[1]) open[1] = Math.max(open[1], to);
      else {
        flush();
        open = [from, to];
      }
      continue;
    }
    const from = m.index + m[0].length;
    let to = from;
    for (let n = 0; to < text.length && to - from < AWS_SECTION_CHARS; to++) {
      if (text[to] !== "\n") continue;
      if (++n > AWS_SECTION_LINES || /^[ \t]*\[/.test(text.slice(to + 1, to + 80))) break;
    }
    const section = text.slice(from, to);
    tally(section.length);
    if (AWS_CREDENTIAL_NAME.test(section)) out.push(...awsCandidates(text, from, to));
  }
  flush();
  return out;
}
