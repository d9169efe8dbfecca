/** Rules that read the syntax around a secret: PEM blocks, assignments, tables, cookies, unnamed AWS keys. Linear. */
import { PATH_OR_URL, isWordy, looksLikeCode, newlineOffsets, notAnAssignedSecret, partitionPoint,
  placeholderOrVariable, rarePairCount, rule, shannonEntropy, type RedactionRule } from "./redact-kit.ts";

type Range = [number, number];

const PEM_END = /-----END[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----/y;
const PEM_HEADER = /(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset|MessageID):[^\r\n\\]*/y;
const PEM_BODY = /=?[A-Za-z0-9+/]+={0,3}/y;
/** Between two lines of a pasted key: breaks (real, `\n`, `\\n`, `<br>`, `", "`) in junk of no base64, or spaces. */
const PEM_JUNK = "(?:[^A-Za-z0-9+/=\\r\\n\\\\<\"-]|\"(?![ \\t]*,[ \\t]*\")|-(?!----)|\\+(?=[ \\t]*\\r?\\n)){0,16}";
const PEM_SEPARATOR = new RegExp(
  `(?:${PEM_JUNK}(?:\\r?\\n|\\\\r\\\\n|\\\\n|\\\\\\\\r\\\\\\\\n|\\\\\\\\n|<br[ \\t]*/?>|"[ \\t]*,[ \\t]*"))+` +
    `${PEM_JUNK}|[ \\t]+`,
  "y",
);
const PEM_NEWLINE = /\r?\n|\\r\\n|\\n/y;
const PEM_LINE_END = /[\s\\"'`|,<\]]/;

/** Base64 characters a key needs (documentation shows `...`). */
const PEM_MIN_MATERIAL = 32;

function sticky(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  const hit = pattern.test(text);
  return hit ? pattern.lastIndex : -1;
}

/** The constant prefix of a block's first line (`> `, `// `), trimmed: its next lines repeat it. */
function linePrefix(text: string, start: number): string {
  let k = start;
  while (k > 0 && start - k < 40 && text[k - 1] !== "\n") k--;
  if (k > 0 && text[k - 1] !== "\n") return "";
  return text.slice(k, start).trim();
}

/** Where the block's next line starts: after a separator, the block's own line prefix once more, spaces; or -1. */
function nextLine(text: string, at: number, prefix: string): number {
  let k = sticky(PEM_SEPARATOR, text, at);
  if (k === -1 || prefix === "" || !text.startsWith(prefix, k)) return k;
  k += prefix.length;
  while (text[k] === " " || text[k] === "\t") k++;
  return k;
}

const endsLine = (text: string, at: number): boolean => PEM_LINE_END.test(at < text.length ? text[at]! : "\n");

/** private-key's refine: key material (base64, headers, blank lines) to the END marker or the first other line. */
export function refinePem(text: string, m: RegExpExecArray, start: number, end: number): Range | null {
  if (m[0].startsWith("PuTTY")) return refinePutty(text, start, end);
  const prefix = linePrefix(text, start);
  let i = end;
  let last = end;
  let material = 0;
  let headers = true;
  for (;;) {
    const j = nextLine(text, i, prefix);
    if (j === -1) break;
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
    if (!endsLine(text, b)) break;
    const next = nextLine(text, b, prefix);
    const beforeEnd = next !== -1 && sticky(PEM_END, text, next) !== -1;
    const long = (line.length >= 16 && /[0-9+/=]/.test(line)) || line.length >= 40;
    const keyLike = long || /^=|=$/.test(line) || beforeEnd;
    if (!keyLike) break;
    material += line.replace(/=/g, "").length;
    headers = false;
    i = last = b;
  }
  return material >= PEM_MIN_MATERIAL ? [start, last] : null;
}

const PUTTY_NAMES =
  "Encryption|Comment|Public-Lines|Private-Lines|Private-MAC|Private-Hash|Key-Derivation|Argon2-[A-Za-z]+";
const PUTTY_HEADER = new RegExp(`(?:${PUTTY_NAMES}): ?[^\\r\\n\\\\]{0,200}`, "y");

/** A PuTTY key file: headers and base64 lines to the last one; null without private material. */
function refinePutty(text: string, start: number, end: number): Range | null {
  const prefix = linePrefix(text, start);
  let i = end;
  let last = end;
  let privateMaterial = 0;
  let inPrivate = false;
  for (;;) {
    const j = nextLine(text, i, prefix);
    if (j === -1) break;
    const h = sticky(PUTTY_HEADER, text, j);
    if (h !== -1) {
      const name = text.slice(j, text.indexOf(":", j));
      inPrivate = name === "Private-Lines";
      if (name === "Private-MAC") privateMaterial += h - j;
      i = last = h;
      continue;
    }
    const b = sticky(PEM_BODY, text, j);
    if (b === -1 || b - j < 16 || !endsLine(text, b)) break;
    if (inPrivate) privateMaterial += b - j;
    i = last = b;
  }
  return privateMaterial >= PEM_MIN_MATERIAL ? [start, last] : null;
}

/** Longest unquoted generic value judged, in characters (a longer run is cut here). */
export const GENERIC_VALUE_MAX = 256;

const SPACE = /\s/;
const isNameStart = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;

/** Characters that never end or shorten a value: a run of them needs no character-by-character reading. */
const PLAIN_RUN = /[^\x00-\x20\s"'\\#|&;,)\]}>`]{0,1024}/y;

/** The last plain run read, reused while the search moves forward through it (`password=` repeated). */
let plain = { text: "", from: 0, to: 0 };

/** Where the plain run holding `start` ends, read at most 1,024 characters at a time. */
function plainRunEnd(text: string, start: number): number {
  const capped = plain.to - plain.from === 1024 && plain.to < text.length;
  const outside = start < plain.from || start >= plain.to || (capped && start + GENERIC_VALUE_MAX > plain.to);
  if (plain.text !== text || outside) {
    PLAIN_RUN.lastIndex = start;
    PLAIN_RUN.test(text);
    plain = { text, from: start, to: PLAIN_RUN.lastIndex };
  }
  return plain.to;
}

const OPENERS = [0x28, 0x5b, 0x7b];
const CLOSERS = [0x29, 0x5d, 0x7d];

/** A quote, a `\n`/`\t`/`\r`/`\"` escape, `||`, `&&`, `#` or `&` in a URL query, `&`/`;`/`,` before a `name=`. */
function endsValue(text: string, at: number, c: number, inQuery: boolean): boolean {
  const next = text.charCodeAt(at + 1);
  // A quote ends the value: `r'…'`, `f"…"` and `x="a"+y` are code. A backtick does not.
  if (c === 0x22 || c === 0x27) return true;
  if (c === 0x5c) return next === 0x6e || next === 0x74 || next === 0x72 || next === 0x22;
  if (c === 0x23) return inQuery;
  if (c === 0x7c) return next === 0x7c;
  if (c === 0x26 && (inQuery || next === 0x26)) return true;
  if ((c !== 0x26 && c !== 0x3b && c !== 0x2c) || !isNameStart(next)) return false;
  // Names between separators never overlap, and the look-ahead is capped.
  const cap = Math.min(text.length, at + 2 + GENERIC_VALUE_MAX);
  let k = at + 2;
  while (k < cap && isNameChar(text.charCodeAt(k))) k++;
  return text.charCodeAt(k) === 0x3d;
}

// An unquoted generic value ends at whitespace, {@link endsValue}, or a bracket closing one opened before it;
// a trailing `,`, `;`, `&`, unmatched `>` or backtick (and punctuation after one) is the text's.
export function genericValueEnd(text: string, start: number, inQuery: boolean): number {
  const limit = Math.min(text.length, start + GENERIC_VALUE_MAX);
  // A value inside a plain run ends at the cap, or at the whitespace or quote that ends the run.
  const run = plainRunEnd(text, start);
  if (run >= limit) return limit;
  const stop = text.charCodeAt(run);
  if (stop <= 0x20 || stop === 0x22 || stop === 0x27 || SPACE.test(text[run]!)) return run;
  const depth = [0, 0, 0];
  let angles = 0;
  let backticks = 0;
  let end = start;
  // Char codes, not one-character strings: this loop reads every value a rule judges.
  for (; end < limit; end++) {
    const c = text.charCodeAt(end);
    if (c <= 0x20 || (c > 0x7e && SPACE.test(text[end]!))) break;
    const open = OPENERS.indexOf(c);
    const close = CLOSERS.indexOf(c);
    if (open >= 0) depth[open]!++;
    else if (close >= 0 && depth[close]!-- === 0) break;
    else if (c === 0x3c) angles++;
    else if (c === 0x3e) angles--;
    else if (c === 0x60) backticks++;
    else if (endsValue(text, end, c, inQuery)) break;
  }
  const droppable = (at: number): boolean => {
    const c = text[at]!;
    return c === "," || c === ";" || c === "&" || (c === ">" && angles < 0) || (c === "`" && backticks % 2 === 1);
  };
  while (end > start) {
    const c = text[end - 1]!;
    // `…value`.` at the end of a sentence: the period follows the closing backtick.
    if (!droppable(end - 1) && !(".:!?".includes(c) && end - 2 >= start && droppable(end - 2))) break;
    end--;
    if (c === ">") angles++;
    else if (c === "`") backticks--;
  }
  return end;
}

// generic-secret's refine: a quoted value as matched; a YAML block scalar's first line; an unquoted value
// widened to its run, `min`+ characters, or the value of a nested assignment it begins with.
export function refineGenericValue(
  text: string, m: RegExpExecArray, start: number, end: number, min = 8,
): Range | null {
  if (m.groups?.["s4"] !== undefined) {
    let e = end;
    while (e > start && (text[e - 1] === " " || text[e - 1] === "\t" || text[e - 1] === "\r")) e--;
    return e - start >= 8 ? [start, e] : null;
  }
  if (m.groups?.["s3"] === undefined) return [start, end];
  const before = text[m.index - 1];
  const stop = genericValueEnd(text, start, before === "?" || before === "&");
  // One level only: deeper nesting is judged again from the next match.
  let from = start;
  let eq = start;
  while (eq < stop && isNameChar(text.charCodeAt(eq))) eq++;
  const nested = text[eq] === "=" && isNameStart(text.charCodeAt(start)) && looksLikeCode(text.slice(start, eq));
  if (eq < stop && nested) from = eq + 1;
  if (stop - from < min) return null;
  return [from, stop];
}

/** Words and numbers joined by signs (`min12/max64`, `SHA-1+salt`, `12+chars`): a rule or a scheme, not a password. */
const PART = "(?:[A-Z]?[a-z]*|[A-Z]*)\\d*(?:[a-z]*|[A-Z]*)";
const NAMED_PARTS = new RegExp(`^(?:${PART}[/+.:-]){1,5}${PART}$`);

/** A code name's parts: a number (a letter may lead it, `v8`, `X509`, or join it, `256k1`, `200K`), a word. */
const CODE_PART = /(?:^[A-Za-z]|[A-Z])?\d+(?:[a-z]\d+)*(?:[kK](?![a-z]))?|[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g;

// Words around one or two numbers, as code names them (`readUInt8`, `secp256k1`, `Float64Array`): a lone letter
// only as an acronym before a word (`UInt`), words of 3 letters on average without 2 letter pairs rare in code.
// Measured: 578 of 636 such names in node_modules (the rest mostly bundlers' chunk hashes), 4% of random ones.
export function codeName(v: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9]*\d[A-Za-z0-9]*$/.test(v) || (v.match(/\d+/g)?.length ?? 0) > 2) return false;
  const parts = v.match(CODE_PART)!;
  const words: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (/\d/.test(p)) continue;
    if (p.length === 1 && !(/[A-Z]/.test(p) && /^[A-Z][a-z]{2}/.test(parts[i + 1] ?? ""))) return false;
    if (p.length === 1) parts[i + 1] = p + parts[i + 1]!.toLowerCase();
    else words.push(p);
  }
  // Past 16 characters a name's words must read as words: no rare pair, one acronym of 3+ letters at most; random
  // runs of both cases (`abcdEFGH1234ijklMNOP5678`) seldom do.
  const read = v.length <= 16 || words.filter((w) => /^[A-Z]{3,}$/.test(w)).length <= 1;
  // A leading verb of two letters (`isRegExp2`, `toUint8`) is a prefix, not a word to average.
  if (/^[a-z]{2}$/.test(words[0] ?? "") && /^[a-z]{2}[A-Z]/.test(v) && words.length > 1) words.shift();
  return read && words.join("").length / words.length >= 3 && rarePairCount(words) < (v.length <= 16 ? 2 : 1);
}

/** A password hashing scheme (`the password is Argon2id`) names how it is stored, a YAML tag (`!vault |`) where. */
const HASH_SCHEME = /^(?:argon2(?:id?|d)|pbkdf2\w*|[bs]crypt\w*|!{1,2}[a-z]+)$/i;

/** Capitalised words and a number of 3 or 4 digits (`MySuperSecret2024`): chosen, not a name in code. */
const WORDS_AND_YEAR = /^(?:[A-Z][a-z]+){2,}(?!(?:128|256|384|512)\b)\d{3,4}[!#$%&*?@]*$/;

// Under a secret's name a value needs 3.5 bits per character, or, when letters and digits alone, what its length
// can reach less 0.4 (11 distinct characters hold only log2 11 = 3.46) unless it reads as a name: letters alone, or
// words around one number (`Uint8Array`); signs are a name's or a scheme's (`pg-auth-v2`, `JWT/RS256`) more often
// than a short key's. A person's password needs 2.5 (`hunter2hunter2` has 2.8); its trailing `!` is the password's.
// Words around short numbers are code (`readUInt8`, `secp256k1`), except capitalised words and a year.
export function namedValueKept(v: string, password: boolean): boolean {
  if (!password && WORDS_AND_YEAR.test(v)) return false;
  const name = !/^[A-Za-z0-9]+$/.test(v) || /^[A-Za-z]+$/.test(v) ||
    (isWordy(v) && (v.match(/\d+/g)?.length ?? 0) <= 1);
  const floor = password ? 2.5 : name ? 3.5 : Math.min(3.5, Math.log2(v.length) - 0.4);
  return shannonEntropy(v) < floor || (!password && codeName(v)) ||
    notAnAssignedSecret(password ? v.replace(/!+$/, "") : v, password) ||
    (password && (NAMED_PARTS.test(v) || HASH_SCHEME.test(v)));
}

/** A bare `_KEY` name needs a digit and not a dotted identifier (`user.profile.v2`), and 16+ characters unless the
 * value mixes both cases and digits alone (`STRIPE_KEY=Rd7kLm2Qp9x`). */
export function keyNameValueKept(v: string, m: RegExpExecArray): boolean {
  if (m.groups?.["k"] === undefined) return false;
  const short = v.length < 16 && !/^(?=.*[a-z])(?=.*[A-Z])[A-Za-z0-9]{10,}$/.test(v);
  return short || !/\d/.test(v) || /^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)+$/.test(v);
}

// A name under which 40/64 hex is a credential (`API_TOKEN=`): not a bare `_KEY` (`cache_key`), not `token` alone
// (a handoff's compare-and-swap token), not a hash's or version's name.
export function credentialNamed(m: RegExpExecArray): boolean {
  const name = /^[A-Za-z0-9_.-]*/.exec(m[0])![0];
  const hashy = /sha\d|(?:^|[^a-z])sha(?![a-z])|hash|digest|checksum|commit|expected|current|etag/i.test(name);
  return m.groups?.["k"] === undefined && !/^token$/i.test(name) && !hashy;
}

/** A cell that names a person's password (`Password`, `DB_PASSWORD`, `SMTP_PASS`), not a bare `pass`. */
const PASSWORD_NAME = /(?:^|[ _.-])(?:pass(?:word|wd|phrase)|pwd)$|[_.-]pass$/i;

/** A cell that names a secret (`Password`, `API key`, `DB_PASSWORD`). */
const SECRET_NAME = new RegExp(
  "^(?:[\\w .-]*?[ _.-])?(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[ _.-]?key|apikey|access[ _.-]?key" +
    "|private[ _.-]?key|secret[ _.-]?key|credentials?|client[ _.-]?secret)$",
  "i",
);

/** The trimmed cells of one table row, `\|` kept inside a cell. */
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
  return b - a >= 2 && text[a] === "`" && text[b - 1] === "`" ? [a + 1, b - 1] : [a, b];
}

/** table-secret's spans: cells under a header naming a secret, or after a first cell naming one; 8+ characters. */
export function tableSpans(text: string, m: RegExpExecArray): { spans: Array<[number, number]>; end: number } {
  const block = m[0];
  const base = m.index;
  // Each row from its first `|`: a table may be indented under a list item.
  const lines = [...block.matchAll(/[ \t]*([^\n]+)/g)].map((l): Range => [base + l.index + l[0].length - l[1]!.length,
    base + l.index + l[0].length]);
  const end = base + block.length;
  if (lines.length < 3) return { spans: [], end };
  // Whether a cell names a password; undefined when it names no secret.
  const named = (c: Range, name = text.slice(...unticked(text, c))): boolean | undefined =>
    SECRET_NAME.test(name) ? PASSWORD_NAME.test(name) : undefined;
  const columns = cells(text, ...lines[0]!).map((c) => named(c));
  const out: Array<[number, number]> = [];
  for (const [from, to] of lines.slice(2)) {
    const row = cells(text, from, to);
    const first = row.length > 1 ? named(row[0]!) : undefined;
    row.forEach((c, k) => {
      const password = columns[k] ?? (k > 0 ? first : undefined);
      if (password === undefined) return;
      const [a, b] = unticked(text, c);
      const v = text.slice(a, b);
      if (v.length < 8 || /\s/.test(v) || namedValueKept(v, password)) return;
      out.push([a, b]);
    });
  }
  return { spans: out, end };
}

const SESSION_NAME = /sess|sid|token|auth|jwt|csrf|xsrf|remember|login|secret|key/i;
const COOKIE_ATTRIBUTES =
  /^(?:path|domain|expires|max-age|samesite|secure|httponly|priority|partitioned|version|comment)$/i;

/** cookie-value's spans: each pair's value of `Cookie:`, the first's of `Set-Cookie:`; 16+ characters, 8+ named. */
export function cookieSpans(text: string, m: RegExpExecArray): { spans: Array<[number, number]>; end: number } {
  const set = /^set-/i.test(m[0]);
  const out: Array<[number, number]> = [];
  let i = m.index + m[0].length;
  const stopAt = (k: number): boolean => {
    const c = text[k];
    if (c === "\\") return /[ntr"]/.test(text[k + 1] ?? "");
    return c === undefined || c === "\n" || c === "\r" || c === '"' || c === "'";
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
    const quoted = b - a >= 2 && text[a] === '"' && text[b - 1] === '"';
    const v = quoted ? text.slice(++a, --b) : text.slice(a, b);
    const judged = set ? first && !COOKIE_ATTRIBUTES.test(name) : true;
    // Numbers with dots (`GA1.2.1234567890.1700000000`, timestamps) are analytics, not sessions.
    const numeric = /^(?:[A-Za-z]{1,4}\d?\.)?[\d.]+$/.test(v);
    const long = v.length >= 16 || (v.length >= 8 && SESSION_NAME.test(name));
    if (judged && long && !numeric && !notAnAssignedSecret(v)) out.push([a, b]);
    first = false;
    while (i < text.length && !stopAt(i) && text[i] !== ";") i++;
    if (text[i] === ";") i++;
  }
  return { spans: out, end: i };
}

/** cli-password keeps a variable, placeholder, path, a following flag, a plain word, a port or address. */
export function notACliPassword(v: string, m: RegExpExecArray): boolean {
  // Not the assignment allow-list: a human password often reads as code (`Summer2024!`). `--password --host db`:
  // the next word is a flag, the password is prompted for.
  const prompted = v.startsWith("-") && /^--\w+[ \t]+-/.test(m[0]);
  // `--passphrase` takes nothing but a passphrase: any word after it is one, but for a help page's type or letter
  // (`--passphrase string`, `--passphrase V`).
  const word = m[0].startsWith("--passphrase") ? /^(?:string|str|text|value|[A-Z])$/ : /^[A-Za-z][a-z]*$/;
  const wordOrAddress = word.test(v) || /^[\d.:/-]+$/.test(v);
  return placeholderOrVariable(v) || PATH_OR_URL.test(v) || prompted || wordOrAddress;
}

/** A netrc or npmrc value: quoted, or bare to whitespace. */
const FILE_VALUE = `(?:"(?<s>[^"\\n]{1,256})"|'(?<s1>[^'\\n]{1,256})'|(?<s2>[^\\s"'#;]{1,256}))`;

/** Credentials files' own syntax: `.npmrc` auth keys (`//host/:_authToken=`), `.netrc` `password` after `machine`. */
export const CREDENTIAL_FILE_RULES: readonly RedactionRule[] = [
  // Only at a line's start, after `:` (a registry's scope), `=` or a quote: `self._auth = x` is code.
  // `npm config set KEY VALUE` and `yarn config set KEY VALUE` write one with a blank; yarn's is `npmAuthToken`.
  rule("npmrc-auth", "_auth _password npmauthident npmauthtoken",
    `(?<![^\\s:"'=])(?:_authToken|_auth|_password|npmAuth(?:Ident|Token))` +
      `(?:["']?[ \\t]*[=:]|(?<=\\bconfig[ \\t]+set[ \\t]+\\S*)(?=[ \\t]))[ \\t]*${FILE_VALUE}`, undefined, {
    hexNamed: () => true,
    uuidNamed: (m) => /^(?:_authToken|npmAuthToken)/.test(m[0]),
    allow: (v) => placeholderOrVariable(v) || looksLikeCode(v) || PATH_OR_URL.test(v),
  }),
  rule("netrc-password", "machine default",
    "(?<![\\w-])(?:machine[ \\t]+[^\\s]{1,256}|default)(?:\\s{1,64}(?:login|account)[ \\t]+[^\\s]{1,256}){0,2}" +
      `\\s{1,64}password[ \\t]+${FILE_VALUE}`,
    undefined, { weakIsSecret: true, hexNamed: () => true, allow: notACliPassword }),
];

/** Lines and characters looked at on each side of an access key id; a credentials section's size. */
const AWS_NEAR_LINES = 3;
const AWS_NEAR_CHARS = 2048;
const AWS_SECTION_LINES = 40;
const AWS_SECTION_CHARS = 4096;
const AWS_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const AWS_CREDENTIAL_NAME = /aws_(?:secret_access_key|access_key_id|session_token)/i;

/** The 40-character candidates in text[from, to): each must mix cases and hold a digit or `/+`. */
function awsCandidates(text: string, from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const window = text.slice(from, to);
  for (const m of window.matchAll(AWS_SECRET)) {
    const v = m[0];
    if (/[a-z]/.test(v) && /[A-Z]/.test(v) && /[0-9/+]/.test(v)) out.push([from + m.index, from + m.index + 40]);
  }
  return out;
}

/** An access key id (not AWS's documentation ids ending in EXAMPLE), or a `[profile]` line. */
const AWS_CONTEXT = new RegExp(
  "(?<id>(?<![A-Za-z0-9_])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9_]))" +
    "|(?<ini>(?<=^|\\n)[ \\t]*\\[[^\\]\\r\\n]{1,64}\\][ \\t]*(?=\\r?\\n))",
  "g",
);

/** Unnamed AWS secret keys: candidates within 3 lines of an access key id, or in a `[profile]` naming `aws_…`. */
export function awsUnnamedSpans(text: string): Array<[number, number]> {
  if (!/AKIA|ASIA|ABIA|ACCA|A3T|\[/.test(text)) return [];
  const out: Array<[number, number]> = [];
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
      newlines ??= newlineOffsets(text);
      const nl = newlines;
      const after = partitionPoint(nl.length, (i) => nl[i]! < m.index + m[0].length);
      const before = after - 1 - AWS_NEAR_LINES;
      const from = Math.max(before >= 0 ? nl[before]! + 1 : 0, m.index - AWS_NEAR_CHARS);
      const to = Math.min(nl[after + AWS_NEAR_LINES] ?? text.length, m.index + AWS_NEAR_CHARS);
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
    if (AWS_CREDENTIAL_NAME.test(section)) out.push(...awsCandidates(text, from, to));
  }
  flush();
  return out;
}
