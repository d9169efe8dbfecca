/**
 * Secret redaction (contract §4): every text that `write`, `promote` and `redact` handle passes
 * through {@link redactText} before anything touches disk. Pure: strings in, strings out.
 *
 * The rules are our own, written after studying the ideas of gitleaks' rule file (MIT,
 * https://github.com/gitleaks/gitleaks): a fixed prefix or shape per vendor, a cheap keyword
 * prefilter, an entropy floor where the shape alone is weak, and allow-lists for what handoffs
 * are full of (git ids, SHA-256 tokens, UUIDs, variable references, placeholders).
 */

/** One secret found by redaction (contract §4). Lines and columns are 1-based; length in characters. */
export interface RedactionFinding {
  /** The rule id, kebab-case (e.g. `github-token`); also the KIND in `<redacted: KIND>`. */
  kind: string;
  /** 1-based line of the secret's first character, in the original text. */
  line: number;
  /** 1-based column of the secret's first character, counted in Unicode code points. */
  column: number;
  /** Length of the original secret, in Unicode code points. */
  length: number;
}

/** One redaction rule; the table {@link REDACTION_RULES} is ordered by priority. */
export interface RedactionRule {
  /** kebab-case id, used as KIND in `<redacted: KIND>` and in the findings. */
  readonly id: string;
  /** One line for `--help redact`. */
  readonly description: string;
  /**
   * Lowercase substrings; the pattern only runs when the lowercased text holds one of them.
   * Absent: the pattern always runs.
   */
  readonly keywords?: readonly string[];
  /**
   * Global pattern with the `d` flag. When it has named groups whose names begin with `s`,
   * the first one that matched is the secret (the rest of the match is context, kept);
   * otherwise the whole match is the secret.
   */
  readonly pattern: RegExp;
  /** Minimum Shannon entropy of the secret, in bits per character. */
  readonly entropy?: number;
  /** Returns true for a candidate that must be kept (rule-specific allow-list). */
  readonly allow?: (secret: string) => boolean;
  /**
   * True for human-chosen passwords: a weak one (`aaaaaaaa`) is still a secret, so the filler
   * check that keeps `ghp_xxxx…` in documentation does not apply.
   */
  readonly weakIsSecret?: boolean;
  /**
   * Narrows or widens the secret the pattern found, from the whole text (linear: it may look at
   * most a bounded number of characters past `end`). Returns the final span, or null to keep the
   * candidate. The entropy, filler and allow checks then judge the final span.
   */
  readonly refine?: (text: string, m: RegExpExecArray, start: number, end: number) => [number, number] | null;
}

// Boundaries written once: a token must not be the tail or head of a longer word.
const L = "(?<![A-Za-z0-9_])";
const R = "(?![A-Za-z0-9_])";
const LD = "(?<![A-Za-z0-9_-])";
const RD = "(?![A-Za-z0-9_-])";

function re(source: string, flags = ""): RegExp {
  return new RegExp(source, `gd${flags}`);
}

/** Placeholders people write instead of a password (`user:password@host`, `pwd=****`). */
const PLACEHOLDER =
  /^(?:\$.*|%[A-Za-z_(].*|\{.*\}|<.*>|\[.*\]|\*+|x+|X+|\.\.\.|…|password|passwd|pass|pwd|secret|changeme|redacted|hidden|none|null|undefined)$/i;

/** A value that reads a variable instead of holding a secret (contract §4). */
const VARIABLE_REFERENCE =
  /^(?:\$|%[A-Za-z_]|\{\{|\{%|os\.environ|os\.getenv|process\.env|import\.meta\.env|env\.|ENV\[|ENV\.fetch|System\.getenv|getenv\(|secrets\.|vars\.)/;

/** Letter runs of an identifier: `getAPIToken` -> get, API, Token. */
const WORD_RUNS = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g;

/** True when the letters of `s` read as words (average run of 3 or more), as identifiers do. */
function isWordy(s: string): boolean {
  const runs = s.match(WORD_RUNS);
  if (!runs || runs.length === 0) return false;
  let total = 0;
  for (const r of runs) total += r.length;
  return total / runs.length >= 3;
}

const CODE_PATH = /^[A-Za-z_$][\w$-]*!?(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$-]*!?)*(?<tail>[([<].*)?$/;

/**
 * True for a value that is code, not a secret: a dotted path, call, subscript or generic type
 * made of words (`config.get_token()`, `self.api_key`, `match![1]`, `Record<string, string>`), or an identifier
 * or name made of words
 * (`API_TOKEN`, `vault-pass`, `my-app-secret-2024`).
 */
function looksLikeCode(value: string): boolean {
  if (/^[\w$-]+$/.test(value)) {
    // Names keep letters and digits in separate parts (`build-2024`, `api_v2`); random
    // secrets mix them inside one part (`aB3xY9`).
    return value.split(/[-_$]+/).every((part) => /^(?:[A-Za-z]*|\d*)$/.test(part)) && isWordy(value);
  }
  const m = CODE_PATH.exec(value);
  if (!m) return false;
  const tail = m.groups?.["tail"];
  const path = tail === undefined ? value : value.slice(0, value.length - tail.length);
  if (isWordy(path)) return true;
  // Short names in a dotted path (`g.next()[0:2]`, `os.environ`): letters only in every part,
  // one of them a lowercase word. A secret mixes digits in.
  const parts = path.split(/\??\.|::|->/);
  return parts.length > 1 && parts.every((p) => /^[A-Za-z_$]+!?$/.test(p)) && parts.some((p) => /^[a-z]{3,}$/.test(p));
}

const PATH_OR_URL = /^(?:\.{0,2}\/|~\/|[A-Za-z]:\\|[a-z][a-z0-9+.-]*:\/\/)|^[\w.-]+(?:\/[\w.-]+)+\.[A-Za-z]{1,5}$/;
const DIGEST = /^(?:sha1|sha256|sha384|sha512|md5|blake2b?):[0-9a-fA-F]+$/i;

/** Per-call counts for ASCII characters (the common case), reused: redaction is synchronous. */
const ASCII_COUNTS = new Uint32Array(128);

/** Shannon entropy of `s` in bits per character (counted in code points). */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) >= 128) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    const counts = ASCII_COUNTS;
    counts.fill(0);
    for (let i = 0; i < s.length; i++) counts[s.charCodeAt(i)]!++;
    let h = 0;
    for (let c = 0; c < 128; c++) {
      const n = counts[c]!;
      if (n === 0) continue;
      const p = n / s.length;
      h -= p * Math.log2(p);
    }
    return h;
  }
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let n = 0;
  for (const c of counts.values()) n += c;
  let h = 0;
  for (const c of counts.values()) {
    const p = c / n;
    h -= p * Math.log2(p);
  }
  return h;
}

const HEX_ID = /^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * Never redacted, whatever the rule (contract §4): git object ids and SHA-256 tokens (40 or 64
 * hex digits), UUIDs, and documentation keys that end in `EXAMPLE` (AWS's own convention).
 */
function globallyAllowed(secret: string): boolean {
  return HEX_ID.test(secret) || UUID.test(secret) || /EXAMPLE(?:KEY)?$/.test(secret);
}

/**
 * A vendor-shaped token whose body is filler (`ghp_xxxx…`, `sk-0000…`): documentation, not a
 * credential. Real tokens are random, far above 2.5 bits per character.
 */
function filler(entropy: number): boolean {
  return entropy < 2.5;
}

const VERSION = /^v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.+-]*)?$/;

function placeholderOrVariable(v: string): boolean {
  return PLACEHOLDER.test(v) || VARIABLE_REFERENCE.test(v);
}

/** Values after `Bearer`, in prose or code, that are not tokens. */
function notABearerToken(v: string): boolean {
  return placeholderOrVariable(v) || looksLikeCode(v) || PATH_OR_URL.test(v);
}

/** Longest unquoted generic value judged, in characters (a longer run is cut here). */
const GENERIC_VALUE_MAX = 256;

const SPACE = /\s/;
const isSpace = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c <= 0x20 || (c > 0x7e && SPACE.test(text[i]!));
};
/** `[A-Za-z_]` */
const isNameStart = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
/** `[A-Za-z0-9_.-]` */
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;

/**
 * The end of an unquoted generic value that starts at `start` (contract §4: in `KEY=value`
 * syntax the value runs to whitespace or the end of the line, so `&`, `;`, `,`, `(`, `<`, `>`
 * and backticks inside it are part of it, and its entropy is judged on the whole run). The run
 * stops earlier only where the text is plainly structure, not value:
 * - at a `"` or `'` (a string in code: `r'…'`, `x=a+"b"`);
 * - at `&`, `;` or `,` followed by the next `name=` assignment (`;expires=3600`, `,port=5432`);
 * - at a shell `&&` or `||`;
 * - at a `)`, `]` or `}` that closes a bracket opened before the value (`f(password=…)`,
 *   `${VAR:-default}`);
 * - in a URL query (the key follows `?` or `&`), at `&` and `#`.
 * Then a trailing `,`, `;`, `&`, an unmatched `>` or backtick, and sentence punctuation after
 * one of those are dropped: they belong to the code or prose around the value.
 * At most {@link GENERIC_VALUE_MAX} characters are looked at (plus one capped name look-ahead).
 */
function genericValueEnd(text: string, start: number, inQuery: boolean): number {
  const limit = Math.min(text.length, start + GENERIC_VALUE_MAX);
  let parens = 0;
  let brackets = 0;
  let braces = 0;
  let angles = 0;
  let backticks = 0;
  let end = start;
  scan: for (; end < limit; end++) {
    if (isSpace(text, end)) break;
    const c = text[end]!;
    const next = end + 1 < text.length ? text.charCodeAt(end + 1) : -1;
    switch (c) {
      case "(":
        parens++;
        break;
      case "[":
        brackets++;
        break;
      case "{":
        braces++;
        break;
      case ")":
        if (parens-- === 0) break scan;
        break;
      case "]":
        if (brackets-- === 0) break scan;
        break;
      case "}":
        if (braces-- === 0) break scan;
        break;
      case "<":
        angles++;
        break;
      case ">":
        angles--;
        break;
      // A quote ends the value: `r'…'`, `f"…"` and `x="a"+y` are code. A backtick does not.
      case '"':
      case "'":
        break scan;
      case "`":
        backticks++;
        break;
      case "#":
        if (inQuery) break scan;
        break;
      case "|":
        if (next === 0x7c) break scan;
        break;
      case "&":
      case ";":
      case ",": {
        if (c === "&" && (inQuery || next === 0x26)) break scan;
        if (!isNameStart(next)) break;
        // The next `name=` assignment. Names between separators never overlap, and each
        // look-ahead is capped: linear.
        const cap = Math.min(text.length, end + 2 + GENERIC_VALUE_MAX);
        let k = end + 2;
        while (k < cap && isNameChar(text.charCodeAt(k))) k++;
        if (text[k] === "=") break scan;
        break;
      }
    }
  }
  const droppable = (at: number): boolean => {
    const c = text[at]!;
    return (
      c === "," ||
      c === ";" ||
      c === "&" ||
      (c === ">" && angles < 0) ||
      (c === "`" && backticks % 2 === 1)
    );
  };
  const drop = (): void => {
    end--;
    const c = text[end]!;
    if (c === ">") angles++;
    else if (c === "`") backticks--;
  };
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
 * generic-secret's refine: quoted values are taken as matched; an unquoted value is widened to
 * its whole run ({@link genericValueEnd}) and must then be 8 characters or more. A run that
 * begins with a nested assignment (`password: admin_pw=…`) is judged on that assignment's value.
 */
function refineGenericValue(text: string, m: RegExpExecArray, start: number, end: number): [number, number] | null {
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

/** A list of words (`read,write,admin`, `a|b`): names, not a secret. */
function wordList(v: string): boolean {
  const parts = v.split(/[,;&|]+/).filter((p) => p !== "");
  return parts.length > 1 && parts.every((p) => looksLikeCode(p));
}

/**
 * url-password's allow-list. A password may hold a raw `?` or `#` (`S3cr#tPassw0rd`): people
 * paste them unencoded. But `host:8443?next=joe@example.com` is a port followed by a query, not
 * a password: a candidate whose part before the first `?` or `#` is a port number or a
 * placeholder is kept.
 */
function notAUrlPassword(v: string): boolean {
  if (placeholderOrVariable(v)) return true;
  const cut = v.search(/[?#]/);
  if (cut === -1) return false;
  const head = v.slice(0, cut);
  return /^\d+$/.test(head) || (head !== "" && placeholderOrVariable(head));
}

const GENERIC_KEY =
  "(?:pass(?:word|wd|phrase)|secret|token|api[_.-]?key|apikey|access[_.-]?key|auth[_.-]?key|private[_.-]?key|secret[_.-]?key|credentials?)";

/**
 * The rule table, in priority order: where two rules find overlapping secrets, the earlier
 * rule wins (vendor shapes before `bearer-token` and `generic-secret`). Rules follow contract
 * §4's families; the shapes are our own, after gitleaks' (MIT) rule ideas.
 */
export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    id: "private-key",
    description: "PEM/OpenSSH/PGP private key blocks (BEGIN ... PRIVATE KEY ... END), whole block",
    keywords: ["private key"],
    pattern: re(
      "-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:(?:(?!-----(?:BEGIN|END))[\\s\\S])*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|(?:(?:\\\\n|\\r?\\n)[ \\t]*[A-Za-z0-9+/=]{16,})+)",
    ),
    // Documentation shows the armour around "..."; a real key has a body.
    allow: (s) => (s.replace(/-----[^-]*-----|\\n|\s/g, "").match(/[A-Za-z0-9+/]/g)?.length ?? 0) < 32,
  },
  {
    id: "anthropic-api-key",
    description: "Anthropic API and admin keys (sk-ant-api03-..., sk-ant-admin01-...)",
    keywords: ["sk-ant-"],
    pattern: re(`${LD}sk-ant-[a-z]{2,8}\\d{2}-[A-Za-z0-9_-]{32,}${RD}`),
  },
  {
    id: "openai-api-key",
    description: "OpenAI API keys (sk-..., sk-proj-..., sk-svcacct-..., sk-admin-...)",
    keywords: ["sk-"],
    pattern: re(`${LD}sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{32,}${RD}`),
    entropy: 3.5,
    // `sk-learn-and-other-kebab-words` is a name, not a key.
    allow: (s) => /^sk-[a-z]+(?:-[a-z]+)+$/.test(s),
  },
  {
    id: "github-token",
    description: "GitHub classic personal access tokens (ghp_ + 36)",
    keywords: ["ghp_"],
    pattern: re(`${L}ghp_[A-Za-z0-9]{36}${R}`),
  },
  {
    id: "github-oauth-token",
    description: "GitHub OAuth access tokens (gho_ + 36)",
    keywords: ["gho_"],
    pattern: re(`${L}gho_[A-Za-z0-9]{36}${R}`),
  },
  {
    id: "github-app-token",
    description: "GitHub App user-to-server and installation tokens (ghu_, ghs_ + 36)",
    keywords: ["ghu_", "ghs_"],
    pattern: re(`${L}gh[us]_[A-Za-z0-9]{36}${R}`),
  },
  {
    id: "github-refresh-token",
    description: "GitHub refresh tokens (ghr_ + 36 or more)",
    keywords: ["ghr_"],
    pattern: re(`${L}ghr_[A-Za-z0-9]{36,80}${R}`),
  },
  {
    id: "github-fine-grained-token",
    description: "GitHub fine-grained personal access tokens (github_pat_...)",
    keywords: ["github_pat_"],
    pattern: re(`${L}github_pat_[A-Za-z0-9_]{50,120}${R}`),
  },
  {
    id: "gitlab-token",
    description: "GitLab personal, OAuth, feed, CI job and other tokens (glpat-, gloas-, glft-, glcbt-, ...)",
    keywords: ["glpat-", "gloas-", "glsoat-", "glft-", "glcbt-", "glimt-", "glagent-", "glwt-", "glffct-"],
    pattern: re(`${LD}gl(?:pat|oas|soat|ft|cbt|imt|agent|wt|ffct)-[A-Za-z0-9_.-]{20,}${RD}`),
  },
  {
    id: "gitlab-deploy-token",
    description: "GitLab deploy tokens (gldt-...)",
    keywords: ["gldt-"],
    pattern: re(`${LD}gldt-[A-Za-z0-9_-]{20,}${RD}`),
  },
  {
    id: "gitlab-runner-token",
    description: "GitLab runner authentication and registration tokens (glrt-..., GR1348941...)",
    keywords: ["glrt-", "gr1348941"],
    pattern: re(`${LD}(?:glrt-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20,})${RD}`),
  },
  {
    id: "gitlab-pipeline-token",
    description: "GitLab pipeline trigger tokens (glptt- + 40 hex)",
    keywords: ["glptt-"],
    pattern: re(`${LD}glptt-[0-9a-f]{40}${RD}`),
  },
  {
    id: "slack-token",
    description: "Slack bot, user, legacy, refresh and configuration tokens (xoxb-, xoxp-, xoxa-, xoxe-, ...)",
    keywords: ["xox"],
    pattern: re(`${LD}(?:xoxe\\.)?xox[abposre]-\\d+-[A-Za-z0-9-]{10,}${RD}`),
  },
  {
    id: "slack-app-token",
    description: "Slack app-level tokens (xapp-...)",
    keywords: ["xapp-"],
    pattern: re(`${LD}xapp-\\d+-[A-Za-z0-9-]{20,}${RD}`),
  },
  {
    id: "slack-webhook",
    description: "Slack incoming-webhook and workflow URLs (the path after hooks.slack.com/...)",
    keywords: ["hooks.slack.com"],
    pattern: re("hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<s>[A-Za-z0-9+/_-]{20,})"),
  },
  {
    id: "discord-webhook",
    description: "Discord webhook URLs (the id and token after /api/webhooks/)",
    keywords: ["/api/webhooks/"],
    pattern: re("discord(?:app)?\\.com/api/webhooks/(?<s>\\d{5,}/[A-Za-z0-9_-]{40,})"),
  },
  {
    id: "stripe-key",
    description: "Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_)",
    keywords: ["k_live_", "k_test_", "k_prod_"],
    pattern: re(`${L}[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,}${R}`),
  },
  {
    id: "stripe-webhook-secret",
    description: "Stripe webhook signing secrets (whsec_...)",
    keywords: ["whsec_"],
    pattern: re(`${L}whsec_[A-Za-z0-9+/=]{24,}`),
  },
  {
    id: "google-api-key",
    description: "Google API keys (AIza + 35)",
    keywords: ["aiza"],
    pattern: re(`${LD}AIza[0-9A-Za-z_-]{35}${RD}`),
  },
  {
    id: "google-oauth-client-secret",
    description: "Google OAuth client secrets (GOCSPX-...)",
    keywords: ["gocspx-"],
    pattern: re(`${LD}GOCSPX-[A-Za-z0-9_-]{28}${RD}`),
  },
  {
    id: "google-oauth-token",
    description: "Google OAuth access tokens (ya29. ...)",
    keywords: ["ya29."],
    pattern: re(`${LD}ya29\\.[0-9A-Za-z_-]{30,}${RD}`),
  },
  {
    id: "aws-access-key-id",
    description: "AWS access key ids (AKIA, ASIA, ABIA, ACCA, A3T + 16); ids ending in EXAMPLE are kept",
    keywords: ["akia", "asia", "abia", "acca", "a3t"],
    pattern: re(`${L}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}${R}`),
  },
  {
    id: "aws-secret-access-key",
    description: "AWS secret access keys (40 characters) assigned to an aws...secret name",
    keywords: ["aws"],
    pattern: re(
      `aws[\\w.-]{0,20}?secret[\\w.-]{0,20}?["'\`]?\\s*(?:=|:|=>)\\s*["'\`]?(?<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
      "i",
    ),
    entropy: 3.5,
  },
  {
    id: "azure-storage-key",
    description: "Azure storage and service-bus keys in connection strings (AccountKey=, SharedAccessKey=)",
    keywords: ["accountkey", "sharedaccesskey"],
    pattern: re("(?:AccountKey|SharedAccessKey)\\s*=\\s*(?<s>[A-Za-z0-9+/]{40,}={0,2})", "i"),
  },
  {
    id: "npm-token",
    description: "npm access tokens (npm_ + 36)",
    keywords: ["npm_"],
    pattern: re(`${L}npm_[A-Za-z0-9]{36}${R}`),
  },
  {
    id: "pypi-token",
    description: "PyPI upload tokens (pypi-AgEIcHlwaS5vcmc...)",
    keywords: ["pypi-ageichlwas5vcmc"],
    pattern: re(`${LD}pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}${RD}`),
  },
  {
    id: "huggingface-token",
    description: "Hugging Face access tokens (hf_ + 34)",
    keywords: ["hf_"],
    pattern: re(`${L}hf_[A-Za-z0-9]{34}${R}`),
    entropy: 3.5,
  },
  {
    id: "sendgrid-api-key",
    description: "SendGrid API keys (SG.<22>.<43>)",
    keywords: ["sg."],
    pattern: re(`${LD}SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}${RD}`),
  },
  {
    id: "twilio-api-key",
    description: "Twilio API key SIDs (SK + 32 hex)",
    keywords: ["sk"],
    pattern: re(`${L}SK[0-9a-fA-F]{32}${R}`),
  },
  {
    id: "digitalocean-token",
    description: "DigitalOcean personal, OAuth and refresh tokens (dop_v1_, doo_v1_, dor_v1_)",
    keywords: ["_v1_"],
    pattern: re(`${L}do[opr]_v1_[a-f0-9]{64}${R}`),
  },
  {
    id: "docker-hub-token",
    description: "Docker Hub personal access tokens (dckr_pat_...)",
    keywords: ["dckr_pat_"],
    pattern: re(`${L}dckr_pat_[A-Za-z0-9_-]{27,}${RD}`),
  },
  {
    id: "vault-token",
    description: "HashiCorp Vault service, batch and recovery tokens (hvs., hvb., hvr.)",
    keywords: ["hvs.", "hvb.", "hvr."],
    pattern: re(`${LD}hv[sbr]\\.[A-Za-z0-9_-]{24,}${RD}`),
  },
  {
    id: "terraform-cloud-token",
    description: "Terraform Cloud / Enterprise API tokens (<14>.atlasv1.<60+>)",
    keywords: ["atlasv1"],
    pattern: re(`${LD}[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_-]{60,}${RD}`),
  },
  {
    id: "shopify-token",
    description: "Shopify access, custom-app and private-app tokens and shared secrets (shpat_, shpca_, shppa_, shpss_)",
    keywords: ["shpat_", "shpca_", "shppa_", "shpss_"],
    pattern: re(`${L}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${R}`),
  },
  {
    id: "linear-api-key",
    description: "Linear API keys (lin_api_ + 40)",
    keywords: ["lin_api_"],
    pattern: re(`${L}lin_api_[A-Za-z0-9]{40}${R}`),
  },
  {
    id: "postman-api-key",
    description: "Postman API keys (PMAK-<24 hex>-<34 hex>)",
    keywords: ["pmak-"],
    pattern: re(`${LD}PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}${RD}`),
  },
  {
    id: "telegram-bot-token",
    description: "Telegram bot tokens (<bot id>:AA<33>)",
    keywords: [":aa"],
    pattern: re(`(?<![0-9])\\d{8,10}:AA[A-Za-z0-9_-]{33}${RD}`),
  },
  {
    id: "age-secret-key",
    description: "age encryption secret keys (AGE-SECRET-KEY-1...)",
    keywords: ["age-secret-key-1"],
    pattern: re(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
  },
  {
    id: "jwt",
    description: "JSON Web Tokens (eyJ<header>.eyJ<payload>.<signature>)",
    keywords: ["eyj"],
    pattern: re(`${LD}eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]*${RD}`),
  },
  {
    id: "basic-auth",
    description: "HTTP Basic credentials after `Authorization: Basic`",
    keywords: ["basic"],
    pattern: re("authorization[\"']?\\s*[:=]\\s*[\"']?basic\\s+(?<s>[A-Za-z0-9+/]{8,}={0,2})", "i"),
    allow: (s) => looksLikeCode(s),
  },
  {
    id: "bearer-token",
    description: "bearer tokens after `Bearer ` (16 or more token characters, not a variable or a word)",
    keywords: ["bearer"],
    pattern: re("(?<![A-Za-z0-9_])bearer\\s+(?<s>[A-Za-z0-9._~+/-]{16,}=*)", "i"),
    entropy: 3,
    allow: notABearerToken,
  },
  {
    id: "url-password",
    weakIsSecret: true,
    description: "the password in a URL or DSN (scheme://user:PASSWORD@host, raw ? and # included), password only",
    keywords: ["://"],
    pattern: re(
      "(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\\s:/?#@\"'<>\\[\\]`]*:(?<s>[^\\s@/\"'<>`]+)@(?=[^\\s@/?#\"'<>`])",
    ),
    allow: notAUrlPassword,
  },
  {
    id: "connection-string-password",
    weakIsSecret: true,
    description: "the password in a key=value connection string (Server=...;Password=...), password only",
    keywords: ["password", "pwd"],
    pattern: re(
      "(?:(?:server|host|data source|address|addr|uid|user id|username|user|database|initial catalog)\\s*=[^;\\n]{0,256};(?:[^;\\n]{0,256};){0,16}?\\s*(?:password|pwd)\\s*=\\s*(?<s>[^;\\s\"'<>]{1,256})|(?<![\\w-])(?:password|pwd)\\s*=\\s*(?<s1>[^;\\s\"'<>]{1,256})\\s*;[^\\n]{0,512}?(?:server|host|data source|address|uid|user id|database)\\s*=)",
      "i",
    ),
    allow: placeholderOrVariable,
  },
  {
    id: "generic-secret",
    description: "password/secret/token/api_key = value assignments (=, :, quotes, export, JSON, YAML); an unquoted value runs to whitespace; 8+ characters with entropy >= 3.5 bits/char",
    keywords: ["pass", "secret", "token", "key", "credential"],
    pattern: re(
      `(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*?${GENERIC_KEY}["'\`]?(?:\\s*:\\s*string)?\\s*(?::=|=>|=|:)(?![=:>])\\s*(?:"(?<s>[^"\\s]{8,256})"|'(?<s1>[^'\\s]{8,256})'|\`(?<s2>[^\`\\s]{8,256})\`|(?<s3>[^\\s"'\`,;&<>(){}\\[\\]=:]))`,
      "i",
    ),
    entropy: 3.5,
    refine: refineGenericValue,
    // `NAME=` is the next assignment on the line, not a value ending in base64 padding.
    allow: (v) =>
      placeholderOrVariable(v) ||
      looksLikeCode(v.replace(/=+$/, "")) ||
      wordList(v) ||
      PATH_OR_URL.test(v) ||
      DIGEST.test(v) ||
      VERSION.test(v),
  },
];

interface Span {
  start: number;
  end: number;
  rule: number;
}

function secretSpan(m: RegExpExecArray): [number, number] {
  const groups = m.indices?.groups;
  if (groups) {
    for (const name in groups) {
      const g = groups[name];
      if (name.startsWith("s") && g) return g;
    }
  }
  return [m.index, m.index + m[0].length];
}

/** Index of the first span starting at or after `start` (binary search over sorted spans). */
function insertionPoint(spans: readonly Span[], start: number): number {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid]!.start < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Code points in text[from, to) (both UTF-16 offsets). */
function codePoints(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    // A low surrogate continues the code point its high surrogate started.
    if (c < 0xdc00 || c > 0xdfff || i === from) n++;
  }
  return n;
}

/**
 * Replaces each secret in `text` with `<redacted: KIND>`; pure.
 *
 * Findings are positions in the ORIGINAL text, in order: 1-based line, 1-based column and
 * length in Unicode code points. Rules run in {@link REDACTION_RULES} order; a secret that
 * overlaps one found by an earlier rule is left to that rule. Idempotent: the placeholders
 * never match a rule. Contract §4.
 *
 * `exemptLines` (1-based) are left as they are and reported nowhere: the anchor lines that
 * `write` filled itself or that equal what `anchors` reports at that moment (ruling 6).
 */
export function redactText(text: string, opts: { exemptLines?: ReadonlySet<number> } = {}): { text: string; findings: RedactionFinding[] } {
  const lower = text.toLowerCase();
  const spans: Span[] = [];
  for (let r = 0; r < REDACTION_RULES.length; r++) {
    const rule = REDACTION_RULES[r]!;
    if (rule.keywords && !rule.keywords.some((k) => lower.includes(k))) continue;
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const [matchStart, matchEnd] = secretSpan(m);
      const refined: [number, number] | null = rule.refine ? rule.refine(text, m, matchStart, matchEnd) : [matchStart, matchEnd];
      const [start, end] = refined ?? [matchStart, matchEnd];
      const secret = text.slice(start, end);
      const entropy = refined === null || end <= start ? 0 : shannonEntropy(secret);
      const kept =
        refined === null ||
        end <= start ||
        globallyAllowed(secret) ||
        (!rule.weakIsSecret && filler(entropy)) ||
        (rule.entropy !== undefined && entropy < rule.entropy) ||
        rule.allow?.(secret) === true;
      if (kept) {
        // A kept value may begin the next match (`password: admin_pw=<secret>`): scan again
        // from inside this one instead of after it.
        pattern.lastIndex = Math.max(m.index + 1, matchStart);
        continue;
      }
      // Accepted spans never overlap, so sorted by start they are sorted by end too: the two
      // neighbours of the insertion point are the only possible overlaps.
      const at = insertionPoint(spans, start);
      const before = spans[at - 1];
      const after = spans[at];
      if ((before === undefined || before.end <= start) && (after === undefined || end <= after.start)) {
        spans.splice(at, 0, { start, end, rule: r });
      }
      // A refined span may run past the match; nothing inside it can be a separate secret.
      if (end > pattern.lastIndex) pattern.lastIndex = end;
    }
  }
  if (spans.length === 0) return { text, findings: [] };

  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const findings: RedactionFinding[] = [];
  const out: string[] = [];
  let cursor = 0;
  let line = 0;
  // Columns are counted from the previous finding on the same line: one long line with many
  // secrets stays linear.
  let colFrom = 0;
  let col = 0;
  for (const s of spans) {
    while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= s.start) {
      line++;
      colFrom = lineStarts[line]!;
      col = 0;
    }
    col += codePoints(text, colFrom, s.start);
    colFrom = s.start;
    if (opts.exemptLines?.has(line + 1)) continue;
    const kind = REDACTION_RULES[s.rule]!.id;
    findings.push({ kind, line: line + 1, column: col + 1, length: codePoints(text, s.start, s.end) });
    out.push(text.slice(cursor, s.start), `<redacted: ${kind}>`);
    cursor = s.end;
  }
  out.push(text.slice(cursor));
  return { text: out.join(""), findings };
}

/** At most this many findings are named in the report line; the rest are counted. */
const REPORT_LIMIT = 20;

/**
 * The stderr line for a redaction, shared by `write`, `promote` and `redact` (contract §4):
 * `redacted N secret(s): KIND (line L), …`. Never holds a value. Callers print it only when
 * `findings` is non-empty; past 20 findings the rest are counted (`… and N more`).
 */
export function formatRedactionReport(findings: readonly RedactionFinding[]): string {
  const head = `redacted ${findings.length} secret(s)`;
  if (findings.length === 0) return head;
  const named = findings.slice(0, REPORT_LIMIT).map((f) => `${f.kind} (line ${f.line})`);
  const more = findings.length > REPORT_LIMIT ? `, … and ${findings.length - REPORT_LIMIT} more` : "";
  return `${head}: ${named.join(", ")}${more}`;
}
