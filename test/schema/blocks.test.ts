import { describe, expect, it } from "vitest";
import { MAX_DEPTH, parseBlocks } from "../../src/schema/blocks.ts";
import { checkAnchors, parseHandoff } from "../../src/schema/handoff.ts";

describe("parseBlocks on hostile input", () => {
  it.each([
    ["deep lists then blank lines", `${"- ".repeat(5000)}x\n${"\n".repeat(100_000)}`],
    ["deep block quotes then blank lines", `${">".repeat(5000)} x\n${"\n".repeat(100_000)}`],
    ["deep lists then lazy lines", `${"- ".repeat(5000)}x\n${"y\n".repeat(50_000)}`],
    ["an unclosed fence", `\`\`\`\n${"x\n".repeat(200_000)}`],
  ])("stays linear and never throws: %s", (_name, text) => {
    const t0 = performance.now();
    const h = parseHandoff(text);
    expect(checkAnchors(h, Date.now()).head).toBeNull();
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it(`stops nesting containers at ${MAX_DEPTH}: deeper markers are text`, () => {
    let n = parseBlocks(`${"> ".repeat(MAX_DEPTH + 10)}x\n`);
    let depth = 0;
    while (n.children[0] && n.children[0].type === "blockquote") {
      n = n.children[0];
      depth++;
    }
    expect(depth).toBe(MAX_DEPTH);
    expect(n.children[0]!.type).toBe("paragraph");
  });

  it("keeps an anchors list written in a fence, a comment or a nested item out of the anchors", () => {
    const H = "0123456789abcdef0123456789abcdef01234567";
    const F = "f".repeat(40);
    const doc = `## Environment anchors\n<!--\n- HEAD: ${F}\n-->\n~~~~\n- HEAD: ${F}\n~~~~\n- Branch: main\n  - HEAD: ${F}\n- HEAD: ${H}\n`;
    expect(parseHandoff(doc).anchors).toMatchObject({ present: true, branch: `main\n  - HEAD: ${F}`, head: H });
  });
});
