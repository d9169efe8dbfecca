// Every sentence the helper prints for a state is documented and pinned
// (docs/design.md#sentences-the-helper-prints): each row of test/docs/sentences.ts has its fixed
// words in its source file, in its verb's `--help` (the built helper's, as users read it) and in
// at least one golden under test/. And the table is complete for the families the code keeps in
// one place: every `session-handoff: ` sentence of the hook, every `check` state and every
// `note: ` of write is a row, and so is every word of the files that make their sentences in
// one kind of call (CALLS). A row marked `unpinned` (no test can make its state) is checked in
// its source and help only.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { HELPER } from "../helpers.ts";
import { fixedParts, SENTENCES, type Sentence } from "./sentences.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

// Help is wrapped at 80 columns, sources and tests escape quotes and regex characters: compare
// with backslashes dropped and every run of whitespace as one space.
const norm = (text: string): string => text.replace(/\\/g, "").replace(/\s+/g, " ");

const helpCache = new Map<string, string>();
function helpOf(verb: string): string {
  let text = helpCache.get(verb);
  if (text === undefined) {
    const r = spawnSync(process.execPath, [HELPER, ...(verb === "" ? [] : [verb]), "--help"], { encoding: "utf8" });
    text = norm(r.stdout);
    helpCache.set(verb, text);
  }
  return text;
}

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

  it.each(SENTENCES.map((s) => [s.id, s] as [string, Sentence]))("%s: in its source, its --help and a golden", (_id, s) => {
    const source = norm(readFileSync(path.join(ROOT, s.source), "utf8"));
    const help = helpOf(s.help);
    for (const part of fixedParts(s)) {
      expect(source.includes(norm(part)), `${s.id}: ${JSON.stringify(part)} is not in ${s.source} (update the row with the code)`).toBe(true);
      expect(help.includes(norm(part)), `${s.id}: ${JSON.stringify(part)} is not in \`${s.help || "(top level)"} --help\``).toBe(true);
    }
    const pinned = GOLDENS.filter((g) => fixedParts(s).every((part) => g.text.includes(norm(part))));
    if (s.unpinned !== undefined) {
      // A row said unpinned must say why, and become pinned the day a test asserts it.
      expect(s.unpinned.length, `${s.id}: say why no golden can make this state`).toBeGreaterThan(20);
      expect(pinned.map((g) => g.file), `${s.id}: a test asserts its words now: drop \`unpinned\``).toEqual([]);
    } else expect(pinned.map((g) => g.file), `${s.id}: no test under test/ asserts its words`).not.toEqual([]);
  });
});

// Sentence literals of the families the code keeps together: each must be a row of the table.
const FAMILIES: { file: string; literal: RegExp }[] = [
  { file: "src/verbs/hook.ts", literal: /["`](session-handoff: [^"`$]{12,})/g },
  { file: "src/verbs/checkpoint-surface.ts", literal: /["`](session-handoff: [^"`$]{12,})/g },
  { file: "src/verbs/check.ts", literal: /^ {2}\w+: "([^"]{12,})",$/gm },
  { file: "src/verbs/write-checked.ts", literal: /`(note: [^`$]{4,})/g },
];

// String and template literals inside the calls a marker opens (`parts.push(`, `new Refused(`),
// each with its `${…}` parts as `{}`: a small reader of TypeScript's literal syntax, enough
// for these files (nested templates, quotes inside expressions).
function callLiterals(src: string, marker: RegExp): string[] {
  const out: string[] = [];
  const quoted = (i: number): [string, number] => {
    const q = src[i]!;
    let text = "";
    let j = i + 1;
    while (src[j] !== q) {
      if (src[j] === "\\") {
        text += src[j + 1];
        j += 2;
      } else text += src[j++];
    }
    return [text, j + 1];
  };
  // Skips an expression up to its closing brace or parenthesis, collecting nothing.
  const skip = (i: number, close: string): number => {
    let depth = 1;
    let j = i;
    while (depth > 0) {
      const c = src[j]!;
      if (c === "`") j = template(j)[1];
      else if (c === '"' || c === "'") j = quoted(j)[1];
      else {
        if (c === "{" || c === "(") depth++;
        if (c === "}" || c === ")") depth--;
        j++;
      }
    }
    return j;
  };
  function template(i: number): [string, number] {
    let text = "";
    let j = i + 1;
    while (src[j] !== "`") {
      if (src[j] === "\\") {
        text += src[j + 1];
        j += 2;
      } else if (src.startsWith("${", j)) {
        j = skip(j + 2, "}");
        text += "{}";
      } else text += src[j++];
    }
    return [text, j + 1];
  }
  for (const m of src.matchAll(marker)) {
    let j = m.index + m[0].length;
    let depth = 1;
    while (depth > 0 && j < src.length) {
      const c = src[j]!;
      if (c === "`" || c === '"') {
        const [text, next] = c === "`" ? template(j) : quoted(j);
        out.push(text);
        j = next;
      } else if (c === "'") j = quoted(j)[1];
      else {
        if (c === "(" || c === "{" || c === "[") depth++;
        if (c === ")" || c === "}" || c === "]") depth--;
        j++;
      }
    }
  }
  return out;
}

// Files whose every sentence is made in such calls: each fixed part (6+ characters) of each
// literal must be in a row of that file.
const CALLS: { file: string; marker: RegExp }[] = [
  { file: "src/git/verdict.ts", marker: /parts\.push\(/g },
  { file: "src/store/drafts.ts", marker: /new Refused\(|out\.push\(/g },
  { file: "src/store/root.ts", marker: /new Refused\(/g },
  { file: "src/verbs/common.ts", marker: /new (?:Refused|UsageError)\(|ctx\.warn\(/g },
  { file: "src/git/merge-driver-config.ts", marker: /(?:notes|lines)\.push\(/g },
  { file: "src/agents/doctor-checks.ts", marker: /out\.push\(/g },
];

describe("the table is complete for the files that make sentences in one kind of call", () => {
  it.each(CALLS.map((c) => [c.file, c] as [string, (typeof CALLS)[number]]))("every fixed part of %s's sentences is in a row", (file, c) => {
    const rows = SENTENCES.filter((s) => s.source === file).map((s) => norm(s.text));
    const literals = callLiterals(readFileSync(path.join(ROOT, file), "utf8"), c.marker);
    expect(literals.length, `no literal found in ${file}: update CALLS`).toBeGreaterThan(0);
    const parts = literals.flatMap((l) => l.split("{}").map((p) => norm(p).trim())).filter((p) => p.length >= 6);
    const missing = parts.filter((p) => !rows.some((r) => r.includes(p)));
    expect(missing, `${file}: sentence words with no row in test/docs/sentences.ts`).toEqual([]);
  });
});

describe("the table is complete for the sentence families", () => {
  it.each(FAMILIES.map((f) => [f.file, f] as [string, (typeof FAMILIES)[number]]))("every sentence literal of %s is a row", (file, f) => {
    const rows = SENTENCES.filter((s) => s.source === file).map((s) => norm(s.text));
    const literals = [...readFileSync(path.join(ROOT, file), "utf8").matchAll(f.literal)].map((m) => norm(m[1]!));
    expect(literals.length, `no literal found in ${file}: update FAMILIES`).toBeGreaterThan(0);
    for (const lit of literals) expect(rows.some((r) => r.includes(lit)), `${file}: ${JSON.stringify(lit)} has no row in test/docs/sentences.ts`).toBe(true);
  });
});
