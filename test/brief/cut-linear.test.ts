// The brief's cut reads a handoff line once: a line of many backticks (unmatched code spans)
// once cost a search per run, quadratic (a 150 KB handoff's brief took seconds). 10x the input
// may cost at most 12x the time, measured as the fastest of five runs each.
import { describe, expect, it } from "vitest";
import { cutAtWord } from "../../src/brief/cut.ts";

function fastest(text: string): number {
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    cutAtWord(text, 200);
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

describe("cutAtWord is linear", () => {
  it.each(["`a` ", "`a ", "``a` ", "`` `x"])("on %j repeated", (unit) => {
    const small = unit.repeat(4_000);
    const big = unit.repeat(40_000);
    fastest(small);
    const a = fastest(small);
    const b = fastest(big);
    // Five milliseconds of slack for timer granularity on a small input.
    expect(b).toBeLessThanOrEqual(12 * a + 5);
  });
});
