// The merge driver's journal rule (docs/decisions/journal.md): both sides' entries, each once, in
// time order; a side that breaks the schema falls back to git's union merge.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { helper, MARKER, tempDir } from "../helpers.ts";

const entry = (time: string, id: string, goal: string) => `## ${time} save ${id}\n- Goal: ${goal}\n\n`;
const month = (...entries: string[]) => `${MARKER}\n# Journal 2026-12\n\n${entries.join("")}`;

function drive(base: string, ours: string, theirs: string) {
  const dir = tempDir("sh-jmerge-");
  const files = { base: path.join(dir, "O"), ours: path.join(dir, "A"), theirs: path.join(dir, "B") };
  writeFileSync(files.base, base);
  writeFileSync(files.ours, ours);
  writeFileSync(files.theirs, theirs);
  const r = helper(["merge-driver", files.base, files.ours, files.theirs, ".ai/memory/journal/2026-12.md"], { cwd: dir });
  return { code: r.code, text: readFileSync(files.ours, "utf8") };
}

describe("merge driver: journal months", () => {
  const shared = entry("2026-12-01T09:00:00Z", "0000000000000001", "shared");
  it("keeps both sides' entries, each once, in time order", () => {
    const alice = entry("2026-12-01T11:00:00Z", "00000000000000a1", "alice");
    const bob = entry("2026-12-01T10:00:00Z", "00000000000000b1", "bob");
    const r = drive(month(shared), month(shared, alice), month(shared, bob));
    expect(r.code).toBe(0);
    expect(r.text).toBe(month(shared, bob, alice));
  });

  it("a side with conflict markers falls back to git's union: both sides' lines stay", () => {
    const broken = `${month(shared)}<<<<<<< x\n`;
    const r = drive(month(shared), broken, month(shared, entry("2026-12-02T10:00:00Z", "00000000000000b2", "bob")));
    expect(r.text).toContain("<<<<<<< x");
    expect(r.text).toContain("- Goal: bob");
  });
});
