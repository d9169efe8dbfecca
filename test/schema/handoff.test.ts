import { describe, expect, it } from "vitest";
import { quotePath } from "../../src/guard/quote.ts";
import { parsePathList, renderPathList } from "../../src/schema/anchor-lines.ts";
import { checkAnchors, parseHandoff } from "../../src/schema/handoff.ts";
import { asObjectId, isPlausibleBranch, parseStrictTime, safeRelativePath } from "../../src/schema/values.ts";

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const H40 = "0123456789abcdef0123456789abcdef01234567";

describe("values", () => {
  it.each([
    [H40, true],
    ["a".repeat(64), true],
    [H40.toUpperCase(), true],
    [H40.slice(0, 7), false],
    [`${H40.slice(0, 39)}z`, false],
    ["--output=x", false],
    [`${H40} `, false],
    ["HEAD~1", false],
  ])("asObjectId(%j) valid=%s", (value, valid) => {
    expect(asObjectId(value) !== null).toBe(valid);
  });

  it.each([
    ["2026-05-31T10:00:00Z", true],
    ["2026-05-31T10:00:00.123+02:00", true],
    ["2026-05-31T10:00+0530", true],
    ["2026-05-31T10:00:00", false],
    ["2026-05-31", false],
    ["2026-02-30T10:00:00Z", false],
    ["2026-06-01T12:04:00Z", true],
    ["2026-06-01T12:06:00Z", false],
    ["2027-01-01T00:00:00Z", false],
    ["yesterday", false],
    ["$(date)", false],
  ])("parseStrictTime(%j) valid=%s", (value, valid) => {
    expect(!("error" in parseStrictTime(value, NOW))).toBe(valid);
  });

  it("computes the instant with the offset", () => {
    expect(parseStrictTime("2026-05-31T12:00:00+02:00", NOW)).toEqual({ iso: "2026-05-31T12:00:00+02:00", ms: Date.UTC(2026, 4, 31, 10) });
  });

  it.each([
    ["main", true],
    ["feat/auth-2", true],
    ["(detached)", true],
    ["$(rm -rf ~)", false],
    ["$(id)", false],
    ["`id`", false],
    ["a;b", false],
    ["-x", false],
    ["a..b", false],
    ["", false],
  ])("isPlausibleBranch(%j) = %s", (value, ok) => {
    expect(isPlausibleBranch(value)).toBe(ok);
  });

  it.each([
    ["src/a.ts", "src/a.ts"],
    ["./src//a.ts", "src/a.ts"],
    ["src/../b.ts", "b.ts"],
    ["../x", null],
    ["/etc/passwd", null],
    ["~/x", null],
    ["C:/x", null],
    ["a\\b", null],
    ["a\nb", null],
    ["", null],
  ])("safeRelativePath(%j) = %j", (value, want) => {
    expect(safeRelativePath(value)).toBe(want);
  });
});

describe("anchor path lists", () => {
  it.each([
    ["plain.txt", "plain.txt"],
    ["with space.txt", "with space.txt"],
    ["ünï.txt", "ünï.txt"],
    ["a,b", '"a,b"'],
    ['q"t', '"q\\"t"'],
    ["n\nl", '"n\\nl"'],
    ["t\tb", '"t\\tb"'],
    ["b\\s", '"b\\\\s"'],
    ["bell\x07", '"bell\\a"'],
    ["esc\x1b", '"esc\\033"'],
    ["none", '"none"'],
    [" lead", '" lead"'],
  ])("quotePath(%j) = %s and parses back", (p, quoted) => {
    expect(quotePath(p)).toBe(quoted);
    expect(parsePathList(quoted)).toEqual({ paths: [p], more: 0 });
  });

  it("round-trips a list and its truncation", () => {
    const paths = Array.from({ length: 53 }, (_, i) => `f${i}, x`);
    const line = renderPathList(paths);
    expect(line.endsWith("… and 3 more")).toBe(true);
    expect(parsePathList(line)).toEqual({ paths: paths.slice(0, 50), more: 3 });
    expect(parsePathList("none")).toEqual({ paths: [], more: 0 });
  });

  it("accepts git's octal escapes for non-ASCII", () => {
    expect(parsePathList('"\\303\\274.txt", b')).toEqual({ paths: ["ü.txt", "b"], more: 0 });
  });

  it.each(['"open', '"a"b', ", x", ""])("rejects the malformed list %j", (line) => {
    expect(parsePathList(line)).toBeNull();
  });
});

const DOC = `<!-- memory-schema: v1 -->
# Session Handoff
Saved: 2026-05-31T10:00:00Z

## Current goal
Ship the parser.

## Plan
- [x] profile
- [~] rewrite tokenizer
  stopped at the string state
- [ ] bench

## Decisions
- [user-directed] keep the API
- [agent-proposed] use a table (superseded by: switch)

## Failed approaches
- regex tokenizer: backtracking blew up on long strings

## Open questions
- none

## Next steps
- run \`npm test\`

## Key files
- \`src/tok.ts\` — the tokenizer
- src/a b.ts — spaces
- /etc/passwd — hostile
- ../outside.ts — hostile

## Environment anchors
- Branch: main
- HEAD: ${H40}
- Dirty files: src/a.ts, "x,y.ts"
- Date: 2026-05-31T10:00:00Z

\`\`\`
## Environment anchors
- HEAD: ffffffffffffffffffffffffffffffffffffffff
\`\`\`
`;

describe("parseHandoff", () => {
  it("reads sections, plan, decisions, key files and anchors", () => {
    const h = parseHandoff(DOC);
    expect(h.marker && h.heading).toBe(true);
    expect(h.saved).toBe("2026-05-31T10:00:00Z");
    expect(h.headings.filter((x) => x.depth === 2).map((x) => x.title)).toEqual(["Current goal", "Plan", "Decisions", "Failed approaches", "Open questions", "Next steps", "Key files", "Environment anchors"]);
    expect(h.goal).toBe("Ship the parser.");
    expect(h.plan.map((s) => s.status)).toEqual(["done", "in-progress", "todo"]);
    expect(h.plan[1]!.text).toContain("stopped at the string state");
    expect(h.keyFiles.map((k) => k.path)).toEqual(["src/tok.ts", "src/a b.ts", null, null]);
    expect(h.anchors.head).toBe(H40);
  });

  it("ignores an anchors section inside a code block", () => {
    expect(checkAnchors(parseHandoff(DOC), NOW).head).toBe(H40);
  });

  it("validates anchors; bad key file paths make keyFiles unverifiable", () => {
    const a = checkAnchors(parseHandoff(DOC), NOW);
    expect(a).toMatchObject({ branch: "main", dirty: ["src/a.ts", "x,y.ts"], keyFiles: ["src/tok.ts", "src/a b.ts"], unverifiable: ["keyFiles"] });
    expect(a.date?.ms).toBe(Date.UTC(2026, 4, 31, 10));
  });

  it("tolerates CRLF and a BOM identically", () => {
    const crlf = `\uFEFF${DOC.replace(/\n/g, "\r\n")}`;
    expect(parseHandoff(crlf)).toEqual(parseHandoff(DOC));
  });

  it.each([
    ["empty text", ""],
    ["binary junk", "\u0000\u0001\u0002"],
    ["only a heading", "# Session Handoff\n"],
    ["anchors heading without a list", "## Environment anchors\n\ntext\n"],
    ["a huge line", `## Environment anchors\n- HEAD: ${"a".repeat(100_000)}\n`],
  ])("never throws on %s", (_name, text) => {
    const a = checkAnchors(parseHandoff(text), NOW);
    expect(a.head).toBeNull();
    expect(a.unverifiable).toContain("head");
  });

  it("falls back to the Date anchor when Saved is malformed", () => {
    const a = checkAnchors(parseHandoff(DOC.replace("Saved: 2026-05-31T10:00:00Z", "Saved: last Tuesday")), NOW);
    expect(a.unverifiable).toContain("saved");
    expect(a.date?.iso).toBe("2026-05-31T10:00:00Z");
  });
});
