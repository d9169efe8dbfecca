// The state time: one age for drift, brief and hook.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { handoffStateTime, parseHandoff, stateTimeOfText } from "../../src/schema/handoff.ts";
import { ageWords, stateTime, type StateTime } from "../../src/schema/state-time.ts";

const NOW = Date.parse("2026-11-30T12:00:00Z");
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("stateTime: the first of - Date: and Saved: that parses strictly", () => {
  it.each<[string, string | null, string | null, Partial<StateTime> & { ms?: number }]>([
    ["Date wins over Saved", iso(NOW - 2 * DAY), iso(NOW - 20 * DAY), { known: true, ms: NOW - 2 * DAY }],
    ["Saved when there is no Date", null, iso(NOW - 20 * DAY), { known: true, ms: NOW - 20 * DAY }],
    ["Saved when Date is zoneless", "2026-11-10T10:00:00", iso(NOW - 3 * DAY), { known: true, ms: NOW - 3 * DAY }],
    ["an offset zone", "2026-11-30T13:00:00+02:00", null, { known: true, ms: NOW - 60 * 60 * 1000 }],
    ["in backticks", `\`${iso(NOW - DAY)}\``, null, { known: true, ms: NOW - DAY }],
    ["both zoneless: unknown", "2026-11-10T10:00:00", "2026-11-10T10:00:00", { known: false, reason: "malformed" }],
    ["a date only: unknown", "2026-11-10", null, { known: false, reason: "malformed" }],
    ["30 February: unknown", "2026-02-30T10:00:00Z", null, { known: false, reason: "malformed" }],
    ["none at all", null, null, { known: false, reason: "missing" }],
    ["Date six minutes ahead: the future, Saved not consulted", iso(NOW + 6 * 60 * 1000), iso(NOW - DAY), { known: false, reason: "future" }],
    ["Date four minutes ahead: clock skew, age 0", iso(NOW + 4 * 60 * 1000), null, { known: true, ms: NOW + 4 * 60 * 1000 }],
  ])("%s", (_name, date, saved, want) => {
    const got = stateTime(date, saved, NOW);
    const { ms, ...rest } = want;
    expect(got).toMatchObject(rest);
    if (ms !== undefined && got.known) expect(got.time.ms).toBe(ms);
  });

  it.each([
    [iso(NOW - 1000), "today"],
    [iso(NOW - DAY - 1000), "1 day ago"],
    [iso(NOW - 20 * DAY), "20 days ago"],
    [iso(NOW + 60 * 1000), "today"],
    [iso(NOW + 3 * DAY), "age unknown"],
    ["yesterday", "age unknown"],
  ])("ageWords(%s) = %s", (date, words) => {
    expect(ageWords(stateTime(date, null, NOW), NOW)).toBe(words);
  });
});

describe("stateTimeOfText: parseHandoff's state time, read without the list-only fields", () => {
  // The hook's reading (readFields with lists off) must give the model's state time on every
  // document: the corpus of odd handoffs, and generated ones mixing sections, anchors in
  // fences, nested and repeated sections, and `Saved:` lines in and out of place.
  const corpus = new URL("./corpus/", import.meta.url);
  const docs = readdirSync(corpus)
    .filter((n) => n.endsWith(".md"))
    .map((n) => readFileSync(new URL(n, corpus), "utf8"));
  const parts = ["## Environment anchors", "## Plan", "## Current goal", "## Environment anchors", "```", "<!--", "-->", "- Date: 2026-11-29T10:00:00Z", "- Date: 2026-11-30T11:00:00Z", "  - Date: 2026-11-28T10:00:00Z", "- HEAD: 0123456789abcdef0123456789abcdef01234567", "Saved: 2026-11-27T10:00:00Z", "Saved: 2026-11-30T13:00:00Z", "- [x] step", "> - Date: 2026-11-26T10:00:00Z", "text", ""];
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let k = 0; k < 400; k++) docs.push(Array.from({ length: 2 + next(14) }, () => parts[next(parts.length)]).join("\n"));

  it(`agrees on ${docs.length} documents`, () => {
    const known = docs.filter((t) => handoffStateTime(parseHandoff(t), NOW).known).length;
    // Enough documents have a state time for the comparison to mean something.
    expect(known).toBeGreaterThan(100);
    for (const t of docs) expect(stateTimeOfText(t, NOW)).toEqual(handoffStateTime(parseHandoff(t), NOW));
  });
});
