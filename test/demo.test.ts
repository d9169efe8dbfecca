import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

it("npm run demo saves, moves the repository on, and resumes with measured drift", () => {
  const r = spawnSync(process.execPath, [path.join(root, "demo", "demo.mjs")], { encoding: "utf8", timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/saved HANDOFF\.md\nCURRENT-SHA256: [0-9a-f]{64}/);
  expect(r.stdout).toMatch(/verdict: drifted/);
  expect(r.stdout).toMatch(/ahead: 4, behind: 0/);
  expect(r.stdout).toMatch(/key files missing: build\.mjs/);
  for (const label of ["Goal:", "Plan status:", "Decisions in force:", "Do-not-retry:", "Drift & lessons:", "Proposed next step:"]) {
    expect(r.stdout).toContain(`\n${label} `);
  }
});
