import { describe, expect, it } from "vitest";
import { describeInvisible, findInvisible, renderVisible, type InvisibleHit } from "../../src/guard/invisible.ts";

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
const ch = (cp: number): string => String.fromCodePoint(cp);

// Contract §4's exact list, by class.
const FORBIDDEN: Array<[string, number[]]> = [
  ["bidi control", [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]],
  ["tag character", [0xe0000, 0xe0001, 0xe0020, 0xe0041, 0xe007e, 0xe007f]],
  ["zero-width character", [0x200b, 0x200c, 0x200d, 0x2060, 0xfeff]],
  ["variation selector", [0xfe00, 0xfe01, 0xfe07, 0xfe0d, 0xe0100, 0xe0150, 0xe01ef]],
  ["Hangul filler", [0x115f, 0x1160, 0x3164, 0xffa0]],
];
const CASES = FORBIDDEN.flatMap(([name, cps]) => cps.map((cp) => [hex(cp), name, cp] as const));

describe("findInvisible: every forbidden code point, with its position", () => {
  it.each(CASES)("%s (%s)", (code, name, cp) => {
    // Line 3, after an emoji and an accented letter: columns count code points.
    const text = `first line\nsecond\n🚀é x${ch(cp)}y\n`;
    expect(findInvisible(text)).toEqual<InvisibleHit[]>([{ line: 3, column: 5, codePoint: code, name }]);
  });

  it.each(CASES)("%s at the very start of a line and the end of the text", (code, _name, cp) => {
    const hits = findInvisible(`a\n${ch(cp)}b\nc${ch(cp)}`);
    expect(hits.map((h) => [h.line, h.column, h.codePoint])).toEqual([
      [2, 1, code],
      [3, 2, code],
    ]);
  });

  it("finds several in order", () => {
    const text = `a\u202Eb\u200Bc\n\u2066x\u2069 \u{E0041}`;
    expect(findInvisible(text).map((h) => `${h.line}:${h.column}:${h.codePoint}`)).toEqual([
      "1:2:U+202E",
      "1:4:U+200B",
      "2:1:U+2066",
      "2:3:U+2069",
      "2:5:U+E0041",
    ]);
  });
});

describe("findInvisible: what passes", () => {
  it.each([
    ["family (ZWJ sequence)", "👨‍👩‍👧"],
    ["technologist with skin tone", "👩🏽‍💻"],
    ["rainbow flag (VS16 before the joiner)", "🏳️‍🌈"],
    ["eye in speech bubble (VS16 on both sides)", "👁️‍🗨️"],
    ["kiss (heart with VS16 inside)", "👩‍❤️‍💋‍👨"],
    ["woman running (ZWJ + female sign + VS16)", "🏃‍♀️"],
    ["heart with VS16", "❤️"],
    ["keycap", "1️⃣"],
    ["text presentation selector U+FE0E", "☺\uFE0E"],
    ["a BOM as the very first character", "\uFEFF# Session Handoff\n"],
    ["plain text, accents, CJK, RTL letters", "Übergabe — パスワード — مرحبا — שלום\n"],
    ["tabs, CR, LF", "a\tb\r\nc\n"],
  ])("%s", (_name, text) => {
    expect(findInvisible(text)).toEqual([]);
    if (!text.startsWith("\uFEFF")) expect(findInvisible(`before ${text} after\n${text}`)).toEqual([]);
  });

  it.each([
    ["a joiner between letters", "a\u200Db", 2],
    ["a joiner after an emoji, before a letter", "🚀\u200Db", 2],
    ["a joiner before an emoji, after a letter", "a\u200D🚀", 2],
    ["a joiner at the end", "🚀\u200D", 2],
    ["a joiner at the start", "\u200D🚀", 1],
    ["two joiners in a row", "🚀\u200D\u200D🚀", 2],
  ])("refuses %s", (_name, text, column) => {
    const hits = findInvisible(text);
    expect(hits[0]).toEqual({ line: 1, column, codePoint: "U+200D", name: "zero-width character" });
  });

  it("refuses a BOM anywhere but the first character", () => {
    expect(findInvisible("a\uFEFF")).toEqual([{ line: 1, column: 2, codePoint: "U+FEFF", name: "zero-width character" }]);
    expect(findInvisible("\uFEFF\uFEFF")).toEqual([{ line: 1, column: 2, codePoint: "U+FEFF", name: "zero-width character" }]);
  });
});

describe("describeInvisible", () => {
  it("names code point, class, line and column", () => {
    expect(describeInvisible(findInvisible("ab\n cd\u202E"))).toBe("invisible character: U+202E (bidi control) at line 2, column 4");
    expect(describeInvisible(findInvisible("\u200Ba\u200C"))).toBe(
      "2 invisible characters: U+200B (zero-width character) at line 1, column 1; U+200C (zero-width character) at line 1, column 3",
    );
  });

  it("counts past ten", () => {
    expect(describeInvisible(findInvisible("\u200B".repeat(13)))).toMatch(/^13 invisible characters: .*, … and 3 more$/);
  });
});

describe("renderVisible", () => {
  const bytes = (...parts: Array<string | number[]>): Buffer =>
    Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

  it("returns clean UTF-8 unchanged, a leading BOM and emoji joiners included", () => {
    const text = "\uFEFF# Session Handoff\n👨‍👩‍👧 ❤️ Übergabe\n";
    expect(renderVisible(Buffer.from(text))).toEqual({ text, changed: 0 });
    expect(renderVisible(new Uint8Array())).toEqual({ text: "", changed: 0 });
  });

  it.each(CASES)("shows %s as <U+XXXX>", (code, _name, cp) => {
    expect(renderVisible(bytes("a", ch(cp), "b\n"))).toEqual({ text: `a<${code}>b\n`, changed: 1 });
  });

  it.each([
    ["a lone continuation byte", [0x80], "<0x80>"],
    ["0xFF", [0xff], "<0xFF>"],
    ["0xFE", [0xfe], "<0xFE>"],
    ["an overlong slash (C0 AF)", [0xc0, 0xaf], "<0xC0><0xAF>"],
    ["an overlong 3-byte NUL (E0 80 80)", [0xe0, 0x80, 0x80], "<0xE0><0x80><0x80>"],
    ["a UTF-16 surrogate (ED A0 80)", [0xed, 0xa0, 0x80], "<0xED><0xA0><0x80>"],
    ["beyond U+10FFFF (F4 90 80 80)", [0xf4, 0x90, 0x80, 0x80], "<0xF4><0x90><0x80><0x80>"],
    ["F5 lead byte", [0xf5, 0x80, 0x80, 0x80], "<0xF5><0x80><0x80><0x80>"],
    ["a truncated euro sign (E2 82)", [0xe2, 0x82], "<0xE2><0x82>"],
    ["a truncated sequence before ASCII", [0xe2, 0x82, 0x41], "<0xE2><0x82>A"],
    ["a truncated 4-byte sequence at the end", [0xf0, 0x9f, 0x9a], "<0xF0><0x9F><0x9A>"],
  ])("shows %s byte by byte", (_name, bad, shown) => {
    expect(renderVisible(bytes("x", bad, "y"))).toEqual({ text: `x${shown}y`, changed: shown.split("<0x").length - 1 });
  });

  it("keeps valid multi-byte neighbours of invalid bytes", () => {
    const r = renderVisible(bytes("€", [0xff], "🚀", [0x80], "é\u202E"));
    expect(r).toEqual({ text: "€<0xFF>🚀<0x80>é<U+202E>", changed: 3 });
  });

  it("decodes the boundary code points of each length", () => {
    const text = "\u007F\u0080\u07FF\u0800\uFFFD\u{10000}\u{10FFFF}";
    expect(renderVisible(Buffer.from(text))).toEqual({ text, changed: 0 });
    // The same through the slow path (an invalid byte forces it).
    expect(renderVisible(bytes(text, [0xff]))).toEqual({ text: `${text}<0xFF>`, changed: 1 });
  });

  it("matches findInvisible's view of joiners and the BOM on the slow path", () => {
    const r = renderVisible(bytes("\uFEFF👨‍👩‍👧 a\u200Db \uFEFF", [0xc0]));
    expect(r).toEqual({ text: "\uFEFF👨‍👩‍👧 a<U+200D>b <U+FEFF><0xC0>", changed: 3 });
  });

  it("renders a 1 MB file with many replacements in bounded time", () => {
    const big = bytes("a\u202E".repeat(200_000), [0xff]);
    const t0 = Date.now();
    const r = renderVisible(big);
    expect(r.changed).toBe(200_001);
    expect(Date.now() - t0).toBeLessThan(3_000);
  });
});
