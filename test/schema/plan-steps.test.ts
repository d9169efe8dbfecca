// Pure parts of an honest resume (docs/design.md#one-reading-of-the-handoff): nested plan steps and
// abandoned ones, the anchor lines In progress and Key file mtimes, and path quoting.
import { describe, expect, it } from "vitest";
import { quotePath } from "../../src/guard/quote.ts";
import { parseInProgress, parseKeyFileMtimes, parsePathList, renderAnchorLines } from "../../src/schema/anchor-lines.ts";
import { parseHandoff } from "../../src/schema/handoff.ts";

const doc = (plan: string) => `<!-- memory-schema: v1 -->\n# Session Handoff\nSaved: 2026-11-30T10:00:00Z\n\n## Current goal\nG\n\n## Plan\n${plan}\n\n## Next steps\n- n\n`;

describe("plan steps at any depth", () => {
  it.each<[string, string, [string, string, number][]]>([
    ["flat", "- [x] a\n- [~] b\n- [ ] c", [["done", "a", 0], ["in-progress", "b", 0], ["todo", "c", 0]]],
    ["open sub-steps under a done step", "- [x] Parser\n  - [ ] strings\n  - [ ] numbers", [["done", "Parser", 0], ["todo", "strings", 1], ["todo", "numbers", 1]]],
    ["three levels", "- [ ] a\n  - [x] b\n    - [~] c", [["todo", "a", 0], ["done", "b", 1], ["in-progress", "c", 2]]],
    ["abandoned", "- [-] Bytecode — dropped: too slow\n- [X] upper-case done", [["abandoned", "Bytecode — dropped: too slow", 0], ["done", "upper-case done", 0]]],
    ["nested items without a checkbox are notes, not steps", "- [x] a\n  - a note\n  - [ ] b", [["done", "a", 0], ["todo", "b", 1]]],
    ["top-level items without a checkbox stay unmarked", "- just text\n- [ ] b", [["unmarked", "just text", 0], ["todo", "b", 0]]],
    ["numbered lists and other bullets", "1. [x] a\n   * [ ] b\n2. [ ] c", [["done", "a", 0], ["todo", "b", 1], ["todo", "c", 0]]],
    ["a step spanning lines keeps its own text only", "- [x] a\n  continued\n  - [ ] b", [["done", "a\n  continued", 0], ["todo", "b", 1]]],
  ])("%s", (_name, plan, want) => {
    const h = parseHandoff(doc(plan));
    expect(h.steps.map((s) => [s.status, s.text, s.depth])).toEqual(want);
  });

  it("plan keeps its top-level reading (remark's fixtures)", () => {
    const h = parseHandoff(doc("- [x] Parser\n  - [ ] strings"));
    expect(h.plan).toEqual([{ status: "done", text: "Parser\n  - [ ] strings" }]);
  });
});

describe("paths on anchor lines", () => {
  it.each([
    ["plain", "src/a.ts", "src/a.ts"],
    ["non-ASCII stays", "café/ü.md", "café/ü.md"],
    ["a comma", "a,b", '"a,b"'],
    ["a backslash", "a\\b", '"a\\\\b"'],
    ["a newline", "a\nb", '"a\\nb"'],
    ["an escape character", "a\x1bb", '"a\\033b"'],
    ["a C1 control", "a\u0085b", '"a\\302\\205b"'],
    ["a line separator", "a\u2028b", '"a\\342\\200\\250b"'],
    ["a bidi isolate", "a\u2066b", '"a\\342\\201\\246b"'],
    ["a BOM", "\ufeffa", '"\\357\\273\\277a"'],
    ["a tag character", "a\u{e0041}", '"a\\363\\240\\201\\201"'],
    ["a variation selector", "a\ufe0f", '"a\\357\\270\\217"'],
    ["the word none", "none", '"none"'],
    [" @ inside", "a @ b", '"a @ b"'],
  ])("%s", (_name, p, written) => {
    expect(quotePath(p)).toBe(written);
    expect(parsePathList(written)).toEqual({ paths: [p], more: 0 });
  });

  it.each([
    ["two files", "a.py @ 2026-11-30T10:00:00Z, README.md @ missing", [{ path: "a.py", mtime: "2026-11-30T10:00:00Z" }, { path: "README.md", mtime: null }]],
    ["a quoted path", '"a, b.py" @ 2026-11-30T10:00:00Z', [{ path: "a, b.py", mtime: "2026-11-30T10:00:00Z" }]],
    ["a path holding ' @ '", '"x @ y" @ missing', [{ path: "x @ y", mtime: null }]],
    ["no time", "a.py", null],
    ["an unterminated quote", '"a.py @ missing', null],
  ])("Key file mtimes: %s", (_name, value, want) => {
    expect(parseKeyFileMtimes(value)).toEqual(want);
  });

  it("renders the key file mtimes so that they parse back", () => {
    const lines = renderAnchorLines({ insideGit: false, branch: null, head: null, dirty: [], date: "2026-11-30T10:00:00Z", keyFileMtimes: [{ path: "a, b.py", mtime: null }, { path: "c.py", mtime: "2026-11-29T10:00:00Z" }] });
    const value = /- Key file mtimes: (.*)\n$/.exec(lines)![1]!;
    expect(parseKeyFileMtimes(value)).toEqual([{ path: "a, b.py", mtime: null }, { path: "c.py", mtime: "2026-11-29T10:00:00Z" }]);
  });

  it.each([
    ["rebase of feature/login (2 conflicted files)", { words: "rebase of feature/login", conflicted: 2 }],
    ["merge (1 conflicted files)", { words: "merge", conflicted: 1 }],
    ["merge (1 conflicted file)", { words: "merge", conflicted: 1 }],
    ["bisect (0 conflicted files)", { words: "bisect", conflicted: 0 }],
    ["rebase of a b (1 conflicted files)", null],
    ["squash (1 conflicted files)", null],
    ["merge", null],
  ])("In progress: %j", (value, want) => {
    expect(parseInProgress(value)).toEqual(want);
  });

  it("renders the In progress line after the four lines, only when there is one", () => {
    const base = { insideGit: true, branch: "(detached)", head: "a".repeat(40), dirty: ["a.txt"], date: "2026-11-30T10:00:00Z", keyFileMtimes: [] };
    expect(renderAnchorLines(base)).not.toContain("In progress");
    expect(renderAnchorLines({ ...base, inProgress: { words: "rebase of feature/login", conflicted: 1 } })).toBe(
      `- Branch: (detached)\n- HEAD: ${"a".repeat(40)}\n- Dirty files: a.txt\n- Date: 2026-11-30T10:00:00Z\n- In progress: rebase of feature/login (1 conflicted files)\n`,
    );
  });
});
