// The source's two tiers (build.mjs, docs/decisions/cold-chunks.md): src/cold/ is compiled on
// first use, the rest at every start. The split is carried by the folder alone, so no module
// needs the verb table to reach cold code, and no import cycle runs through src/.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.join(import.meta.dirname, "..", "..", "src");

/** Every .ts file under src/, as a path relative to src/. */
function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.relative(SRC, path.join(dir, e.name))] : []));
}

/** The relative modules a file imports at run time (static value imports and `import()`; `import type` is erased). */
function imports(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), "utf8");
  const specs = [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+["'](\.[^"']+)["']/gm), ...text.matchAll(/import\(\s*["'](\.[^"']+)["']\s*\)/g)].map((m) => m[1]!);
  return specs.map((s) => path.normalize(path.join(path.dirname(file), s)));
}

describe("the source's tiers", () => {
  it("has no import cycle", () => {
    const graph = new Map(sources().map((f) => [f, imports(f)]));
    const cycles: string[] = [];
    const state = new Map<string, 1 | 2>();
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, 1);
      stack.push(f);
      for (const d of graph.get(f) ?? []) {
        if (state.get(d) === 1) cycles.push([...stack.slice(stack.indexOf(d)), d].join(" -> "));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(f, 2);
    };
    for (const f of graph.keys()) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it("names no file by its tier: cold code lives in src/cold/, nothing is `*.cold.ts`", () => {
    expect(sources().filter((f) => /\.cold\.ts$/.test(f))).toEqual([]);
    expect(sources().filter((f) => f.startsWith(`cold${path.sep}`)).length).toBeGreaterThan(0);
  });
});
