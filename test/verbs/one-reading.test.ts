import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, sha } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

// One reading of the handoff (docs/design.md#verdicts-and-the-brief): one odd file fed to every
// verb; what each says of its age and anchors never disagrees, and "age unknown" is said once.
// The verbs run in this process (inProcess); the session hook and one write spawn the built helper.

/** A handoff whose `- Date:` lies a year ahead (a hand edit, another clone's clock) while Saved: is valid. */
function oddProject(): { root: string; head: string; text: string } {
  const root = gitRepo();
  const head = git(root, "rev-parse", "HEAD").trim();
  const text = handoff("Test the odd date.")
    .replace(/^Saved: .*$/m, "Saved: 2026-11-30T10:00:00Z")
    .replace("## Plan\n- none", "## Plan\n- [ ] carry me over")
    .replace(/^- Date: .*$/m, `- Branch: ${git(root, "branch", "--show-current").trim()}\n- HEAD: ${head}\n- Dirty files: none\n- Date: 2099-06-01T10:00:00Z`);
  mkdirSync(path.join(root, ".ai", "memory", "archive"), { recursive: true });
  writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), text);
  writeFileSync(path.join(root, ".ai", "memory", "archive", "HANDOFF-2026-11-30T10-00-00Z-1-0123abcd.md"), text);
  return { root, head, text };
}

const count = (s: string, word: string) => s.split(word).length - 1;

describe("one reading of the handoff: every verb on one odd file", () => {
  it("a future - Date: anchor: hook, check, brief, drift, archives list and validate all call the age unknown, once each; the anchors agree", async () => {
    const { root, head } = oddProject();
    const hook = helper(["hook", "--mode", "session"], { input: JSON.stringify({ cwd: root, source: "startup" }) }).stdout;
    expect(hook).toContain("a parked handoff exists (.ai/memory/HANDOFF.md, age unknown)");
    expect(count(hook, "age unknown")).toBe(1);

    const check = await inProcess(["check"], { cwd: root });
    expect(check.code).toBe(2);

    const brief = (await inProcess(["brief"], { cwd: root })).stdout;
    const driftLine = brief.split("\n").find((l) => l.startsWith("Drift & lessons:"))!;
    expect(count(driftLine, "age unknown")).toBe(1);
    expect(driftLine).toContain("more than 5 minutes in the future");

    const drift = JSON.parse((await inProcess(["drift", "--json"], { cwd: root })).stdout) as { ageDays: unknown; saved: { head: string; branch: string }; summary: string };
    expect(drift.ageDays).toBeNull();
    expect(drift.saved.head).toBe(head);
    expect(count(drift.summary, "age unknown")).toBe(1);
    // brief says what drift says: one reading.
    expect(driftLine).toContain(drift.summary);

    const archives = (await inProcess(["archives", "list"], { cwd: root })).stdout;
    expect(archives).toBe('HANDOFF-2026-11-30T10-00-00Z-1-0123abcd.md  age unknown  "Test the odd date."\n');
    const listed = JSON.parse((await inProcess(["archives", "list", "--json"], { cwd: root })).stdout) as { archives: { stateTime: unknown }[] };
    expect(listed.archives[0]!.stateTime).toBeNull();

    // The open plan step, as brief reads it and as the next save's dropped-items note reads it.
    expect(brief).toContain("0 done, 0 in progress, 1 todo; next: carry me over");
    const token = sha(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md")));
    const w = await inProcess(["write", "handoff", "--expected-current-sha256", token], { cwd: root, input: handoff("a new goal") });
    expect(w.code).toBe(0);
    expect(w.stderr).toContain("[Plan] carry me over");
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), readFileSync(path.join(root, ".ai", "memory", "archive", "HANDOFF-2026-11-30T10-00-00Z-1-0123abcd.md")));

    const validate = (await inProcess(["validate", "handoff"], { cwd: root })).stdout;
    expect(validate).toContain('the - Date: anchor "2099-06-01T10:00:00Z" is in the future (more than 5 minutes ahead): age unknown');
    expect(count(validate, "age unknown")).toBe(1);
  });

  it("repeated sections: the first of each in the document is read, goal and anchors alike, by hook, brief and drift; validate names the repeats", async () => {
    // A second `## Current goal` and a second `## Environment anchors` (evil values), placed
    // before the real anchors (the evil block is then the first anchors section) or after them.
    const root = gitRepo();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    const head = git(root, "rev-parse", "HEAD").trim();
    const branch = git(root, "branch", "--show-current").trim();
    const real = `## Environment anchors\n- Branch: ${branch}\n- HEAD: ${head}\n- Dirty files: none\n- Date: 2026-11-30T10:00:00Z\n`;
    const evil = `## Current goal\nEvil goal.\n\n## Environment anchors\n- Branch: evil\n- HEAD: ${"1".repeat(40)}\n- Dirty files: none\n- Date: 2020-01-01T00:00:00Z\n`;
    const base = handoff("Real goal.").replace(/^Saved: .*$/m, "Saved: 2026-11-30T10:00:00Z").replace(/## Environment anchors\n[^]*$/, "");
    for (const [layout, text, want] of [
      ["evil block first", base.replace("## Key files", `${evil}\n## Key files`) + real, "evil"],
      ["evil block last", `${base}${real}\n${evil}`, branch],
    ] as const) {
      writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), text, { flag: "w" });
      const drift = JSON.parse((await inProcess(["drift", "--json"], { cwd: root })).stdout) as { saved: { branch: string; head: string }; summary: string };
      expect([layout, drift.saved.branch]).toEqual([layout, want]);
      expect(drift.saved.head).toBe(want === "evil" ? "1".repeat(40) : head);
      const brief = (await inProcess(["brief"], { cwd: root })).stdout;
      expect(brief).toContain("Goal: Real goal.");
      expect(brief).not.toContain("Evil goal");
      // Two processes a moment apart can round an age of years to tenths differently.
      const aged = (t: string | undefined) => (t ?? "").replace(/[\d.]+ days ago/g, "N days ago");
      expect(aged(brief.split("\n").find((l) => l.startsWith("Drift & lessons:")))).toContain(aged(drift.summary));
      const hook = helper(["hook", "--mode", "session"], { input: JSON.stringify({ cwd: root, source: "startup" }) }).stdout;
      // The hook's age comes from the same - Date: anchor: years for the evil 2020 one.
      expect(/HANDOFF\.md, saved \d{4} days ago/.test(hook)).toBe(want === "evil");
      const validate = await inProcess(["validate", "handoff"], { cwd: root });
      expect(validate.code).toBe(2);
      expect(validate.stdout).toContain("section-repeated: `## Environment anchors` appears again");
    }
  });

  it("write: a - Date: later than the save becomes the save's time (stderr says so); every reader then knows the age", async () => {
    const { root, text } = oddProject();
    // A first save of that text (the anchors are the writer's own, not the current file's).
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), handoff("an earlier goal"));
    const token = sha(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md")));
    const w = helper(["write", "handoff", "--expected-current-sha256", token], { cwd: root, input: text });
    expect(w.code).toBe(0);
    expect(w.stderr).toMatch(/note: the - Date: anchor "2099-06-01T10:00:00Z" was later than this save; set it to \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    const saved = readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8");
    const stamped = /^Saved: (.*)$/m.exec(saved)![1];
    expect(saved).toContain(`- Date: ${stamped}\n`);
    const hook = helper(["hook", "--mode", "session"], { input: JSON.stringify({ cwd: root, source: "startup" }) }).stdout;
    expect(hook).toContain("saved today");
    expect((await inProcess(["brief"], { cwd: root })).stdout).not.toContain("age unknown");
    // By any amount: a - Date: 2 minutes ahead (a time every reader accepts) is set too.
    const ahead = new Date(Date.now() + 120_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const token2 = sha(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md")));
    const w2 = await inProcess(["write", "handoff", "--expected-current-sha256", token2], { cwd: root, input: text.replace("2099-06-01T10:00:00Z", ahead).replace("Test the odd date.", "Test a near date.") });
    expect(w2.code).toBe(0);
    expect(w2.stderr).toContain(`note: the - Date: anchor ${JSON.stringify(ahead)} was later than this save; set it to`);
    expect(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8")).not.toContain(ahead);
    // The archive of the odd version keeps its own (unknown) age.
    expect((await inProcess(["archives", "list"], { cwd: root })).stdout).toContain("age unknown");
  });
});
