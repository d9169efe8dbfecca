// One age for drift, brief and hook, never a file's mtime, which a clone or a pull resets.
import { CLOCK_SKEW_MS, parseStrictTime, unticked, type ValidTime } from "./values.ts";

const DAY_MS = 86_400_000;

/** A handoff's state time, or why it has none. */
export type StateTime =
  | { known: true; time: ValidTime }
  | { known: false; reason: "missing" | "malformed" | "future" };

// The first of `- Date:` and `Saved:` that parses; a future one makes the age unknown without consulting the other,
// so a clock ahead of the server never makes an old handoff look new.
export function stateTime(date: string | null, saved: string | null, nowMs: number): StateTime {
  let malformed = false;
  for (const value of [date, saved]) {
    if (value === null) continue;
    // Parsed with no future bound first: a future value is the state time, and makes the age unknown.
    const parsed = parseStrictTime(unticked(value), Number.MAX_SAFE_INTEGER);
    if ("error" in parsed) {
      malformed = true;
      continue;
    }
    if (parsed.ms > nowMs + CLOCK_SKEW_MS) return { known: false, reason: "future" };
    return { known: true, time: parsed };
  }
  return { known: false, reason: malformed ? "malformed" : "missing" };
}

// The local calendar day of a time, as a day count (daylight-saving shifts do not move it).
function localDay(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / DAY_MS;
}

/** The age in words (docs/decisions/age-words.md): `today`, `yesterday`, `N days ago` or `age unknown`. */
export function ageWords(st: StateTime, nowMs: number): string {
  if (!st.known) return "age unknown";
  const whole = Math.floor(Math.max(0, (nowMs - st.time.ms) / DAY_MS));
  if (whole === 0) {
    const back = st.time.ms >= nowMs ? 0 : localDay(nowMs) - localDay(st.time.ms);
    // Under a day, two dates back only across a short daylight-saving day.
    return back <= 0 ? "today" : back === 1 ? "yesterday" : `${back} days ago`;
  }
  return whole === 1 ? "1 day ago" : `${whole} days ago`;
}
