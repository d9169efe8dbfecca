// redactText's exemption: the anchor lines `write` filled, or that equal what
// `anchors` reports, are left as they are; every other line is redacted as prose.
import { describe, expect, it } from "vitest";
import { redactText } from "../../src/guard/redact.ts";

const BRANCH = "- Branch: fix/password=Zq8vLr2Xw9Tk4Ya7";
const TEXT = `intro\n${BRANCH}\npassword=Zq8vLr2Xw9Tk4Ya7\n${BRANCH}\n`;

describe("redactText(text, { exemptLines })", () => {
  it.each([
    ["no exemption: every line", undefined, [2, 3, 4]],
    ["an empty set: every line", new Set<number>(), [2, 3, 4]],
    ["line 2 exempt", new Set([2]), [3, 4]],
    ["lines 2 and 4 exempt", new Set([2, 4]), [3]],
    ["a line without a secret exempt changes nothing", new Set([1]), [2, 3, 4]],
  ])("%s", (_name, exemptLines, redactedLines) => {
    const r = redactText(TEXT, exemptLines ? { exemptLines } : {});
    expect(r.findings.map((f) => f.line)).toEqual(redactedLines);
    const lines = r.text.split("\n");
    for (let i = 1; i <= 4; i++) expect(lines[i - 1]!.includes("<redacted:"), `line ${i}`).toBe(redactedLines.includes(i));
    // Columns of the findings still count from the original text.
    expect(r.findings.every((f) => f.column > 1)).toBe(true);
  });
});
