// The corpus of real and adversarial documents, each with remark's reading frozen in
// corpus/expected.json (`remark`). The line grammar must read every document it accepts as
// remark did, and flag every one it reads differently; the documents users actually write (the
// template, its worked example, the demo, the unit tests' document) it accepts whole. Each is
// also read with CRLF and CR line ends and a BOM, as pasted handoffs come.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseBlocks } from "../../src/schema/grammar.ts";
import { normaliseText, parseHandoff, type ParsedHandoff } from "../../src/schema/handoff.ts";

const dir = new URL("./corpus/", import.meta.url);
const expected = JSON.parse(readFileSync(new URL("expected.json", dir), "utf8")) as Record<string, { remark: ParsedHandoff }>;
const names = readdirSync(dir).filter((n) => n.endsWith(".md")).sort();
const REAL = ["01-template.md", "02-worked-example.md", "03-demo.md", "04-unit-test-doc.md"];

// Fields that came after remark was removed (steps, positions, strays) are checked elsewhere.
// remark's frozen `sections` are the level-2 headings' titles, which the model keeps in `headings`.
const parse = (t: string) => {
  const { steps: _s, savedLine: _l, headings, items: _i, strays: _u, ...rest } = parseHandoff(t);
  return { ...rest, sections: headings.filter((h) => h.depth === 2).map((h) => h.title) };
};

describe("the line grammar against remark's reading of the corpus", () => {
  const flagged = names.filter((n) => parseBlocks(normaliseText(readFileSync(new URL(n, dir), "utf8"))).flags.length > 0);

  it("has a fixture for every document; accepts the real ones and flags the adversarial ones it must", () => {
    expect(Object.keys(expected).sort()).toEqual(names);
    expect(names.length).toBeGreaterThanOrEqual(24);
    for (const n of REAL) expect(flagged).not.toContain(n);
    expect(flagged.length).toBeGreaterThanOrEqual(20);
  });

  it.each(names)("%s", (name) => {
    const text = readFileSync(new URL(name, dir), "utf8");
    const got = parse(text);
    expect(parse(text.replace(/\r\n?|\n/g, "\r\n"))).toEqual(got);
    expect(parse(`\uFEFF${text.replace(/^\uFEFF/, "").replace(/\r\n?|\n/g, "\r")}`)).toEqual(got);
    // The model keeps a key file's path only; remark's reading also froze its raw text and why.
    const remark = expected[name]!.remark;
    const keyFiles = remark.keyFiles.map((k) => ({ path: k.path }));
    if (!flagged.includes(name)) expect(got).toEqual({ ...remark, keyFiles });
  });
});
