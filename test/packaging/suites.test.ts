// CI (.ci/run) runs each suite as its own step and sums their tests into "N passed, N failed":
// every test file must run in exactly one of those steps, so a file moved out of `npm test` for
// its time still runs and counts once. Each step's files are found by vitest itself, from the
// config and file filters its npm script (or the runner it starts) passes.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createVitest } from "vitest/node";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const read = (f: string) => readFileSync(path.join(REPO, f), "utf8");
const scripts: Record<string, string> = JSON.parse(read("package.json")).scripts;

/** The npm scripts .ci/run runs, in order (its STEPS line). */
function ciSteps(): string[] {
  const m = /^STEPS=\(([^)]*)\)$/m.exec(read(".ci/run"));
  if (m === null) throw new Error(".ci/run has no STEPS=(...) line");
  return m[1]!.trim().split(/\s+/);
}

/** The vitest config and file filters a step's script runs: directly, or through a runner script. */
function stepRun(script: string): { config: string; filters: string[] } {
  const words = script.split(/\s+/);
  const at = words.indexOf("vitest");
  if (at >= 0 && words[at + 1] === "run") {
    const rest = words.slice(at + 2);
    const c = rest.findIndex((w) => w === "--config" || w === "-c");
    const config = c >= 0 ? rest[c + 1]! : "vitest.config.ts";
    return { config, filters: rest.filter((w, i) => !w.startsWith("-") && (c < 0 || i !== c + 1)) };
  }
  const runner = /^node (\S+\.mjs)$/.exec(script);
  if (runner === null) throw new Error(`cannot tell which tests "${script}" runs`);
  const configs = [...new Set(read(runner[1]!).match(/vitest\.\w+\.config\.ts/g) ?? [])];
  if (configs.length !== 1) throw new Error(`${runner[1]} names ${configs.length} vitest configs`);
  return { config: configs[0]!, filters: [] };
}

async function filesOf(config: string, filters: string[]): Promise<string[]> {
  const vitest = await createVitest("test", { root: REPO, config, watch: false });
  try {
    const specs = await vitest.globTestSpecifications(filters);
    return specs.map((s) => path.relative(REPO, s.moduleId)).sort();
  } finally {
    await vitest.close();
  }
}

function testFiles(dir: string): string[] {
  return readdirSync(path.join(REPO, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts") && !f.split(path.sep).includes("node_modules"))
    .map((f) => path.join(dir, f))
    .sort();
}

describe("the suites CI runs", () => {
  it("include npm test first, and every step is an npm script", () => {
    const steps = ciSteps();
    expect(steps[0]).toBe("test");
    for (const s of steps) expect(scripts[s], `package.json has no script ${s}`).toBeDefined();
    expect(scripts.test).toMatch(/&& vitest run$/);
  });

  it("run every test file exactly once", { timeout: 120_000 }, async () => {
    const owner = new Map<string, string[]>();
    for (const step of ciSteps()) {
      const { config, filters } = stepRun(scripts[step]!);
      const files = await filesOf(config, filters);
      expect(files.length, `${step} (${config}) finds no test file`).toBeGreaterThan(0);
      for (const f of files) owner.set(f, [...(owner.get(f) ?? []), step]);
    }
    const wrong = testFiles("test")
      .map((f) => [f, owner.get(f) ?? []] as const)
      .filter(([, steps]) => steps.length !== 1)
      .map(([f, steps]) => `${f}: ${steps.length === 0 ? "in no step" : steps.join(", ")}`);
    expect(wrong).toEqual([]);
    expect([...owner.keys()].filter((f) => !f.startsWith("test/"))).toEqual([]);
  });
});
