// Every relative link in the bundle's Markdown resolves, with the exact case of every path
// segment (a case-insensitive filesystem would hide `References/` vs `references/`).
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Nodes, Root } from "mdast";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { bundleMarkdown, readDoc, REPO } from "./support.ts";

interface Link {
  url: string;
  line: number;
}

function links(markdown: string): Link[] {
  const tree = unified().use(remarkParse).parse(markdown) as Root;
  const out: Link[] = [];
  const walk = (node: Nodes): void => {
    if (node.type === "link" || node.type === "image" || node.type === "definition") {
      out.push({ url: node.url, line: node.position?.start.line ?? 0 });
    }
    if ("children" in node) for (const child of node.children) walk(child);
  };
  walk(tree);
  return out;
}

/** GitHub-style heading anchors of a Markdown text. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = (m[1] ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    out.add(slug);
  }
  return out;
}

/** The problem with a relative path from the root, or null when every segment exists as written. */
function caseExactProblem(rel: string): string | null {
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  let dir = REPO;
  for (const part of parts) {
    if (part === "..") return `leaves the skill folder or climbs: ${rel}`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return `${path.relative(REPO, dir) || "."} is not a directory`;
    }
    if (!names.includes(part)) {
      const other = names.find((n) => n.toLowerCase() === part.toLowerCase());
      return other ? `case differs: ${part} vs ${other}` : `missing: ${part}`;
    }
    dir = path.join(dir, part);
  }
  return null;
}

const files = bundleMarkdown();

describe("relative links", () => {
  it("finds the skill's Markdown files", () => {
    for (const f of ["SKILL.md", "README.md", "references/memory-contract.md", "templates/handoff.md"]) {
      expect(files).toContain(f);
    }
  });

  it.each(files)("resolve in %s", (file) => {
    const text = readDoc(file);
    const problems: string[] = [];
    for (const { url, line } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("//")) continue; // absolute URL
      const [rawPath = "", fragment] = url.split("#", 2);
      const target = decodeURIComponent(rawPath.split("?")[0] ?? "");
      const rel = target === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
      const problem = caseExactProblem(rel);
      if (problem) {
        problems.push(`${file}:${line} ${url}: ${problem}`);
        continue;
      }
      if (fragment && rel.endsWith(".md") && statSync(path.join(REPO, rel)).isFile()) {
        if (!anchors(readDoc(rel)).has(fragment)) problems.push(`${file}:${line} ${url}: no heading #${fragment}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("keeps references one level deep: every reference and the template are linked from SKILL.md", () => {
    const linked = new Set(links(readDoc("SKILL.md")).map((l) => path.posix.normalize(l.url.split("#")[0] ?? "")));
    const expected = readdirSync(path.join(REPO, "references"))
      .filter((n) => n.endsWith(".md"))
      .map((n) => `references/${n}`)
      .concat(["templates/handoff.md"]);
    expect(expected.filter((f) => !linked.has(f))).toEqual([]);
  });

  it("has no links from references or the template to further Markdown", () => {
    const nested: string[] = [];
    for (const file of files.filter((f) => f.startsWith("references/") || f.startsWith("templates/"))) {
      for (const { url, line } of links(readDoc(file))) {
        if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && /\.md(#|$)/.test(url)) nested.push(`${file}:${line} ${url}`);
      }
    }
    expect(nested).toEqual([]);
  });
});
