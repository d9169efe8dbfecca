import { describe, expect, it } from "vitest";
import { draftBrief, driftSummaryClauses, flatten, MAX_FIELD_CHARS } from "../../src/brief/brief.ts";
import { cutAtWord, fitClauses, fitList } from "../../src/brief/cut.ts";
import type { DriftReport } from "../../src/git/verdict.ts";
import { parseHandoff } from "../../src/schema/handoff.ts";

// Brief cuts (docs/decisions/brief-cuts.md): whole clauses dropped least important first, a
// clause still too long cut at a word boundary outside code spans ending `…`, nothing after a cut; dropped clauses
// leave `; …` at the end.

describe("cutAtWord", () => {
  it("cuts at a word boundary, never mid-word, and ends with …", () => {
    expect(cutAtWord("two files dirty at the save are clean now", 36)).toBe("two files dirty at the save are…");
    expect(cutAtWord("short", 10)).toBe("short");
  });

  it("never leaves a code span open: the cut falls before the span", () => {
    const text = "run `node --test test/ --reporter spec` until it passes";
    const cut = cutAtWord(text, 30);
    expect(cut).toBe("run…");
    expect((cut.match(/`/g) ?? []).length % 2).toBe(0);
  });

  it("a lone backtick is no span; separators before the … are dropped", () => {
    expect(cutAtWord("it's a ` mark; then more words here", 20)).toBe("it's a ` mark; then…");
    expect(cutAtWord("one; two; three; four", 12)).toBe("one; two…");
  });

  it("a single word longer than the room is cut inside it, on a grapheme boundary", () => {
    expect(cutAtWord("a".repeat(50), 10)).toBe(`${"a".repeat(9)}…`);
  });
});

describe("fitClauses and fitList", () => {
  it("drops the least important clause first (the last of equal rank), keeps the order, cuts only the lone survivor", () => {
    const c = [
      { text: "verdict: drifted", rank: 100 },
      { text: "on main", rank: 40 },
      { text: "ledgers: none found", rank: 0 },
    ];
    expect(fitClauses(c, 100)).toBe("verdict: drifted; on main; ledgers: none found");
    // Dropped clauses are counted at the end: the reader knows drift's summary says more, and how much.
    expect(fitClauses(c, 45)).toBe("verdict: drifted; on main; … +1 fact");
    expect(fitClauses(c, 35)).toBe("verdict: drifted; … +2 facts");
    // No room for the count: the lone survivor whole, or cut as any text is.
    expect(fitClauses(c, 17)).toBe("verdict: drifted");
    expect(fitClauses(c, 12)).toBe("verdict…");
  });

  it("a dropped list of files counts its files; a cut lone survivor counts its words too", () => {
    const c = [
      { text: "drifted: 3 commits ahead of the saved commit, on a branch made since", rank: 100 },
      { text: 'key files changed: "src/a.ts", "src/b.ts", "src/c.ts" and 2 more', rank: 95 },
      { text: "on main", rank: 40 },
    ];
    expect(fitClauses(c, 120)).toBe("drifted: 3 commits ahead of the saved commit, on a branch made since; on main; … +5 files");
    expect(fitClauses(c, 60)).toBe("drifted: 3 commits ahead of… +8 words, +5 files, +1 fact");
    for (const max of [60, 80, 100]) expect([...fitClauses(c, max)].length).toBeLessThanOrEqual(max);
    // The count costs facts ranked below the dirty counts, never a clause at or above them: then a bare `…`.
    const [v, n, x] = ["v".repeat(20), "dirty files: 1 then, 2 now", "x".repeat(50)];
    const d = [{ text: v, rank: 100 }, { text: "on main", rank: 40 }, { text: n, rank: 85 }, { text: x, rank: 40 }];
    expect(fitClauses(d, 70)).toBe(`${v}; on main; ${n}; … +1 fact`);
    expect(fitClauses(d, 62)).toBe(`${v}; ${n}; … +2 facts`);
    expect(fitClauses(d, 52)).toBe(`${v}; ${n}; …`);
  });

  it("takes back a clause dropped before a longer one made room (a 300-character author name)", () => {
    const c = [
      { text: "fresh: at the saved commit", rank: 100 },
      { text: "dirty files: 1 then, 1 now", rank: 80 },
      { text: `its last commit is by "${"x".repeat(300)}"`, rank: 90 },
      { text: "ledgers: none found", rank: 85 },
    ];
    expect(fitClauses(c, 120)).toBe("fresh: at the saved commit; dirty files: 1 then, 1 now; ledgers: none found; … +1 fact");
  });

  it("a list drops its last items first, counted, and a lone long item keeps its cause", () => {
    const items = ["alpha — because one", "beta — because two", "gamma — because three"];
    expect(fitList(items, 4, 100, (i) => i)).toBe(items.join("; "));
    expect(fitList(items, 4, 50, (i) => i)).toBe("alpha — because one; beta — because two (+1 more)");
    expect(fitList(items, 4, 45, (i) => i)).toBe("alpha — because one (+2 more)");
    expect(fitList(items, 2, 100, (i) => i)).toBe("alpha — because one; beta — because two (+1 more)");
  });
});

const DRIFT = (summary: string, extra: Partial<DriftReport> = {}): DriftReport =>
  ({ verdict: "drifted", summary, missingKeyFiles: [], changedKeyFiles: [], dirtyKeyFiles: [], ...extra }) as unknown as DriftReport;

const HANDOFF = (next: string, decisions: string[]) =>
  parseHandoff(
    `<!-- memory-schema: v1 -->\n# Session Handoff\nSaved: 2026-11-29T08:00:00Z\n\n## Current goal\nShip it.\n\n## Plan\n- [ ] step\n\n## Decisions\n${decisions.map((d) => `- ${d}`).join("\n")}\n\n## Failed approaches\n- none\n\n## Open questions\n- none\n\n## Next steps\n- ${next}\n\n## Key files\n- none\n\n## Environment anchors\n- Date: 2026-11-29T08:00:00Z\n`,
  );

describe("the brief's fields", () => {
  it("golden, Drift & lessons: memory-only go first, then upstream, the other facts; verdict, key files, counts, ledgers last", () => {
    const summary = [
      "drifted: 3 commits ahead of the saved abc123def456",
      "2 memory-only commits (saves of .ai/memory) not counted",
      "branch moved from main to feature/a-long-branch",
      `upstream: ${"origin/feature ".repeat(6).trim()} is 4 ahead`,
      `saved ${"1".repeat(1)} days ago`,
      `key files changed: ${"src/some/deeply/nested/module/file.ts, ".repeat(4).trim()}`,
      "dirty files: 2 then, 5 now",
    ].join("; ");
    const b = draftBrief(HANDOFF("do it", ["[user-directed] keep it"]), DRIFT(summary), { lessons: { entries: 3, matching: 1 }, solutions: null });
    expect([...b.driftAndLessons].length).toBeLessThanOrEqual(MAX_FIELD_CHARS);
    expect(b.driftAndLessons.startsWith("drifted: 3 commits ahead")).toBe(true);
    // What the resume step acts on stays (SKILL.md reads the ledger count; changed key files may make the plan stale).
    expect(b.driftAndLessons).toContain("; ledgers: LESSONS.md 3 entries (1 mention the key files or branch); … +2 facts");
    expect(b.driftAndLessons).toContain("; dirty files: 2 then, 5 now; ");
    expect(b.driftAndLessons).not.toContain("memory-only");
    expect(b.driftAndLessons).toContain("; key files changed: src/some/");
    expect(b.driftAndLessons).toContain("branch moved from main");
    expect(b.driftAndLessons).not.toContain("upstream");
    // Whole clauses only, no word cut: one `…` at the end counts the clauses dropped.
    expect(b.driftAndLessons.endsWith("; … +2 facts")).toBe(true);
    expect(b.driftAndLessons.indexOf("…")).toBe(b.driftAndLessons.length - 10);
    const clauses = driftSummaryClauses(summary).map((c) => c.rank);
    expect(clauses).toEqual([100, 10, 92, 20, 40, 95, 85]);
  });

  it("ranks each kind of drift clause by what a resuming agent acts on (docs/decisions/brief-cuts.md)", () => {
    const kinds: [string, number][] = [
      ["rewritten: saved HEAD 1b6a981a485b is no longer reachable from HEAD or any ref", 100],
      ["1 saved commit with no patch-identical copy on HEAD", 85],
      ["2 commits on HEAD since the save, rewritten copies left out", 85],
      ["plan statuses are unverified", 40],
      ["2 memory-only commits (saves of .ai/memory) not counted", 10],
      ["on \"main\"", 40],
      ['branch moved from "main" to "docs"', 92],
      ['branch "feat" is not in this clone', 92],
      ['on "main"', 40],
      ["rebase of \"main\" in progress now", 92],
      ["merge was in progress at the save, finished or aborted since", 40],
      ['upstream "origin/main": 2 ahead, 0 behind', 20],
      ['key files missing: "a.js"', 95],
      ['key files not created yet (absent at the save too): "b.js"', 10],
      ['key files changed: "functions/is-stable.js"', 95],
      ['key files with uncommitted changes: "c.js"', 95],
      ["dirty files: 2 then, 1 now", 85],
      ['dirty at the save, now in stash@{0}: "d.js"', 94],
      ['dirty in the clone that saved, not in this one: "e.js"', 94],
      ["a stash made since the save, its changes not counted: stash@{1}", 70],
      ["the handoff was not saved in this clone", 90],
      ['its last commit is by "Teammate" "tm@example.com"', 90],
    ];
    expect(driftSummaryClauses(kinds.map(([t]) => t).join("; ")).map((c) => c.rank)).toEqual(kinds.map(([, r]) => r));
  });

  it("who committed a handoff saved elsewhere outlasts the other clauses: the session-start hook says the brief names them", () => {
    const summary = [
      "drifted: 7 commits ahead of the saved 1b6a981a485b",
      "3 memory-only commits (saves of .ai/memory) not counted",
      `dirty at the save, still dirty and changed since: ${'"src/some/deeply/nested/module/file.ts", '.repeat(6).trim()}`,
      `key files changed: ${"src/other/module/file.ts, ".repeat(6).trim()}`,
      "the handoff was not saved in this clone",
      'its last commit is by "Teammate" "tm@example.com"',
    ].join("; ");
    const b = draftBrief(HANDOFF("do it", ["x"]), DRIFT(summary), { lessons: null, solutions: null });
    expect([...b.driftAndLessons].length).toBeLessThanOrEqual(MAX_FIELD_CHARS);
    expect(b.driftAndLessons).toContain('the handoff was not saved in this clone; its last commit is by "Teammate" "tm@example.com"');
  });

  it("golden, a next step with a long code span: cut before the span, not inside it", () => {
    const next = `run ${"words ".repeat(20)}\`node --test ${"test/unit/".repeat(12)}\` — done when it passes`;
    const b = draftBrief(HANDOFF(next, ["x"]), DRIFT("fresh: at the saved commit abc", { verdict: "fresh" } as Partial<DriftReport>), { lessons: null, solutions: null });
    const step = b.proposedNextStep;
    expect((step.match(/`/g) ?? []).length % 2).toBe(0);
    expect(step).toMatch(/words… — Confirm\?$/);
  });

  it("golden, Decisions in force: the last decisions drop whole, counted; no decision cut mid-word", () => {
    const decisions = [1, 2, 3, 4].map((n) => `[user-directed] decision ${n} ${"with a reason that is long ".repeat(4)}: because ${n}`);
    const b = draftBrief(HANDOFF("do it", decisions), DRIFT("fresh: at the saved commit abc"), { lessons: null, solutions: null });
    expect(b.decisionsInForce).toMatch(/ \(\+\d more\)$/);
    expect(b.decisionsInForce).toContain("because 1");
    expect(b.decisionsInForce).not.toContain("…");
    expect([...b.decisionsInForce].length).toBeLessThanOrEqual(MAX_FIELD_CHARS);
  });

  it("flatten cuts at a word boundary", () => {
    expect(flatten("key files changed: src/a.ts, src/b.ts", 24)).toBe("key files changed…");
  });
});
