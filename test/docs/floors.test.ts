// The source's floors, as CONTRIBUTING.md's "Floors:" line states them: imports run down only, so
// a reader can take each folder as built on the ones below it. A back arrow fails here with the file.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(__dirname, "..", "..", "src");
const CONTRIBUTING = path.resolve(__dirname, "..", "..", "CONTRIBUTING.md");

/** Highest first, from the document, so that the document and this test cannot differ. */
function floors(): string[] {
  const line = /^Floors: (.+)$/m.exec(readFileSync(CONTRIBUTING, "utf8"))?.[1];
  if (line === undefined) throw new Error("CONTRIBUTING.md has no `Floors: a > b > …` line: the layout test reads it");
  return line.split(">").map((f) => f.trim());
}
const FLOORS = floors();

function floorOf(rel: string): string {
  const parts = rel.split("/");
  if (parts.length === 1) return parts[0] === "errors.ts" || parts[0] === "builtins.ts" ? "errors" : "top";
  return parts[0]!;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
}

export function backArrows(): string[] {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    const rel = path.relative(SRC, file).split(path.sep).join("/");
    for (const m of readFileSync(file, "utf8").matchAll(/^(?:import|export)\s[^"';]*?from\s+["'](\.[^"']+)["']/gm)) {
      const target = path.relative(SRC, path.resolve(path.dirname(file), m[1]!)).split(path.sep).join("/");
      // A data file outside src/ (the handoff template, bundled as text) sits on no floor.
      if (target.startsWith("../")) continue;
      if (FLOORS.indexOf(floorOf(target)) < FLOORS.indexOf(floorOf(rel))) found.push(`${rel} -> ${target}`);
    }
  }
  return found;
}

describe("floors", () => {
  it("every folder of src/ is one of the floors", () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.filter((f) => !FLOORS.includes(f))).toEqual([]);
  });
  it("no import runs back up a floor", () => {
    expect(backArrows()).toEqual([]);
  });
});

// Imported as ES modules these built-ins build a view of every export, which a session start pays
// for (docs/decisions/hook-startup.md): src/builtins.ts requires them instead.
describe("built-ins a session start does not import", () => {
  it("no module but builtins.ts imports node:fs, node:crypto, node:util or node:child_process", () => {
    const eager = /^import\s(?!type\s)[^;]*?from\s+["']node:(?:fs|crypto|util|child_process)["']/m;
    const found = sources(SRC).filter((f) => !f.endsWith("builtins.ts") && eager.test(readFileSync(f, "utf8")));
    expect(found.map((f) => path.relative(SRC, f))).toEqual([]);
  });
  it("the session bundle imports only node:module, node:path and node:os", () => {
    const bundle = readFileSync(path.resolve(SRC, "..", "scripts", "lib", "session.mjs"), "utf8");
    const imported = new Set([...bundle.matchAll(/^import\s[^;]*?from\s+["'](node:[^"']+)["']/gm)].map((m) => m[1]));
    expect([...imported].sort()).toEqual(["node:module", "node:os", "node:path"]);
  });
  it("the session bundle carries no redaction, capture, journal or save code: every session start parses it", () => {
    const bundle = readFileSync(path.resolve(SRC, "..", "scripts", "lib", "session.mjs"), "utf8");
    const heavy = ["guard/redact.ts", "checkpoint/capture.ts", "journal/entry.ts", "store/publish.ts", "save/save.ts"];
    expect(heavy.filter((m) => bundle.includes(`// src/${m}\n`))).toEqual([]);
  });
});
