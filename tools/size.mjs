#!/usr/bin/env node
// The house's size figures for src/: lines per folder, lines over 120 characters, files over 600
// lines and functions over 120 lines. `node tools/size.mjs` prints them; test/docs/size.test.ts
// holds src to its ceilings with the same counts.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Generated tables, exempt from the line-length rule. */
export const GENERATED = new Set(["src/guard/unicode-tables.ts"]);

export function measure(root = process.cwd()) {
  const files = execFileSync("git", ["ls-files", "src/*.ts"], { cwd: root, encoding: "utf8" }).trim().split("\n");
  const folders = new Map();
  const longLines = [];
  const bigFiles = [];
  const bigFunctions = [];
  let total = 0;
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const lines = text.split("\n");
    const count = lines.length - (text.endsWith("\n") ? 1 : 0);
    total += count;
    const folder = path.dirname(file);
    folders.set(folder, (folders.get(folder) ?? 0) + count);
    if (count > 600) bigFiles.push(`${file} (${count})`);
    if (!GENERATED.has(file)) lines.forEach((l, i) => l.length > 120 && longLines.push(`${file}:${i + 1}`));
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (end - start + 1 > 120) bigFunctions.push(`${file}:${start + 1} (${end - start + 1} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { total, folders, longLines, bigFiles, bigFunctions };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = measure();
  for (const [folder, n] of [...m.folders].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(6)}  ${folder}`);
  console.log(`${String(m.total).padStart(6)}  src in all`);
  console.log(`lines over 120 characters: ${m.longLines.length}`);
  console.log(`files over 600 lines: ${m.bigFiles.join(", ") || "none"}`);
  console.log(`functions over 120 lines: ${m.bigFunctions.join(", ") || "none"}`);
}
