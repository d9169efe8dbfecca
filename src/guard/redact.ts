/**
 * Secret redaction (docs/design.md#redaction): every text that `write`, `promote` and `redact` handle passes
 * through {@link redactText} before anything touches disk. Pure: strings in, strings out.
 *
 * The rules are our own, written after studying the ideas of gitleaks' rule file (MIT,
 * https://github.com/gitleaks/gitleaks): a fixed prefix or shape per vendor, a cheap keyword
 * prefilter, an entropy floor where the shape alone is weak, and allow-lists for what handoffs
 * are full of (git ids, SHA-256 tokens, UUIDs, variable references, placeholders). The parts
 * are split by family: redact-kit.ts (rule shape, boundaries, allow-lists), redact-syntax.ts
 * (PEM blocks, generic values, tables, cookies), redact-vendors.ts (gitleaks v8's other default
 * families; docs/design.md#redaction).
 */
import {
  L,
  LD,
  REDACTION_WORK,
  PATH_OR_URL,
  R,
  RD,
  filler,
  globallyAllowed,
  looksLikeCode,
  notAnAssignedSecret,
  placeholderOrVariable,
  proseLike,
  re,
  rule,
  shannonEntropy,
  type RedactionRule,
} from "./redact-kit.ts";
import { continuedRuns, decodedRuns, splitRuns, wrappedRuns } from "./redact-derived.ts";
import { awsUnnamedSpans, cookieSpans, genericValueEnd, keyNameValueKept, notACliPassword, refineGenericValue, refinePem, tableSpans } from "./redact-syntax.ts";
import { transcriptSpans } from "./redact-transcript.ts";
import { VENDOR_RULES } from "./redact-vendors.ts";

export { REDACTION_WORK, shannonEntropy, type RedactionRule };

/** One secret found by redaction (docs/design.md#redaction). Lines and columns are 1-based; length in characters. */
export interface RedactionFinding {
  /** The rule id, kebab-case (e.g. `github-token`); also the KIND in `<redacted: KIND>`. */
  kind: string;
  /** 1-based line of the secret's first character, in the original text. */
  line: number;
  /** 1-based column of the secret's first character, counted in Unicode code points. */
  column: number;
  /** Length of the original secret, in Unicode code points. */
  length: number;
  /** Lines the secret spans, present only when more than one (a key block). */
  lines?: number;
}

/** Options of {@link redactText}. */
export interface RedactOptions {
  /**
   * 1-based line numbers left untouched (docs/design.md#redaction: anchor lines `write` filled or
   * that equal what `anchors` reports). A secret that starts or ends on one of them is kept.
   */
  exemptLines?: ReadonlySet<number>;
  /**
   * Transcript text (a checkpoint's items): the transcript-only rules run too (docs/design.md#redaction,
   * guard/redact-transcript.ts). Never for `redact`, `write` or `promote`: use
   * {@link redactTranscript}.
   */
  transcript?: boolean;
}

/** Values after `Bearer`, in prose or code, that are not tokens. */
function notABearerToken(v: string): boolean {
  return placeholderOrVariable(v) || looksLikeCode(v) || PATH_OR_URL.test(v);
}

/**
 * url-password's allow-list. A password may hold a raw `/`, `?` or `#` (`S3cr#tPassw0rd`, a
 * third of random base64 passwords hold a `/`): people paste them unencoded. But
 * `host:8443/path@x` and `host:8443?next=joe@example.com` are a port followed by a path or a
 * query, not a password: a candidate whose part before the first `/`, `?` or `#` is a port
 * number or a placeholder is kept.
 */
function notAUrlPassword(v: string): boolean {
  if (placeholderOrVariable(v)) return true;
  const cut = v.search(/[/?#]/);
  if (cut === -1) return false;
  const head = v.slice(0, cut);
  return /^\d+$/.test(head) || (head !== "" && placeholderOrVariable(head));
}

/**
 * The names the generic rule knows, ending the assignment's name: `…password`, `…passwd`,
 * `…passphrase`, `…_PASS` and `…_PWD` (not `bypass`), `…secret`, `…token`, api/access/auth/
 * private/secret keys, `…credentials`, and a bare `…_KEY` (group `k`; docs/design.md#redaction).
 */
const GENERIC_KEY =
  "(?:pass(?:word|wd|phrase)|(?<![A-Za-z0-9])(?:pass|pwd)|(?<=[A-Za-z])(?<e>pwd|passwd|pass)|secret|token|api[_.-]?key|apikey|access[_.-]?key|auth[_.-]?key|private[_.-]?key|secret[_.-]?key|credentials?|(?<k>[_.-]key))";

/**
 * An environment name glued to `PWD`/`PASS`/`PASSWD` (`PGPWD`, `SSHPASS`; docs/design.md#redaction): only an
 * upper-case name counts (`bypass=…`, `compass=…` are words), and never `BYPASS`/`COMPASS`.
 */
function notAGluedEnvName(m: RegExpExecArray): boolean {
  if (m.groups?.["e"] === undefined) return false;
  const name = /^[A-Za-z0-9_.-]*/.exec(m[0])![0];
  return !/^[A-Z0-9_]*[A-Z](?:PWD|PASSWD|PASS)$/.test(name) || /(?:BY|COM|SUR|TRES|ENCOM)PASS$/.test(name);
}

/** A command-line value: quoted values are matched by their own groups. */
const CLI_VALUE = "[^\\s\"'`;|&<>]{1,256}";

/**
 * Password flags of common clients (`sshpass -p`, `docker login -p`, `az login -p`, `redis-cli
 * -a`, `ldapsearch -w`, `sqlcmd -P`, `zip -P`, `htpasswd -b`, `smbclient -U user%pass`) and a
 * password piped to `sudo -S`: each needs its command name on the line, so `-p 8080` elsewhere stays.
 */
const CLI_PASSWORD_FLAGS = [
  `\\bsshpass\\b[^\\n]{0,64}?[ \\t]-p[ \\t]*(?<s5>${CLI_VALUE})`,
  `\\b(?:docker|podman|nerdctl|buildah|helm[ \\t]+registry|oras)[ \\t]+login\\b` +
    `[^\\n]{0,256}?[ \\t]-p[ \\t]*(?<s6>${CLI_VALUE})`,
  `\\baz[ \\t]+login\\b[^\\n]{0,256}?[ \\t]-p[ \\t]*(?<s7>${CLI_VALUE})`,
  `\\bredis-cli\\b[^\\n]{0,256}?[ \\t]-a[ \\t]*(?<s8>${CLI_VALUE})`,
  `\\bldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop)\\b` +
    `[^\\n]{0,256}?[ \\t]-w[ \\t]*(?<s9>${CLI_VALUE})`,
  `\\b(?:sqlcmd|bcp|osql|isql)\\b[^\\n]{0,256}?[ \\t]-P[ \\t]*(?<s10>${CLI_VALUE})`,
  `\\b(?:zip|unzip|zipcloak)\\b[^\\n]{0,256}?[ \\t]-P[ \\t]*(?<s11>${CLI_VALUE})`,
  `\\bhtpasswd[ \\t]+-(?=[A-Za-z]*b)` +
    `(?:(?=[A-Za-z]*n)[A-Za-z]+[ \\t]+[^\\s;|&<>]+|[A-Za-z]+[ \\t]+[^\\s;|&<>]+[ \\t]+[^\\s;|&<>]+)` +
    `[ \\t]+(?<s12>${CLI_VALUE})`,
  `\\b(?:smbclient|rpcclient|smbmap|smbcacls|net)\\b[^\\n]{0,256}?[ \\t](?:-U[ \\t]*|--user(?:=|[ \\t]+))` +
    `["']?[^\\s%"']{1,128}%(?<s13>[^\\s"']{1,256})`,
  `\\b(?:echo|printf)[ \\t]+(?:-[a-z]+[ \\t]+)?` +
    `(?:"(?<sd>[^"\\n]{1,256})"|'(?<sq>[^'\\n]{1,256})'|(?<s14>${CLI_VALUE}))` +
    `[ \\t]*\\|[ \\t]*sudo\\b[^\\n|]{0,64}?[ \\t]-[A-Za-z]*S`,
]
  .map((p) => `|${p}`)
  .join("");

/**
 * The rule table, in priority order: where two rules find overlapping secrets, the earlier
 * rule wins (vendor shapes before `bearer-token` and `generic-secret`). Rules follow the families
 * of docs/design.md#redaction; the shapes are our own, after gitleaks' (MIT) rule ideas.
 */
export const REDACTION_RULES: readonly RedactionRule[] = [
  rule("private-key", "-----begin putty-user-key-file-", "-----BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\\d+:[^\\r\\n\\\\]{0,80}", undefined, { refine: refinePem }),
  rule("anthropic-api-key", "sk-ant-", `${LD}sk-ant-[a-z]{2,8}\\d{2}-[A-Za-z0-9_-]{80,}${RD}`),
  // `sk-` collides with prose and branch names: only the real shapes (docs/design.md#redaction); and
  // `sk-learn-and-other-kebab-words` is a name, not a key.
  rule("openai-api-key", "sk-", `${LD}sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{48}|[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})${RD}`, 3.5, {
    allow: (s) => /^sk-[a-z]+(?:-[a-z]+)+$/.test(s),
  }),
  rule("github-token", "ghp_", `${L}ghp_[A-Za-z0-9]{36}${R}`),
  rule("github-oauth-token", "gho_", `${L}gho_[A-Za-z0-9]{36}${R}`),
  rule("github-app-token", "ghu_ ghs_", `${L}gh[us]_[A-Za-z0-9]{36}${R}`),
  rule("github-refresh-token", "ghr_", `${L}ghr_[A-Za-z0-9]{36,80}${R}`),
  rule("github-fine-grained-token", "github_pat_", `${L}github_pat_[A-Za-z0-9_]{50,120}${R}`),
  rule("gitlab-token", "glpat- gloas- glsoat- glft- glcbt- glimt- glagent- glwt- glffct-", `${LD}gl(?:pat|oas|soat|ft|cbt|imt|agent|wt|ffct)-[A-Za-z0-9_.-]{20,}${RD}`),
  rule("gitlab-deploy-token", "gldt-", `${LD}gldt-[A-Za-z0-9_-]{20,}${RD}`),
  rule("gitlab-runner-token", "glrt- gr1348941", `${LD}(?:glrt-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20,})${RD}`),
  rule("gitlab-pipeline-token", "glptt-", `${LD}glptt-[0-9a-f]{40}${RD}`),
  rule("slack-token", "xox", `${LD}(?:xoxe\\.)?xox[abposre]-\\d+-[A-Za-z0-9-]{10,}${RD}`),
  rule("slack-app-token", "xapp-", `${LD}xapp-\\d+-[A-Za-z0-9-]{20,}${RD}`),
  rule("slack-webhook", "hooks.slack.com", "hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<s>[A-Za-z0-9+/_-]{20,})"),
  rule("discord-webhook", "/api/webhooks/", "discord(?:app)?\\.com/api/webhooks/(?<s>\\d{5,}/[A-Za-z0-9_-]{40,})"),
  rule("stripe-key", "k_live_ k_test_ k_prod_", `${L}[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,}${R}`),
  rule("stripe-webhook-secret", "whsec_", `${L}whsec_[A-Za-z0-9+/=]{24,}`),
  rule("google-api-key", "aiza", `${LD}AIza[0-9A-Za-z_-]{35}${RD}`),
  rule("google-oauth-client-secret", "gocspx-", `${LD}GOCSPX-[A-Za-z0-9_-]{28}${RD}`),
  rule("google-oauth-token", "ya29.", `${LD}ya29\\.[0-9A-Za-z_-]{30,}${RD}`),
  rule("aws-access-key-id", "akia asia abia acca a3t", `${L}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}${R}`),
  rule("aws-secret-access-key", "aws", `aws[\\w.-]{0,20}?secret[\\w.-]{0,20}?["'\`]?\\s*(?:=|:|=>)\\s*["'\`]?(?<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])|aws[ \\t]+configure[ \\t]+set[ \\t]+(?:[\\w.-]+\\.)?aws_secret_access_key[ \\t]+["']?(?<s1>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`, 3.5, {}, "i"),
  rule("azure-storage-key", "accountkey sharedaccesskey", "(?:AccountKey|SharedAccessKey)\\s*=\\s*(?<s>[A-Za-z0-9+/]{40,}={0,2})", undefined, {}, "i"),
  rule("npm-token", "npm_", `${L}npm_[A-Za-z0-9]{36}${R}`),
  rule("pypi-token", "pypi-ageichlwas5vcmc", `${LD}pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}${RD}`),
  rule("huggingface-token", "hf_", `${L}hf_[A-Za-z0-9]{34}${R}`, 3.5),
  rule("sendgrid-api-key", "sg.", `${LD}SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}${RD}`),
  rule("twilio-api-key", "sk", `${L}SK[0-9a-fA-F]{32}${R}`),
  rule("digitalocean-token", "_v1_", `${L}do[opr]_v1_[a-f0-9]{64}${R}`),
  rule("docker-hub-token", "dckr_pat_", `${L}dckr_pat_[A-Za-z0-9_-]{27,}${RD}`),
  rule("vault-token", "hvs. hvb. hvr.", `${LD}hv[sbr]\\.[A-Za-z0-9_-]{24,}${RD}`),
  rule("terraform-cloud-token", "atlasv1", `${LD}[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_-]{60,}${RD}`),
  rule("shopify-token", "shpat_ shpca_ shppa_ shpss_", `${L}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${R}`),
  rule("linear-api-key", "lin_api_", `${L}lin_api_[A-Za-z0-9]{40}${R}`),
  rule("postman-api-key", "pmak-", `${LD}PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}${RD}`),
  rule("telegram-bot-token", ":aa", `(?<![0-9])\\d{8,10}:AA[A-Za-z0-9_-]{33}${RD}`),
  rule("age-secret-key", "age-secret-key-1", `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
  rule("jwt", "eyj", `${LD}eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]*${RD}`),
  ...VENDOR_RULES,
  rule("basic-auth", "basic", "authorization[\"']?\\s*[:=]\\s*[\"']?basic\\s+(?<s>[A-Za-z0-9+/]{8,}={0,2})", undefined, { allow: (s) => looksLikeCode(s) }, "i"),
  rule("bearer-token", "bearer", "(?<![A-Za-z0-9_])bearer\\s+(?<s>[A-Za-z0-9._~+/-]{16,}=*)", 3, { allow: notABearerToken }, "i"),
  rule("url-password", "://", "(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\\s:/?#@\"'<>\\[\\]`]*:(?<s>[^\\s@\"'<>`]{1,256})@(?=[^\\s@/?#\"'<>`])", undefined, {
    weakIsSecret: true,
    allow: notAUrlPassword,
  }),
  rule("connection-string-password", "password pwd", "(?:(?:server|host|data source|address|addr|uid|user id|username|user|database|initial catalog)\\s*=[^;\\n]{0,256};(?:[^;\\n]{0,256};){0,16}?\\s*(?:password|pwd)\\s*=\\s*(?<s>[^;\\s\"'<>]{1,256})|(?<![\\w-])(?:password|pwd)\\s*=\\s*(?=(?<s1>[^;\\s\"'<>]{1,256}))\\k<s1>\\s*;[^\\n]{0,512}?(?:server|host|data source|address|uid|user id|database)\\s*=)", undefined, { weakIsSecret: true, allow: placeholderOrVariable }, "i"),
  rule(
    "cli-password",
    "--pass mysql mariadb curl sshpass login redis-cli ldap sqlcmd bcp osql isql zip htpasswd smbclient rpcclient " +
      "smbmap smbcacls net echo printf",
    `(?<![\\w-])--(?:password|passwd|pass|PASSWORD)(?:=|[ \\t]+)(?:"(?<s>[^"\\n]{1,256})"|'(?<s1>[^'\\n]{1,256})'|(?<s2>[^\\s"'\`;|&<>]{1,256}))` +
        `|\\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\\b[^\\n]{0,256}?[ \\t]-p(?<s3>[^\\s"'\`;|&<>]{1,256})` +
        `|\\bcurl\\b[^\\n]{0,512}?[ \\t](?:-[A-Za-z]*?u[ \\t]*|--user(?:=|[ \\t]+))["']?[^\\s:"']{1,128}:(?<s4>[^\\s"']{1,256})` +
        CLI_PASSWORD_FLAGS,
    undefined,
    {
      weakIsSecret: true,
      // An unquoted password runs like a generic value (`--password=Gq4!zR8;pL2@xV6#`).
      refine: (text, m, start, end) =>
        ["s", "s1", "sd", "sq"].some((g) => m.groups?.[g] !== undefined)
          ? [start, end]
          : [start, Math.max(end, genericValueEnd(text, start, false))],
      allow: notACliPassword,
    },
  ),
  rule("xml-password", "</ <add", `<(?<tag>(?:[A-Za-z][\\w.:-]{0,40}?)?(?:[Pp]assword|PASSWORD|[Pp]asswd|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[Kk]ey|API_?KEY|api_key))>(?<s>[^<>\\n]{1,256})</\\k<tag>>|<add\\s+key="(?:ClearText)?Password"\\s+value="(?<s1>[^"\\n]{1,256})"`, undefined, {
    weakIsSecret: true,
    // A password element holds a human password (`Summer2024!` reads as code): only variables,
    // placeholders, paths and prose are kept. Other secret elements are judged as assignments.
    allow: (v, m) =>
      m.groups?.["tag"] === undefined || /pass/i.test(m.groups["tag"])
        ? placeholderOrVariable(v) || PATH_OR_URL.test(v) || proseLike(v)
        : notAnAssignedSecret(v) || v.length < 8 || shannonEntropy(v) < 3.5,
  }),
  rule("cookie-value", "cookie", `(?<![\\w-])(?:set-)?cookie["']?[ \\t]*:[ \\t]*["']?`, 3, { spans: cookieSpans }, "i"),
  rule("table-secret", "pass pwd secret token key credential", "^\\|[^\\n]*\\|[ \\t]*\\r?\\n\\|[ \\t]*:?-{3,}[^\\n]*(?:\\r?\\n\\|[^\\n]*)*", 3.5, { spans: tableSpans }, "m"),
  rule("generic-secret", "pass pwd secret token key credential", `(?<![A-Za-z0-9_.:-])[A-Za-z0-9_.-]*?${GENERIC_KEY}["'\`]?(?:\\s*:\\s*string)?\\s*(?::=|=>|=|:)(?![=:>])\\s*(?:"(?<s>[^"\\n]{8,256})"|'(?<s1>[^'\\n]{8,256})'|\`(?<s2>[^\`\\n]{8,256})\`|[|>][+-]?\\d?[ \\t]*\\r?\\n[ \\t]+(?<s4>[^\\s][^\\n]{0,255})|(?<s3>[^\\s"'\`,;&<>(){}\\[\\]=:|]))`, 3.5, {
    refine: refineGenericValue,
    allow: (v, m) =>
      notAnAssignedSecret(v) || keyNameValueKept(v, m) || notAGluedEnvName(m) || (m.groups?.["k"] !== undefined && /(?:^|[^a-z])pub(?:lic)?[_.-]?key/i.test(m[0])),
  }, "i"),
];

interface Span {
  start: number;
  end: number;
  kind: string;
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

/** 0-based line of a UTF-16 offset (binary search over line starts). */
function lineOf(lineStarts: readonly number[], at: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (lineStarts[mid]! <= at) lo = mid;
    else hi = mid - 1;
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

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Every distinct rule keyword, listed once (several rules share `pass`, `token`, `key`…). */
let allKeywords: string[] | undefined;

/** Bits of the three-character windows a text holds (exact for ASCII windows), reused: redaction is synchronous. */
const WINDOWS = new Uint32Array(1 << 16);

/**
 * The keywords present in `lower`, each found by a native search. In a long text one pass first
 * records its three-character windows, and a keyword missing one is not searched for: 170
 * keywords then cost about one scan, not 170. A short text skips that pass, which would run in
 * the interpreter on the one call a `write` makes.
 */
function keywordsIn(lower: string): Set<string> {
  allKeywords ??= [...new Set(REDACTION_RULES.flatMap((r) => r.keywords ?? []))];
  const indexed = lower.length >= 65536;
  if (indexed) {
    WINDOWS.fill(0);
    for (let i = 0, h = 0; i < lower.length; i++) {
      h = ((h << 7) ^ lower.charCodeAt(i)) & 0x1fffff;
      WINDOWS[h >>> 5]! |= 1 << (h & 31);
    }
  }
  const windowsThere = (k: string): boolean => {
    for (let i = 0, h = 0; i < k.length; i++) {
      h = ((h << 7) ^ k.charCodeAt(i)) & 0x1fffff;
      if (i >= 2 && (WINDOWS[h >>> 5]! & (1 << (h & 31))) === 0) return false;
    }
    return true;
  };
  const found = new Set<string>();
  for (const k of allKeywords) if ((!indexed || windowsThere(k)) && lower.includes(k)) found.add(k);
  return found;
}

/** True when the rule keeps `secret` (global allow-list, filler, entropy floor, rule allow-list). */
function keptByRule(rule: RedactionRule, secret: string, m: RegExpExecArray): boolean {
  // A value holding `<redacted: KIND>` was judged by an earlier pass: redaction is idempotent.
  if (secret === "" || globallyAllowed(secret) || secret.includes("<redacted")) return true;
  const entropy = shannonEntropy(secret);
  return (!rule.weakIsSecret && filler(entropy)) || (rule.entropy !== undefined && entropy < rule.entropy) || rule.allow?.(secret, m) === true;
}

/**
 * Runs `rules` over `text` (keyword-gated), calling `found` for each secret a rule does not
 * keep; `skip` keeps a span for the caller's own reason (an anchor line). Each search is
 * counted in {@link REDACTION_WORK}.
 */
function collectSpans(
  text: string,
  rules: readonly RedactionRule[],
  skip: (rule: RedactionRule, start: number, end: number) => boolean,
  found: (start: number, end: number, rule: RedactionRule) => void,
): void {
  const present = keywordsIn(text.toLowerCase());
  const work = REDACTION_WORK;
  for (const rule of rules) {
    if (rule.keywords && !rule.keywords.some((k) => present.has(k))) continue;
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    for (;;) {
      const from = pattern.lastIndex;
      const m = pattern.exec(text);
      work.regexRuns++;
      work.charsScanned += (m === null ? text.length : m.index + m[0].length) - from;
      if (m === null) break;
      if (m[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      if (rule.spans) {
        const scan = rule.spans(text, m);
        for (const [start, end] of scan.spans) {
          if (end > start && !skip(rule, start, end) && !keptByRule(rule, text.slice(start, end), m)) found(start, end, rule);
        }
        // What the scanner read is done: a header repeated on one line is not read again.
        if (scan.end > pattern.lastIndex) pattern.lastIndex = scan.end;
        continue;
      }
      const [matchStart, matchEnd] = secretSpan(m);
      const refined: [number, number] | null = rule.refine ? rule.refine(text, m, matchStart, matchEnd) : [matchStart, matchEnd];
      if (refined === null || refined[1] <= refined[0] || skip(rule, refined[0], refined[1]) || keptByRule(rule, text.slice(refined[0], refined[1]), m)) {
        // A kept value may begin the next match (`password: admin_pw=<secret>`): scan again
        // from inside this one instead of after it.
        pattern.lastIndex = Math.max(m.index + 1, matchStart);
        continue;
      }
      const [start, end] = refined;
      found(start, end, rule);
      // A refined span may run past the match; nothing inside it can be a separate secret.
      if (end > pattern.lastIndex) pattern.lastIndex = end;
    }
  }
}

/**
 * Rules that judge the value by its name or syntax around it, not by a vendor's exact shape:
 * they never fire on an anchor line (docs/design.md#redaction) nor on a decoded or joined form.
 */
const CONTEXT_RULES = new Set([
  "private-key",
  "aws-secret-access-key",
  "azure-storage-key",
  "docker-config-auth",
  "basic-auth",
  "bearer-token",
  "url-password",
  "connection-string-password",
  "cli-password",
  "xml-password",
  "cookie-value",
  "table-secret",
  "generic-secret",
  "gitlab-session-cookie",
  "sidekiq-secret",
]);

/** The vendors' exact token shapes (a prefix, a length, a character set). */
const VENDOR_SHAPE: ReadonlySet<string> = new Set(REDACTION_RULES.map((r) => r.id).filter((id) => !CONTEXT_RULES.has(id)));

/** What a decoded or joined form is judged by: the vendor shapes and key blocks. */
const DERIVED_RULES: readonly RedactionRule[] = REDACTION_RULES.filter((r) => VENDOR_SHAPE.has(r.id) || r.id === "private-key");

/** A token prefix and words joined by hyphens (`<prefix>-rotate-the-deploy-token`) name a branch, never a token. */
function hyphenJoinedWords(s: string): boolean {
  const parts = s.split("-");
  return parts.length > 2 && parts.every((p) => /^(?:[A-Za-z]+|\d+)$/.test(p));
}

/**
 * Replaces each secret in `text` with `<redacted: KIND>`; pure.
 *
 * Findings are positions in the ORIGINAL text, in order: 1-based line, 1-based column and
 * length in Unicode code points, and `lines` when a secret spans more than one line. Rules run
 * in {@link REDACTION_RULES} order; a secret that overlaps one found by an earlier rule is left
 * to that rule. A secret starting or ending on a line of `options.exemptLines` is kept.
 * Idempotent: the placeholders never match a rule. Linear in the text's length. docs/design.md#redaction.
 */
export function redactText(text: string, options: RedactOptions = {}): { text: string; findings: RedactionFinding[] } {
  const exempt = options.exemptLines !== undefined && options.exemptLines.size > 0 ? options.exemptLines : undefined;
  let lineStarts: number[] | undefined;
  const onExemptLine = (start: number, end: number): boolean => {
    if (exempt === undefined) return false;
    lineStarts ??= lineStartsOf(text);
    return exempt.has(lineOf(lineStarts, start) + 1) || exempt.has(lineOf(lineStarts, Math.max(start, end - 1)) + 1);
  };
  const spans: Span[] = [];
  const accept = (start: number, end: number, kind: string): void => {
    // Accepted spans never overlap, so sorted by start they are sorted by end too: the two
    // neighbours of the insertion point are the only possible overlaps.
    const at = insertionPoint(spans, start);
    const before = spans[at - 1];
    const after = spans[at];
    if ((before === undefined || before.end <= start) && (after === undefined || end <= after.start)) {
      spans.splice(at, 0, { start, end, kind });
    }
  };
  // An anchor line keeps its branch and paths (docs/design.md#redaction) unless a vendor's exact token shape
  // sits in them (docs/decisions/redaction-prefixes.md).
  const kept = (rule: RedactionRule, start: number, end: number): boolean =>
    onExemptLine(start, end) && !(VENDOR_SHAPE.has(rule.id) && !hyphenJoinedWords(text.slice(start, end)));
  collectSpans(text, REDACTION_RULES, kept, (start, end, rule) => accept(start, end, rule.id));

  // An AWS secret with no name: only beside an access key id or in a credentials file, and
  // after every other rule (a `Basic` value near an id is basic-auth's).
  for (const [start, end] of awsUnnamedSpans(text)) {
    const v = text.slice(start, end);
    if (!onExemptLine(start, end) && !globallyAllowed(v) && shannonEntropy(v) >= 3.5) accept(start, end, "aws-secret-access-key");
  }
  // Wrapped and split tokens: the decoded or joined form is judged by the shape rules, and the
  // original text it came from is redacted (docs/design.md#redaction).
  const covered = (start: number, end: number): boolean => {
    const at = insertionPoint(spans, start);
    return (spans[at - 1] !== undefined && spans[at - 1]!.end > start) || (spans[at] !== undefined && spans[at]!.start < end);
  };
  for (const derived of [decodedRuns(text, covered), splitRuns(text, covered), continuedRuns(text)]) {
    if (derived.text === "") continue;
    collectSpans(derived.text, DERIVED_RULES, () => false, (start, end, rule) => {
      const original = derived.original(start, end);
      if (original !== null && !onExemptLine(original[0], original[1])) accept(original[0], original[1], rule.id);
    });
  }
  // A wrapped token whose first line was already redacted alone: the joined span replaces it.
  const wrapped = wrappedRuns(text);
  if (wrapped.text !== "") {
    collectSpans(wrapped.text, DERIVED_RULES, () => false, (start, end, rule) => {
      const original = wrapped.original(start, end);
      if (original === null || onExemptLine(original[0], original[1])) return;
      let at = insertionPoint(spans, original[0]);
      if (spans[at - 1] !== undefined && spans[at - 1]!.end > original[0]) at--;
      let to = at;
      while (spans[to] !== undefined && spans[to]!.start < original[1]) to++;
      const from = Math.min(original[0], spans[at]?.start ?? original[0]);
      const end2 = Math.max(original[1], to > at ? spans[to - 1]!.end : original[1]);
      spans.splice(at, to - at, { start: from, end: end2, kind: rule.id });
    });
  }
  if (options.transcript === true) {
    for (const [start, end, kind] of transcriptSpans(text)) accept(start, end, kind);
  }
  if (spans.length === 0) return { text, findings: [] };

  lineStarts ??= lineStartsOf(text);
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
    const kind = s.kind;
    const finding: RedactionFinding = { kind, line: line + 1, column: col + 1, length: codePoints(text, s.start, s.end) };
    let last = line;
    while (last + 1 < lineStarts.length && lineStarts[last + 1]! < s.end) last++;
    if (last > line) finding.lines = last - line + 1;
    findings.push(finding);
    out.push(text.slice(cursor, s.start), `<redacted: ${kind}>`);
    cursor = s.end;
  }
  out.push(text.slice(cursor));
  return { text: out.join(""), findings };
}

/**
 * {@link redactText} for transcript text (a checkpoint's requests, plan, commands, claims and
 * summaries): the transcript-only rules of guard/redact-transcript.ts run too, so a key pasted
 * in prose ("here is webhook key <hex>") and a shell variable later sent as a bearer token or
 * a password are redacted as well (docs/decisions/redaction-prefixes.md). Pure.
 */
export function redactTranscript(text: string, options: Omit<RedactOptions, "transcript"> = {}): { text: string; findings: RedactionFinding[] } {
  return redactText(text, { ...options, transcript: true });
}

/**
 * Redacts only the vendors' exact token shapes (never hyphen-joined words) in a branch name,
 * a path or an anchor line, which are otherwise kept as they are (docs/design.md#redaction): `anchors`,
 * a checkpoint's anchors. The anchor then holds `<redacted: KIND>` and compares as
 * unverifiable. Pure; the text is returned unchanged (same string) when nothing is found.
 */
export function redactVendorShapes(text: string): string {
  const spans: Array<[number, number, string]> = [];
  const shapes = REDACTION_RULES.filter((r) => VENDOR_SHAPE.has(r.id));
  collectSpans(text, shapes, (_rule, start, end) => hyphenJoinedWords(text.slice(start, end)), (start, end, rule) => {
    if (!spans.some(([a, b]) => start < b && a < end)) spans.push([start, end, rule.id]);
  });
  if (spans.length === 0) return text;
  spans.sort((x, y) => x[0] - y[0]);
  let out = "";
  let at = 0;
  for (const [a, b, kind] of spans) {
    out += `${text.slice(at, a)}<redacted: ${kind}>`;
    at = b;
  }
  return out + text.slice(at);
}

/** At most this many findings are named in the report line; the rest are counted. */
const REPORT_LIMIT = 20;

/** A redaction longer than this many lines says how many it took, so a swallowed section shows. */
const REPORT_LINES_FROM = 4;

/**
 * The stderr line for a redaction, shared by `write`, `promote` and `redact` (docs/design.md#redaction):
 * `redacted N secret(s): KIND (line L), …`; a redaction of more than 3 lines reads
 * `KIND (line L, N lines)`. Never holds a value. Callers print it only when `findings` is
 * non-empty; past 20 findings the rest are counted (`… and N more`).
 */
export function formatRedactionReport(findings: readonly RedactionFinding[]): string {
  const head = `redacted ${findings.length} secret(s)`;
  if (findings.length === 0) return head;
  const named = findings
    .slice(0, REPORT_LIMIT)
    .map((f) => (f.lines !== undefined && f.lines >= REPORT_LINES_FROM ? `${f.kind} (line ${f.line}, ${f.lines} lines)` : `${f.kind} (line ${f.line})`));
  const more = findings.length > REPORT_LIMIT ? `, … and ${findings.length - REPORT_LIMIT} more` : "";
  return `${head}: ${named.join(", ")}${more}`;
}
