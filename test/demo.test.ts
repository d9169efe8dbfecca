import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

it("npm run demo saves, moves the repository on, and resumes with measured drift", () => {
  const r = spawnSync(process.execPath, [path.join(root, "demo", "demo.mjs")], { encoding: "utf8", timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/saved HANDOFF\.md\nCURRENT-SHA256: [0-9a-f]{64}/);
  // SKILL.md's save: the DRAFT: path read names, the file tool writes it, write takes it; never stdin.
  expect(r.stdout).toMatch(/\[stderr\] DRAFT: (\.ai\/memory\/drafts\/handoff-[0-9a-f]{8}\.md)\n[^]*\$ node scripts\/memory_io\.mjs write handoff --from-draft \1 --expected-current-sha256 absent\n/);
  expect(r.stdout).not.toContain("<<'EOF'");
  expect(r.stdout).toMatch(/verdict: drifted/);
  // The scratch folder is gone when the demo ends: its path is never printed.
  expect(r.stdout).not.toContain("session-handoff-demo-");
  expect(r.stdout).toMatch(/ahead: 4, behind: 0/);
  expect(r.stdout).toMatch(/key files missing: "build\.mjs"/);
  // Deleted is said once, as missing, not also as changed.
  expect(r.stdout).toMatch(/key files changed: none/);
  for (const label of ["Goal:", "Plan status:", "Decisions in force:", "Do-not-retry:", "Drift & lessons:", "Proposed next step:"]) {
    expect(r.stdout).toContain(`\n${label} `);
  }
});

describe("npm run demo without npm ci (README's first screen promises it)", () => {
  it("imports only node: modules; the helper it runs is the committed bundle", () => {
    const source = readFileSync(path.join(root, "demo", "demo.mjs"), "utf8");
    const specifiers = [...source.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/g)].map((m) => m[1] ?? m[2]);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => !s?.startsWith("node:"))).toEqual([]);
    expect(source).toContain('path.join(repo, "scripts", "memory_io.mjs")');
  });

  it("runs in a copy of the tracked files with no node_modules and no git history", () => {
    const copy = tempDir("sh-demo-export-");
    // What `git archive` exports: the tracked files, as they are in the work tree now.
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
    for (const file of files) {
      if (!existsSync(path.join(root, file))) continue;
      mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      copyFileSync(path.join(root, file), path.join(copy, file));
    }
    expect(existsSync(path.join(copy, "node_modules"))).toBe(false);
    expect(existsSync(path.join(copy, ".git"))).toBe(false);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const r = spawnSync(npm, ["run", "--silent", "demo"], { cwd: copy, encoding: "utf8", timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/no git history here/);
    expect(r.stdout).toMatch(/verdict: drifted/);
    expect(r.stdout).toContain("\nProposed next step: ");
  });
});
