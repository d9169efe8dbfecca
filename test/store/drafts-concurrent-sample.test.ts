// The sample of test/store/drafts-concurrent.test.ts in npm test: 8 sessions save at once, one
// round each, through SKILL.md's flow with the drafts their reads named (docs/decisions/drafts.md).
import { describe, expect, it } from "vitest";
import { checkOutcomes, saveAtOnce } from "./drafts-support.ts";

describe("concurrent savers, one round", () => {
  it("8 sessions read the same token: one saves its own text, seven are told it changed and keep their drafts", async () => {
    const { results, versions } = await saveAtOnce(8, "own", 1);
    checkOutcomes(results, versions, false);
    const codes = results.map((s) => s.attempts.at(-1)!.code);
    expect(codes.filter((c) => c === 0)).toHaveLength(1);
    expect(codes.filter((c) => c === 2)).toHaveLength(7);
  }, 120_000);
});
