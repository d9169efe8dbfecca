import { describe, expect, it } from "vitest";
import { MAX_DEPTH, parseBlocks } from "../../src/schema/grammar.ts";
import { checkAnchors, parseHandoff } from "../../src/schema/handoff.ts";

describe("parseBlocks on hostile input", () => {
  it.each([
    ["markers on one line then blank lines", `${"- ".repeat(5000)}x\n${"\n".repeat(100_000)}`],
    ["deep block quotes then blank lines", `${">".repeat(5000)} x\n${"\n".repeat(100_000)}`],
    ["an item then lazy lines", `${"- ".repeat(5000)}x\n${"y\n".repeat(50_000)}`],
    ["a staircase of nested items", Array.from({ length: 600 }, (_, i) => `${"  ".repeat(i)}- x`).join("\n")],
    ["an unclosed fence", `\`\`\`\n${"x\n".repeat(200_000)}`],
  ])("stays linear and never throws: %s", (_name, text) => {
    const t0 = performance.now();
    const h = parseHandoff(text);
    expect(checkAnchors(h, Date.now()).head).toBeNull();
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it(`stops nesting items at ${MAX_DEPTH}: a deeper marker is text, and flagged`, () => {
    const tree = parseBlocks(Array.from({ length: MAX_DEPTH + 5 }, (_, i) => `${"  ".repeat(i)}- x`).join("\n"));
    let n = tree.children[0]!;
    let depth = 0;
    while (n.type === "list") {
      depth++;
      n = n.children[0]!.children[n.children[0]!.children.length - 1]!;
    }
    expect(depth).toBe(MAX_DEPTH);
    expect(tree.flags[0]).toMatchObject({ line: MAX_DEPTH + 1, message: expect.stringContaining("flatten") });
  });

  it("keeps an anchors list written in a fence, a comment or a nested item out of the anchors", () => {
    const H = "0123456789abcdef0123456789abcdef01234567";
    const F = "f".repeat(40);
    const doc = `## Environment anchors\n<!--\n- HEAD: ${F}\n-->\n~~~~\n- HEAD: ${F}\n~~~~\n- Branch: main\n  - HEAD: ${F}\n- HEAD: ${H}\n`;
    expect(parseHandoff(doc).anchors).toMatchObject({ present: true, branch: `main\n  - HEAD: ${F}`, head: H });
    expect(parseBlocks(doc).flags).toEqual([]);
  });
});

describe("what the grammar refuses to interpret", () => {
  // Each line CommonMark would read as something else is read as text, named, and told what to write.
  it.each([
    ["setext heading", "text\n---\n", 2, "`## <title>`"],
    ["indented code", "## Plan\n\n    code\n", 3, "``` fence"],
    ["block quote", "> quoted\n", 1, "without `>`"],
    ["HTML block", "<div>\n", 1, "backticks"],
    ["definition", "[a]: https://example.com\n", 1, "inline"],
    ["tab in the indentation", "- a\n\t- b\n", 2, "spaces"],
    ["lazy continuation", "- a\nb\n", 2, "indent it by 2 spaces"],
    ["lazy continuation of a numbered item", "1. a\n  b\n", 2, "indent it by 3 spaces"],
    ["empty item", "-\n", 1, "`- none`"],
    ["wide marker", "-      x\n", 1, "one space"],
    ["two markers", "- - x\n", 1, "its own line"],
    ["numbered item after text", "text\n2. b\n", 2, "blank line"],
    ["unclosed fence", "- a\n\n```\nx\n", 3, "close it with ```"],
    ["unclosed comment", "<!-- x\n", 1, "end it with -->"],
  ])("%s", (_name, text, line, says) => {
    const flags = parseBlocks(text).flags;
    expect(flags.map((f) => f.line)).toEqual([line]);
    expect(flags[0]!.message).toContain(says);
  });

  it.each([
    ["nested items and continuations", "- a\n  wrapped\n  - b\n    more\n\n  after a blank\n1. x\n   y\n"],
    ["fences and comments in items", "- a\n  ```\n  - not an item\n  ```\n- <!-- c\n  -->\n"],
    ["thematic breaks, headings, trailing blanks", "# T\n\n---\n\n## Plan\n- [x] a  \n\n"],
  ])("accepts our own format: %s", (_name, text) => {
    expect(parseBlocks(text).flags).toEqual([]);
  });
});
