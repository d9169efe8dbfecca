// The design lives in this repository (docs/design.md), so the code never cites a document outside
// it: no "ruling N", "§N" or "contract" in src/, build.mjs, bench/ or tools/; a line that names an
// issue also names the docs/ file that states it; and every docs/ file and heading cited exists.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./support.ts";

/** A citation of the outside document: never allowed. */
const OUTSIDE = /rulings? [0-9]|§ ?[0-9]|\bcontract\b/i;
/** An issue number: allowed beside the docs/ file that states it. */
const BARE = /issue [0-9]/;
/** A docs/ citation: a Markdown file under docs/, with an optional `#anchor`. */
const CITE = /docs\/[A-Za-z0-9._/-]+?\.md(?:#[A-Za-z0-9_-]+)?/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(p));
    else if (entry.isFile() && /\.(ts|mts|js|mjs)$/.test(entry.name)) out.push(p);
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

/** What is wrong with one citation, or null. */
function citationProblem(cite: string): string | null {
  const [file = "", anchor] = cite.split("#", 2);
  const anchors = docAnchors(file);
  if (anchors === null) return `${file} does not exist`;
  if (anchor !== undefined && !anchors.has(anchor)) return `${file} has no heading #${anchor}`;
  return null;
}

interface Line {
  where: string;
  text: string;
}

/** What the rule covers: the helper's source and the code that builds, measures and generates it. */
const COVERED = [...sourceFiles(path.join(REPO, "src")), path.join(REPO, "build.mjs"), ...sourceFiles(path.join(REPO, "bench")), ...sourceFiles(path.join(REPO, "tools"))];

const LINES: Line[] = COVERED.flatMap((file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .map((text, i) => ({ where: `${path.relative(REPO, file)}:${i + 1}`, text })),
);

describe("citations in src/, build.mjs, bench/ and tools/", () => {
  it("finds the source", () => {
    expect(LINES.length).toBeGreaterThan(1000);
    for (const part of ["src/", "build.mjs", "bench/", "tools/"]) expect(LINES.some((l) => l.where.startsWith(part)), part).toBe(true);
  });

  it("never cites a ruling, a section or the contract", () => {
    const cited = LINES.filter((l) => OUTSIDE.test(l.text));
    expect(cited.map((l) => `${l.where}: ${l.text.trim().slice(0, 160)}`)).toEqual([]);
  });

  it("cites docs/ on every line that names an issue", () => {
    const bare = LINES.filter((l) => BARE.test(l.text) && !(l.text.match(CITE) ?? []).some((c) => citationProblem(c) === null));
    expect(bare.map((l) => `${l.where}: ${l.text.trim().slice(0, 160)}`)).toEqual([]);
  });

  it("names only docs/ files and headings that exist", () => {
    const broken: string[] = [];
    for (const l of LINES) {
      for (const cite of l.text.match(CITE) ?? []) {
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
    expect(BARE.test("// issue 14's width")).toBe(true);
    expect("// (docs/design.md#the-root), ruling 50".match(CITE)).toEqual(["docs/design.md#the-root"]);
  });
});
