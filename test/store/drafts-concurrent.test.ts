// Many sessions saving the same project at once through SKILL.md's flow, each until it has saved
// (docs/decisions/drafts.md; test/store/drafts-support.ts). Heavy: npm run test:reliability runs
// it; test/store/drafts-concurrent-sample.test.ts is its one-round sample in npm test.
import { readdirSync, utimesSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { helper } from "../helpers.ts";
import { checkOutcomes, MEM, saveAtOnce } from "./drafts-support.ts";

describe("concurrent savers each publish their own draft", () => {
  it("8 sessions, each with the draft its read named: every success is its own text, every loser keeps its draft", async () => {
    const { root, results, versions: published } = await saveAtOnce(8, "own", 10);
    checkOutcomes(results, published, true);
    // Losers were told "changed since it was read" (seven in the first round alone).
    expect(results.flatMap((s) => s.attempts).filter((a) => a.code === 2).length).toBeGreaterThanOrEqual(7);
    // What is left in drafts/ is the losers' kept drafts; once left behind, recover removes them all.
    const dir = path.join(MEM(root), "drafts");
    const left = readdirSync(dir).filter((n) => n !== ".gitignore");
    expect(left.filter((n) => /^handoff-[0-9a-f]{8}\.md$/.test(n)).length).toBeGreaterThan(0);
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    for (const n of left) utimesSync(path.join(dir, n), old, old);
    const r = helper(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([".gitignore"]);
  }, 180_000);

  it("8 sessions on an older SKILL.md's shared drafts/handoff.md: refused, each saves the draft it was named", async () => {
    const { results, versions: published } = await saveAtOnce(8, "shared", 10);
    checkOutcomes(results, published, true);
    const refused = results.flatMap((s) => s.attempts).filter((a) => /shared \S+ is not read any more/.test(a.stderr));
    expect(refused.length).toBeGreaterThanOrEqual(8);
  }, 180_000);
});
