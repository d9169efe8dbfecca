// The design lives in this repository (docs/design.md), so the code and its tests never cite a
// document outside it: no ruling, section, field report or habit number, nor the outside document
// by name, in src/, build.mjs, bench/, tools/ or test/, nor in docs/, README.md or CONTRIBUTING.md;
// a line that names an issue also names the docs/ file that states it; and every docs/ file and
// heading cited exists.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./support.ts";

/** A citation of the outside document: never allowed. */
const OUTSIDE = /rulings? [0-9]|§ ?[0-9]|\bcontract\b|field reports? #?[0-9]|habits? [0-9]|harnesses\.md|\/work\/shared|issue-[0-9]/i;
/** An issue number: allowed beside the docs/ file that states it. */
const BARE = /issue ?#?[0-9]/i;
/** A docs/ citation: a Markdown file under docs/, with an optional `#anchor`. */
const CITE = /docs\/[A-Za-z0-9._/-]+?\.md(?:#[A-Za-z0-9_-]+)?/g;

function sourceFiles(dir: string, ext = /\.(ts|mts|js|mjs)$/): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(p, ext));
    else if (entry.isFile() && ext.test(entry.name)) out.push(p);
  }
  return out.sort();
}

/** GitHub-style anchors of a Markdown text's headings (as test/docs/links.test.ts computes them). */
function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} +(.+?) *#*$/.exec(line);
    if (m) out.add((m[1] ?? "").toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-"));
  }
  return out;
}

const anchorCache = new Map<string, Set<string> | null>();
/** The anchors of a docs/ file, or null when it is not a file of this repository. */
function docAnchors(rel: string): Set<string> | null {
  if (!anchorCache.has(rel)) {
    let found: Set<string> | null = null;
    try {
      if (statSync(path.join(REPO, rel)).isFile()) found = anchorsOf(readFileSync(path.join(REPO, rel), "utf8"));
    } catch {
      found = null;
    }
    anchorCache.set(rel, found);
  }
  return anchorCache.get(rel) ?? null;
}

/** The comment of a line of a test, where its docs/ citations are; its strings are test data. */
function commentOf(line: Line): string {
  if (!line.where.startsWith("test/") || /^\s*(\/\/|\/?\*)/.test(line.text)) return line.text;
  const at = line.text.indexOf(" // ");
  return at < 0 ? "" : line.text.slice(at);
}

/** What is wrong with one citation, or null. */
function citationProblem(cite: string): string | null {
  const [file = "", anchor] = cite.split("#", 2);
  const anchors = docAnchors(file);
  if (anchors === null) return `${file} does not exist`;
  if (anchor !== undefined && !anchors.has(anchor)) return `${file} has no heading #${anchor}`;
  return null;
}

/** A regex literal where an expression starts: a pattern the code matches, not words it says. */
const REGEX_LITERAL = /(?<=[(=,:]\s*)\/(?![/*])(?:[^/\\\n[]|\\.|\[(?:[^\]\\]|\\.)*\])+\/[dgimsuvy]*/g;

/**
 * A line with the test data taken out: the example string a test feeds a pattern, a text a test
 * asserts is absent, regex literals, and the name of the repository's own
 * references/memory-contract.md. What is left is what the line says itself.
 */
function ownWords(text: string): string {
  return text
    .replace(/^(\s*expect\()(?:[A-Za-z]+(?:\.[a-z]+)?\()?(["'`])(?:(?!\2)[^\\]|\\.)*\2/, "$1")
    .replace(/\.not\.toContain\((["'`])(?:(?!\1)[^\\]|\\.)*\1\)/g, ".not.toContain()")
    .replace(REGEX_LITERAL, "/…/")
    .replace(/(?:references\/)?memory-contract\.md/g, "");
}

interface Line {
  where: string;
  text: string;
}

/** What the rule covers: the helper's source, the code that builds, measures and generates it, its tests. */
const COVERED = [
  ...sourceFiles(path.join(REPO, "src")),
  path.join(REPO, "build.mjs"),
  ...sourceFiles(path.join(REPO, "bench")),
  ...sourceFiles(path.join(REPO, "tools")),
  ...sourceFiles(path.join(REPO, "test")),
];

const LINES: Line[] = COVERED.flatMap((file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .map((text, i) => ({ where: `${path.relative(REPO, file)}:${i + 1}`, text: ownWords(text) })),
);

/** Markdown with the text of its code spans and fences taken out, its lines kept. */
function withoutCode(markdown: string): string {
  return markdown.replace(/(`+)([\s\S]*?)\1/g, (_code, ticks: string, body: string) => ticks + body.replace(/[^\n]/g, "") + ticks);
}

/** The prose a person reads; code there, inline or fenced, is literal data (a look-alike, a file name). */
const PROSE = [...sourceFiles(path.join(REPO, "docs"), /\.md$/), path.join(REPO, "README.md"), path.join(REPO, "CONTRIBUTING.md")];

const PROSE_LINES: Line[] = PROSE.flatMap((file) =>
  withoutCode(readFileSync(file, "utf8"))
    .split("\n")
    .map((text, i) => ({ where: `${path.relative(REPO, file)}:${i + 1}`, text: ownWords(text) })),
);

describe("citations in src/, build.mjs, bench/, tools/ and test/", () => {
  it("finds the source", () => {
    expect(LINES.length).toBeGreaterThan(1000);
    for (const part of ["src/", "build.mjs", "bench/", "tools/", "test/"]) expect(LINES.some((l) => l.where.startsWith(part)), part).toBe(true);
  });

  it("never cites a document outside the repository", () => {
    const cited = LINES.filter((l) => OUTSIDE.test(l.text));
    expect(cited.map((l) => `${l.where}: ${l.text.trim().slice(0, 160)}`)).toEqual([]);
  });

  it("cites docs/ on every line that names an issue", () => {
    const bare = LINES.filter((l) => BARE.test(l.text) && !(l.text.match(CITE) ?? []).some((c) => citationProblem(c) === null));
    expect(bare.map((l) => `${l.where}: ${l.text.trim().slice(0, 160)}`)).toEqual([]);
  });

  it("keeps docs/, README.md and CONTRIBUTING.md free of outside citations and bare issue numbers", () => {
    expect(PROSE_LINES.some((l) => l.where.startsWith("docs/decisions/"))).toBe(true);
    const cited = PROSE_LINES.filter((l) => OUTSIDE.test(l.text) || BARE.test(l.text));
    expect(cited.map((l) => `${l.where}: ${l.text.trim().slice(0, 160)}`)).toEqual([]);
  });

  it("names only docs/ files and headings that exist", () => {
    const broken: string[] = [];
    for (const l of LINES) {
      for (const cite of commentOf(l).match(CITE) ?? []) {
        const problem = citationProblem(cite);
        if (problem !== null) broken.push(`${l.where}: ${cite}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("checks what it claims to check", () => {
    expect(citationProblem("docs/design.md#checkpoints")).toBeNull();
    expect(citationProblem("docs/design.md")).toBeNull();
    expect(citationProblem("docs/design.md#no-such-heading")).toMatch(/no heading/);
    expect(citationProblem("docs/decisions/no-such-decision.md")).toMatch(/does not exist/);
    expect(OUTSIDE.test("// the lock is tried once (ruling 40)")).toBe(true);
    expect(OUTSIDE.test("// see §12")).toBe(true);
    expect(OUTSIDE.test("// as the Contract says")).toBe(true);
    expect(OUTSIDE.test("// the lock granted twice (field report #13)")).toBe(true);
    expect(BARE.test("// issue 14's width")).toBe(true);
    expect(BARE.test("// Issue 9: the same root")).toBe(true);
    expect(ownWords('    expect(OUTSIDE.test("// see §12")).toBe(true);')).not.toMatch(OUTSIDE);
    expect(ownWords("    expect(out).not.toMatch(/ruling 3|§ 1/);")).not.toMatch(OUTSIDE);
    expect(ownWords("    expect(out, \"ruling 3\").not.toMatch(/x/); // see §1")).toMatch(OUTSIDE);
    expect(ownWords("// the kill switch (references/memory-contract.md)")).not.toMatch(OUTSIDE);
    expect(ownWords("// as the memory contract says")).toMatch(OUTSIDE);
    expect(ownWords('    expect(out).not.toContain("ruling 3");')).not.toMatch(OUTSIDE);
    expect(ownWords("const A = /a|§ ?[0-9]/i; // a/b, see §2")).toMatch(OUTSIDE);
    expect(commentOf({ where: "test/x.ts:1", text: 'f("docs/a.md"); // see docs/design.md' })).toBe(" // see docs/design.md");
    expect(commentOf({ where: "src/x.ts:1", text: 'f("docs/a.md");' })).toBe('f("docs/a.md");');
    expect(withoutCode("a `Issue1234\nx` b\n```\nruling 3\n```\nend")).toBe("a `\n` b\n```\n\n```\nend");
    expect("// (docs/design.md#the-root), ruling 50".match(CITE)).toEqual(["docs/design.md#the-root"]);
  });
});
