// Redaction that loses no prose and misses no token. Each kind of secret text has generated members
// and look-alikes (test/fixtures/redaction/kinds.ts); here every member must lose exactly its
// secret (every other byte survives), every look-alike must survive whole, and the report must name
// kinds, lines and long spans.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatRedactionReport, redactText } from "../../src/guard/redact.ts";
import { MAKERS, SYNTAXES, prng, randomString, ALNUM, B64, type Sample } from "../fixtures/redaction/corpus.ts";
import { kindLookAlikes, kindMembers, vendorLookAlikes } from "../fixtures/redaction/kinds.ts";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "redaction");
const MEMBERS = kindMembers();
const LOOK_ALIKES = kindLookAlikes();

describe("every kind has five or more members and five or more look-alikes", () => {
  it("counts per kind", () => {
    const kinds = new Set(MEMBERS.map((m) => m.kind));
    for (const k of kinds) {
      expect(MEMBERS.filter((m) => m.kind === k).length, k).toBeGreaterThanOrEqual(5);
      expect(LOOK_ALIKES.filter((l) => l.kind === k).length, k).toBeGreaterThanOrEqual(5);
    }
    for (const k of new Set(vendorLookAlikes().map((l) => l.kind))) {
      expect(vendorLookAlikes().filter((l) => l.kind === k).length, k).toBeGreaterThanOrEqual(4);
    }
  });
});

describe("members: the secret goes, every other byte stays", () => {
  it.each(MEMBERS.map((m) => [m.name, m] as const))("%s", (_name, m) => {
    const { text, findings } = redactText(m.doc);
    expect(text).toBe(m.doc.replace(m.secret, `<redacted: ${m.rule}>`));
    for (const k of m.keep ?? []) expect(text).toContain(k);
    expect(findings.map((f) => f.kind)).toEqual([m.rule]);
    expect(formatRedactionReport(findings)).not.toContain(m.secret);
    expect(redactText(text).findings).toEqual([]);
  });
});

describe("look-alikes survive byte for byte", () => {
  it.each([...LOOK_ALIKES, ...vendorLookAlikes()].map((l) => [l.name, l.text] as const))("%s", (_name, text) => {
    expect(redactText(text)).toEqual({ text, findings: [] });
  });
});

describe("the private-key rule never spans prose (a handoff may name BEGIN and END)", () => {
  const r = prng(10);
  const body = Array.from({ length: 6 }, () => randomString(r, B64, 64));

  it("keeps a handoff that mentions BEGIN and END three lines apart, whole", () => {
    const doc = [
      "## Plan",
      "- [x] Detect `-----BEGIN PRIVATE KEY-----` at the start of a line",
      "- [ ] Stop at the matching END line",
      "## Decisions",
      "- The END marker `-----END PRIVATE KEY-----` closes the block.",
      "## Failed approaches",
      "- A greedy regex swallowed the whole file.",
    ].join("\n");
    expect(redactText(doc)).toEqual({ text: doc, findings: [] });
  });

  it("takes only the key when prose follows a key with no END line, and says how many lines it took", () => {
    const key = ["-----BEGIN ENCRYPTED PRIVATE KEY-----", ...body].join("\n");
    const doc = `## Verification\n${key}\n## Decisions\n- Rotate it.\n`;
    const { text, findings } = redactText(doc);
    expect(text).toBe("## Verification\n<redacted: private-key>\n## Decisions\n- Rotate it.\n");
    expect(findings).toEqual([{ kind: "private-key", line: 2, column: 1, length: key.length, lines: 7 }]);
    expect(formatRedactionReport(findings)).toBe("redacted 1 secret(s): private-key (line 2, 7 lines)");
  });

  it("stops at the END line and keeps the next key's prose apart", () => {
    const key = ["-----BEGIN PRIVATE KEY-----", ...body, "-----END PRIVATE KEY-----"].join("\n");
    const doc = `${key}\nThe next line is prose.\n${key}\n`;
    const { text, findings } = redactText(doc);
    expect(text).toBe("<redacted: private-key>\nThe next line is prose.\n<redacted: private-key>\n");
    expect(findings.map((f) => [f.line, f.lines])).toEqual([
      [1, 8],
      [10, 8],
    ]);
  });
});

describe("anchors (the exemptLines option)", () => {
  const r = prng(11);
  const token = `sk-proj-${randomString(r, ALNUM, 60)}`;
  const value = randomString(r, ALNUM, 24);
  const doc = `## Environment anchors\n- Branch: feature/${token}\n- HEAD: ${"a".repeat(40)}\nOPENAI_API_KEY=${token}\n`;

  it("leaves exempt lines untouched and redacts the same value elsewhere", () => {
    const named = `## Environment anchors\n- Branch: feature/token=${value}\n- HEAD: ${"a".repeat(40)}\nTOKEN=${value}\n`;
    const { text, findings } = redactText(named, { exemptLines: new Set([2, 3]) });
    expect(text).toBe(`## Environment anchors\n- Branch: feature/token=${value}\n- HEAD: ${"a".repeat(40)}\nTOKEN=<redacted: generic-secret>\n`);
    expect(findings.map((f) => f.line)).toEqual([4]);
  });

  it("redacts a vendor's exact token shape even on an exempt line", () => {
    const { text, findings } = redactText(doc, { exemptLines: new Set([2, 3]) });
    expect(text).toBe(`## Environment anchors\n- Branch: feature/<redacted: openai-api-key>\n- HEAD: ${"a".repeat(40)}\nOPENAI_API_KEY=<redacted: openai-api-key>\n`);
    expect(findings.map((f) => f.line)).toEqual([2, 4]);
  });

  it("redacts an anchor line that is not exempt, and keeps the one-argument call", () => {
    expect(redactText(doc).findings.map((f) => f.line)).toEqual([2, 4]);
    expect(redactText(doc, {}).findings.map((f) => f.line)).toEqual([2, 4]);
    expect(redactText(doc, { exemptLines: new Set() }).findings.map((f) => f.line)).toEqual([2, 4]);
  });

  it.each([
    "- Branch: feature/sk-1234-fix-login-redirect-loop-safari",
    "- Branch: fix/sk-20241105-handle-redirects-in-the-oauth-callback",
    "- In progress: sk-77-retry-the-token-refresh-with-backoff-and-jitter",
    "- Dirty files: src/sk-1234-fix-login-redirect-loop-safari.ts, test/a.ts",
    "- Key file mtimes: docs/sk-1234-fix-login-redirect-loop-safari.md @ 2025-05-14T07:00:00Z",
  ])("never needs the exemption for a branch or path shaped like a word list: %s", (line) => {
    expect(redactText(line)).toEqual({ text: line, findings: [] });
  });
});

describe("the report names each kind and line", () => {
  it.each([
    [[{ kind: "private-key", line: 4, column: 1, length: 500, lines: 3 }], "redacted 1 secret(s): private-key (line 4)"],
    [[{ kind: "private-key", line: 4, column: 1, length: 500, lines: 4 }], "redacted 1 secret(s): private-key (line 4, 4 lines)"],
    [
      [
        { kind: "generic-secret", line: 2, column: 5, length: 20 },
        { kind: "private-key", line: 9, column: 1, length: 1700, lines: 28 },
      ],
      "redacted 2 secret(s): generic-secret (line 2), private-key (line 9, 28 lines)",
    ],
  ])("%j", (findings, line) => {
    expect(formatRedactionReport(findings)).toBe(line);
  });
});

describe("property: each family inserted at random positions in a real handoff; every other byte survives", () => {
  const handoff = readFileSync(path.join(FIXTURES, "handoff-clean.md"), "utf8");
  const baseLines = handoff.split("\n");
  const rules = Object.keys(MAKERS);

  it.each(rules.flatMap((rule, i) => [0, 1].map((k) => [rule, 7000 + i * 2 + k] as const)))("%s, seed %i", (rule, seed) => {
    const r = prng(seed);
    const sample: Sample = { rule, ...MAKERS[rule]!(r) };
    const names = Object.keys(SYNTAXES).filter((n) => !sample.only || sample.only.includes(n));
    let block: string | undefined;
    for (let tries = 0; block === undefined && tries < 20; tries++) block = SYNTAXES[names[Math.floor(r() * names.length)]!]!(sample);
    block ??= SYNTAXES[sample.only?.[0] ?? ".env"]!(sample)!;
    // The block lands between two lines of the handoff, after its header.
    const at = 3 + Math.floor(r() * (baseLines.length - 4));
    const doc = [...baseLines.slice(0, at), block, ...baseLines.slice(at)].join("\n");
    const secret = block.includes(sample.secret) ? sample.secret : JSON.stringify(sample.secret).slice(1, -1);
    const inBlock = block.split(secret).length - 1;
    expect(inBlock).toBe(1);
    const { text } = redactText(doc);
    expect(text).not.toContain(secret);
    // Every byte outside the block is the handoff's own; inside it, only the secret changed.
    const expected = [...baseLines.slice(0, at), block.replace(secret, `<redacted: ${rule}>`), ...baseLines.slice(at)].join("\n");
    expect(text).toBe(expected);
  });
});
