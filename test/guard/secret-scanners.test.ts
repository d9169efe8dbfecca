// No literal in the repository is flagged by a common secret scanner
// (fixtures assemble their fakes at test time: test/fixtures/redaction/, fakes.ts). secretlint
// with its recommended preset runs over every tracked and new file, as `npm run scan-secrets` does.
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.ts";
import { githubToken } from "../fixtures/redaction/attacks.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SECRETLINT = path.join(ROOT, "node_modules", "secretlint", "bin", "secretlint.js");

function scan(files: string[], cwd = ROOT): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [SECRETLINT, "--format", "compact", "--secretlintrc", path.join(ROOT, ".secretlintrc.json"), ...files], { cwd, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("common secret scanners flag nothing in the repository", () => {
  it("secretlint (recommended preset) finds no secret in any tracked or new file, the bundle included", () => {
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter((f) => f !== "");
    expect(files).toContain("scripts/memory_io.mjs");
    const r = scan(files);
    expect(r.out).toBe("");
    expect(r.code).toBe(0);
  }, 180_000);

  it("would flag a fake token written as a literal (the scan is live)", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "leak.txt"), `token: ${githubToken(56)}\n`);
    const r = scan([path.join(dir, "leak.txt")], dir);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("GITHUB_TOKEN");
  }, 180_000);
});
