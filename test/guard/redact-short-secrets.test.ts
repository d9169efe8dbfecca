// Secrets a hostile tester found saved as they were (docs/decisions/human-passwords.md): short values under a
// credential's name, which a 3.5-bit floor could never reach, a password column of a table, `gpg --passphrase`, an
// Azure SAS signature, a Sentry DSN's key and a password said in prose. Their look-alikes stay byte for byte.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { redactText } from "../../src/guard/redact.ts";
import { expectLinear } from "../fixtures/redaction/work.ts";
import { everyByteUnder, gitRepo, handoff, helper } from "../helpers.ts";

// Fakes from two parts each, so that no scanner reads a secret in this file.
const j = (...parts: string[]): string => parts.join("");
const WINTER = j("Winter", "2024!");
const SUMMER = j("Summer", "2025#");
const SHORT_KEY = j("Rd7kLm", "2Qp9x");
const TABLE_PW = j("Tbl3", "Pass99");
const GPG = j("GpgPass", "2024x");
const SIG = j("Qm9vZ2llV29vZ2llMTIz", "NDU2Nzg5MGFiY2RlZg%3D%3D");
const DSN_KEY = j("9f8e7d6c5b4a3928", "1706f5e4d3c2b1a0");
const SAID = j("Xk9#mP", "q2vL");

/** [case, text, the value that must go, the KIND]. */
const LEAKS: Array<[string, string, string, string]> = [
  ["_PASS under 12 characters", `SMTP_PASS=${WINTER}`, WINTER, "generic-secret"],
  ["_PWD under 12 characters", `MYSQL_PWD=${SUMMER}`, SUMMER, "generic-secret"],
  ["PASS alone in upper case", `PASS=${WINTER}`, WINTER, "generic-secret"],
  ["a snake name's last part pass", `db_pass: ${WINTER}`, WINTER, "generic-secret"],
  ["a dotted name's last part pass", `spring.mail.pass=${SUMMER}`, SUMMER, "generic-secret"],
  ["11 distinct characters under API_KEY", `API_KEY=${SHORT_KEY}`, SHORT_KEY, "generic-secret"],
  ["11 distinct characters under token:", `token: ${SHORT_KEY}`, SHORT_KEY, "generic-secret"],
  ["11 distinct characters in <apiKey>", `<apiKey>${SHORT_KEY}</apiKey>`, SHORT_KEY, "xml-password"],
  ["a password column", `| user | password |\n|---|---|\n| admin | ${TABLE_PW} |`, TABLE_PW, "table-secret"],
  ["a table under a list item", `- creds:\n  | user | password |\n  |---|---|\n  | admin | ${TABLE_PW} |`, TABLE_PW,
    "table-secret"],
  ["a row named SMTP_PASS", `| name | value |\n|---|---|\n| SMTP_PASS | ${WINTER} |`, WINTER, "table-secret"],
  ["an api key column, 11 characters", `| service | api key |\n|---|---|\n| mail | ${SHORT_KEY} |`, SHORT_KEY, "table-secret"],
  ["gpg --passphrase '…'", `gpg --batch --passphrase '${GPG}' -d backup.gpg`, GPG, "cli-password"],
  ["gpg --passphrase=…", `gpg --batch --passphrase=${GPG} -c notes.txt`, GPG, "cli-password"],
  ["an Azure SAS URL's sig", `https://acct.blob.core.windows.net/c?sv=2021-06-08&sp=rwdl&se=2027-01-01&sig=${SIG}`, SIG,
    "azure-storage-key"],
  ["a SAS in a connection string", `BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig=${SIG}`,
    SIG, "azure-storage-key"],
  ["a Sentry DSN's key", `SENTRY_DSN=https://${DSN_KEY}@o123456.ingest.sentry.io/4504`, DSN_KEY, "sentry-token"],
  ["a password said in prose", `The staging DB password is ${SAID}, user admin.`, SAID, "generic-secret"],
  ["a password that was", `the root password was ${WINTER} until Monday`, WINTER, "generic-secret"],
];

/** Look-alikes: words, code, references and prose that must come out byte for byte. */
const KEPT: string[] = [
  "Living scripts pass: U+200C/U+200D",
  "PASS: test/guard/redact.test.ts",
  "bypass: Rd7kLm2Q-is-not-here",
  "cache_key=user42abc",
  "API_KEY=Uint8Array",
  "token: decodeUtf8",
  "SECRET_NAME=gitTopOf",
  "export NPM_TOKEN=\"${NPM_TOKEN:?missing}\"",
  "api_key: process.env.API_KEY",
  "OLDPWD=/home/me/src",
  "| Test | Pass |\n|---|---|\n| redact | yes |",
  "| step | pwd |\n|---|---|\n| build | /home/ci/work |",
  "The password is stored in Vault.",
  "the password is sha256-hashed",
  "The password was reset on 2024-05-01.",
  "the password is at least 12 characters",
  "password is Argon2id-hashed",
  "the password is $DB_PASSWORD",
  "The password is in 1Password's vault.",
  "gpg --passphrase-file key.txt -d x.gpg",
  "gpg --passphrase \"$GPG_PASS\" -d x.gpg",
  "https://a.blob.core.windows.net/c?sv=2021-06-08&sp=r&sig=<signature>",
  "https://examplePublicKey@o0.ingest.sentry.io/0",
];

describe("redactText: the short secrets and the forms the tester found", () => {
  it.each(LEAKS)("%s", (_name, text, secret, kind) => {
    const r = redactText(text);
    expect(r.text).not.toContain(secret);
    expect(r.findings.map((f) => f.kind)).toEqual([kind]);
  });

  it.each(KEPT.map((t) => [t]))("keeps %s", (text) => {
    expect(redactText(text)).toEqual({ text, findings: [] });
  });
});

describe("through the built helper", () => {
  it("redact: every value goes, each finding's KIND is named, no value on stderr", () => {
    const r = helper(["redact"], { input: `${LEAKS.map(([, text]) => text).join("\n\n")}\n` });
    expect(r.code, r.stderr).toBe(0);
    for (const [name, , secret, kind] of LEAKS) {
      expect(r.stdout + r.stderr, name).not.toContain(secret);
      expect(r.stdout, name).toContain(`<redacted: ${kind}>`);
    }
    expect(r.stderr).toMatch(new RegExp(`^redacted ${LEAKS.length} secret\\(s\\)`, "m"));
  });

  it("redact keeps the look-alikes byte for byte", () => {
    const input = `${KEPT.join("\n\n")}\n`;
    const r = helper(["redact"], { input });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(input);
  });

  it("write handoff: no value in HANDOFF.md, the journal, the brief or any output", () => {
    const root = gitRepo();
    const goal = `Fix mail: SMTP_PASS=${WINTER} and MYSQL_PWD=${SUMMER} are in .env; API_KEY=${SHORT_KEY} for staging`;
    const block = LEAKS.map(([, text]) => text.split("\n").map((l) => `  ${l}`).join("\n")).join("\n");
    const doc = handoff(goal).replace("## Failed approaches\n- none\n", `## Failed approaches\n- Pasted from the notes:\n${block}\n`);
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).not.toMatch(/secrets 5\/5/);
    const b = helper(["brief", "--root", root]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain("SMTP_PASS=<redacted: generic-secret>");
    const disk = everyByteUnder(path.join(root, ".ai", "memory"));
    expect(disk).toContain("MYSQL_PWD=<redacted: generic-secret>");
    for (const [name, , secret] of LEAKS) expect(disk + w.stdout + w.stderr + b.stdout + b.stderr, name).not.toContain(secret);
  });
});

describe("linear on the new forms' near misses: 8x the input, at most 3 times 8x the time", () => {
  it.each([
    ["SAS queries without a sig", "?sv=2021-06-08&sp=rwdl&se=2027-01-01&"],
    ["DSN keys before a host not named sentry", `https://${DSN_KEY}@o1.ingest.example.io.`],
    ["indented tables under a password header", "  | password | x |\n  |---|---|\n  | a |\n"],
    ["a password said, then a word", "the password is sha256-hashed; "],
  ])("%s", (_name, unit) => {
    expectLinear(redactText, (k) => unit.repeat(Math.ceil(k / unit.length)), 100_000);
  });
});
