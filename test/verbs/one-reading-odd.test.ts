import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, sha } from "../helpers.ts";

// The Done-when test of one reading of the handoff (docs/design.md#one-reading-of-the-handoff):
// odd files fed to every verb (hook, check, brief, drift, archives list, validate, write's
// dropped-items note) through the built bundle; what each says of the state time and the
// anchors agrees with the others, and "age unknown" is said at most once by each.

const DAY = 86_400_000;
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
const OLD = "2026-11-20T10:00:00Z";

/** One odd file: its text given the repository's branch and HEAD, and the state time every verb must read (null: unknown). */
interface Odd {
  name: string;
  text: (branch: string, head: string) => string;
  stateTime: string | null;
}

/** A handoff with an open plan step and the repository's own Branch/HEAD/Dirty anchors; `date` null leaves `- Date:` out. */
function doc(branch: string, head: string, saved: string | null, date: string | null): string {
  let t = handoff("Test an odd file.").replace("## Plan\n- none", "## Plan\n- [ ] carry me over");
  t = saved === null ? t.replace(/^Saved: .*\n/m, "") : t.replace(/^Saved: .*$/m, `Saved: ${saved}`);
  const anchors = [`- Branch: ${branch}`, `- HEAD: ${head}`, "- Dirty files: none", ...(date === null ? [] : [`- Date: ${date}`])].join("\n");
  return t.replace(/^- Date: .*$/m, anchors);
}

const now = Date.now();
const soon = iso(now + 2 * 60_000);
const ODD: Odd[] = [
  { name: "a - Date: a year ahead (beyond 5 minutes)", text: (b, h) => doc(b, h, OLD, iso(now + 365 * DAY)), stateTime: null },
  { name: "a - Date: 2 minutes ahead (within 5 minutes: a time)", text: (b, h) => doc(b, h, OLD, soon), stateTime: soon },
  { name: "no - Date:, a Saved:", text: (b, h) => doc(b, h, OLD, null), stateTime: OLD },
  { name: "neither - Date: nor Saved:", text: (b, h) => doc(b, h, null, null), stateTime: null },
  { name: "CRLF line ends and a BOM", text: (b, h) => `\uFEFF${doc(b, h, OLD, OLD).replace(/\n/g, "\r\n")}`, stateTime: OLD },
  {
    name: "an anchors section inside a code fence before the real one",
    text: (b, h) => doc(b, h, OLD, OLD).replace("## Current goal\nTest an odd file.", "## Current goal\nTest an odd file.\n\n```\n## Environment anchors\n- Branch: fenced\n- Date: 2020-01-01T00:00:00Z\n```"),
    stateTime: OLD,
  },
  {
    name: "a second ## Environment anchors section (the first is the document's)",
    text: (b, h) => `${doc(b, h, OLD, OLD)}\n## Environment anchors\n- Branch: second\n- HEAD: ${"b".repeat(40)}\n- Date: 2026-11-25T10:00:00Z\n`,
    stateTime: OLD,
  },
  {
    // A `*` bullet after the `-` anchor list starts another list: not an anchor line. A line
    // reader took its time as the state time while drift listed `date` missing.
    name: "a * Date: bullet after the - anchor list (another list, not an anchor)",
    text: (b, h) => `${doc(b, h, OLD, null)}* Date: 2026-11-25T10:00:00Z\n`,
    stateTime: OLD,
  },
  {
    name: "a Saved: inside a code block, no other Saved:, no - Date:",
    text: (b, h) => doc(b, h, null, null).replace("# Session Handoff\n", "# Session Handoff\n\n```\nSaved: 2026-11-25T10:00:00Z\n```\n"),
    stateTime: null,
  },
];

const count = (s: string, word: string) => s.split(word).length - 1;
const ARCHIVE = "HANDOFF-2026-11-20T10-00-00Z-1-0123abcd.md";

describe("one reading of the handoff: odd files through every verb", () => {
  it.each(ODD.map((o) => [o.name, o] as const))("%s", (_name, odd) => {
    const root = gitRepo();
    const head = git(root, "rev-parse", "HEAD").trim();
    const branch = git(root, "branch", "--show-current").trim();
    const text = odd.text(branch, head);
    const memory = path.join(root, ".ai", "memory");
    mkdirSync(path.join(memory, "archive"), { recursive: true });
    writeFileSync(path.join(memory, "HANDOFF.md"), text);
    writeFileSync(path.join(memory, "archive", ARCHIVE), text);
    const known = odd.stateTime !== null;
    const days = known ? Math.floor((Date.now() - Date.parse(odd.stateTime!)) / DAY) : null;
    const words = days === null ? "age unknown" : days <= 0 ? "saved today" : days === 1 ? "saved 1 day ago" : `saved ${days} days ago`;

    const hook = helper(["hook", "--mode", "session"], { input: JSON.stringify({ cwd: root, source: "startup", session_id: "odd" }) }).stdout;
    expect(hook).toContain(`a parked handoff exists (.ai/memory/HANDOFF.md, ${words})`);
    expect(count(hook, "age unknown")).toBeLessThanOrEqual(1);

    const check = helper(["check", "--json"], { cwd: root });
    expect(check.code).toBe(2);
    expect(JSON.parse(check.stdout)).toMatchObject({ state: "parked", parked: "handoff" });

    type Drift = { ageDays: number | null; saved: { head: string | null; branch: string | null; date: string | null }; unverifiable: string[]; summary: string; verdict: string };
    const drift = JSON.parse(helper(["drift", "--json"], { cwd: root }).stdout) as Drift;
    expect(drift.saved.date).toBe(odd.stateTime);
    expect(drift.ageDays === null).toBe(!known);
    expect(drift.saved.head).toBe(head);
    expect(drift.saved.branch).toBe(branch);
    expect(count(drift.summary, "age unknown")).toBe(known ? 0 : 1);
    // Branch and HEAD match and nothing changed since: only an unknown age keeps the verdict from fresh
    // (docs/design.md#one-reading-of-the-handoff); age alone is never stale.
    expect(drift.verdict).toBe(known ? "fresh" : "unverifiable");
    // A missing `- Date:` line is a missing anchor, listed like any other.
    expect(drift.unverifiable.includes("date")).toBe(!known || !/^- Date:/m.test(text));
    expect(drift.unverifiable.filter((u) => u === "head" || u === "branch" || u === "anchors")).toEqual([]);

    const brief = helper(["brief", "--json"], { cwd: root });
    expect(brief.code).toBe(0);
    const b = JSON.parse(brief.stdout) as { brief: { driftAndLessons: string; planStatus: string; proposedNextStep: string }; drift: Drift };
    expect(b.drift.saved.date).toBe(odd.stateTime);
    expect(b.drift.ageDays).toBe(drift.ageDays);
    expect(b.drift.saved).toEqual(drift.saved);
    expect(count(b.brief.driftAndLessons, "age unknown")).toBe(known ? 0 : 1);
    expect(b.brief.planStatus).toContain("next: carry me over");
    // Git matched Branch and HEAD: an unknown age is never called anchors that could not be checked.
    const b2 = b.brief;
    expect(b2.planStatus).not.toContain("anchors could not be checked");
    if (!known) {
      expect(b2.planStatus).toBe("unverified (at the saved commit, but the handoff's time is not known): 0 done, 0 in progress, 1 todo; next: carry me over");
      expect(b2.proposedNextStep).toBe("confirm the handoff is still current (it matches the saved commit, but its time is not known), then: none — Confirm?");
    }

    const archives = helper(["archives", "list", "--json"], { cwd: root });
    expect((JSON.parse(archives.stdout) as { archives: { name: string; stateTime: string | null; goal: string }[] }).archives).toEqual([
      { name: ARCHIVE, stateTime: odd.stateTime, goal: "Test an odd file.", unsafe: false },
    ]);
    expect(helper(["archives", "list"], { cwd: root }).stdout).toBe(`${ARCHIVE}  ${odd.stateTime ?? "age unknown"}  "Test an odd file."\n`);

    const validate = helper(["validate", "handoff"], { cwd: root }).stdout;
    expect(count(validate, "age unknown")).toBeLessThanOrEqual(1);
    if (known) expect(validate).not.toContain("age unknown");

    // The next save's dropped-items note reads the open step as brief does.
    const token = sha(readFileSync(path.join(memory, "HANDOFF.md")));
    const w = helper(["write", "handoff", "--expected-current-sha256", token], { cwd: root, input: handoff("a new goal") });
    expect(w.code).toBe(0);
    expect(w.stderr).toContain("[Plan] carry me over");
  });
});
