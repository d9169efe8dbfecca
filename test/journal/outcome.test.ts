// "Did the handoff help?" (docs/decisions/journal.md): the measure of one resume, and `impact`
// over the journal's resume entries.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { failedSignatures, measureOutcome, namedThings } from "../../src/journal/outcome.ts";
import type { ToolEvent } from "../../src/agents/transcripts/types.ts";
import { gitRepo, helper, MARKER } from "../helpers.ts";

const cmd = (command: string): ToolEvent => ({ kind: "command", command });
const edit = (p: string): ToolEvent => ({ kind: "edit", path: p });
const other: ToolEvent = { kind: "other" };

describe("measureOutcome", () => {
  it.each([
    ["an edit of the file the next step names", [other, edit("/p/src/import/dedupe.ts")], "Bound the seen-set in src/import/dedupe.ts", "yes", 1],
    ["a command the next step names in a code span", [cmd("npm test -- csv"), edit("/p/a.ts")], "run `npm test -- csv` and fix the failures", "yes", 1],
    ["other work first", [edit("/p/README.md"), cmd("ls"), edit("/p/b.ts")], "Bound the seen-set in src/import/dedupe.ts", "no", 0],
    ["a next step naming nothing concrete", [edit("/p/a.ts")], "think about the design", "unknown", 0],
    ["no action after the resume", [other, other], "edit src/a.ts", "unknown", null],
  ] as const)("%s", (_what, events, next, followed, calls) => {
    const o = measureOutcome(events, next, []);
    expect(o.followed).toBe(followed);
    expect(o.callsToFirstEdit).toBe(calls);
  });

  it("only the first five edits and commands count as following the next step", () => {
    const events = [cmd("a1"), cmd("a2"), cmd("a3"), cmd("a4"), cmd("a5"), edit("src/x.ts")];
    expect(measureOutcome(events, "edit src/x.ts", []).followed).toBe("no");
    expect(measureOutcome(events.slice(1), "edit src/x.ts", []).followed).toBe("yes");
  });

  it("names each command or path matching a failed approach, once", () => {
    const failed = ["sort -u: reorders rows, which the audit log forbids", "Loading rows into `sqlite3 :memory:` — lock contention", "Sorting first: breaks row order"];
    const events = [cmd("sort -u data.csv > out.csv"), cmd("sort -u data.csv > out.csv"), cmd("sqlite3 :memory: < load.sql"), cmd("sort data.csv"), edit("/p/sorting.md")];
    expect(measureOutcome(events, null, failed).retried).toEqual(["sort -u data.csv > out.csv", "sqlite3 :memory: < load.sql"]);
  });

  it.each([
    ["sort -u: reorders rows", ["sort -u"]],
    ["`git rebase -i` broke the branch", ["git rebase -i"]],
    ["patching src/a.ts by hand: lost on build", ["src/a.ts"]],
    ["Sorting first (sort -u): breaks row order", []],
    ["A faster parser: not worth it", []],
  ])("the failed approach %j names %j", (entry, sigs) => {
    expect(failedSignatures(entry)).toEqual(sigs);
  });

  it("namedThings keeps code spans and path-like words", () => {
    expect(namedThings("1. Hash rows in src/import/dedupe.ts and run `npm test -- csv`")).toEqual(["npm test -- csv", "src/import/dedupe.ts"]);
  });
});

describe("impact", () => {
  function journal(root: string, resumes: { score: number; followed: string; retried: number; calls: number }[]): void {
    const dir = path.join(root, ".ai", "memory", "journal");
    mkdirSync(dir, { recursive: true });
    const entries = resumes
      .map((r, i) => `## 2026-11-${String(10 + (i % 15)).padStart(2, "0")}T10:00:00Z resume ${i.toString(16).padStart(16, "0")}\n- Resumed: ${"a".repeat(16)}\n- Handoff score: ${r.score}\n- Next step followed: ${r.followed}\n${"- Failed approach retried: sort -u x\n".repeat(r.retried)}- Calls to first edit: ${r.calls}\n\n`)
      .join("");
    writeFileSync(path.join(dir, "2026-11.md"), `${MARKER}\n# Journal 2026-11\n\n${entries}`);
  }

  it("with no resume recorded, says so", () => {
    const r = helper(["impact", "--root", gitRepo()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^impact: no resume recorded yet/);
  });

  it("sums the resumes and says too few resumes while a group holds fewer than five", () => {
    const root = gitRepo();
    journal(root, [
      { score: 90, followed: "yes", retried: 0, calls: 1 },
      { score: 85, followed: "yes", retried: 0, calls: 3 },
      { score: 40, followed: "no", retried: 2, calls: 9 },
      { score: 60, followed: "unknown", retried: 0, calls: 5 },
    ]);
    const r = helper(["impact", "--root", root]);
    expect(r.stdout).toBe(
      [
        "impact: 4 resume(s) recorded in 1 journal file(s)",
        "next step followed: 2 of 3 (67%)",
        "failed approaches retried: 2 (in 1 of 4 resumes)",
        "median tool calls to the first edit: 4",
        "handoffs scoring 80 or more against the rest: too few resumes (2 and 2; 5 needed in each)",
        "",
      ].join("\n"),
    );
  });

  it("compares handoffs scoring 80 or more with the rest once both groups hold five resumes", () => {
    const root = gitRepo();
    const good = Array.from({ length: 5 }, () => ({ score: 90, followed: "yes", retried: 0, calls: 2 }));
    const rest = Array.from({ length: 6 }, (_, i) => ({ score: 50, followed: i < 2 ? "yes" : "no", retried: i === 0 ? 1 : 0, calls: 7 }));
    journal(root, [...good, ...rest]);
    const json = JSON.parse(helper(["impact", "--root", root, "--json"]).stdout);
    expect(json.comparison).toBe("shown");
    expect(json.good).toMatchObject({ resumes: 5, followed: 5, judged: 5, retried: 0, medianCallsToFirstEdit: 2 });
    expect(json.rest).toMatchObject({ resumes: 6, followed: 2, judged: 6, retried: 1, resumesWithRetry: 1, medianCallsToFirstEdit: 7 });
    expect(helper(["impact", "--root", root]).stdout).toContain("handoffs scoring 80 or more (5 resumes):\n  next step followed: 5 of 5 (100%)");
  });
});
