// The words a program parses are pinned (docs/design.md#sentences-the-helper-prints): each row of
// test/docs/sentences.ts has its fixed words in its source file and in at least one golden under
// test/, and every `session-handoff: ` sentence the hook can print is a row.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fixedParts, SENTENCES, type Sentence } from "./sentences.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

// Sources and tests escape quotes and regex characters and wrap long strings: compare with
// backslashes dropped, strings joined by + as one, and every run of whitespace as one space.
const norm = (text: string): string => text.replace(/\\/g, "").replace(/["`]\s*\+\s*["`]/g, "").replace(/\s+/g, " ");

const SELF = new Set(["test/docs/sentences.ts", "test/docs/sentences.test.ts"]);
function goldens(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        // Real transcripts are inputs, not goldens (and large).
        if (rel !== "test/fixtures/transcripts") walk(rel);
      } else if (/\.(ts|txt|md|json|jsonl)$/.test(e.name) && !SELF.has(rel)) {
        out.push({ file: rel, text: norm(readFileSync(path.join(ROOT, rel), "utf8")) });
      }
    }
  };
  walk("test");
  return out;
}
const GOLDENS = goldens();

describe("the sentence table (test/docs/sentences.ts)", () => {
  it("has unique ids, and every row has fixed words", () => {
    expect(new Set(SENTENCES.map((s) => s.id)).size).toBe(SENTENCES.length);
    for (const s of SENTENCES) expect(fixedParts(s).length, s.id).toBeGreaterThan(0);
  });

  it.each(SENTENCES.map((s) => [s.id, s] as [string, Sentence]))("%s: in its source and a golden", (_id, s) => {
    const source = norm(readFileSync(path.join(ROOT, s.source), "utf8"));
    for (const part of fixedParts(s)) {
      expect(source.includes(norm(part)), `${s.id}: ${JSON.stringify(part)} is not in ${s.source} (update the row with the code)`).toBe(true);
    }
    const pinned = GOLDENS.filter((g) => fixedParts(s).every((part) => g.text.includes(norm(part))));
    expect(pinned.map((g) => g.file), `${s.id}: no test under test/ asserts its words`).not.toEqual([]);
  });
});

// The hook's sentences reach the model through the harness: each literal must be a row.
const FAMILIES: { file: string; literal: RegExp }[] = [
  { file: "src/verbs/hook.ts", literal: /["`](session-handoff: [^"`$]{12,})/g },
  { file: "src/checkpoint/store.ts", literal: /["`](session-handoff: [^"`$]{12,})/g },
];

describe("the table is complete for the hook's sentences", () => {
  it.each(FAMILIES.map((f) => [f.file, f] as [string, (typeof FAMILIES)[number]]))("every sentence literal of %s is a row", (file, f) => {
    const rows = SENTENCES.filter((s) => s.source === file).map((s) => norm(s.text));
    const literals = [...readFileSync(path.join(ROOT, file), "utf8").matchAll(f.literal)].map((m) => norm(m[1]!));
    expect(literals.length, `no literal found in ${file}: update FAMILIES`).toBeGreaterThan(0);
    for (const lit of literals) expect(rows.some((r) => r.includes(lit)), `${file}: ${JSON.stringify(lit)} has no row in test/docs/sentences.ts`).toBe(true);
  });
});
