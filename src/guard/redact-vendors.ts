// gitleaks v8's other default families (docs/decisions/gitleaks-rules.md): a prefix or infix, a length and a
// character set, no vendor name needed around the value; our own shapes, from the vendors' documented formats.
import { L, LD, R, RD, looksLikeCode, rule as v, type RedactionRule } from "./redact-kit.ts";

/** A bare Discord bot token's first part must decode to a numeric user id (`M…` collides with identifiers). */
function notADiscordBotToken(secret: string, m: RegExpExecArray): boolean {
  // Named by `discord` or `Bot `: any three-part token that is not an identifier path.
  const named = m.groups?.["s"] !== undefined || m.groups?.["s1"] !== undefined;
  if (named) return looksLikeCode(secret) || !/\d/.test(secret);
  const id = secret.slice(0, secret.indexOf("."));
  const decoded = Buffer.from(id.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1");
  return !/^\d{17,20}$/.test(decoded);
}

/** Docker's `auth` is base64 of `user:password`; anything else under that name is kept. */
function notADockerAuth(secret: string): boolean {
  const decoded = Buffer.from(secret, "base64").toString("latin1");
  return !/^[\x21-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

const DISCORD_TOKEN = "[A-Za-z0-9_-]{23,28}\\.[A-Za-z0-9_-]{6,7}\\.[A-Za-z0-9_-]{27,40}";

export const VENDOR_RULES: readonly RedactionRule[] = [
  // Alone, the first part must decode to a numeric id; named (`DISCORD_TOKEN=`, `Bot <token>`),
  // any three-part token (gitleaks' discord rules need the word too; docs/design.md#redaction).
  v("discord-bot-token", "",
    `${LD}[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}${RD}` +
      `|(?:[Dd]iscord|DISCORD)[^\\n]{0,40}?${LD}(?<s>${DISCORD_TOKEN})${RD}|\\bBot[ \\t]+(?<s1>${DISCORD_TOKEN})${RD}`,
    3.5, { allow: notADiscordBotToken }),
  v("databricks-api-token", "dapi", `${L}dapi[a-f0-9]{32}(?:-\\d)?${R}`),
  // Any length: base64 of `u:p` is four characters, and a weak password is still one.
  v("docker-config-auth", '"auth"',
    `"auth"\\s*:\\s*"(?<s>[A-Za-z0-9+/]{4,}={0,2})"`, undefined, { allow: notADockerAuth, weakIsSecret: true }),
  v("1password-token", "ops_eyj a3-",
    `${L}ops_eyJ[A-Za-z0-9+/]{100,}={0,3}` +
      `|${LD}A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}${RD}`, 3.5),
  v("artifactory-token", "akcp cmvmd", `${L}(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})${R}`, 4),
  v("atlassian-api-token", "atatt3", `${LD}ATATT3[A-Za-z0-9_=-]{186}${RD}`, 3.5),
  v("azure-ad-client-secret", "q~",
    `(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])`, 3),
  v("clojars-api-token", "clojars_", `${L}CLOJARS_[A-Za-z0-9]{60}${R}`, undefined, {}, "i"),
  v("clickhouse-cloud-key", "4b1d", `${L}4b1d[A-Za-z0-9]{38}${R}`, 3),
  v("cloudflare-origin-ca-key", "v1.0-", `${LD}v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}${RD}`),
  v("adobe-client-secret", "p8e-", `${LD}p8e-[A-Za-z0-9]{32}${RD}`, 3),
  v("alibaba-access-key-id", "ltai", `${L}LTAI[A-Za-z0-9]{20}${R}`, 3),
  v("authress-access-key", "sc_ ext_ authress_",
    `${L}(?:sc|ext|scauth|authress)_` +
      `[A-Za-z0-9]{5,30}\\.[A-Za-z0-9]{4,6}\\.acc[_-][A-Za-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,120}`),
  v("doppler-token", "dp.", `${LD}dp\\.(?:pt|st|ct|scim|audit|sa)\\.[A-Za-z0-9]{40,44}${R}`, 3),
  v("dynatrace-api-token", "dt0c01.", `${L}dt0c01\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}${R}`),
  v("easypost-api-token", "ezak eztk", `${L}EZ[AT]K[A-Za-z0-9]{54}${R}`, 3),
  v("facebook-token", "eaam eaac |", `${L}(?:EAA[MC][A-Za-z0-9]{100,}|\\d{15,16}\\|[0-9A-Za-z_-]{27,40})${RD}`, 3.5),
  v("flyio-access-token", "fo1_ fm1 fm2_",
    `${L}(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})`, 3.5),
  v("frameio-api-token", "fio-u-", `${LD}fio-u-[A-Za-z0-9_=-]{64}${RD}`),
  v("flutterwave-secret-key", "flwseck", `${L}FLWSECK(?:_TEST)?-(?:[a-h0-9]{32}-X|[a-h0-9]{12}${R})`),
  v("duffel-api-token", "duffel_", `${L}duffel_(?:test|live)_[A-Za-z0-9_=-]{43}${RD}`),
  v("grafana-token", "glc_ glsa_ eyjrijoi",
    `${L}(?:glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{70,400}={0,3})`, 3),
  v("harness-api-key", "pat. sat.", `${L}(?:pat|sat)\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}${R}`),
  v("heroku-api-key", "hrku-aa", `${LD}HRKU-AA[A-Za-z0-9_-]{58}${RD}`, 3.5),
  v("huggingface-org-token", "api_org_", `${L}api_org_[A-Za-z]{34}${R}`, 3),
  v("infracost-api-token", "ico-", `${LD}ico-[A-Za-z0-9]{32}${RD}`, 3),
  v("intra42-client-secret", "s-s4t2", `${LD}s-s4t2(?:ud|af)-[a-f0-9]{64}${RD}`),
  v("jwt-base64", "zxlk", `${L}ZXlK[A-Za-z0-9+/]{60,}={0,2}`, 3.5),
  v("maxmind-license-key", "_mmk", `${L}[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk${R}`, 3.5),
  v("mapbox-secret-token", "sk.eyj", `${L}sk\\.eyJ[A-Za-z0-9_-]{20,}\\.[A-Za-z0-9_-]{20,}${RD}`),
  v("microsoft-teams-webhook", "webhookb2",
    `\\.webhook\\.office\\.com/webhookb2/(?<s>[A-Za-z0-9@-]{40,}/IncomingWebhook/[A-Za-z0-9]{32}` +
      `/[A-Za-z0-9-]{36}(?:/[A-Za-z0-9_-]+)?)`, undefined, {}, "i"),
  v("new-relic-key", "nrak- nrii-", `${LD}(?:NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9_-]{32})${RD}`),
  v("notion-api-token", "ntn_", `${L}ntn_\\d{11}[A-Za-z0-9]{35}${R}`, 3.5),
  v("octopus-deploy-api-key", "api-", `${LD}API-[A-Z0-9]{26}${RD}`, 3),
  v("openshift-user-token", "sha256~", `${L}sha256~[A-Za-z0-9_-]{43}${RD}`, 3.5),
  v("perplexity-api-key", "pplx-", `${LD}pplx-[A-Za-z0-9]{48}${RD}`, 3.5),
  v("plaid-access-token", "access-sandbox- access-development- access-production-",
    `${LD}access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}${RD}`),
  v("planetscale-token", "pscale_", `${L}pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}${RD}`, 3),
  v("prefect-api-token", "pnu_", `${L}pnu_[A-Za-z0-9]{36}${R}`),
  v("pulumi-api-token", "pul-", `${LD}pul-[a-f0-9]{40}${RD}`),
  v("readme-api-token", "rdme_", `${L}rdme_[a-z0-9]{70}${R}`),
  v("rubygems-api-token", "rubygems_", `${L}rubygems_[a-f0-9]{48}${R}`),
  v("scalingo-api-token", "tk-us-", `${LD}tk-us-[A-Za-z0-9_-]{48}${RD}`),
  v("sendinblue-api-token", "xkeysib-", `${LD}xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}${RD}`),
  // A DSN's key (and its old secret) before `@` and a host named sentry: it lets anyone send events.
  v("sentry-token", "sntryu_ sntrys_ sentry",
    `${L}(?:sntryu_[a-f0-9]{64}|sntrys_eyJ[A-Za-z0-9+/]{40,400}={0,2}_[A-Za-z0-9+/]{43})${R}|https?://` +
      "(?<s>[0-9a-f]{32}(?::[0-9a-f]{32})?)@(?:[A-Za-z0-9-]{1,63}\\.){0,8}sentry[A-Za-z0-9.-]{0,128}(?::\\d{1,5})?/"),
  v("settlemint-token", "sm_aat_ sm_pat_ sm_sat_", `${L}sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}${R}`, 3),
  v("shippo-api-token", "shippo_", `${L}shippo_(?:live|test)_[a-fA-F0-9]{40}${R}`),
  v("square-access-token", "sq0atp- sq0csp- eaaa",
    `${LD}(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}|EAAA[A-Za-z0-9_-]{60})${RD}`, 3.5),
  v("twitter-bearer-token", "aaaaaaaaaaaaaaaaaaaaaa", `${L}A{22}[A-Za-z0-9%]{80,100}${R}`),
  v("typeform-api-token", "tfp_", `${L}tfp_[A-Za-z0-9_.=-]{59}${RD}`, 3),
  v("yandex-api-key", "aqvn", `${L}AQVN[A-Za-z0-9_-]{35,38}${RD}`, 3.5),
  v("sourcegraph-access-token", "sgp_", `${L}sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}${R}`),
  v("dropbox-token", "sl.", `${L}sl\\.[A-Za-z0-9_=-]{130,160}${RD}`, 3.5),
  v("gitlab-session-cookie", "_gitlab_session=", `_gitlab_session=(?<s>[0-9a-z]{32})${R}`),
  v("sidekiq-secret", "__contribsys__com",
    `BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM` +
      `["']?\\s*[=:]\\s*["']?(?<s>[a-f0-9]{8}:[a-f0-9]{8})`, undefined, {}, "i"),
];
