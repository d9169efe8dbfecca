import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REDACTION_RULES, formatRedactionReport, redactText, type RedactionFinding } from "../../src/guard/redact.ts";
import { shannonEntropy } from "../../src/guard/redact-kit.ts";
import {
  ALNUM,
  MAKERS,
  SYNTAXES,
  generatedFalsePositives,
  handWrittenFalsePositives,
  prng,
  randomString,
  truePositives,
  type Sample,
} from "../fixtures/redaction/corpus.ts";
import { kindLookAlikes, vendorLookAlikes } from "../fixtures/redaction/kinds.ts";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "redaction");
// Schemes kept apart from their URLs: no literal here is a connection string a secret scanner flags.
const PG = "postgres";
const TPS = truePositives();
const FPS = [
  ...handWrittenFalsePositives(),
  ...generatedFalsePositives(),
  ...kindLookAlikes().map((l) => ({ name: `kind: ${l.name}`, text: l.text })),
  ...vendorLookAlikes().map((l) => ({ name: l.name, text: l.text })),
];

/** 1-based line and code-point column of a UTF-16 offset, as the findings report them. */
function position(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line, column: [...text.slice(lineStart, index)].length + 1 };
}

afterAll(() => {
  // A pass means as much as the corpus is large, so the test output says how large it is.
  console.log(`redaction corpus: ${REDACTION_RULES.length} rules, ${TPS.length} true positives, ${FPS.length} false positives`);
});

describe("the rule table", () => {
  it("has at least 25 rules with unique kebab-case ids, each a row of references/verbs/redact.md in order", () => {
    expect(REDACTION_RULES.length).toBeGreaterThanOrEqual(25);
    const ids = REDACTION_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const reference = readFileSync(new URL("../../references/verbs/redact.md", import.meta.url), "utf8");
    const rows = [...reference.matchAll(/^\| `([a-z0-9-]+)` \| .{10,} \|$/gm)].map((m) => m[1]);
    expect(rows).toEqual(ids);
    for (const r of REDACTION_RULES) {
      expect(r.id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(r.pattern.flags).toContain("g");
      expect(r.pattern.flags).toContain("d");
      for (const k of r.keywords ?? []) expect(k).toBe(k.toLowerCase());
    }
  });

  it("covers the common families", () => {
    const ids = new Set(REDACTION_RULES.map((r) => r.id));
    for (const id of [
      "aws-access-key-id",
      "github-token",
      "github-fine-grained-token",
      "gitlab-token",
      "openai-api-key",
      "anthropic-api-key",
      "slack-token",
      "slack-webhook",
      "stripe-key",
      "google-api-key",
      "npm-token",
      "private-key",
      "jwt",
      "bearer-token",
      "url-password",
      "generic-secret",
    ]) {
      expect(ids, id).toContain(id);
    }
  });

  it("has a true-positive maker in the corpus for every rule, and no maker without a rule", () => {
    expect(Object.keys(MAKERS).sort()).toEqual(REDACTION_RULES.map((r) => r.id).sort());
  });

  it("has a corpus of 200+ true and 200+ false positives", () => {
    expect(TPS.length).toBeGreaterThanOrEqual(200);
    expect(FPS.length).toBeGreaterThanOrEqual(200);
    // Every rule is tried in at least five syntaxes.
    for (const r of REDACTION_RULES) expect(TPS.filter((t) => t.rule === r.id).length, r.id).toBeGreaterThanOrEqual(5);
  });
});

describe("true positives: every rule in every syntax", () => {
  it.each(TPS.map((t) => [t.name, t] as const))("%s", (_name, tp) => {
    const { text, findings } = redactText(tp.doc);
    expect(text).not.toContain(tp.secret);
    expect(text).toContain(`<redacted: ${tp.rule}>`);
    const at = tp.doc.indexOf(tp.secret);
    const where = position(tp.doc, at);
    const lines = tp.secret.split("\n").length;
    expect(findings).toContainEqual<RedactionFinding>({ kind: tp.rule, ...where, length: [...tp.secret].length, ...(lines > 1 ? { lines } : {}) });
    // The report names kinds and lines, never a value.
    expect(formatRedactionReport(findings)).not.toContain(tp.secret);
    // Redaction is idempotent: the placeholders never match a rule.
    expect(redactText(text)).toEqual({ text, findings: [] });
  });
});

describe("false positives must survive", () => {
  it.each(FPS.map((f) => [f.name, f.text] as const))("%s: %s", (_name, line) => {
    expect(redactText(line)).toEqual({ text: line, findings: [] });
  });

  it("leaves an ordinary handoff byte for byte", () => {
    const doc = readFileSync(path.join(FIXTURES, "handoff-clean.md"), "utf8");
    expect(redactText(doc)).toEqual({ text: doc, findings: [] });
  });
});

describe("what is replaced, and where", () => {
  const ghp = `ghp_${randomString(prng(1), ALNUM, 36)}`;
  const pw = randomString(prng(2), ALNUM, 14);

  it("replaces a URL's password only, keeping user, host, port and database", () => {
    const r = redactText(`DATABASE_URL=postgres://app:${pw}@db:5432/x`);
    expect(r.text).toBe("DATABASE_URL=postgres://app:<redacted: url-password>@db:5432/x");
    expect(r.findings).toEqual([{ kind: "url-password", line: 1, column: 29, length: 14 }]);
  });

  it.each([
    ["redis, no user", `redis://:${pw}@cache:6379`, "redis://:<redacted: url-password>@cache:6379"],
    ["mongodb+srv", `mongodb+srv://svc:${pw}@cluster0.example.net/db`, "mongodb+srv://svc:<redacted: url-password>@cluster0.example.net/db"],
    ["https basic", `git clone https://bot:${pw}@git.example.com/a/b.git`, "git clone https://bot:<redacted: url-password>@git.example.com/a/b.git"],
    ["two in one line", `a=mysql://u:${pw}@h1/db b=amqp://g:${pw}x@h2/`, "a=mysql://u:<redacted: url-password>@h1/db b=amqp://g:<redacted: url-password>@h2/"],
    [
      "raw # in the password (a pasted log's shape)",
      `DATABASE_URL=${PG}://admin:S3cr#tPassw0rd@db.example.com:5432/app`,
      "DATABASE_URL=postgres://admin:<redacted: url-password>@db.example.com:5432/app",
    ],
    ["raw ? in the password", `${PG}://admin:Pa?ssw0rdXyz9@db/app`, `${PG}://admin:<redacted: url-password>@db/app`],
    [
      "raw # and ? in the password, and a later query and fragment kept",
      `${PG}://app:Q#7x?Lm2@db:5432/orders?sslmode=require#primary`,
      "postgres://app:<redacted: url-password>@db:5432/orders?sslmode=require#primary",
    ],
    ["a port, then a query holding an email", "https://example.com:8443?next=joe@example.com", "https://example.com:8443?next=joe@example.com"],
    ["a port, then a fragment", "https://example.com:443#user@host", "https://example.com:443#user@host"],
    ["ssh user without a password", "ssh://git@github.com/acme/repo.git#main", "ssh://git@github.com/acme/repo.git#main"],
  ])("url-password: %s", (_name, input, expected) => {
    expect(redactText(input).text).toBe(expected);
  });

  it("keeps the Slack webhook host and replaces the path", () => {
    const path = `T0000AAAA/B1111BBBB/${randomString(prng(3), ALNUM, 24)}`;
    expect(redactText(`hook: https://hooks.slack.com/services/${path}`).text).toBe(
      "hook: https://hooks.slack.com/services/<redacted: slack-webhook>",
    );
  });

  it("reports line and column in the original text, columns in code points", () => {
    const doc = `# notes 🚀\nline two\n🔑🔑 token=${ghp} and ${ghp}\n`;
    const r = redactText(doc);
    expect(r.findings).toEqual([
      { kind: "github-token", line: 3, column: 10, length: 40 },
      { kind: "github-token", line: 3, column: 55, length: 40 },
    ]);
    expect(r.text).toBe("# notes 🚀\nline two\n🔑🔑 token=<redacted: github-token> and <redacted: github-token>\n");
  });

  it("lets the specific rule win over the generic one on the same value", () => {
    expect(redactText(`export GITHUB_TOKEN=${ghp}`).findings.map((f) => f.kind)).toEqual(["github-token"]);
    expect(redactText(`Authorization: Bearer ${ghp}`).findings.map((f) => f.kind)).toEqual(["github-token"]);
  });

  it("orders findings by position", () => {
    const r = redactText(`b: https://u:${pw}@h/\na: ${ghp}\n`);
    expect(r.findings.map((f) => [f.kind, f.line])).toEqual([
      ["url-password", 1],
      ["github-token", 2],
    ]);
  });

  it("handles CRLF line ends and an empty text", () => {
    expect(redactText("")).toEqual({ text: "", findings: [] });
    const r = redactText(`x\r\ny=${ghp}\r\n`);
    expect(r.findings).toEqual([{ kind: "github-token", line: 2, column: 3, length: 40 }]);
  });
});

describe("the generic assignment rule", () => {
  it.each([
    ["8+ chars, 3.5+ bits", "password = Xk9#mQ2pL7vR", true],
    ["export", "export DB_PASSWORD=Xk9mQ2pL7vR4tY", true],
    ["JSON", '{"client_secret": "Xk9mQ2pL7vR4tY8w"}', true],
    ["YAML", "  api_key: Xk9mQ2pL7vR4tY8w", true],
    ["TS with a type", 'const apiKey: string = "Xk9mQ2pL7vR4tY8w";', true],
    ["Go :=", 'token := "Xk9mQ2pL7vR4tY8w"', true],
    ["human password with digits", "password: Summer2024Tigers", true],
    ["5 chars under a password's name", "password = Xk9mQ", false],
    ["7 chars under a token's name", "token = Xk9mQ2p", false],
    ["low entropy", "password = aaaabbbbaaaabbbb", false],
    ["a person's password below 3.5 bits", "password=hunter2hunter2", true],
    ["the same under a token's name", "token=hunter2hunter2", false],
    ["`pass:` in prose keeps the 3.5 floor", "Living scripts pass: U+200C/U+200D", false],
    ["digits only (at most 3.32 bits)", "token = 8472910364518273", false],
    ["$VAR", "password = $DB_PASSWORD_2024x", false],
    ["${VAR}", "password: ${DB_PASSWORD_2024x}", false],
    ["os.environ", 'token = os.environ["TOKEN_2024x"]', false],
    ["process.env", "token: process.env.TOKEN_2024x", false],
    ["placeholder", "password: <redacted: generic-secret>", false],
    ["not a secret name", "api_key_env = Xk9mQ2pL7vR4tY8w", false],
    ["name with a suffix", "token_count = Xk9mQ2pL7vR4tY8w", false],
  ])("%s: %s", (_name, line, fires) => {
    const kinds = redactText(line).findings.map((f) => f.kind);
    if (fires) expect(kinds).toEqual(["generic-secret"]);
    else expect(kinds).toEqual([]);
  });

  // An unquoted value runs to whitespace; its entropy is judged on the whole run, since pieces
  // of 11 characters or fewer can never reach 3.5 bits per character (log2(11) < 3.46).
  it.each([
    ["& inside (.env)", "DB_PASSWORD=h7Kp2Xq9Wm&4Tz8Rv3Ly", "DB_PASSWORD=<redacted: generic-secret>"],
    ["; inside (shell)", "export SECRET=Gq4!zR8;pL2@xV6#", "export SECRET=<redacted: generic-secret>"],
    ["& inside, spaced =", "password = Tr0ub4dor&3xyzQ", "password = <redacted: generic-secret>"],
    [", inside", "password=Xy7pQ3mN9k,L2wR5t", "password=<redacted: generic-secret>"],
    ["( < > and a backtick inside", "API_KEY=Lm3(Qz8<Rw5>Tx1v`Jp", "API_KEY=<redacted: generic-secret>"],
    ["; ending a shell command", "export SECRET=Gq4!zR8;pL2@xV6#; ./deploy.sh", "export SECRET=<redacted: generic-secret>; ./deploy.sh"],
    ["&& after the value", "DB_PASSWORD=h7Kp2Xq9Wm&4Tz8Rv3Ly&&npm start", "DB_PASSWORD=<redacted: generic-secret>&&npm start"],
    ["next assignment after ;", "token=Gq4zR8pL2xV6mN9k;expires=3600", "token=<redacted: generic-secret>;expires=3600"],
    ["keyword arguments", "connect(host=db,password=h7Kp2Xq9Wm&4Tz8Rv3Ly,port=5432)", "connect(host=db,password=<redacted: generic-secret>,port=5432)"],
    ["closing paren", "login(password=Xy7pQ3mN9k,L2wR5t)", "login(password=<redacted: generic-secret>)"],
    ["inline code in a sentence", "Run `password=Xy7pQ3mN9k,L2wR5t`.", "Run `password=<redacted: generic-secret>`."],
    ["URL query: & and # end the value", "https://a.example/cb?api_key=Xk9mQ2pL7vR4tY&page=2#top", "https://a.example/cb?api_key=<redacted: generic-secret>&page=2#top"],
    ["nested assignment", "password: admin_pw=Xk9mQ2pL7vR4tY", "password: admin_pw=<redacted: generic-secret>"],
    ["short value before the next assignment", "token=abc123,expires=2025-05-14T09:12:33Z,scope=read", "token=abc123,expires=2025-05-14T09:12:33Z,scope=read"],
    ["default inside ${…}", "DB_PASSWORD=${DB_PASSWORD:-changeme};export DB_PASSWORD", "DB_PASSWORD=${DB_PASSWORD:-changeme};export DB_PASSWORD"],
    ["a generic type", "apiKey: Map<string,Buffer>", "apiKey: Map<string,Buffer>"],
    ["a list of words", "secret: read,write,delete,admin", "secret: read,write,delete,admin"],
  ])("whole unquoted run: %s", (_name, input, expected) => {
    expect(redactText(input).text).toBe(expected);
  });

  it("measures entropy in bits per character", () => {
    expect(shannonEntropy("")).toBe(0);
    expect(shannonEntropy("aaaa")).toBe(0);
    expect(shannonEntropy("abcd")).toBe(2);
    expect(shannonEntropy("0123456789abcdef")).toBe(4);
  });
});

describe("formatRedactionReport", () => {
  it.each([
    [[], "redacted 0 secret(s)"],
    [[{ kind: "openai-api-key", line: 3, column: 1, length: 51 }], "redacted 1 secret(s): openai-api-key (line 3)"],
    [
      [
        { kind: "openai-api-key", line: 3, column: 16, length: 51 },
        { kind: "url-password", line: 4, column: 29, length: 8 },
      ],
      "redacted 2 secret(s): openai-api-key (line 3), url-password (line 4)",
    ],
  ] as Array<[RedactionFinding[], string]>)("%j", (findings, line) => {
    expect(formatRedactionReport(findings)).toBe(line);
  });

  it("names at most 20 findings and counts the rest", () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ kind: "jwt", line: i + 1, column: 1, length: 60 }));
    const line = formatRedactionReport(many);
    expect(line.startsWith("redacted 25 secret(s): jwt (line 1), ")).toBe(true);
    expect(line.endsWith("jwt (line 20), … and 5 more")).toBe(true);
  });
});

describe("property: secrets spliced into random documents never survive", () => {
  const base = [
    ...readFileSync(path.join(FIXTURES, "handoff-clean.md"), "utf8").split("\n"),
    ...handWrittenFalsePositives().map((f) => f.text),
  ];
  const ruleIds = Object.keys(MAKERS);
  const syntaxes = Object.values(SYNTAXES);
  const seeds = Array.from({ length: 120 }, (_, i) => 1000 + i);

  it.each(seeds)("seed %i", (seed) => {
    const r = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    // Units are base lines or whole spliced blocks; a splice never lands inside another's block.
    const units: Array<{ text: string; base: boolean }> = [];
    for (let i = 0, n = 20 + Math.floor(r() * 60); i < n; i++) units.push({ text: pick(base), base: true });
    const secrets: string[] = [];
    for (let k = 0, n = 1 + Math.floor(r() * 6); k < n; k++) {
      const rule = pick(ruleIds);
      const sample: Sample = { rule, ...MAKERS[rule]!(r) };
      const at = Math.floor(r() * (units.length + 1));
      const host = units[at];
      if (r() < 0.4 || sample.snippet.includes("\n") || /\s/.test(sample.snippet) || !host?.base) {
        // As a whole block in one of the syntaxes that can carry it.
        const fits = sample.only ? sample.only.map((n) => SYNTAXES[n]!) : syntaxes;
        const doc = pick(fits)(sample) ?? SYNTAXES[sample.only?.[0] ?? ".env"]!(sample)!;
        units.splice(at, 0, { text: doc, base: false });
        secrets.push(doc.includes(sample.secret) ? sample.secret : JSON.stringify(sample.secret).slice(1, -1));
      } else {
        // Inline, between two words of a base line.
        const words = host.text.split(" ");
        const inline = sample.snippet === sample.secret ? `${sample.key}=${sample.snippet}` : sample.snippet;
        words.splice(Math.floor(r() * (words.length + 1)), 0, inline);
        units[at] = { text: words.join(" "), base: false };
        secrets.push(sample.secret);
      }
    }
    const lines = units.map((u) => u.text);
    const doc = `${lines.join("\n")}\n`;
    const { text, findings } = redactText(doc);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(findings.length).toBeGreaterThanOrEqual(secrets.length);
    expect(formatRedactionReport(findings)).not.toMatch(new RegExp(secrets.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")));
    expect(redactText(text).findings).toEqual([]);
  });
});
