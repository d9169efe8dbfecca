// Secret redaction, pure: every text written or printed passes through {@link redactText}. Our own rules after
// gitleaks' ideas (MIT): a shape per vendor, a keyword prefilter, an entropy floor, allow-lists.
import { mayHoldToken } from "./quote.ts";
import { L, LD, PATH_OR_URL, R, RD, UUID, globallyAllowed, newlineOffsets, looksLikeCode, partitionPoint,
  placeholderOrVariable, rule, sentenceLike, shannonEntropy, type RedactionRule } from "./redact-kit.ts";
import { brokenRuns, continuedRuns, decodedJoin, decodedRuns, namedBase64, repeatedSecrets, splitRuns, wrappedRuns }
  from "./redact-derived.ts";
import { awsUnnamedSpans, codeName, cookieSpans, CREDENTIAL_FILE_RULES, credentialNamed, genericValueEnd,
  keyNameValueKept, namedValueKept, notACliPassword, refineGenericValue, refinePem, tableSpans }
  from "./redact-syntax.ts";
import { transcriptSpans } from "./redact-transcript.ts";
import { VENDOR_RULES } from "./redact-vendors.ts";

/** One secret found: its rule id (the KIND), 1-based line and column, length in code points, `lines` past one. */
export interface RedactionFinding {
  kind: string;
  line: number;
  column: number;
  length: number;
  lines?: number;
}

interface RedactOptions {
  /** 1-based anchor lines: a secret starting or ending on one is kept. */
  exemptLines?: ReadonlySet<number>;
  /** Transcript text (a checkpoint's items): the transcript-only rules run too. */
  transcript?: boolean;
}

function notABearerToken(v: string): boolean {
  return placeholderOrVariable(v) || looksLikeCode(v) || PATH_OR_URL.test(v);
}

/** A password may hold a raw `/`, `?` or `#`, but `host:8443/path@x` is a port and a path. */
function notAUrlPassword(v: string): boolean {
  if (placeholderOrVariable(v)) return true;
  const cut = v.search(/[/?#]/);
  if (cut === -1) return false;
  const head = v.slice(0, cut);
  return /^\d+$/.test(head) || (head !== "" && placeholderOrVariable(head));
}

/** The names ending a generic assignment's name; `p` a password's, `q` PASS/PWD after `_.-`, `b` PASS/PWD alone,
 * `e` a name glued to PWD/PASS, `k` a bare `_KEY`. */
const GENERIC_KEY =
  "(?:(?<p>pass(?:word|wd|phrase))|(?<=[_.-])(?<q>pass|pwd)|(?<![A-Za-z0-9])(?<b>pass|pwd)" +
  "|(?<=[A-Za-z])(?<e>pwd|passwd|pass)|secret|token" +
  "|api[_. -]?key|apikey|access[_.-]?key|auth[_.-]?key|private[_.-]?key|secret[_.-]?key(?:[_.-]?base)?|credentials?" +
  "|(?:encryption|signing|master|hmac|jwt|cipher|aes)[_.-]?key|(?<k>[_.-]key))";

/** A person's password: PASS/PWD after `_.-` (`SMTP_PASS`) or alone in upper case; `pass` alone is English. */
const passwordNamed = (m: RegExpExecArray): boolean => ["p", "q", "e"].some((g) => m.groups?.[g] !== undefined) ||
  (m.groups?.["b"] !== undefined && /^P(?:ASS|WD)/.test(m[0]));

/** Only an upper-case environment name glued to PWD/PASS counts (`PGPWD`, not `bypass` or `BYPASS`). */
function notAGluedEnvName(m: RegExpExecArray): boolean {
  if (m.groups?.["e"] === undefined) return false;
  const name = /^[A-Za-z0-9_.-]*/.exec(m[0])![0];
  return !/^[A-Z0-9_]*[A-Z](?:PWD|PASSWD|PASS)$/.test(name) || /(?:BY|COM|SUR|TRES|ENCOM)PASS$/.test(name);
}

/** A command-line value, bare or quoted: the quoted ones' groups are named `sd…` and `sq…`. */
const CLI_VALUE = "[^\\s\"'`;|&<>]{1,256}";
const CLI_ARG = (n: number): string =>
  `(?:"(?<sd${n}>[^"\\n]{1,256})"|'(?<sq${n}>[^'\\n]{1,256})'|(?<s${n}>${CLI_VALUE}))`;
/** `user:pass` or `user%pass`, bare or quoted whole. */
const CLI_PAIR = (sep: string, n: number): string =>
  `(?:"[^"\\s${sep}]{1,128}${sep}(?<sd${n}>[^"\\n]{1,256})"|'[^'\\s${sep}]{1,128}${sep}(?<sq${n}>[^'\\n]{1,256})'` +
  `|[^\\s${sep}"']{1,128}${sep}(?<s${n}>[^\\s"']{1,256}))`;

/** Password flags of common clients, each only after its command's name (`-p 8080` elsewhere stays). */
const CLI_PASSWORD_FLAGS = [
  `(?<![\\w-])--(?:password|passwd|passphrase|pass|PASSWORD)(?:=|[ \\t]+)${CLI_ARG(1)}`,
  `\\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\\b` +
    `[^\\n]{0,256}?[ \\t]-p${CLI_ARG(3)}`,
  `\\bcurl\\b[^\\n]{0,512}?[ \\t](?:-[A-Za-z]*?u[ \\t]*|--user(?:=|[ \\t]+))` +
    CLI_PAIR(":", 4),
  `\\bsshpass\\b[^\\n]{0,64}?[ \\t]-p[ \\t]*${CLI_ARG(5)}`,
  `\\b(?:docker|podman|nerdctl|buildah|helm[ \\t]+registry|oras)[ \\t]+login\\b` +
    `[^\\n]{0,256}?[ \\t]-p[ \\t]*${CLI_ARG(6)}`,
  `\\baz[ \\t]+login\\b[^\\n]{0,256}?[ \\t]-p[ \\t]*${CLI_ARG(7)}`,
  `\\bredis-cli\\b[^\\n]{0,256}?[ \\t]-a[ \\t]*${CLI_ARG(8)}`,
  `\\bldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop)\\b` +
    `[^\\n]{0,256}?[ \\t]-w[ \\t]*${CLI_ARG(9)}`,
  `\\b(?:sqlcmd|bcp|osql|isql)\\b[^\\n]{0,256}?[ \\t]-P[ \\t]*${CLI_ARG(10)}`,
  `\\b(?:zip|unzip|zipcloak)\\b[^\\n]{0,256}?[ \\t]-P[ \\t]*${CLI_ARG(11)}`,
  `\\bhtpasswd[ \\t]+-(?=[A-Za-z]*b)` +
    `(?:(?=[A-Za-z]*n)[A-Za-z]+[ \\t]+[^\\s;|&<>]+|[A-Za-z]+[ \\t]+[^\\s;|&<>]+[ \\t]+[^\\s;|&<>]+)` +
    `[ \\t]+${CLI_ARG(12)}`,
  `\\b(?:smbclient|rpcclient|smbmap|smbcacls|net)\\b[^\\n]{0,256}?[ \\t](?:-U[ \\t]*|--user(?:=|[ \\t]+))` +
    CLI_PAIR("%", 13),
  `\\b(?:echo|printf)[ \\t]+(?:-[a-z]+[ \\t]+)?${CLI_ARG(14)}` +
    `[ \\t]*\\|[ \\t]*sudo\\b[^\\n|]{0,64}?[ \\t]-[A-Za-z]*S`,
  // gpg reads its passphrase from descriptor 0: a here-string, or what `echo` pipes in.
  `\\bgpg2?\\b[^\\n|<]{0,256}?--passphrase-fd[ =\\t]+0\\b[^\\n|<]{0,256}?<<<[ \\t]*${CLI_ARG(15)}`,
  `\\b(?:echo|printf)[ \\t]+(?:-[a-z]+[ \\t]+)?${CLI_ARG(16)}` +
    `[ \\t]*\\|[ \\t]*gpg2?\\b[^\\n|]{0,128}?--passphrase-fd[ =\\t]+0\\b`,
].join("|");

const CONNECTION_KEYS = "server|host|data source|address|addr|uid|user id|username|user|database|initial catalog";
const XML_NAMES = "[Pp]assword|PASSWORD|[Pp]asswd|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[Kk]ey|API_?KEY|api_key";
const GENERIC_VALUE =
  `(?:"(?<s>[^"\\n]{8,256})"|'(?<s1>[^'\\n]{8,256})'|\`(?<s2>[^\`\\n]{8,256})\`` +
  `|[|>][+-]?\\d?[ \\t]*\\r?\\n[ \\t]+(?<s4>[^\\s][^\\n]{0,255})|(?<s3>[^\\s"'\`,;&<>(){}\\[\\]=:|]))`;
const SECRET_WORDS = "pass pwd secret token key credential";
/** Names a value is said after in prose; `cache key is` and `credentials are` say no value. */
const PROSE_NAME = /^[\w.-]*?(?:pass(?:word|wd|phrase)|token|secret|api[ _.-]?key)[ \t]/i;
/** npm's legacy tokens are UUIDs: under these names one is the credential. */
const NPM_TOKEN_NAME = /^[\w.-]*?(?:npm|node)[_.-]?(?:auth[_.-]?)?token["'`]?\s*[:=]/i;

/** generic-secret's allow-list. */
function genericKept(v: string, m: RegExpExecArray): boolean {
  // A UUID gets here only under npm's token names (uuidNamed): a legacy token, its dashes under the entropy floor.
  if (UUID.test(v)) return false;
  // In prose (`the password is …`, `password for staging = …`) a password's is judged as after `password:`; after a
  // token's or secret's name, a value mixing letters and digits with a sign or as no name in code does (not
  // `sha256-hashed`, `Argon2id`), judged as a person's password.
  if ((m.groups?.["is"] !== undefined || m.groups?.["for"] !== undefined) && m.groups?.["p"] === undefined) {
    return !(PROSE_NAME.test(m[0]) && saidSecret(v)) || namedValueKept(v, true);
  }
  if (notAGluedEnvName(m)) return true;
  // Capitalised words under an upper-case password or secret name are a chosen passphrase; in code a type follows a
  // lower-case name (`password: PasswordHashAlgorithm`).
  if (/^(?:[A-Z][a-z]+){3,}$/.test(v) && /^[A-Z0-9_]*(?:PASS(?:WORD|WD|PHRASE)?|PWD|SECRET)["'`]?\s*[:=]/.test(m[0])) {
    return false;
  }
  return namedValueKept(v, passwordNamed(m)) || keyNameValueKept(v, m) ||
    // `PASS=` in backticks: the backtick after `=` closes that code span, the next one opens another.
    (m.groups?.["s2"] !== undefined && m.input[m.index - 1] === "`") ||
    (m.groups?.["k"] !== undefined && /(?:^|[^a-z])pub(?:lic)?[_.-]?key/i.test(m[0]));
}

/** A value said in prose: letters and digits with a sign, or letters and digits as no name in code is written. */
function saidSecret(v: string): boolean {
  const mixed = /^(?=.*[A-Za-z])(?=.*\d)/.test(v);
  return mixed && (/^(?=.*[^\w.'’-])\S+$/.test(v) || (/^[A-Za-z0-9]+$/.test(v) && !codeName(v)));
}
const SAS_PARAM = "&(?:amp;)?[\\w-]{1,16}=[^&\\s\"'<>#]{0,256}";
const SAS_SIG = "[A-Za-z0-9%+/=_-]{16,256}";

/** The rule table in priority order: of two overlapping secrets, the earlier rule's wins. */
export const REDACTION_RULES: readonly RedactionRule[] = [
  rule("private-key", "-----begin putty-user-key-file-",
    "-----BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\\d+:[^\\r\\n\\\\]{0,80}",
    undefined, { refine: refinePem }),
  rule("anthropic-api-key", "sk-ant-", `${LD}sk-ant-[a-z]{2,8}\\d{2}-[A-Za-z0-9_-]{80,}${RD}`),
  // `sk-` collides with prose and branch names: only the real shapes, and kebab-case words are a name.
  rule("openai-api-key", "sk-",
    `${LD}sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{48}` +
      `|[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})${RD}`,
    3.5, { allow: (s) => /^sk-[a-z]+(?:-[a-z]+)+$/.test(s) }),
  rule("github-token", "ghp_", `${L}ghp_[A-Za-z0-9]{36}${R}`),
  rule("github-oauth-token", "gho_", `${L}gho_[A-Za-z0-9]{36}${R}`),
  rule("github-app-token", "ghu_ ghs_", `${L}gh[us]_[A-Za-z0-9]{36}${R}`),
  rule("github-refresh-token", "ghr_", `${L}ghr_[A-Za-z0-9]{36,80}${R}`),
  rule("github-fine-grained-token", "github_pat_", `${L}github_pat_[A-Za-z0-9_]{50,120}${R}`),
  rule("gitlab-token", "glpat- gloas- glsoat- glft- glcbt- glimt- glagent- glwt- glffct-",
    `${LD}gl(?:pat|oas|soat|ft|cbt|imt|agent|wt|ffct)-[A-Za-z0-9_.-]{20,}${RD}`),
  rule("gitlab-deploy-token", "gldt-", `${LD}gldt-[A-Za-z0-9_-]{20,}${RD}`),
  rule("gitlab-runner-token", "glrt- gr1348941",
    `${LD}(?:glrt-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20,})${RD}`),
  rule("gitlab-pipeline-token", "glptt-", `${LD}glptt-[0-9a-f]{40}${RD}`),
  rule("slack-token", "xox", `${LD}(?:xoxe\\.)?xox[abposre]-\\d+-[A-Za-z0-9-]{10,}${RD}`),
  rule("slack-app-token", "xapp-", `${LD}xapp-\\d+-[A-Za-z0-9-]{20,}${RD}`),
  rule("slack-webhook", "hooks.slack.com",
    "hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<s>[A-Za-z0-9+/_-]{20,})"),
  rule("discord-webhook", "/api/webhooks/",
    "discord(?:app)?\\.com/api/webhooks/(?<s>\\d{5,}/[A-Za-z0-9_-]{40,})"),
  rule("stripe-key", "k_live_ k_test_ k_prod_", `${L}[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,}${R}`),
  rule("stripe-webhook-secret", "whsec_", `${L}whsec_[A-Za-z0-9+/=]{24,}`),
  rule("google-api-key", "aiza", `${LD}AIza[0-9A-Za-z_-]{35}${RD}`),
  rule("google-oauth-client-secret", "gocspx-", `${LD}GOCSPX-[A-Za-z0-9_-]{28}${RD}`),
  rule("google-oauth-token", "ya29.", `${LD}ya29\\.[0-9A-Za-z_-]{30,}${RD}`),
  rule("aws-access-key-id", "akia asia abia acca a3t", `${L}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}${R}`),
  rule("aws-secret-access-key", "aws",
    `aws[\\w.-]{0,20}?secret[\\w.-]{0,20}?["'\`]?\\s*(?:=|:|=>)\\s*["'\`]?(?<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])` +
      `|aws[ \\t]+configure[ \\t]+set[ \\t]+(?:[\\w.-]+\\.)?aws_secret_access_key[ \\t]+["']?` +
      `(?<s1>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`, 3.5, {}, "i"),
  // A SAS token's signature is an HMAC under the account key: `sv=<date>&…&sig=` is the order Azure writes; a
  // hand-built URL may put `sig=` first, and HTML writes `&` as `&amp;`.
  rule("azure-storage-key", "accountkey sharedaccesskey sig=",
    "(?:AccountKey|SharedAccessKey)\\s*=\\s*(?<s>[A-Za-z0-9+/]{40,}={0,2})|(?<![\\w-])sv=\\d{4}-\\d\\d-\\d\\d" +
      `(?:${SAS_PARAM}){0,16}?&(?:amp;)?sig=(?<s1>${SAS_SIG})` +
      `|(?<=[?&;])sig=(?<s2>${SAS_SIG})(?=(?:${SAS_PARAM}){0,16}?&(?:amp;)?sv=\\d{4}-\\d\\d-\\d\\d)`, undefined,
    { allow: (v, m) => m.groups?.["s"] === undefined && looksLikeCode(v) }, "i"),
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
  rule("basic-auth", "basic",
    "authorization[\"']?\\s*[:=]\\s*[\"']?basic\\s+(?<s>[A-Za-z0-9+/]{8,}={0,2})",
    undefined, { allow: (s) => looksLikeCode(s) }, "i"),
  // A header's value with no scheme or GitHub's `token` scheme, alone up to a quote or the line's end.
  rule("bearer-token", "bearer authorization",
    "(?<![A-Za-z0-9_])bearer\\s+(?<s>[A-Za-z0-9._~+/-]{16,}=*)" +
      "|authorization[\"']?[ \\t]*[:=][ \\t]*[\"']?(?:token[ \\t]+)?(?<s1>[A-Za-z0-9._~+/-]{16,}=*)(?=[\"'\\r\\n]|$)",
    3, { allow: notABearerToken, hexNamed: () => true }, "i"),
  rule("url-password", "://",
    "(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\\s:/?#@\"'<>\\[\\]`]*:" +
      "(?<s>[^\\s@\"'<>`]{1,256})@(?=[^\\s@/?#\"'<>`])",
    undefined, { weakIsSecret: true, allow: notAUrlPassword }),
  // The second form's value is taken whole before `;` (a lookahead and a back-reference): no backtracking.
  rule("connection-string-password", "password pwd",
    `(?:(?:${CONNECTION_KEYS})\\s*=[^;\\n]{0,256};(?:[^;\\n]{0,256};){0,16}?` +
      `\\s*(?:password|pwd)\\s*=\\s*(?<s>[^;\\s"'<>]{1,256})` +
      `|(?<![\\w-])(?:password|pwd)\\s*=\\s*(?=(?<s1>[^;\\s"'<>]{1,256}))\\k<s1>\\s*;[^\\n]{0,512}?` +
      `(?:server|host|data source|address|uid|user id|database)\\s*=)`,
    undefined, { weakIsSecret: true, allow: placeholderOrVariable }, "i"),
  rule("cli-password", "--pass mysql mariadb curl sshpass login redis-cli ldap sqlcmd bcp osql isql zip htpasswd " +
    "smbclient rpcclient smbmap smbcacls net echo printf gpg", CLI_PASSWORD_FLAGS, undefined, {
    weakIsSecret: true,
    // An unquoted password runs like a generic value (`--password=Gq4!zR8;pL2@xV6#`).
    refine: (text, m, start, end) =>
      Object.entries(m.groups ?? {}).some(([g, v]) => v !== undefined && /^s[dq]/.test(g))
        ? [start, end]
        : [start, Math.max(end, genericValueEnd(text, start, false))],
    allow: notACliPassword,
  }),
  ...CREDENTIAL_FILE_RULES,
  rule("xml-password", "</ <add",
    `<(?<tag>(?:[A-Za-z][\\w.:-]{0,40}?)?(?:${XML_NAMES}))>(?<s>[^<>\\n]{1,256})</\\k<tag>>` +
      `|<add\\s+key="(?<key>[\\w.:-]{0,60}?(?:${XML_NAMES}|[Pp]wd|PWD|(?:[Ss]ecret|[Aa]ccess)[Kk]ey))"` +
      `\\s+value="(?<s1>[^"\\n]{1,256})"`, undefined, {
    weakIsSecret: true,
    // A password element or .NET setting holds a human password (`Summer2024!` reads as code); others are
    // assignments (`<add key="StripeSecretKey" value="…"`).
    allow: (v, m) =>
      /pass|pwd/i.test(m.groups?.["tag"] ?? m.groups?.["key"] ?? "")
        ? placeholderOrVariable(v) || PATH_OR_URL.test(v) || sentenceLike(v)
        : v.length < 8 || namedValueKept(v, false),
  }),
  rule("cookie-value", "cookie", `(?<![\\w-])(?:set-)?cookie["']?[ \\t]*:[ \\t]*["']?`, 3, { spans: cookieSpans }, "i"),
  rule("table-secret", SECRET_WORDS,
    "^[ \\t]*\\|[^\\n]*\\|[ \\t]*\\r?\\n[ \\t]*\\|[ \\t]*:?-{3,}[^\\n]*(?:\\r?\\n[ \\t]*\\|[^\\n]*)*", undefined,
    { spans: tableSpans }, "m"),
  rule("generic-secret", SECRET_WORDS,
    `(?<![A-Za-z0-9_.:-])[A-Za-z0-9_.-]*?${GENERIC_KEY}(?<for>[ \\t]+for[ \\t]+(?:[\\w.-]{1,40}[ \\t]+){0,2}?` +
      `[\\w.-]{1,40}(?=[ \\t]*[=:]|[ \\t]+(?:is|was)[ \\t]))?["'\`]?(?:\\s*:\\s*string)?\\s*` +
      `(?::=|=>|=|:|(?<=[\\w.-][ \\t])(?<is>is|was):?(?=[ \\t]))(?![=:>])\\s*${GENERIC_VALUE}`, undefined, {
    // A sentence's full stop after a value said in prose is not the value's.
    refine: (text, m, start, end) => {
      // A person's password may be short (`hunter2`): 6 characters after a password's name, 8 after others.
      const span = refineGenericValue(text, m, start, end, passwordNamed(m) ? 6 : 8);
      const said = m.groups?.["is"] !== undefined || m.groups?.["for"] !== undefined;
      return span !== null && said && text[span[1] - 1] === "." ? [span[0], span[1] - 1] : span;
    },
    hexNamed: credentialNamed,
    uuidNamed: (m) => NPM_TOKEN_NAME.test(m[0]),
    allow: genericKept,
  }, "i"),
];

/** A redaction pass: the redacted text and its secrets, at lines of the text as given. */
export type Redacted = { text: string; findings: RedactionFinding[] };
type Span = { start: number; end: number; kind: string };

/** The first `s…` group that matched is the secret; without one, the whole match. */
function secretSpan(m: RegExpExecArray): [number, number] {
  for (const [name, g] of Object.entries(m.indices?.groups ?? {})) if (name.startsWith("s") && g) return g;
  return [m.index, m.index + m[0].length];
}

function codePoints(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    // A low surrogate continues the code point its high surrogate started.
    if (c < 0xdc00 || c > 0xdfff || i === from) n++;
  }
  return n;
}

/** Every distinct rule keyword, listed once (several rules share `pass`, `token`, `key`…). */
let allKeywords: string[] | undefined;

/** Bits of the three-character windows a text holds (exact for ASCII windows), reused: redaction is synchronous. */
const WINDOWS = new Uint32Array(1 << 16);

// The keywords in `lower`, each by a native search. A long text's three-character windows are recorded first and
// a keyword missing one is not searched for: the bench's 1 MB hostile mix redacts in 0.9 s, not 1.3 s.
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

/** True when the rule keeps `secret`: global allow-list, filler, entropy floor, the rule's allow-list. */
function keptByRule(rule: RedactionRule, secret: string, m: RegExpExecArray): boolean {
  // A value holding `<redacted: KIND>` was judged by an earlier pass.
  if (secret === "" || secret.includes("<redacted")) return true;
  if (globallyAllowed(secret, rule.hexNamed?.(m), rule.uuidNamed?.(m))) return true;
  const entropy = shannonEntropy(secret);
  // A token body of filler (`ghp_xxxx…`) is documentation: real tokens are far above 2.5 bits per character.
  if (!rule.weakIsSecret && entropy < 2.5) return true;
  return (rule.entropy !== undefined && entropy < rule.entropy) || rule.allow?.(secret, m) === true;
}

/** Runs the keyword-gated `rules` over `text`, calling `found` for each secret neither the rule nor `skip` keeps. */
function collectSpans(
  text: string,
  rules: readonly RedactionRule[],
  skip: (rule: RedactionRule, start: number, end: number) => boolean,
  found: (start: number, end: number, rule: RedactionRule) => void,
): void {
  const present = keywordsIn(text.toLowerCase());
  for (const rule of rules) {
    if (rule.keywords && !rule.keywords.some((k) => present.has(k))) continue;
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    for (;;) {
      const m = pattern.exec(text);
      if (m === null) break;
      if (m[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      if (rule.spans) {
        const scan = rule.spans(text, m);
        for (const [start, end] of scan.spans) {
          const kept = end <= start || skip(rule, start, end) || keptByRule(rule, text.slice(start, end), m);
          if (!kept) found(start, end, rule);
        }
        // What the scanner read is done: a header repeated on one line is not read again.
        if (scan.end > pattern.lastIndex) pattern.lastIndex = scan.end;
        continue;
      }
      const matched = secretSpan(m);
      const matchStart = matched[0];
      const span = rule.refine ? rule.refine(text, m, ...matched) : matched;
      if (span === null || span[1] <= span[0] || skip(rule, ...span) || keptByRule(rule, text.slice(...span), m)) {
        // A kept value may begin the next match (`password: admin_pw=<secret>`): go on from inside it.
        pattern.lastIndex = Math.max(m.index + 1, matchStart);
        continue;
      }
      found(span[0], span[1], rule);
      // A refined span may run past the match; nothing inside it can be a separate secret.
      if (span[1] > pattern.lastIndex) pattern.lastIndex = span[1];
    }
  }
}

/** Rules that judge a value by its name or the syntax around it, not by a vendor's exact shape. */
const CONTEXT_RULES = new Set(
  ("private-key aws-secret-access-key azure-storage-key docker-config-auth basic-auth bearer-token url-password " +
    "connection-string-password cli-password npmrc-auth netrc-password xml-password cookie-value table-secret " +
    "generic-secret gitlab-session-cookie sidekiq-secret").split(" "),
);

/** The vendors' exact token shapes: the only rules that fire on an anchor line. */
const SHAPE_RULES = REDACTION_RULES.filter((r) => !CONTEXT_RULES.has(r.id));
const VENDOR_SHAPE: ReadonlySet<string> = new Set(SHAPE_RULES.map((r) => r.id));

/** A vendor token's prefixes (its rule's keywords), for its body written without one; a JWT has none. */
const PREFIXES = new Map(SHAPE_RULES.filter((r) => r.id !== "jwt").map((r) => [r.id, r.keywords]));

/** What a decoded or joined form is judged by: the vendor shapes and key blocks. */
const DERIVED_RULES = REDACTION_RULES.filter((r) => VENDOR_SHAPE.has(r.id) || r.id === "private-key");

/** A token prefix and words joined by hyphens (`<prefix>-rotate-the-deploy-token`) name a branch. */
function hyphenJoinedWords(s: string): boolean {
  const parts = s.split("-");
  return parts.length > 2 && parts.every((p) => /^(?:[A-Za-z]+|\d+)$/.test(p));
}

/** Accepted spans in order; they never overlap, so sorted by start they are sorted by end too. */
class Spans {
  readonly list: Span[] = [];

  firstFrom(start: number): number {
    return partitionPoint(this.list.length, (i) => this.list[i]!.start < start);
  }

  /** A span overlapping [start, end), if any. */
  overlap(start: number, end: number): Span | undefined {
    const at = this.firstFrom(start);
    if (this.list[at - 1] !== undefined && this.list[at - 1]!.end > start) return this.list[at - 1];
    return (this.list[at]?.start ?? end) < end ? this.list[at] : undefined;
  }

  accept(start: number, end: number, kind: string): void {
    if (this.overlap(start, end) === undefined) this.list.splice(this.firstFrom(start), 0, { start, end, kind });
  }

  /** The span replaces every span it overlaps, and covers them. */
  widen(start: number, end: number, kind: string): void {
    let at = this.firstFrom(start);
    if (this.list[at - 1] !== undefined && this.list[at - 1]!.end > start) at--;
    let to = at;
    while (this.list[to] !== undefined && this.list[to]!.start < end) to++;
    const from = Math.min(start, this.list[at]?.start ?? start);
    const until = Math.max(end, to > at ? this.list[to - 1]!.end : end);
    this.list.splice(at, to - at, { start: from, end: until, kind });
  }
}

/** Each secret in `text` as `<redacted: KIND>`, and the findings in order; an earlier rule's overlapping span wins. */
export function redactText(text: string, options: RedactOptions = {}): Redacted {
  const exempt = options.exemptLines?.size ? options.exemptLines : undefined;
  let lineStarts: number[] | undefined;
  const lineOf = (at: number): number => partitionPoint(lineStarts!.length, (i) => lineStarts![i]! <= at);
  const onExemptLine = (start: number, end: number): boolean => {
    if (exempt === undefined) return false;
    lineStarts ??= [0, ...newlineOffsets(text).map((i) => i + 1)];
    return exempt.has(lineOf(start)) || exempt.has(lineOf(Math.max(start, end - 1)));
  };
  const spans = new Spans();
  const covered = (start: number, end: number): boolean => spans.overlap(start, end) !== undefined;
  // An anchor line keeps its branch and paths unless a vendor's exact token shape sits in them.
  const kept = (kind: string, start: number, end: number): boolean =>
    onExemptLine(start, end) && !(VENDOR_SHAPE.has(kind) && !hyphenJoinedWords(text.slice(start, end)));
  collectSpans(text, REDACTION_RULES, (rule, start, end) => kept(rule.id, start, end), (start, end, rule) =>
    spans.accept(start, end, rule.id));

  // An AWS secret with no name, beside an access key id or in a credentials file, after every other rule.
  for (const [start, end] of awsUnnamedSpans(text)) {
    const v = text.slice(start, end);
    if (!onExemptLine(start, end) && !globallyAllowed(v) && shannonEntropy(v) >= 3.5) {
      spans.accept(start, end, "aws-secret-access-key");
    }
  }
  // Decoded, split and continued tokens: the derived form is judged, the original text redacted; a wrapped
  // or broken token whose first line was already redacted alone is widened to the joined span.
  const split = splitRuns(text, covered);
  const wrapped = wrappedRuns(text);
  // A token found whole on its line ends there: `glpat-…` then `Next` on the next line is not one token.
  const broken = brokenRuns(text, (start, end) => VENDOR_SHAPE.has(spans.overlap(start, end)?.kind ?? ""));
  // A base64 value under a credential's name or in a Kubernetes Secret is judged decoded by every rule, after its
  // name: `DATABASE_URL: <base64 of postgres://u:pw@h/db>` holds a password in a URL.
  const derivedForms = [[decodedRuns(text, covered), false], [split, false], [continuedRuns(text), false],
    [decodedJoin(split), true], [wrapped, true], [broken, true], [decodedJoin(wrapped), true],
    [namedBase64(text), false, REDACTION_RULES]] as const;
  for (const [derived, widen, rules = DERIVED_RULES] of derivedForms) {
    if (derived.text === "") continue;
    collectSpans(derived.text, rules, () => false, (start, end, rule) => {
      const original = derived.original(start, end);
      if (original === null || onExemptLine(...original)) return;
      if (widen) spans.widen(original[0], original[1], rule.id);
      else spans.accept(original[0], original[1], rule.id);
    });
  }
  if (options.transcript === true) {
    for (const [start, end, kind] of transcriptSpans(text)) spans.accept(start, end, kind);
  }
  for (const [start, end, kind] of repeatedSecrets(text, spans.list, (kind) => PREFIXES.get(kind))) {
    if (!kept(kind, start, end)) spans.accept(start, end, kind);
  }
  return render(text, spans.list);
}

/** `text` with each span replaced by `<redacted: KIND>`, and the findings. */
function render(text: string, spans: readonly Span[]): Redacted {
  if (spans.length === 0) return { text, findings: [] };
  const lineStarts = [0, ...newlineOffsets(text).map((i) => i + 1)];
  const findings: RedactionFinding[] = [];
  const out: string[] = [];
  let cursor = 0;
  let line = 0;
  // Columns are counted from the previous finding on the same line: one long line stays linear.
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
    const length = codePoints(text, s.start, s.end);
    const finding: RedactionFinding = { kind: s.kind, line: line + 1, column: col + 1, length };
    let last = line;
    while (last + 1 < lineStarts.length && lineStarts[last + 1]! < s.end) last++;
    if (last > line) finding.lines = last - line + 1;
    findings.push(finding);
    out.push(text.slice(cursor, s.start), `<redacted: ${s.kind}>`);
    cursor = s.end;
  }
  out.push(text.slice(cursor));
  return { text: out.join(""), findings };
}

/** {@link redactText} for transcript text: the transcript-only rules of redact-transcript.ts run too. */
export function redactTranscript(text: string, options: Omit<RedactOptions, "transcript"> = {}): Redacted {
  return redactText(text, { ...options, transcript: true });
}

/** A branch name or path with only the vendors' exact token shapes redacted (the rest is never); as is when none. */
export function withoutTokens(text: string): string {
  if (!mayHoldToken(text)) return text;
  const spans = new Spans();
  const wordy = (_rule: RedactionRule, a: number, b: number): boolean => hyphenJoinedWords(text.slice(a, b));
  collectSpans(text, SHAPE_RULES, wordy, (start, end, rule) => spans.accept(start, end, rule.id));
  return render(text, spans.list).text;
}

/** Anchor lines with tokens redacted in branch and path lines; `- HEAD:` and `- Date:` hold none. */
export function anchorsWithoutTokens<T extends string | string[]>(lines: T): T {
  const one = (l: string): string => (l.startsWith("- HEAD: ") || l.startsWith("- Date: ") ? l : withoutTokens(l));
  return (typeof lines === "string" ? lines.split("\n").map(one).join("\n") : lines.map(one)) as T;
}

/** The stderr line: `redacted N secret(s): KIND (line L), …`, `(line L, N lines)` past three lines, 20 named. */
export function formatRedactionReport(findings: readonly RedactionFinding[]): string {
  const head = `redacted ${findings.length} secret(s)`;
  if (findings.length === 0) return head;
  const named = findings
    .slice(0, 20)
    .map((f) => `${f.kind} (line ${f.line}${f.lines !== undefined && f.lines >= 4 ? `, ${f.lines} lines` : ""})`);
  const more = findings.length > 20 ? `, … and ${findings.length - 20} more` : "";
  return `${head}: ${named.join(", ")}${more}`;
}
