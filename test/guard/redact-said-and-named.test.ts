// Secrets a tester found kept: a password or token said in prose without a sign, short or chosen values under a
// key's or secret's name, .NET settings, a URL's password base64'd in a Kubernetes Secret, npm's UUID tokens outside
// .npmrc, Azure SAS signatures in HTML or before `sv=`, gpg's passphrase on descriptor 0. Their look-alikes are in
// test/fixtures/redaction/false-positives.txt (and a few below, through the built helper).
import { describe, expect, it } from "vitest";
import { redactText } from "../../src/guard/redact.ts";
import { expectLinear } from "../fixtures/redaction/work.ts";
import { helper } from "../helpers.ts";

// Fakes from two parts each, so that no scanner reads a secret in this file.
const j = (...parts: string[]): string => parts.join("");
const SAID = j("Xk9mP2", "qLw7");
const HEX20 = j("9f8e7d6c5b", "4a3f2e1d0c");
const SHORT_KEY = j("Rd7kLm", "2Qp9x");
const YEAR = j("MySuper", "Secret2024");
const WORDS = j("Correct", "HorseBattery");
const STRIPE = j("sk", "_live_", "ip9kOH8pW7Re");
const HUMAN = j("Hunter2", "Rocks!");
const UUID = j("85c36ff3-c2e3-", "45df-a309-72b3adbf17dd");
const SIG = j("Qm9vZ2llV29vZ2llMTIz", "NDU2Nzg5MGFiY2RlZg%3D%3D");
const GPG = j("GpgPass", "2024x");
const b64 = (s: string): string => Buffer.from(s).toString("base64");
const DB_URL = b64(j("postgres", "://u:pa55word@h/db"));
const DOCKER = b64(`{"auths":{"r.io":{"auth":"${b64(j("user:Pa55", "w0rd9"))}"}}}`);

/** [case, text, the value that must go, the KIND]. */
const LEAKS: Array<[string, string, string, string]> = [
  ["a password said in prose", `The staging password is ${SAID}`, SAID, "generic-secret"],
  ["a password for a place", `password for staging = ${SAID}`, SAID, "generic-secret"],
  ["a token said in prose", `The API token is ${HEX20}`, HEX20, "generic-secret"],
  ["11 characters under STRIPE_KEY", `STRIPE_KEY=${SHORT_KEY}`, SHORT_KEY, "generic-secret"],
  ["capitalised words and a year under JWT_SECRET", `JWT_SECRET=${YEAR}`, YEAR, "generic-secret"],
  ["capitalised words under DB_PASSWORD", `DB_PASSWORD=${WORDS}`, WORDS, "generic-secret"],
  [".NET StripeSecretKey", `<add key="StripeSecretKey" value="${STRIPE}" />`, STRIPE, "xml-password"],
  [".NET DbPassword", `<add key="DbPassword" value="${HUMAN}" />`, HUMAN, "xml-password"],
  ["a Kubernetes Secret's base64 URL", `apiVersion: v1\nkind: Secret\ndata:\n  DATABASE_URL: ${DB_URL}\n`, DB_URL,
    "url-password"],
  ["the same Secret as JSON", `{\n  "kind": "Secret",\n  "data": {\n    "DATABASE_URL": "${DB_URL}",\n  }\n}`, DB_URL,
    "url-password"],
  ["a Secret's .dockerconfigjson", `kind: Secret\ndata:\n  .dockerconfigjson: ${DOCKER}\n`, DOCKER, "docker-config-auth"],
  ["NPM_TOKEN=<uuid>", `NPM_TOKEN=${UUID}`, UUID, "generic-secret"],
  ["npm config set …:_authToken <uuid>", `npm config set //registry.npmjs.org/:_authToken ${UUID}`, UUID, "npmrc-auth"],
  ["yarn's npmAuthToken", `npmScopes:\n  acme:\n    npmAuthToken: ${UUID}`, UUID, "npmrc-auth"],
  ["a SAS in HTML", `<a href="https://a.blob.core.windows.net/c?sv=2021-06-08&amp;sp=r&amp;sig=${SIG}">`, SIG,
    "azure-storage-key"],
  ["a SAS with sig first", `https://a.blob.core.windows.net/c?sig=${SIG}&se=2027-01-01&sv=2021-06-08`, SIG,
    "azure-storage-key"],
  ["gpg --passphrase-fd 0 <<<", `gpg --batch --passphrase-fd 0 <<< '${GPG}' -d x.gpg`, GPG, "cli-password"],
  ["echo … | gpg --passphrase-fd 0", `echo ${GPG} | gpg --batch --passphrase-fd 0 -d x.gpg`, GPG, "cli-password"],
];

/** Look-alikes for the built helper: code names under a key's name, prose, references. */
const KEPT = [
  "API_KEY=readUInt8",
  "API_KEY=secp256k1",
  "TOKEN=writeUInt32LE",
  "the password is Argon2id",
  "The token is valid for 3600 seconds.",
  "password: PasswordInputProps",
  '<add key="PasswordMinLength" value="12" />',
  "npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}",
  'echo "$GPG_PASSPHRASE" | gpg --batch --passphrase-fd 0 -d x.gpg',
];

describe("redactText: what the tester found kept", () => {
  it.each(LEAKS)("%s", (_name, text, secret, kind) => {
    const r = redactText(text);
    expect(r.text).not.toContain(secret);
    expect(r.findings.map((f) => f.kind)).toEqual([kind]);
  });

  it("a sentence's full stop after a said value stays", () => {
    expect(redactText(`the deploy token is ${HEX20}.`).text).toBe("the deploy token is <redacted: generic-secret>.");
  });
});

describe("through the built helper", () => {
  it("redact: every value goes, each KIND is named, the look-alikes stay byte for byte", () => {
    const r = helper(["redact"], { input: `${LEAKS.map(([, text]) => text).join("\n\n")}\n` });
    expect(r.code, r.stderr).toBe(0);
    for (const [name, , secret, kind] of LEAKS) {
      expect(r.stdout + r.stderr, name).not.toContain(secret);
      expect(r.stdout, name).toContain(`<redacted: ${kind}>`);
    }
    const input = `${KEPT.join("\n\n")}\n`;
    const k = helper(["redact"], { input });
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toBe(input);
  });
});

// A second round: a password said in prose judged as after `password:`, a word after `--passphrase`, a long value
// of both cases' runs and digits under an API key's name, a short `auth` in a docker config.
const PHRASE = j("correcthorse", "battery");
const ALTERNATING = j("abcdEFGH1234", "ijklMNOP5678");
const SHORT_AUTH = b64(`{"auths":{"r.io":{"auth":"${b64("u:p")}"}}}`);
const LEAKS2: Array<[string, string, string, string]> = [
  ...[PHRASE, j("Wel", "come1"), j("hun", "ter2"), j("bluefal", "con77")].flatMap((pw): typeof LEAKS2 => [
    [`${pw} said in prose`, `the staging password is ${pw}`, pw, "generic-secret"],
    [`${pw} after password:`, `staging password: ${pw}`, pw, "generic-secret"],
  ]),
  ["a word after gpg --passphrase", `gpg --passphrase ${PHRASE} -d f`, PHRASE, "cli-password"],
  ["a quoted word after gpg --passphrase", `gpg --passphrase "${j("supersecret", "phrase")}"`,
    j("supersecret", "phrase"), "cli-password"],
  ["runs of both cases and digits under OPENAI_API_KEY", `OPENAI_API_KEY=${ALTERNATING}`, ALTERNATING,
    "generic-secret"],
  ["a Secret's .dockerconfigjson with a short auth", `kind: Secret\ndata:\n  .dockerconfigjson: ${SHORT_AUTH}\n`,
    SHORT_AUTH, "docker-config-auth"],
  ["a docker config's short auth", `{"auths":{"r.io":{"auth":"${b64("u:p")}"}}}`, b64("u:p"), "docker-config-auth"],
];

const KEPT2 = [
  "API_KEY=readUInt8",
  "API_KEY=secp256k1",
  "API_KEY=isRegExp2",
  "API_KEY=toString2",
  "API_KEY=decodeBase64WithBufferFrom",
  "API_KEY=getPeerX509Certificate",
  "the password is Argon2id",
  "the password is incorrect",
  "password: !vault |",
  "gpg --passphrase \"$GPG_PASSPHRASE\" -d f",
  "  --passphrase string   passphrase for the key file",
  "gpg --passphrase V -d f",
  '{"auth": "true"}',
];

describe("redactText: what the tester found kept, round two", () => {
  it.each(LEAKS2)("%s", (_name, text, secret, kind) => {
    const r = redactText(text);
    expect(r.text).not.toContain(secret);
    expect(r.findings.map((f) => f.kind)).toEqual([kind]);
  });

  it("through the built helper: each value goes, the look-alikes stay byte for byte", () => {
    const r = helper(["redact"], { input: `${LEAKS2.map(([, text]) => text).join("\n\n")}\n` });
    expect(r.code, r.stderr).toBe(0);
    for (const [name, , secret] of LEAKS2) expect(r.stdout + r.stderr, name).not.toContain(secret);
    const input = `${KEPT2.join("\n\n")}\n`;
    const k = helper(["redact"], { input });
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toBe(input);
  });
});

describe("linear on the new forms' near misses: 8x the input, at most 3 times 8x the time", () => {
  it.each([
    ["passwords for many words", "password for the staging db host "],
    ["signatures without sv", `?sig=${SIG}&sp=r&se=2027-01-01&`],
    ["gpg without a here-string", "gpg --passphrase-fd 0 -d x.gpg < "],
    ["base64 under names", `  DB_TOKEN: ${b64("hello world")}\n`],
  ])("%s", (_name, unit) => {
    expectLinear(redactText, (k) => unit.repeat(Math.ceil(k / unit.length)), 100_000);
  });
});
