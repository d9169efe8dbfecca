// The state time of a handoff (contract §5 1.1, ruling 13; docs/design.md#verdicts-and-the-brief): one age for drift, brief and the
// hook alike, never a file's modification time (a clone or a pull resets those; field report 23).
// Pure: the rule that turns the two values into one age. The values come from the parsed model
// (schema/handoff.ts `handoffStateTime`).
import { CLOCK_SKEW_MS, parseStrictTime, type ValidTime } from "./values.ts";

/** One day in ms. */
export const DAY_MS = 86_400_000;

/** A handoff's state time, or why it has none. */
export type StateTime =
  | { known: true; time: ValidTime; source: "date" | "saved" }
  | { known: false; reason: "missing" | "malformed" | "future" };

function unticked(value: string): string {
  const m = /^`([^`]*)`$/.exec(value.trim());
  return m ? m[1]!.trim() : value.trim();
}

/**
 * The state time (ruling 13, docs/design.md#verdicts-and-the-brief): the first of the `- Date:` anchor and the `Saved:` line that
 * parses strictly (ISO-8601 with a zone, a real calendar day); when that one lies more than
 * `CLOCK_SKEW_MS` (5 minutes) ahead of `nowMs` it is the future and the age is unknown (the
 * other value is not consulted: a clock ahead of the server must not make an old handoff
 * look new). Zoneless or malformed values are skipped as if missing, but remembered as the
 * reason when nothing parses. Pure; never throws.
 * @param date the text after `- Date:` (null when absent); @param saved the text after `Saved:`.
 * @param nowMs now, in ms since the epoch.
 */
export function stateTime(date: string | null, saved: string | null, nowMs: number): StateTime {
  let malformed = false;
  for (const [value, source] of [
    [date, "date"],
    [saved, "saved"],
  ] as const) {
    if (value === null) continue;
    // Parsed with no future bound first: a future value is the state time, and makes the age unknown.
    const parsed = parseStrictTime(unticked(value), Number.MAX_SAFE_INTEGER);
    if ("error" in parsed) {
      malformed = true;
      continue;
    }
    if (parsed.ms > nowMs + CLOCK_SKEW_MS) return { known: false, reason: "future" };
    return { known: true, time: parsed, source };
  }
  return { known: false, reason: malformed ? "malformed" : "missing" };
}

/** The age in days (not rounded) of a known state time, 0 for a time up to 5 minutes ahead; null when unknown. */
export function ageDaysOf(st: StateTime, nowMs: number): number | null {
  return st.known ? Math.max(0, (nowMs - st.time.ms) / DAY_MS) : null;
}

/** The age as the hook and the brief say it: `today`, `1 day ago`, `N days ago`, or `age unknown`. */
export function ageWords(st: StateTime, nowMs: number): string {
  const days = ageDaysOf(st, nowMs);
  if (days === null) return "age unknown";
  const whole = Math.floor(days);
  return whole === 0 ? "today" : whole === 1 ? "1 day ago" : `${whole} days ago`;
}

const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const SAVED = /^Saved:[ \t]*(.*)$/;
const DATE = /^[-*+][ \t]+Date:[ \t]*(.*)$/i;

/**
 * @deprecated A second reader of the handoff: every verb now takes its state time from the one
 * parsed model (`handoffStateTime` / `stateTimeOfText` in schema/handoff.ts,
 * docs/design.md#one-reading-of-the-handoff). Its last user is `stateTimeIso` in
 * schema/validate.ts, which the validate rewrite moves onto the model; delete this then.
 *
 * The `Saved:` and `- Date:` values of a handoff's text, read line by line: `Saved:` before
 * the first `## ` heading, `- Date:` as the first such item of the first `## Environment
 * anchors` section; fenced code (at line level) and HTML comment blocks skipped. This is THE
 * reading of the state time for drift, brief and hook alike (the hook's hot path cannot load
 * the block scanner, so the others use this too and all three agree by construction). On
 * ordinary handoffs it gives what `parseHandoff` gives; on adversarial Markdown (a fence
 * opened inside a list item and never closed there) the two may differ, and this one wins
 * for the age (test/schema/state-time.test.ts lists those documents).
 */
export function stateFields(text: string): { date: string | null; saved: string | null } {
  let saved: string | null = null;
  let date: string | null = null;
  let section: string | null = null;
  let anchorsSeen = false;
  let fence: string | null = null;
  let comment = false;
  // Character tests before any regex, and a stop once nothing more can be found: the hook runs
  // this at every session start, and most lines of a handoff can change nothing here.
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r?\n|\r/)) {
    if (comment) {
      if (raw.includes("-->")) comment = false;
      continue;
    }
    let k = 0;
    while (k < 3 && raw.charCodeAt(k) === 32) k++;
    const c = raw.charCodeAt(k);
    if (c === 60 && raw.startsWith("<!--", k)) {
      comment = !raw.slice(raw.indexOf("<!--") + 4).includes("-->");
      continue;
    }
    // A fence: three or more backticks or tildes after at most three spaces.
    let run = "";
    if (c === 96 || c === 126) {
      let e = k;
      while (raw.charCodeAt(e) === c) e++;
      if (e - k >= 3) run = raw.slice(k, e);
    }
    if (fence !== null) {
      if (run !== "" && run[0] === fence[0] && run.length >= fence.length && raw.trim() === run) fence = null;
      continue;
    }
    // A backtick fence's info string holds no backtick (CommonMark); such a line is text.
    if (run !== "" && !(c === 96 && raw.slice(k + run.length).includes("`"))) {
      fence = run;
      continue;
    }
    if (c === 35 && k === 0) {
      const h = HEADING.exec(raw.trim());
      if (h) {
        if (h[1] === "##") {
          // Past the first anchors section nothing more can be found.
          if (anchorsSeen) return { date, saved };
          const title = h[2]!.toLowerCase();
          section = title === "environment anchors" ? "anchors" : title;
          if (section === "anchors") anchorsSeen = true;
        }
        continue;
      }
    }
    if (section === null) {
      if (saved !== null) continue;
      const line = raw.trim();
      const m = line.startsWith("Saved:") ? SAVED.exec(line) : null;
      if (m) saved = m[1]!.trim();
    } else if (section === "anchors") {
      const line = raw.trim();
      const m = line.length > 0 && "-*+".includes(line[0]!) ? DATE.exec(line) : null;
      // `Saved:` lies before the first section, so nothing after this can change the result.
      if (m) return { date: m[1]!, saved };
    }
  }
  return { date, saved };
}
