// Families a hostile tester found saved unredacted, end to end through the built helper: the quoted forms of the
// command-line password flags, passphrases under a password name, 40/64 hex under a credential's name or after
// `Bearer`, .npmrc auth keys and .netrc passwords, random letters under a credential's name. Their look-alikes stay.
// Each line runs `redact` in this process (inProcess: the bundle's dispatch and output redaction); the built helper
// is spawned once for all of them, and for the save and the checkpoint.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { redactText } from "../../src/guard/redact.ts";
import { shannonEntropy } from "../../src/guard/redact-kit.ts";
import { prng } from "../fixtures/redaction/corpus.ts";
import { everyByteUnder, gitRepo, handoff, helper } from "../helpers.ts";
import { inProcess } from "../in-process.ts";
import { checkpoint, cpText } from "../verbs/support.ts";

// Fakes from two parts each, so that no scanner reads a secret in this file.
const PW = ["Qw7rT2yU9i", "O4pA6sD3fG"].join("");
const PW_SHELL = ["Qw7#T2yU9i", "$4pA6sD3fG"].join("");
const HEX64 = ["3f9a1c0b7e2d4a6f8b1c3e5d7f9a2b4c", "6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a"].join("");
const HEX40 = ["9b2e4c6a8f0d1e3c5a7b", "9d1f3e5c7a9b0d2f4e6a"].join("");
const NPM_AUTH = Buffer.from(`deploy:${PW}`).toString("base64");
const PHRASE = ["correct horse", " battery staple"].join("");
const WORDS = ["Tr0ub4dor&3", " horse Zebra!"].join("");
// Random letters whose average run reads as a name (`cy|Gzzd|Odswo|Um|DJE`), and npm's legacy UUID token.
const LETTERS = ["cyGzzdOd", "swoUmDJE"].join("");
const LETTERS36 = ["MPXRWHihUGSAMhorvM", "wduxpvsQzhOmpoLPXY"].join("");
const GLUED = ["correcthorse", "batterystaple"].join("");
const LETTER_SET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const NPM_UUID = ["5f0c7b52-1c3e-4e2f", "-9a7d-2b8e6f1d4c3a"].join("");

/** [family, line, the value that must go, the KIND]. */
const LEAKS: Array<[string, string, string, string]> = [
  ["mysql -p'…'", `mysql -u root -p'${PW_SHELL}'`, PW_SHELL, "cli-password"],
  ['mysql -p"…"', `mysqldump -u root -p"${PW}" shop`, PW, "cli-password"],
  ["redis-cli -a '…'", `redis-cli -a '${PW}' ping`, PW, "cli-password"],
  ['sshpass -p "…"', `sshpass -p "${PW}" ssh deploy@db`, PW, "cli-password"],
  ["docker login -p '…'", `docker login -u ci -p '${PW}' registry.example.com`, PW, "cli-password"],
  ['ldapsearch -w "…"', `ldapsearch -x -D cn=admin -w "${PW}" -b dc=x`, PW, "cli-password"],
  ["sqlcmd -P '…'", `sqlcmd -S db -U sa -P '${PW}'`, PW, "cli-password"],
  ['curl -u "user:…"', `curl -u "deploy:${PW}" https://ci.example.com`, PW, "cli-password"],
  ["smbclient -U 'user%…'", `smbclient //fs/share -U 'deploy%${PW}'`, PW, "cli-password"],
  ["--password '…' with spaces", `vault login --password '${WORDS}'`, WORDS, "cli-password"],
  ["quoted words under a _PASSWORD name", `DB_PASSWORD="${WORDS}"`, WORDS, "generic-secret"],
  ["a passphrase under PASSWORD:", `PASSWORD: "${PHRASE}"`, PHRASE, "generic-secret"],
  ["a passphrase in JSON", `{"passphrase": "${PHRASE}"}`, PHRASE, "generic-secret"],
  ["a passphrase in XML", `<password>${PHRASE}</password>`, PHRASE, "xml-password"],
  ["64 hex after Bearer", `curl -H "Authorization: Bearer ${HEX64}" https://api.x.com`, HEX64, "bearer-token"],
  ["40 hex in Authorization: token", `Authorization: token ${HEX40}`, HEX40, "bearer-token"],
  ["64 hex under *_TOKEN=", `API_TOKEN=${HEX64}`, HEX64, "generic-secret"],
  ["40 hex under client_secret:", `client_secret: "${HEX40}"`, HEX40, "generic-secret"],
  ["40 hex under SESSION_SECRET=", `export SESSION_SECRET=${HEX40}`, HEX40, "generic-secret"],
  // Found by a second breaker: Rails' secret_key_base, and a key named for what it encrypts or signs.
  ["128 hex under SECRET_KEY_BASE=", `SECRET_KEY_BASE=${HEX64}${HEX64}`, `${HEX64}${HEX64}`, "generic-secret"],
  ["secret_key_base: in YAML", `  secret_key_base: ${HEX64}`, HEX64, "generic-secret"],
  ["64 hex under ENCRYPTION_KEY=", `ENCRYPTION_KEY=${HEX64}`, HEX64, "generic-secret"],
  ["40 hex under JWT_SIGNING_KEY=", `JWT_SIGNING_KEY=${HEX40}`, HEX40, "generic-secret"],
  ["npmrc _authToken after a scope", `//npm.example.com/:_authToken=${PW}`, PW, "npmrc-auth"],
  ["npmrc _auth", `_auth=${NPM_AUTH}`, NPM_AUTH, "npmrc-auth"],
  ["npmrc _authToken of hex", `//registry.example.com/:_authToken="${HEX64}"`, HEX64, "npmrc-auth"],
  ["yarnrc npmAuthIdent", `npmAuthIdent: "deploy:${PW}"`, `deploy:${PW}`, "npmrc-auth"],
  ["random letters under a _PASSWORD name", `DB_PASSWORD=${LETTERS}`, LETTERS, "generic-secret"],
  ["36 random letters under API_KEY=", `API_KEY=${LETTERS36}`, LETTERS36, "generic-secret"],
  ["a passphrase glued into one word under password:", `password: ${GLUED}`, GLUED, "generic-secret"],
  ["npmrc _authToken of a UUID after a scope", `//registry.npmjs.org/:_authToken=${NPM_UUID}`, NPM_UUID, "npmrc-auth"],
  ["npmrc _authToken of a UUID, quoted", `_authToken = "${NPM_UUID}"`, NPM_UUID, "npmrc-auth"],
  ["netrc on one line", `machine api.example.com login deploy password ${PW}`, PW, "netrc-password"],
  ["netrc on several lines", `machine api.example.com\n  login deploy\n  password ${PW}`, PW, "netrc-password"],
];

/** Lines that must come out byte for byte. */
const KEPT: Array<[string, string]> = [
  ["a commit id in prose", `Fixed in commit ${HEX40} yesterday.`],
  ["a digest", `sha256: ${HEX64}`],
  ["the handoff's token line", `CURRENT-SHA256: ${HEX64}`],
  ["the handoff's token under `token:`", `token: ${HEX64}`],
  ["the token in a quoted key", `"token": "${HEX40}"`],
  ["the expected token in a log", `INFO published commit=${HEX64} expected_token=${HEX64}`],
  ["a bare _KEY of hex", `CACHE_KEY=${HEX64}`],
  ["the write command", `write handoff --expected-current-sha256 ${HEX64}`],
  ["a sentence under password:", 'password: "see the 1Password entry prod-db"'],
  ["a YAML block of prose under password:", "password: >-\n  see the vault entry\n"],
  ["mysql -p reading a variable", 'mysql -u root -p"$MYSQL_PWD" shop'],
  ["redis-cli -a reading a variable", "redis-cli -a \"$REDIS_PASSWORD\" ping"],
  ["npmrc reading a variable", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}"],
  ["code named _auth", "self._auth = AuthBase()"],
  ["netrc reading a variable", "machine github.com login x password $GH_TOKEN"],
  ["netrc words in prose", "The default password prompt asks the machine owner."],
  ["Bearer and a placeholder", "Authorization: Bearer <token>"],
  ["a UUID after Bearer", "Authorization: Bearer 5f0c7b52-1c3e-4e2f-9a7d-2b8e6f1d4c3a"],
  ["a UUID under a token's name outside .npmrc", `session_token: ${NPM_UUID}`],
  ["a UUID under npm's _auth", `_auth=${NPM_UUID}`],
  ["identifiers under credential names", "token=getAPIToken secret=SomeClassName password=useTokenRefresh"],
  ["a name whose rare letter pairs sit in one short word", "api_key: JwkKeyExportOptions"],
  ["a placeholder password", "DB_PASSWORD=changeme"],
  ["glued lower-case words under a token's name", `token: ${GLUED}`],
];

describe("redact: the families, quoted and hex forms", () => {
  it.each(LEAKS)("%s", async (_name, line, secret, kind) => {
    const r = await inProcess(["redact"], { input: `${line}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(secret);
    expect(r.stdout).toContain(`<redacted: ${kind}>`);
    expect(r.stderr).not.toContain(secret);
  });

  it.each(KEPT)("keeps %s", async (_name, line) => {
    const r = await inProcess(["redact"], { input: `${line}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${line}\n`);
  });

  it("the built helper, spawned: every family's value goes, and the look-alikes come out byte for byte", () => {
    const leaks = helper(["redact"], { input: `${LEAKS.map(([, line]) => line).join("\n\n")}\n` });
    expect(leaks.code, leaks.stderr).toBe(0);
    for (const [, , secret, kind] of LEAKS) {
      expect(leaks.stdout).not.toContain(secret);
      expect(leaks.stdout).toContain(`<redacted: ${kind}>`);
      expect(leaks.stderr).not.toContain(secret);
    }
    const kept = `${KEPT.map(([, line]) => line).join("\n\n")}\n`;
    expect(helper(["redact"], { input: kept })).toMatchObject({ code: 0, stdout: kept, stderr: "" });
  });
});

const SECRETS = [...new Set(LEAKS.map(([, , s]) => s))];
const BLOCK = LEAKS.map(([, line]) => line.split("\n").map((l) => `  ${l}`).join("\n")).join("\n");

describe("write handoff and checkpoint", () => {
  it("write handoff: no value in HANDOFF.md, the journal or any output", () => {
    const root = gitRepo();
    const doc = handoff("Rotate the credentials.").replace(
      "## Failed approaches\n- none\n", `## Failed approaches\n- Pasted from the shell history:\n${BLOCK}\n`);
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(w.code, w.stderr).toBe(0);
    const memory = path.join(root, ".ai", "memory");
    const saved = readFileSync(path.join(memory, "HANDOFF.md"), "utf8");
    expect(saved).toContain("<redacted: netrc-password>");
    expect(readdirSync(path.join(memory, "journal")).length).toBeGreaterThan(0);
    const disk = everyByteUnder(memory);
    for (const s of SECRETS) expect(disk + w.stdout + w.stderr, s).not.toContain(s);
  });

  it("checkpoint: no value in the checkpoint from a transcript's commands", () => {
    const root = gitRepo();
    const base = { sessionId: "s", version: "2.1.80", cwd: root, gitBranch: "main", isSidechain: false };
    const command = LEAKS.map(([, line]) => line).join("\n");
    const lines = [
      { ...base, type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-12-01T09:00:00.000Z", message: { role: "user", content: "Log in everywhere" } },
      { ...base, type: "assistant", uuid: "a1", timestamp: "2026-12-01T09:00:05.000Z", message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command } }] } },
      { ...base, type: "user", uuid: "u2", timestamp: "2026-12-01T09:00:06.000Z", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] } },
      { ...base, type: "assistant", uuid: "a2", timestamp: "2026-12-01T09:00:09.000Z", message: { role: "assistant", content: [{ type: "text", text: `Logged in; ${LEAKS[0]![1]}` }] } },
    ];
    const t = path.join(root, "t.jsonl");
    writeFileSync(t, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const r = checkpoint(root, { transcript_path: t });
    expect(r.code, r.stderr).toBe(0);
    const text = cpText(root, "sess-1")!;
    expect(text).toContain("<redacted: cli-password>");
    for (const s of SECRETS) expect(text + r.stderr + everyByteUnder(path.join(root, ".ai", "memory")), s).not.toContain(s);
  });
});

describe("random letters and the names of code under a credential's name", () => {
  // Seeded random letters, 12 to 40 of them: a fifth read as a name by their average run alone (measured on
  // 5,000: 79.4% redacted under DB_PASSWORD= before the rare letter pairs, 98.2% after).
  const r = prng(4242);
  const randoms = Array.from({ length: 400 }, () => {
    const n = 12 + Math.floor(r() * 29);
    return Array.from({ length: n }, () => LETTER_SET[Math.floor(r() * 52)]).join("");
  });
  const redacted = (line: string, v: string): boolean => !redactText(`${line}${v}\n`).text.includes(v);

  it("nearly all are redacted under a password's name, and under a key's name when over the entropy floor", () => {
    expect(randoms.filter((v) => redacted("DB_PASSWORD=", v)).length).toBeGreaterThanOrEqual(388);
    const judged = randoms.filter((v) => shannonEntropy(v) >= 3.5);
    expect(judged.filter((v) => redacted("API_KEY=", v)).length).toBeGreaterThanOrEqual(judged.length * 0.97);
  });

  it("every letters-only name in src/ stays under API_KEY=", () => {
    const src = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "src");
    const names = new Set<string>();
    // Words, not the character classes of a pattern (`[bcdhjk…]`).
    const word = /(?<![\w$[])[A-Za-z]{6,}(?![\w$\]])/g;
    for (const f of readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
      for (const m of readFileSync(path.join(src, f), "utf8").matchAll(word)) names.add(m[0]);
    }
    expect(names.size).toBeGreaterThan(2000);
    expect([...names].filter((v) => redacted("API_KEY=", v))).toEqual([]);
  });
});
