import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PRUNABLE_NAME } from "../../src/store/archive.ts";
import { archives, gitRepo, handoff, helper } from "../helpers.ts";
import { saveIn } from "../in-process.ts";

// Pruning, and the unsafe-entry check that can stop it, look only at names the helpers make; a
// user's own file in archive/ is never deleted. The saves run in this process
// (test/in-process.ts); check runs through the built helper.

describe("PRUNABLE_NAME", () => {
  it.each([
    ["HANDOFF-2026-11-30T12-00-00.123456Z-0a1b2c3d.md", true],
    ["HANDOFF-2026-11-30T12-00-00.123Z-0a1b2c3d.md", true],
    ["HANDOFF-2026-11-30T12-00-00.123000Z-deadbeef.md", true],
    ["HANDOFF-2026-11-30T12-00-00.123000Z-17-deadbeef.md", true],
    ["HANDOFF-2026-11-30T12-00-00.123000Z-x-deadbeef.md", false],
    ["HANDOFF-2026-11-30T12-00-00.12Z-0a1b2c3d.md", false],
    ["HANDOFF-2026-11-30T12-00-00.1234567Z-0a1b2c3d.md", false],
    ["HANDOFF-2026-11-30T12-00-00Z-0a1b2c3d.md", false],
    ["HANDOFF-2026-11-30T12-00-00.123456Z-0A1B2C3D.md", false],
    ["HANDOFF-2026-11-30T12-00-00.123456Z-0a1b2c3.md", false],
    ["HANDOFF-my notes (copy).md", false],
    ["HANDOFF-linked.md", false],
    ["HANDOFF-2026-11-30T12-00-00.123456Z-0a1b2c3d.md.bak", false],
    ["LESSONS-2026-11-30T12-00-00.123456Z-0a1b2c3d.md", false],
    [".HANDOFF-2026-11-30T12-00-00.123456Z-0a1b2c3d.md.tmp-1-0123456789abcdef", false],
  ])("%s -> %s", (name, ok) => {
    expect(PRUNABLE_NAME.test(name)).toBe(ok);
  });
});

async function saves(root: string, n: number): Promise<void> {
  let t = await saveIn(root, handoff("v0"), "absent");
  for (let i = 1; i <= n; i++) t = await saveIn(root, handoff(`v${i}`), t);
}

describe("pruning keeps what is not its own", () => {
  it.each(["HANDOFF-my notes (copy).md", "HANDOFF-2020-01-01.md", "HANDOFF-.md", "notes.txt", "LESSONS-2020-01-01T00-00-00.000000Z-00000000.md"])(
    "a user's %s survives seven saves; the helper's own names are kept to five",
    async (mine) => {
      const root = gitRepo();
      const dir = path.join(root, ".ai", "memory", "archive");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(path.join(dir, mine), "my own notes\n");
      await saves(root, 7);
      expect(readFileSync(path.join(dir, mine), "utf8")).toBe("my own notes\n");
      expect(archives(root).filter((n) => PRUNABLE_NAME.test(n))).toHaveLength(5);
      expect(helper(["check", "--root", root]).code).toBe(2);
    },
  );

  it("a link under a name outside the pattern neither blocks pruning nor is touched", async () => {
    const root = gitRepo();
    const dir = path.join(root, ".ai", "memory", "archive");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const outside = path.join(root, "outside.md");
    writeFileSync(outside, "do not delete\n");
    symlinkSync(outside, path.join(dir, "HANDOFF-linked.md"));
    await saves(root, 7);
    expect(archives(root)).toContain("HANDOFF-linked.md");
    expect(archives(root).filter((n) => PRUNABLE_NAME.test(n))).toHaveLength(5);
    expect(readFileSync(outside, "utf8")).toBe("do not delete\n");
  });

  it("a link under a name inside the pattern still stops pruning, with the warning (the neighbour)", async () => {
    const root = gitRepo();
    const dir = path.join(root, ".ai", "memory", "archive");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const outside = path.join(root, "outside.md");
    writeFileSync(outside, "do not delete\n");
    symlinkSync(outside, path.join(dir, "HANDOFF-2019-01-01T00-00-00.000000Z-0bad0bad.md"));
    await saves(root, 6);
    expect(archives(root).filter((n) => PRUNABLE_NAME.test(n)).length).toBeGreaterThan(5);
    expect(readFileSync(outside, "utf8")).toBe("do not delete\n");
  });
});
