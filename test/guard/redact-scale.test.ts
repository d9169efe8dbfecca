// Redaction stays linear on pathological inputs up to the document limit (1 MB): CPU time at
// 1/8 and the whole size, a ratio, never an absolute time. Apart from test/guard/redact.test.ts because the 1 MB cases take minutes
// on two cores: \`npm run test:reliability\` runs this file (vitest.config.ts, HEAVY).
import { describe, expect, it } from "vitest";
import { redactText, redactTranscript } from "../../src/guard/redact.ts";
import { ADVERSARIAL_UNITS, adversarialDocument } from "../../bench/adversarial.mjs";
import { expectLinear } from "../fixtures/redaction/work.ts";

describe("no pathological input makes redaction slow (1 MB, the document limit)", () => {
  // Each family is k repetitions of a unit; expectLinear compares k with k/8.
  it.each<[string, (k: number) => string, number]>([
    ["one long word", (k) => "a".repeat(k), 1_000_000],
    ["keywords without values", (k) => "password".repeat(k), 120_000],
    ["assignments without values", (k) => "password=".repeat(k), 100_000],
    ["PEM headers without bodies", (k) => "-----BEGIN PRIVATE KEY-----\n".repeat(k), 30_000],
    ["URL-like runs", (k) => `x://u:${"p".repeat(50)}`.repeat(k), 15_000],
    ["bearer without tokens", (k) => "Bearer ".repeat(k), 140_000],
    ["JWT-like runs on one line", (k) => "eyJabcdefghijklmn.".repeat(k), 50_000],
    ["connection-string segments", (k) => `${"server=x;".repeat(k)}password`, 100_000],
    ["hex lines", (k) => `${"0123456789abcdef".repeat(4)}\n`.repeat(k), 15_000],
    ["assignments glued by &", (k) => "password=a&".repeat(k), 90_000],
    ["keys and values with no whitespace", (k) => "token:Xk9mQ2pL7vR4tY&".repeat(k), 50_000],
    ["separators followed by names", (k) => `password=x${";a".repeat(k)}`, 400_000],
    ["nested assignments", (k) => `password: ${"admin_pw=".repeat(k)}`, 100_000],
    ["nested keys, then one long name", (k) => `${"password=".repeat(30)},${"x".repeat(k)}`, 1_000_000],
    ["trailing separators", (k) => `password=a${";".repeat(250)}\n`.repeat(k), 4_000],
    ["trailing quotes and brackets", (k) => `password=Xk9${"`\"'>".repeat(64)}\n`.repeat(k), 4_000],
    ["periods after backticks", (k) => `token=Xk9${"`.".repeat(125)} `.repeat(k), 4_000],
    ["unbalanced brackets", (k) => `secret=${"(".repeat(k)}${")".repeat(k)}`, 500_000],
    ["URL passwords full of # and ?", (k) => `x://u:${"p#?".repeat(20)}`.repeat(k), 15_000],
    ["one URL password of ?", (k) => `postgres://a:${"?".repeat(k)}`, 1_000_000],
    // The scanners: prefixed PEM lines, base64 runs, split lines, AWS windows, prose.
    ["prefixed PEM lines without an end", (k) => `> -----BEGIN PRIVATE KEY-----\n${`> ${"A".repeat(63)}1\n`.repeat(k)}`, 15_000],
    ["base64 lines that decode to text", (k) => `${Buffer.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ").toString("base64")}\n`.repeat(k), 25_000],
    ["lines under one prefix", (k) => `# ${"Ab1".repeat(10)}\n`.repeat(k), 30_000],
    ["access key ids on every line", (k) => `AKIA${"B".repeat(16)}\n`.repeat(k), 40_000],
    ["credentials-file sections", (k) => "[x]\naws_access_key_id=1\n".repeat(k), 40_000],
    ["keywords beside hex runs", (k) => `key ${"ab12".repeat(10)} `.repeat(k), 20_000],
    // A found secret is looked for again everywhere: one value, thousands sharing its head, near misses.
    ["secrets repeated, sharing a head, with near misses",
      (k) => Array.from({ length: k }, (_, i) => `token=Xk9mQ2pL${i.toString(36)}vR4 Xk9mQ2pL${i.toString(36)}vR4 ` +
        "Xk9mQ2pL-no\n").join(""), 20_000],
    // Line ends joined to the next lines' starts, and a found secret looked for across every line end.
    ["runs broken over lines", (k) => `x ${"Ab1".repeat(10)}\n  ${"Cd2".repeat(5)}\n`.repeat(k), 15_000],
    ["a secret repeated broken over lines, with near misses",
      (k) => `token=Xk9mQ2pLvR4\n${"  Xk9mQ2\n  pLvR4 Xk9mQ2pL-no\n".repeat(k)}`, 20_000],
    ["Bearer variables without assignments", (k) => 'curl -H "Authorization: Bearer $K" '.repeat(k), 25_000],
    // Quoted CLI values, headers with no scheme, netrc lines: none of them closed.
    ["quoted flags without a closing quote", (k) => `redis-cli -a '${"x".repeat(20)} mysql -p"${"y".repeat(20)}\n`.repeat(k), 20_000],
    ["Authorization values that never end", (k) => `Authorization: ${"a".repeat(40)} `.repeat(k), 20_000],
    ["netrc entries without a password", (k) => "machine h login u account a\n".repeat(k), 30_000],
  ])("%s", (_name, make, k) => {
    expectLinear(redactText, make, k);
    expectLinear(redactTranscript, make, k);
  });
});

describe("what the 1 MB bench row costs", () => {
  it("the bench's hostile mix is linear", () => {
    expectLinear(redactText, (k) => adversarialDocument(k), 1_000_000);
  });
});

// Smaller pathological families of the redaction kinds and the hostile units, moved here from
// redact-kinds and redact-hostile: CPU-time ratios are load-sensitive and took half those files' time.
describe("linear on pathological input: a ratio of CPU times, never an absolute time", () => {
  it.each<[string, (k: number) => string, number]>([
    ["PEM headers followed by short lines", (k) => `-----BEGIN PRIVATE KEY-----\n${"ab\n".repeat(k)}`, 300_000],
    ["PEM BEGIN then base64 without end", (k) => `-----BEGIN PRIVATE KEY-----\n${`${"A".repeat(63)}1\n`.repeat(k)}`, 15_000],
    ["URL passwords full of /", (k) => `x://u:${"p/".repeat(20)}`.repeat(k), 15_000],
    ["tables of many rows", (k) => `| Password |\n| --- |\n${"| Xk9mQ2pL7vR4tY8w |\n".repeat(k)}`, 40_000],
    ["cookie headers without end", (k) => `Cookie: ${"a=b; ".repeat(k)}`, 150_000],
    ["curl without -u", (k) => `curl ${"x ".repeat(k)}`, 400_000],
    ["mysql lines without -p", (k) => "mysql -h db ".repeat(k), 80_000],
    ["XML opening tags", (k) => "<password>".repeat(k), 90_000],
    ["escapes before prefixes", (k) => "\\nghp_".repeat(k), 150_000],
    ["block scalars", (k) => "password: |\n".repeat(k), 80_000],
  ])("%s", (_name, make, k) => {
    expectLinear(redactText, make, k);
  });
});

describe("the linearity check itself", () => {
  it("fails on a quadratic scan", () => {
    // Each character looks back over all before it, as a look-back without its cap would.
    const quadratic = (text: string): number => {
      let seen = 0;
      for (let i = 0; i < text.length; i++) seen += text.lastIndexOf("\n", i) === -1 ? i : 0;
      return seen;
    };
    expect(() => expectLinear(quadratic, (k) => "a".repeat(k), 40_000)).toThrow(/the CPU time/);
  });
});

describe("linear on repeated hostile units: 8x the input, at most 3 times 8x the time", () => {
  it.each(Object.entries(ADVERSARIAL_UNITS))("%s", (_name, unit) => {
    for (const redact of [redactText, redactTranscript]) {
      expectLinear(redact, (k) => unit.repeat(Math.ceil(k / unit.length)), 100_000);
    }
  });
});
