/**
 * Secret redaction (contract §4): every text that `write`, `promote` and `redact` handle passes
 * through {@link redactText} before anything touches disk. Pure: strings in, strings out.
 *
 * The rules are our own, written after studying the ideas of gitleaks' rule file (MIT,
 * https://github.com/gitleaks/gitleaks): a fixed prefix or shape per vendor, a cheap keyword
 * prefilter, an entropy floor where the shape alone is weak, and allow-lists for what handoffs
 * are full of (git ids, SHA-256 tokens, UUIDs, variable references, placeholders). The parts
 * are split by family: redact-kit.ts (rule shape, boundaries, allow-lists), redact-syntax.ts
 * (PEM blocks, generic values, tables, cookies), redact-vendors.ts (gitleaks v8's other default
 * families, ruling 32).
 */
import {
  L,
  LD,
  PATH_OR_URL,
  R,
  RD,
  filler,
  globallyAllowed,
  looksLikeCode,
  notAnAssignedSecret,
  placeholderOrVariable,
  re,
  shannonEntropy,
  type RedactionRule,
} from "./redact-kit.ts";
import { cookieSpans, genericValueEnd, keyNameValueKept, notACliPassword, refineGenericValue, refinePem, tableSpans } from "./redact-syntax.ts";
import { VENDOR_RULES } from "./redact-vendors.ts";

export { shannonEntropy, type RedactionRule };

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
  /** Lines the secret spans, present only when more than one (a key block). */
  lines?: number;
}

/** Options of {@link redactText}. */
export interface RedactOptions {
  /**
   * 1-based line numbers left untouched (contract §13 ruling 6: anchor lines `write` filled or
   * that equal what `anchors` reports). A secret that starts or ends on one of them is kept.
   */
  exemptLines?: ReadonlySet<number>;
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
 * private/secret keys, `…credentials`, and a bare `…_KEY` (group `k`: ruling 32's conditions).
 */
const GENERIC_KEY =
  "(?:pass(?:word|wd|phrase)|(?<![A-Za-z0-9])(?:pass|pwd)|secret|token|api[_.-]?key|apikey|access[_.-]?key|auth[_.-]?key|private[_.-]?key|secret[_.-]?key|credentials?|(?<k>[_.-]key))";

/**
 * The rule table, in priority order: where two rules find overlapping secrets, the earlier
 * rule wins (vendor shapes before `bearer-token` and `generic-secret`). Rules follow contract
 * §4's families; the shapes are our own, after gitleaks' (MIT) rule ideas.
 */
export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    id: "private-key",
    description:
      "PEM/OpenSSH/PGP private key blocks: the BEGIN and END lines and the key material between them (base64 lines, Proc-Type:/DEK-Info: headers); a truncated key without END too",
    keywords: ["private key"],
    pattern: re("-----BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----"),
    refine: refinePem,
  },
  {
    id: "anthropic-api-key",
    description: "Anthropic API and admin keys (sk-ant-api03-..., sk-ant-admin01-...)",
    keywords: ["sk-ant-"],
    pattern: re(`${LD}sk-ant-[a-z]{2,8}\\d{2}-[A-Za-z0-9_-]{80,}${RD}`),
  },
  {
    id: "openai-api-key",
    description:
      "OpenAI API keys: sk-proj-/sk-svcacct-/sk-admin- + 40 or more, sk- + 48 letters and digits, or any sk- key with the T3BlbkFJ infix (a branch like sk-1234-fix-login is kept)",
    keywords: ["sk-"],
    // `sk-` collides with prose and branch names: only the real shapes (ruling 32).
    pattern: re(
      `${LD}sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{48}|[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})${RD}`,
    ),
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
    description: "AWS secret access keys (40 characters) assigned to an aws...secret name, or set with `aws configure set aws_secret_access_key`",
    keywords: ["aws"],
    pattern: re(
      `aws[\\w.-]{0,20}?secret[\\w.-]{0,20}?["'\`]?\\s*(?:=|:|=>)\\s*["'\`]?(?<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])|aws[ \\t]+configure[ \\t]+set[ \\t]+(?:[\\w.-]+\\.)?aws_secret_access_key[ \\t]+["']?(?<s1>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
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
  ...VENDOR_RULES,
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
    description: "the password in a URL or DSN (scheme://user:PASSWORD@host, raw /, ? and # included), password only",
    keywords: ["://"],
    pattern: re(
      "(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\\s:/?#@\"'<>\\[\\]`]*:(?<s>[^\\s@\"'<>`]{1,256})@(?=[^\\s@/?#\"'<>`])",
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
    id: "cli-password",
    weakIsSecret: true,
    description:
      "command-line passwords: --password VALUE, --password=VALUE, mysql/mariadb -pVALUE (never -p VALUE: a port or a database), curl -u user:PASSWORD (password only)",
    keywords: ["--pass", "--password", "mysql", "mariadb", "curl"],
    pattern: re(
      `(?<![\\w-])--(?:password|passwd|pass|PASSWORD)(?:=|[ \\t]+)(?:"(?<s>[^"\\n]{1,256})"|'(?<s1>[^'\\n]{1,256})'|(?<s2>[^\\s"'\`;|&<>]{1,256}))` +
        `|\\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\\b[^\\n]{0,256}?[ \\t]-p(?<s3>[^\\s"'\`;|&<>]{1,256})` +
        `|\\bcurl\\b[^\\n]{0,512}?[ \\t](?:-u[ \\t]*|--user(?:=|[ \\t]+))["']?[^\\s:"']{1,128}:(?<s4>[^\\s"']{1,256})`,
    ),
    // An unquoted password runs like a generic value (`--password=Gq4!zR8;pL2@xV6#`).
    refine: (text, m, start, end) =>
      m.groups?.["s"] !== undefined || m.groups?.["s1"] !== undefined ? [start, end] : [start, Math.max(end, genericValueEnd(text, start, false))],
    allow: notACliPassword,
  },
  {
    id: "xml-password",
    weakIsSecret: true,
    description: "XML elements named for a secret (<password>…</password>, <apiKey>, <token>, NuGet's ClearTextPassword value)",
    keywords: ["</", "<add key="],
    pattern: re(
      `<(?<tag>(?:[A-Za-z][\\w.:-]{0,40}?)?(?:[Pp]assword|PASSWORD|[Pp]asswd|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[Kk]ey|API_?KEY|api_key))>(?<s>[^<>\\n]{1,256})</\\k<tag>>|<add\\s+key="(?:ClearText)?Password"\\s+value="(?<s1>[^"\\n]{1,256})"`,
    ),
    allow: (v, m) =>
      notAnAssignedSecret(v) || (m.groups?.["tag"] !== undefined && !/pass/i.test(m.groups["tag"]) && (v.length < 8 || shannonEntropy(v) < 3.5)),
  },
  {
    id: "cookie-value",
    description: "session values in Cookie: and Set-Cookie: headers (16+ characters, or 8+ under a session-like name); attributes kept",
    keywords: ["cookie"],
    pattern: re(`(?<![\\w-])(?:set-)?cookie["']?[ \\t]*:[ \\t]*["']?`, "i"),
    spans: cookieSpans,
    entropy: 3,
  },
  {
    id: "table-secret",
    description: "Markdown table cells under a header that names a secret, or after a first cell that does (8+ characters, entropy >= 3.5 bits/char)",
    keywords: ["pass", "pwd", "secret", "token", "key", "credential"],
    pattern: re("^\\|[^\\n]*\\|[ \\t]*\\r?\\n\\|[ \\t]*:?-{3,}[^\\n]*(?:\\r?\\n\\|[^\\n]*)*", "m"),
    spans: tableSpans,
    entropy: 3.5,
  },
  {
    id: "generic-secret",
    description:
      "password/secret/token/api_key assignments and names ending in _PASS, _PWD, _PASSWD, _SECRET, _TOKEN, _KEY (=, :, quotes with spaces, export, JSON, YAML and its | block scalars); an unquoted value runs to whitespace; 8+ characters with entropy >= 3.5 bits/char; a _KEY value needs 16+ characters and a digit and is not a dotted name",
    keywords: ["pass", "pwd", "secret", "token", "key", "credential"],
    pattern: re(
      `(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*?${GENERIC_KEY}["'\`]?(?:\\s*:\\s*string)?\\s*(?::=|=>|=|:)(?![=:>])\\s*(?:"(?<s>[^"\\n]{8,256})"|'(?<s1>[^'\\n]{8,256})'|\`(?<s2>[^\`\\n]{8,256})\`|[|>][+-]?\\d?[ \\t]*\\r?\\n[ \\t]+(?<s4>[^\\s][^\\n]{0,255})|(?<s3>[^\\s"'\`,;&<>(){}\\[\\]=:|]))`,
      "i",
    ),
    entropy: 3.5,
    refine: refineGenericValue,
    // `NAME=` is the next assignment on the line, not a value ending in base64 padding.
    allow: (v, m) => notAnAssignedSecret(v) || keyNameValueKept(v, m) || /(?:^|[^a-z])pub(?:lic)?[_.-]?key/i.test(m[0]),
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

/** True when the rule keeps `secret` (global allow-list, filler, entropy floor, rule allow-list). */
function keptByRule(rule: RedactionRule, secret: string, m: RegExpExecArray): boolean {
  // A value holding `<redacted: KIND>` was judged by an earlier pass: redaction is idempotent.
  if (secret === "" || globallyAllowed(secret) || secret.includes("<redacted")) return true;
  const entropy = shannonEntropy(secret);
  return (!rule.weakIsSecret && filler(entropy)) || (rule.entropy !== undefined && entropy < rule.entropy) || rule.allow?.(secret, m) === true;
}

/**
 * Replaces each secret in `text` with `<redacted: KIND>`; pure.
 *
 * Findings are positions in the ORIGINAL text, in order: 1-based line, 1-based column and
 * length in Unicode code points, and `lines` when a secret spans more than one line. Rules run
 * in {@link REDACTION_RULES} order; a secret that overlaps one found by an earlier rule is left
 * to that rule. A secret starting or ending on a line of `options.exemptLines` is kept (ruling
 * 6). Idempotent: the placeholders never match a rule. Linear in the text's length. Contract §4.
 */
export function redactText(text: string, options: RedactOptions = {}): { text: string; findings: RedactionFinding[] } {
  const lower = text.toLowerCase();
  const exempt = options.exemptLines !== undefined && options.exemptLines.size > 0 ? options.exemptLines : undefined;
  let lineStarts: number[] | undefined;
  const onExemptLine = (start: number, end: number): boolean => {
    if (exempt === undefined) return false;
    lineStarts ??= lineStartsOf(text);
    return exempt.has(lineOf(lineStarts, start) + 1) || exempt.has(lineOf(lineStarts, Math.max(start, end - 1)) + 1);
  };
  const spans: Span[] = [];
  const accept = (start: number, end: number, r: number): void => {
    // Accepted spans never overlap, so sorted by start they are sorted by end too: the two
    // neighbours of the insertion point are the only possible overlaps.
    const at = insertionPoint(spans, start);
    const before = spans[at - 1];
    const after = spans[at];
    if ((before === undefined || before.end <= start) && (after === undefined || end <= after.start)) {
      spans.splice(at, 0, { start, end, rule: r });
    }
  };
  for (let r = 0; r < REDACTION_RULES.length; r++) {
    const rule = REDACTION_RULES[r]!;
    if (rule.keywords && !rule.keywords.some((k) => lower.includes(k))) continue;
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (m[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      if (rule.spans) {
        for (const [start, end] of rule.spans(text, m)) {
          if (end > start && !onExemptLine(start, end) && !keptByRule(rule, text.slice(start, end), m)) accept(start, end, r);
        }
        continue;
      }
      const [matchStart, matchEnd] = secretSpan(m);
      const refined: [number, number] | null = rule.refine ? rule.refine(text, m, matchStart, matchEnd) : [matchStart, matchEnd];
      if (refined === null || refined[1] <= refined[0] || onExemptLine(refined[0], refined[1]) || keptByRule(rule, text.slice(refined[0], refined[1]), m)) {
        // A kept value may begin the next match (`password: admin_pw=<secret>`): scan again
        // from inside this one instead of after it.
        pattern.lastIndex = Math.max(m.index + 1, matchStart);
        continue;
      }
      const [start, end] = refined;
      accept(start, end, r);
      // A refined span may run past the match; nothing inside it can be a separate secret.
      if (end > pattern.lastIndex) pattern.lastIndex = end;
    }
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
    const kind = REDACTION_RULES[s.rule]!.id;
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

/** At most this many findings are named in the report line; the rest are counted. */
const REPORT_LIMIT = 20;

/** A redaction longer than this many lines says how many it took, so a swallowed section shows. */
const REPORT_LINES_FROM = 4;

/**
 * The stderr line for a redaction, shared by `write`, `promote` and `redact` (contract §4):
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
