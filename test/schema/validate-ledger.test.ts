// `validate lessons|solutions`: errors are the file format's plus a malformed entry
// heading; everything else is a finding, so ledgers the reference wrote keep working.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateLedger } from "../../src/schema/validate-ledger.ts";
import { fencedBlocks } from "../docs/support.ts";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const example = (file: string) => fencedBlocks(readFileSync(path.join(REPO, "references", file), "utf8"), "markdown")[0]!;
const M = "<!-- memory-schema: v1 -->";
const rules = (list: { rule: string; line: number }[]) => list.map((i) => [i.rule, i.line]);

describe("validateLedger", () => {
  it.each([
    ["lessons", example("lessons-schema.md")],
    ["solutions", example("solutions-schema.md")],
  ] as const)("the %s schema's own example scores 100", (kind, text) => {
    expect(validateLedger(text, kind)).toMatchObject({ valid: true, errors: [], score: 100, findings: [] });
  });

  it.each([
    ["a ledger the reference wrote: bullets, no entries", "lessons", `${M}\n# Lessons\n\n- one\n- two\n`, [], [], 100],
    ["an empty ledger", "solutions", `${M}\n# Solutions\n`, [], [], 100],
    ["no marker", "lessons", "# Lessons\n", [["marker", 1]], [], null],
    ["a v2 marker", "lessons", "<!-- memory-schema: v2 -->\n# Lessons\n", [["marker", 1]], [], null],
    ["the other ledger's heading", "lessons", `${M}\n# Solutions\n`, [["heading", 1]], [], null],
    ["no final newline", "lessons", `${M}\n# Lessons`, [["newline", 2]], [], null],
    ["a malformed entry heading", "lessons", `${M}\n# Lessons\n\n## L-12: short number\n\n## Notes\n`, [["entry-heading", 4], ["entry-heading", 6]], [], null],
    ["a lessons entry under solutions", "solutions", `${M}\n# Solutions\n\n## L-0001: wrong prefix\n`, [["entry-heading", 4]], [], null],
    ["a heading inside a fence is no entry", "lessons", `${M}\n# Lessons\n\n\`\`\`\n## not an entry\n\`\`\`\n`, [], [], 100],
    [
      "an entry missing fields, with a bad status and no label",
      "lessons",
      `${M}\n# Lessons\n\n## L-0001: Run it\n- When: always\n- Lesson: run it\n- Source: me, 2026-01-01\n- Status: maybe\n`,
      [],
      [["entry-field", 4], ["entry-source", 4], ["entry-status", 4]],
      30,
    ],
    [
      "a reused number",
      "solutions",
      `${M}\n# Solutions\n\n## S-0001: a\n- Symptoms: x\n- Context: y\n- Fix: z\n- Evidence: e\n- Recorded: 2026-01-01\n\n## S-0001: b\n- Symptoms: x\n- Context: y\n- Fix: z\n- Evidence: e\n- Recorded: 2026-01-02\n- Status: gone\n`,
      [],
      [["entry-number", 11], ["entry-status", 11]],
      80,
    ],
  ] as const)("%s", (_name, kind, text, errors, findings, score) => {
    const v = validateLedger(text, kind);
    expect(rules(v.errors)).toEqual(errors);
    expect(v.valid).toBe(errors.length === 0);
    expect(rules(v.findings)).toEqual(findings);
    if (score !== null) expect(v.score).toBe(score);
  });

  it.each([
    ["lessons", 200],
    ["solutions", 250],
  ] as const)("%s past ~%i lines is a finding, never an error", (kind, cap) => {
    const title = kind === "lessons" ? "# Lessons" : "# Solutions";
    const text = `${M}\n${title}\n${"\n".repeat(cap)}`;
    const v = validateLedger(text, kind);
    expect(v.valid).toBe(true);
    expect(rules(v.findings)).toEqual([["line-cap", cap + 1]]);
    expect(v.parts.size).toEqual({ score: 0, max: 10 });
    expect(validateLedger(`${M}\n${title}\n${"\n".repeat(cap - 2)}`, kind).findings).toEqual([]);
  });

  it("names a secret as a finding: write redacts it", () => {
    const v = validateLedger(`${M}\n# Lessons\n\n- token ${"gh"}p_abcdefghijklmnopqrstuvwxyz0123456789\n`, "lessons");
    expect(v.findings).toEqual([{ rule: "secret", line: 4, message: "a secret (github-token); write redacts it" }]);
  });
});
