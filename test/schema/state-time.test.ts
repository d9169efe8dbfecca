// The state time (contract §5 1.1, ruling 13): one age for drift, brief and hook.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkAnchors, parseHandoff } from "../../src/schema/handoff.ts";
import { ageWords, stateFields, stateTime, type StateTime } from "../../src/schema/state-time.ts";

const NOW = Date.parse("2026-11-30T12:00:00Z");
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("stateTime: the first of - Date: and Saved: that parses strictly", () => {
  it.each<[string, string | null, string | null, Partial<StateTime> & { ms?: number }]>([
    ["Date wins over Saved", iso(NOW - 2 * DAY), iso(NOW - 20 * DAY), { known: true, source: "date", ms: NOW - 2 * DAY }],
    ["Saved when there is no Date", null, iso(NOW - 20 * DAY), { known: true, source: "saved", ms: NOW - 20 * DAY }],
    ["Saved when Date is zoneless", "2026-11-10T10:00:00", iso(NOW - 3 * DAY), { known: true, source: "saved", ms: NOW - 3 * DAY }],
    ["an offset zone", "2026-11-30T13:00:00+02:00", null, { known: true, source: "date", ms: NOW - 60 * 60 * 1000 }],
    ["in backticks", `\`${iso(NOW - DAY)}\``, null, { known: true, source: "date", ms: NOW - DAY }],
    ["both zoneless: unknown", "2026-11-10T10:00:00", "2026-11-10T10:00:00", { known: false, reason: "malformed" }],
    ["a date only: unknown", "2026-11-10", null, { known: false, reason: "malformed" }],
    ["30 February: unknown", "2026-02-30T10:00:00Z", null, { known: false, reason: "malformed" }],
    ["none at all", null, null, { known: false, reason: "missing" }],
    ["Date six minutes ahead: the future, Saved not consulted", iso(NOW + 6 * 60 * 1000), iso(NOW - DAY), { known: false, reason: "future" }],
    ["Date four minutes ahead: clock skew, age 0", iso(NOW + 4 * 60 * 1000), null, { known: true, source: "date" }],
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

describe("stateFields (the hook's line reader) agrees with parseHandoff (drift and brief)", () => {
  const dir = new URL("./corpus/", import.meta.url);
  const names = readdirSync(dir).filter((n) => n.endsWith(".md"));
  // The line reader is what drift, brief and hook all use, so they agree by construction; on
  // these adversarial documents it reads the age differently from the block scanner: an
  // indented fence inside an item (12), `*`/`+` anchor bullets the scanner reads as a list
  // it skips (20), an HTML block holding a heading (29), a fence opened in an item and left
  // open (38).
  const DIFFERENT = ["12-indented-fences.md", "20-bullets.md", "29-html-blocks.md", "38-fence-in-item.md"];
  it.each(names)("%s", (name) => {
    const text = readFileSync(new URL(name, dir), "utf8");
    const h = parseHandoff(text);
    const f = stateFields(text);
    const viaParse = checkAnchors(h, NOW).stateTime;
    const viaLines = stateTime(f.date, f.saved, NOW);
    if (DIFFERENT.includes(name)) expect(viaLines).not.toEqual(viaParse);
    else expect(viaLines).toEqual(viaParse);
  });

  it.each([
    ["a Date line inside a fence is not an anchor", "```\n- Date: 2026-11-01T00:00:00Z\n```\n- Date: 2026-11-20T00:00:00Z\n", "2026-11-20T00:00:00Z"],
    ["the first anchors section counts", "- Date: 2026-11-20T00:00:00Z\n\n## Environment anchors\n- Date: 2026-11-01T00:00:00Z\n", "2026-11-20T00:00:00Z"],
    ["a Date in another section is not an anchor", "", null],
  ])("%s", (_name, anchorsBody, want) => {
    const text = `<!-- memory-schema: v1 -->\n# Session Handoff\nSaved: 2026-11-02T00:00:00Z\n\n## Next steps\n- Date: 2026-11-03T00:00:00Z\n\n## Environment anchors\n${anchorsBody}`;
    expect(stateFields(text)).toEqual({ date: want, saved: "2026-11-02T00:00:00Z" });
    expect(parseHandoff(text).anchors.date).toBe(want);
  });
});
