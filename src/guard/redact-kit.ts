/** The parts every redaction rule is built from: rule shape, boundaries, entropy, allow-lists. Pure. */

/** A rule: its pattern's first `s…` named group that matched is the secret (else the whole match). */
export interface RedactionRule {
  /** The KIND in `<redacted: KIND>`. */
  readonly id: string;
  /** Lowercase substrings: the pattern runs only when the lowercased text holds one. */
  readonly keywords?: readonly string[];
  readonly pattern: RegExp;
  /** Minimum Shannon entropy, in bits per character. */
  readonly entropy?: number;
  /** True for a candidate to keep. */
  readonly allow?: (secret: string, m: RegExpExecArray) => boolean;
  /** Human-chosen passwords: a weak one (`aaaaaaaa`) is still a secret, so no filler check. */
  readonly weakIsSecret?: boolean;
  /** True when the match's name makes a 40/64-hex value a credential (`API_TOKEN=`, `Bearer`), not a git id. */
  readonly hexNamed?: (m: RegExpExecArray) => boolean;
  /** True when the match's name makes a UUID the credential (npm's legacy `_authToken`), not an id. */
  readonly uuidNamed?: (m: RegExpExecArray) => boolean;
  /** Narrows or widens the secret (null keeps it), reading only what joins the span or a bounded bit more. */
  readonly refine?: (text: string, m: RegExpExecArray, start: number, end: number) => [number, number] | null;
  /** For a match holding several secrets (a table, a Cookie header): each span, and where the scan stopped. */
  readonly spans?: (text: string, m: RegExpExecArray) => { spans: Array<[number, number]>; end: number };
}

// A token's left edge: not inside a word, except after a `\n`/`\t`/`\r`/`\"` escape or `%XX`. ONE lookbehind:
// an alternation of assertions stops V8 scanning for the literal prefix after it, a hundredfold slowdown.
const ESCAPE_END = '(?<!\\\\[ntr"]|%[0-9A-Fa-f]{2})';
export const L = `(?<![A-Za-z0-9_]${ESCAPE_END})`;
export const R = "(?![A-Za-z0-9_])";
/** The same for tokens that may hold `-`. */
export const LD = `(?<![A-Za-z0-9_-]${ESCAPE_END})`;
export const RD = "(?![A-Za-z0-9_-])";

/** The first index in [0, n) where `before` is false (`before` is true for a prefix of the indexes). */
export function partitionPoint(n: number, before: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function newlineOffsets(text: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) out.push(i);
  return out;
}

/** A rule from its parts: id, space-separated keywords, pattern source, entropy floor, extras, flags. */
export function rule(
  id: string, keywords: string, source: string, entropy?: number, extra: Partial<RedactionRule> = {}, flags = "",
): RedactionRule {
  // Built on first use: most rules' keywords are absent from a given text.
  let compiled: RegExp | undefined;
  return {
    id,
    keywords: keywords === "" ? undefined : keywords.split(" "),
    entropy,
    ...extra,
    get pattern(): RegExp {
      return (compiled ??= new RegExp(source, `gd${flags}`));
    },
  };
}

const PLACEHOLDER_WORDS = "password|passwd|pass|pwd|secret|changeme|redacted|hidden|none|null|undefined|true|false";
const PLACEHOLDER = new RegExp(
  `^(?:\\$.*|%[A-Za-z_(].*|\\{.*\\}|<.*>|\\[.*\\]|\\*+|x+|X+|\\.\\.\\.|…|${PLACEHOLDER_WORDS})$`,
  "i",
);

const VARIABLE_REFERENCE = new RegExp(
  "^(?:\\$|%[A-Za-z_]|\\{\\{|\\{%|os\\.environ|os\\.getenv|process\\.env|import\\.meta\\.env|env\\.|ENV\\[" +
    "|ENV\\.fetch|System\\.getenv|getenv\\(|secrets\\.|vars\\.)",
);

/** Letter runs of an identifier: `getAPIToken` -> get, API, Token. */
const WORD_RUNS = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g;

/** Letter pairs seen fewer than 20 times inside the words of 78,238 identifiers (node_modules), by first letter. */
const RARE_PAIR = new RegExp("(?=b[fhqvwxz]|c[bfgnvwxz]|d[kqz]|f[bcdhjkmpqvwxz]|g[jpqvwxz]|h[cfghjpqvxz]|iw|" +
  "j[bcfghjlmnpqrvwxyz]|k[cjmqvxz]|l[qxz]|m[ghjkqvwxz]|nx|p[jnqvwxz]|q[b-km-tv-z]|r[jx]|sj|t[jkq]|u[qy]|" +
  "v[bcdfhjkmnpqtvwxyz]|w[bcfgjkmpqtuvwxyz]|x[bdfgjklnoqrsuvwxz]|y[hjkquvxy]|z[bcdfghjkmnpqrstvwx])", "g");

/** Words of code that hold rare pairs, measured: half the names of 100,158 identifiers the pairs took. */
const KNOWN_RARE = /\b(?:(?:py)?jw[kst]s?|jwe|pkcs|oauth|xsrf|gz(?:ip|tar)?|zlib|cxx|reqs|aspx|wysiwyg)\b/g;

/** Letters that read as words, as identifiers do: runs of 3 on average, not 2 rare pairs and a third pair or short
 * run, as the fifth of random letters with that average hold (`cy|Gzzd|Odswo|Um|DJE`). A dotted path or call is
 * code by its punctuation: only its runs are asked for. Names of standards (`jwks`, `pkcs`) are words. */
export function isWordy(s: string, rarePairs = true): boolean {
  const runs = s.match(WORD_RUNS);
  if (runs === null || runs.join("").length / runs.length < 3) return false;
  if (!rarePairs) return true;
  const rare = rarePairCount(runs);
  return rare < 2 || rare + runs.filter((w) => w.length <= 2 && /[a-z]/.test(w)).length < 3;
}

/** How many letter pairs rare in code the words hold, words of code that hold them aside. */
export function rarePairCount(words: readonly string[]): number {
  return words.join(" ").toLowerCase().replace(KNOWN_RARE, " ").match(RARE_PAIR)?.length ?? 0;
}

const CODE_PATH = /^[A-Za-z_$][\w$-]*!?(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$-]*!?)*(?<tail>[([<].*)?$/;

/** A value that is code of words, not a secret (`config.get_token()`, `Record<string, string>`, `API_TOKEN`). */
export function looksLikeCode(value: string): boolean {
  if (/^[\w$-]+$/.test(value)) {
    // Names keep letters and digits in separate parts (`build-2024`, `api_v2`); random
    // secrets mix them inside one part (`aB3xY9`).
    return value.split(/[-_$]+/).every((part) => /^(?:[A-Za-z]*|\d*)$/.test(part)) && isWordy(value);
  }
  const m = CODE_PATH.exec(value);
  if (!m) return false;
  const tail = m.groups?.["tail"];
  const path = tail === undefined ? value : value.slice(0, value.length - tail.length);
  if (isWordy(path, tail === undefined && !path.includes("."))) return true;
  // A call on a path of letters, perhaps cut at its quoted argument (`t.TypeVar(`).
  if (tail !== undefined && /^[A-Za-z_$.]+$/.test(path) && /^\([\w$.,]*\)?$/.test(tail)) return true;
  // Short names in a dotted path (`g.next()[0:2]`): letters only, one a lowercase word.
  const parts = path.split(/\??\.|::|->/);
  return parts.length > 1 && parts.every((p) => /^[A-Za-z_$]+!?$/.test(p)) && parts.some((p) => /^[a-z]{3,}$/.test(p));
}

export const PATH_OR_URL =
  /^(?:\.{0,2}\/|~\/|[A-Za-z]:\\|[a-z][a-z0-9+.-]*:\/\/)|^[\w.-]+(?:\/[\w.-]+)+\.[A-Za-z]{1,5}$/;
export const DIGEST = /^(?:sha1|sha256|sha384|sha512|md5|blake2b?):[0-9a-fA-F]+$/i;
export const VERSION = /^v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.+-]*)?$/;

/** Shannon entropy of `s` in bits per character (counted in code points). */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  let n = 0;
  for (const ch of s) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1);
    n++;
  }
  let h = 0;
  for (const c of counts.values()) h -= (c / n) * Math.log2(c / n);
  return h;
}

export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** 40 or 64 hex digits with only punctuation or Markdown around, maybe git's `:path` after. */
const DECORATED_HEX =
  /^[^A-Za-z0-9]*(?<![0-9a-fA-F])(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})(?![0-9a-fA-F])(?::[\w./-]*)?[^A-Za-z0-9]*$/;

/** Never redacted: git ids and SHA-256 tokens and UUIDs (unless named a credential), keys ending in `EXAMPLE`. */
export function globallyAllowed(secret: string, hexNamed = false, uuid = false): boolean {
  return (!hexNamed && DECORATED_HEX.test(secret)) || (!uuid && UUID.test(secret)) || /EXAMPLE(?:KEY)?$/.test(secret);
}

export function placeholderOrVariable(v: string): boolean {
  return PLACEHOLDER.test(v) || VARIABLE_REFERENCE.test(v);
}

const ARN = /^arn:aws[\w-]*:[\w-]+:/;
const EMAIL = /^[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;
const FILE_NAME = new RegExp(
  "^[\\w.@+-]*\\.(?:pem|key|pub|crt|cer|csr|p12|pfx|jks|gpg|asc|age|enc|json|ya?ml|toml|ini|conf|env|txt|md|xml" +
    "|properties|sh|[jt]sx?|py|rb|go|sql|db|log|csv|lock|t?gz|zip)$",
  "i",
);

/** A path of names (`secret/data/prod/db-2024`): a Vault path, a route. */
function pathOfNames(v: string): boolean {
  if (!v.includes("/") || !/^[\w.-]+(?:\/[\w.-]*)+$/.test(v)) return false;
  const segments = v.split("/").filter((s) => s !== "");
  // Names keep letters and digits in separate parts; base64 mixes them inside one part.
  const named = segments.every((s) => s.split(/[-_.]+/).every((p) => /^(?:[A-Za-z]*|\d*)$/.test(p)));
  return named && segments.some((s) => isWordy(s));
}

/** A value that names something: an ARN, an e-mail address, a path of names, a file name. */
export function namesSomething(v: string): boolean {
  // Cheap character checks first: each pattern is compiled on its first use.
  return (v.startsWith("arn:") && ARN.test(v)) || (v.includes("@") && EMAIL.test(v)) ||
    (v.includes(".") && FILE_NAME.test(v)) || (v.includes("/") && pathOfNames(v));
}

const PLAIN_WORD = /^[("'`]*(?:[A-Za-z][a-z]*(?:['’-][a-z]+)*|\d+(?:[.,]\d+)*)[)"'`.,!?:;]*$/;

/** A value with spaces that reads as prose: at least half its words are plain words. */
export function proseLike(v: string): boolean {
  if (!/\s/.test(v)) return false;
  const words = v.split(/\s+/).filter((w) => w !== "");
  return words.filter((w) => PLAIN_WORD.test(w)).length * 2 >= words.length;
}

/** Words a sentence holds and a chosen passphrase (`correct horse battery staple`) seldom does. */
const FUNCTION_WORD = /\b(?:the|an?|is|are|in|on|at|to|of|for|from|with|by|see|ask|use|via|not|our|your|this|it)\b/i;

/** Prose a password name may hold (`see the 1Password entry`): prose with a word only sentences use. */
export function sentenceLike(v: string): boolean {
  return proseLike(v) && FUNCTION_WORD.test(v);
}

/** A list of words (`read,write,admin`, `a|b`): names, not a secret. */
export function wordList(v: string): boolean {
  const parts = v.split(/[,;&|]+/).filter((p) => p !== "");
  return parts.length > 1 && parts.every((p) => looksLikeCode(p));
}

/** The allow-list of every rule that judges a value by its name (assignments, tables, XML, cookies). */
export function notAnAssignedSecret(v: string, passwordNamed = false): boolean {
  // A command-line flag too (`--expected-current-sha256` in a table of options).
  const flag = v.startsWith("--") && /^--[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/.test(v);
  // Under a password's name, 16+ lower-case letters are words glued into a passphrase, not a name in code.
  const code = looksLikeCode(v.replace(/=+$/, "")) && !(passwordNamed && /^[a-z]{16,}$/.test(v));
  return placeholderOrVariable(v) || flag || code || wordList(v) ||
    PATH_OR_URL.test(v) || DIGEST.test(v) || VERSION.test(v) || namesSomething(v) ||
    (passwordNamed ? sentenceLike(v) : proseLike(v));
}
