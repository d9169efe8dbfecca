// The one sanitiser for file text printed outside the envelope, and the path quoting that
// must agree with the invisible-character guard.
import { describe, expect, it } from "vitest";
import { findInvisible } from "../../src/guard/invisible.ts";
import { sanitize } from "../../src/guard/sanitize.ts";
import { markText, quotePath } from "../../src/guard/quote.ts";
import { parsePathList, renderAnchorLines } from "../../src/schema/anchor-lines.ts";

// Half of a surrogate pair: what a cut in the middle of an emoji leaves.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const GH = ["gh", "p_abcdefghijklmnopqrstuvwxyz0123456789"].join("");
const FAMILY = "👨‍👩‍👧";
const ENGLAND = "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}";

describe("sanitize: redaction, then controls and refused code points, then the cut", () => {
  it.each([
    ["a secret", `token ${GH} here`, {}, "token <redacted: github-token> here"],
    ["a secret, redaction off (branch names)", `b-${GH}`, { redact: false }, `b-${GH}`],
    ["an ANSI colour", "\u001b[31mred\u001b[0m", {}, "<U+001B>[31mred<U+001B>[0m"],
    ["an OSC 8 hyperlink", "\u001b]8;;https://evil\u0007click\u001b]8;;\u0007", {}, "<U+001B>]8;;https://evil<U+0007>click<U+001B>]8;;<U+0007>"],
    ["a bidi override", "deploy \u202Egnp.exe", {}, "deploy <U+202E>gnp.exe"],
    ["a tag run", `ok\u{E0069}\u{E0067}`, {}, "ok<U+E0069><U+E0067>"],
    ["a NUL and DEL", "a\0b\u007f", {}, "a<U+0000>b<U+007F>"],
    ["C1 and the separators", "a\u0085b\u2028c\u2029", {}, "a<U+0085>b<U+2028>c<U+2029>"],
    ["line breaks and tabs folded on one line", "a\n\tb\r\nc  d", {}, "a b c d"],
    ["a leading BOM", "\uFEFFgoal", {}, "<U+FEFF>goal"],
    ["Persian ZWNJ kept", "کتاب\u200Cها", {}, "کتاب\u200Cها"],
    ["Sinhala ZWJ kept", "ශ්\u200Dරී", {}, "ශ්\u200Dරී"],
    ["Hebrew RLM kept", "שלום\u200F!", {}, "שלום\u200F!"],
    ["emoji sequences and the flags kept", `${FAMILY} ${ENGLAND} ❤️`, {}, `${FAMILY} ${ENGLAND} ❤️`],
  ])("%s", (_name, text, opts, want) => {
    expect(sanitize(text, opts)).toBe(want);
  });

  // Lines kept: the marking step alone, as `shellWord` runs it.
  it.each([
    ["line breaks kept when asked", "a\n\tb\r\nc", "a\n\tb\nc"],
    ["a lone CR kept visible when lines are kept", "a\rb", "a<U+000D>b"],
  ])("%s", (_name, text, want) => {
    expect(markText(text, false)).toBe(want);
  });

  it.each([
    ["ASCII", "abcdefghij", 5, "abcd…"],
    ["no cut at the limit", "abcde", 5, "abcde"],
    ["an emoji ZWJ sequence is one unit", `ab${FAMILY}${FAMILY}${FAMILY}`, 4, `ab${FAMILY}…`],
    ["a tag flag is one unit", `${ENGLAND}${ENGLAND}${ENGLAND}`, 3, `${ENGLAND}${ENGLAND}${ENGLAND}`],
    ["a tag flag is never split", `${ENGLAND}${ENGLAND}${ENGLAND}x`, 3, `${ENGLAND}${ENGLAND}…`],
    ["a surrogate pair is never cut", "🚀🚀🚀🚀", 3, "🚀🚀…"],
    ["a Devanagari conjunct stays whole", "क्षक्षक्षक्ष", 3, "क्षक्ष…"],
    ["a skin-toned emoji stays whole", "👩🏽‍💻👩🏽‍💻👩🏽‍💻", 2, "👩🏽‍💻…"],
    ["a marker is one unit, never split", "ab\u202E\u202E\u202Ecd", 4, "ab<U+202E>…"],
    ["a redaction marker is never split", `x ${GH} ${GH}`, 4, "x <redacted: github-token>…"],
  ])("cuts on grapheme boundaries: %s", (_name, text, max, want) => {
    const got = sanitize(text, { max });
    expect(got).toBe(want);
    expect(got).not.toMatch(LONE_SURROGATE);
  });
});

// what `anchors` prints for a path, `write` accepts on an anchor line and `drift`
// reads back to the same path. Living scripts stay as they are; refused code points are
// quoted with octal escapes of their UTF-8 bytes, as git quotes paths.
describe("quotePath agrees with the invisible-character guard", () => {
  it.each([
    ["a bidi override", "evil\u202Etxt.exe", '"evil\\342\\200\\256txt.exe"'],
    ["a tag character", "a\u{E0041}.md", '"a\\363\\240\\201\\201.md"'],
    ["a zero-width space", "a\u200Bb", '"a\\342\\200\\213b"'],
    ["a leading BOM", "\uFEFFx", '"\\357\\273\\277x"'],
    ["a leading joiner", "\u200Dx", '"\\342\\200\\215x"'],
    ["a stray selector", "a\uFE0F", '"a\\357\\270\\217"'],
    ["a C1 control", "a\u0085b", '"a\\302\\205b"'],
    ["a line separator", "a\u2028b", '"a\\342\\200\\250b"'],
    ["ESC", "a\u001bb", '"a\\033b"'],
    ["an RLM in a Latin name", "a\u200Fb", '"a\\342\\200\\217b"'],
  ])("%s is quoted and escaped", (_name, p, quoted) => {
    expect(quotePath(p)).toBe(quoted);
    expect(parsePathList(quoted)).toEqual({ paths: [p], more: 0 });
  });

  it.each([
    ["Persian with ZWNJ", "کتاب\u200Cها.md"],
    ["Hebrew with RLM", "שלום\u200F.txt"],
    ["emoji sequences", `${FAMILY}❤️.txt`],
    ["the England flag", `${ENGLAND}.txt`],
    ["CJK with an ideographic selector", "葛\u{E0100}.txt"],
  ])("%s stays as is", (_name, p) => {
    expect(quotePath(p)).toBe(p);
  });

  it("every anchor line made of such paths passes the guard and parses back", () => {
    const dirty = ["evil\u202Etxt.exe", "a\u{E0041}.md", "\uFEFFx", "a\u200Fb", "کتاب\u200Cها.md", `${ENGLAND}.txt`, "plain, comma", "\u200Dx"];
    const lines = renderAnchorLines({ insideGit: true, branch: "main", head: "a".repeat(40), dirty, date: "2026-11-30T10:00:00Z", keyFileMtimes: [] });
    expect(findInvisible(lines)).toEqual([]);
    const line = lines.split("\n").find((l) => l.startsWith("- Dirty files: "))!;
    expect(parsePathList(line.slice("- Dirty files: ".length))).toEqual({ paths: dirty, more: 0 });
  });
});

describe("sanitize: what it returns, write accepts", () => {
  it.each([
    ["a ZWNJ left before the cut", "کتاب\u200Cها", 5],
    ["a Devanagari ZWJ left before the cut", "क्\u200Dष क्\u200Dष", 2],
    ["an RLM whose RTL letters were cut away", `x\u200F ${"שלום".repeat(3)}`, 3],
  ])("%s is shown, not left dangling", (_name, text, max) => {
    const out = sanitize(text, { max });
    expect(out.endsWith("…")).toBe(true);
    expect(findInvisible(out)).toEqual([]);
  });
});

describe("sanitize: a lone CR is shown, CRLF folded", () => {
  it.each([
    ["a lone CR", "a\rb", "a<U+000D>b"],
    ["CRLF", "a\r\nb", "a b"],
  ])("%s", (_name, text, want) => {
    expect(sanitize(text)).toBe(want);
  });
});

// The cut of plain ASCII text skips the segmenter (UAX #29 joins none of its code points);
// with and without markers, at every limit, it must cut where the segmenter would.
describe("sanitize: the ASCII cut agrees with Intl.Segmenter", () => {
  const segmenterCut = (text: string, max: number): string => {
    const seg = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    const units: string[] = [];
    let at = 0;
    for (const m of text.matchAll(/<U\+[0-9A-F]{4,6}>|<redacted: [a-z0-9-]+>|<0x[0-9A-F]{2}>/g)) {
      for (const s of seg.segment(text.slice(at, m.index))) units.push(s.segment);
      units.push(m[0]);
      at = m.index + m[0].length;
    }
    for (const s of seg.segment(text.slice(at))) units.push(s.segment);
    return units.length <= max ? text : `${units.slice(0, max - 1).join("").trimEnd()}…`;
  };
  const texts = ["plain words and `code` -- 100% ok", `x ${GH} y ${GH} z`, "a\u202Eb\u0007c tail", "line one\nline two", "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", ""];
  it.each(texts.flatMap((t) => [1, 2, 3, 5, 8, 13, 40].map((max) => [t, max] as const)))("%j cut at %i", (text, max) => {
    const opts = { max };
    const shown = sanitize(text, { ...opts, max: undefined });
    expect(sanitize(text, opts)).toBe(segmenterCut(shown, max));
  });
});
