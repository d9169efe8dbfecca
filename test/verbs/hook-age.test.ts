// The hook's age words across midnight (docs/decisions/age-words.md): under a day they follow the
// local calendar (the helper's time zone), so a handoff saved 0.9 days ago on the previous date is
// "saved yesterday", never "saved today"; from a day on, whole elapsed days as drift counts them.
// The clock is fixed the only way the built helper allows without a seam: a handoff whose state
// time sits at a chosen distance from now, read under a time zone chosen so that the local hour
// of now is known.
import { describe, expect, it } from "vitest";
import { ageWords, stateTime } from "../../src/schema/state-time.ts";
import { aged, gitRepo, handoff, helper, save } from "../helpers.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("ageWords with a fixed clock (local dates, whatever this machine's zone)", () => {
  const at = (d: number, h: number, m = 0) => new Date(2026, 10, d, h, m).getTime();
  const words = (saved: number, now: number) => ageWords(stateTime(iso(saved), null, now), now);
  it.each([
    ["0.9 days back, on the previous date", at(30, 8), at(30, 8) - 0.9 * DAY, "yesterday"],
    ["8.5 hours back, across midnight", at(30, 8), at(29, 23, 30), "yesterday"],
    ["a minute back, across midnight", at(30, 0, 0) + 30_000, at(29, 23, 59), "yesterday"],
    ["7.5 hours back, the same date", at(30, 8), at(30, 0, 30), "today"],
    ["a minute ahead (clock skew)", at(30, 23, 59), at(30, 23, 59) + 2 * 60_000, "today"],
    ["25 hours back: whole elapsed days", at(30, 8), at(30, 8) - 25 * HOUR, "1 day ago"],
    ["47 hours back", at(30, 8), at(30, 8) - 47 * HOUR, "1 day ago"],
    ["3.2 days back", at(30, 8), at(30, 8) - 3.2 * DAY, "3 days ago"],
  ])("%s", (_name, now, saved, want) => {
    expect(words(saved, now)).toBe(want);
  });
});

// Etc/GMT zones name the offset with the sign reversed ("Etc/GMT-5" is UTC+5).
function zoneWhereNowIs(localHour: number): string {
  let off = localHour - new Date().getUTCHours();
  if (off < -12) off += 24;
  if (off > 14) off -= 24;
  return off === 0 ? "Etc/GMT" : off > 0 ? `Etc/GMT-${off}` : `Etc/GMT+${-off}`;
}

describe("hook --mode session: the same handoff, read under two zones (built helper)", () => {
  const hookUnder = (root: string, tz: string) => helper(["hook", "--mode", "session", "--root", root], { env: { TZ: tz } }).stdout;

  it("saved 0.9 days ago on the previous local date: 'saved yesterday', and drift still says 0 days", () => {
    const root = gitRepo();
    save(root, aged(handoff("across midnight"), iso(Date.now() - 0.9 * DAY)), "absent");
    // Local now about 06:00: 0.9 days back is about 08:24 the day before.
    const out = hookUnder(root, zoneWhereNowIs(6));
    expect(out).toContain("(.ai/memory/HANDOFF.md, saved yesterday)");
    expect(out).not.toContain("saved today");
    const d = JSON.parse(helper(["drift", "--root", root, "--json"]).stdout) as { ageDays: number };
    expect(Math.floor(d.ageDays)).toBe(0);
  });

  it("saved 3 hours ago: 'saved today' where local now is 06:00, 'saved yesterday' where it is 01:00", () => {
    const root = gitRepo();
    save(root, aged(handoff("three hours"), iso(Date.now() - 3 * HOUR)), "absent");
    expect(hookUnder(root, zoneWhereNowIs(6))).toContain("(.ai/memory/HANDOFF.md, saved today)");
    expect(hookUnder(root, zoneWhereNowIs(1))).toContain("(.ai/memory/HANDOFF.md, saved yesterday)");
  });
});
