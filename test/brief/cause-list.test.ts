// The brief's Do-not-retry field cut for length keeps each item's cause, so the next session
// knows why not to retry it (docs/design.md#the-brief). Pure.
import { describe, expect, it } from "vitest";
import { keepCause } from "../../src/brief/brief.ts";
import { fitList } from "../../src/brief/cut.ts";

describe("Do-not-retry cut for length keeps each cause", () => {
  it.each([
    ["short items stay whole", ["a — b", "c: d"], "a — b; c: d"],
    ["a long approach is shortened, its cause kept", [`${"x ".repeat(200)}— the cause`], /^x( x)*… — the cause$/],
    ["a colon separates too", [`${"y ".repeat(200)}: cache blew up`], /^y( y)*…: cache blew up$/],
    ["because separates too", [`${"z ".repeat(200)}because the API is gone`], /^z( z)*… because the API is gone$/],
    ["no cause: cut with …", ["w ".repeat(300)], /^w( w)*…$/],
    ["more than four: counted", ["a — 1", "b — 2", "c — 3", "d — 4", "e — 5"], "a — 1; b — 2; c — 3; d — 4 (+1 more)"],
  ])("%s", (_name, items, want) => {
    const got = fitList(items, 4, 400, keepCause);
    if (typeof want === "string") expect(got).toBe(want);
    else expect(got).toMatch(want);
    expect([...got].length).toBeLessThanOrEqual(400);
  });
});
