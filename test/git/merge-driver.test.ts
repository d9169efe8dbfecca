// The merge driver's choices, pure (docs/decisions/merge-driver.md): which handoff stays
// current, where the archive line goes, what counts as a conflicted memory file.
import { describe, expect, it } from "vitest";
import { laterHandoff, markMerged, mergeHandoffs, mergeLedgers, MERGED_LINE, unreadSchema } from "../../src/git/merge-driver.ts";
import { parseHandoff } from "../../src/schema/handoff.ts";
import { conflictSides, isConflicted } from "../../src/schema/conflicted.ts";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const doc = (saved: string | null, date: string | null) =>
  ["<!-- memory-schema: v1 -->", "# Session Handoff", ...(saved ? [`Saved: ${saved}`] : []), "", "## Environment anchors", ...(date ? [`- Date: ${date}`] : []), ""].join("\n");

describe("laterHandoff", () => {
  it.each<[string, string, string, "ours" | "theirs"]>([
    ["theirs later", doc("2026-12-01T10:00:00Z", null), doc("2026-12-01T11:00:00Z", null), "theirs"],
    ["ours later", doc("2026-12-01T11:00:00Z", null), doc("2026-12-01T10:00:00Z", null), "ours"],
    ["equal: ours", doc("2026-12-01T10:00:00Z", null), doc("2026-12-01T10:00:00Z", null), "ours"],
    ["theirs unknown: ours", doc("2026-12-01T10:00:00Z", null), doc(null, null), "ours"],
    ["ours unknown: ours", doc(null, null), doc("2026-12-01T10:00:00Z", null), "ours"],
    ["theirs in the future: ours", doc("2026-12-01T10:00:00Z", null), doc("2026-12-02T10:00:00Z", null), "ours"],
    ["the Date anchor wins over Saved", doc("2026-12-01T11:30:00Z", "2026-12-01T09:00:00Z"), doc("2026-12-01T10:00:00Z", null), "theirs"],
  ])("%s", (_name, ours, theirs, want) => {
    expect(laterHandoff(ours, theirs, NOW)).toBe(want);
  });
});

describe("markMerged", () => {
  it("puts the line after Saved:, replacing an earlier one", () => {
    const once = markMerged(doc("2026-12-01T10:00:00Z", null), "HANDOFF-a.md");
    const twice = markMerged(once, "HANDOFF-b.md");
    expect(twice.split("\n").slice(1, 4)).toEqual(["# Session Handoff", "Saved: 2026-12-01T10:00:00Z", "Merged-with: archive/HANDOFF-b.md"]);
    expect(MERGED_LINE.exec(twice)?.[1]).toBe("HANDOFF-b.md");
  });
});

describe("mergeHandoffs", () => {
  const handoff = (goal: string, plan: string[], decisions: string[], failed: string[], questions: string[], next: string[]) =>
    [
      "<!-- memory-schema: v1 -->",
      "# Session Handoff",
      "Saved: 2026-12-01T10:00:00Z",
      "",
      "## Current goal",
      goal,
      "",
      ...[["Plan", plan], ["Decisions", decisions], ["Failed approaches", failed], ["Open questions", questions], ["Next steps", next]].flatMap(([t, items]) => [`## ${t as string}`, ...(items as string[]).map((i) => `- ${i}`), ""]),
      "## Key files",
      "- a.ts — entry",
      "",
      "## Environment anchors",
      "- Date: 2026-12-01T10:00:00Z",
      "",
    ].join("\n");

  it("keeps both sides' items once, the furthest plan status, and the other's open next steps below", () => {
    const later = handoff("Alice's goal", ["[x] read", "[ ] wire it", "[~] test it"], ["[user-directed] keep the API"], ["none"], ["none"], ["wire it"]);
    const other = handoff("Bob's goal", ["[x] read", "[x] wire it", "[ ] docs"], ["[user-directed] keep the API", "[inferred] UTC dates"], ["mocking git - hid a bug"], ["which node?"], ["[x] wire it", "docs", "[-] port it — dropped: no need"]);
    const { text, added } = mergeHandoffs(later, other);
    // Another goal is said: the other's steps now stand under this goal (found by a newcomer).
    expect(added).toEqual({ decisions: 1, failed: 1, goal: true });
    const h = parseHandoff(text);
    expect(h.goal).toBe("Alice's goal");
    expect(h.plan.map((s) => `${s.status} ${s.text}`)).toEqual(["done read", "done wire it", "in-progress test it", "todo docs"]);
    expect(h.decisions).toEqual(["[user-directed] keep the API", "[inferred] UTC dates"]);
    expect(h.failedApproaches).toEqual(["mocking git - hid a bug"]);
    expect(h.openQuestions).toEqual(["which node?"]);
    expect(h.nextSteps).toEqual(["wire it", "docs"]);
    expect(h.headings.filter((x) => x.depth === 2).map((x) => x.title)).toEqual(["Current goal", "Plan", "Decisions", "Failed approaches", "Open questions", "Next steps", "Key files", "Environment anchors"]);
  });

  it("two equal sides give the later side back unchanged, with nothing added", () => {
    const one = handoff("g", ["[ ] a"], ["d"], ["f - why"], ["q"], ["a"]);
    expect(mergeHandoffs(one, one)).toEqual({ text: one, added: { decisions: 0, failed: 0 } });
  });
});

describe("against the base", () => {
  const entry = (id: string, status: string) => `## L-${id}: Lesson ${id}\n- Status: ${status}\n`;
  const ledger = (...e: string[]) => `<!-- memory-schema: v1 -->\n# Lessons\n\n${e.join("\n")}`;
  const ids = (text: string) => text.match(/^## L-\d{4}: .*$|^- Status: .*$/gm);

  it.each<[string, string, string, string, string[]]>([
    ["deleted on theirs, unchanged on ours: deleted", ledger(entry("0001", "active"), entry("0002", "active")),
      ledger(entry("0001", "active"), entry("0002", "active")), ledger(entry("0002", "active")),
      ["## L-0002: Lesson 0002", "- Status: active"]],
    ["deleted on ours, unchanged on theirs: deleted", ledger(entry("0001", "active")), ledger(),
      ledger(entry("0001", "active")), []],
    ["edited on theirs only: theirs, in place", ledger(entry("0001", "active"), entry("0002", "active")),
      ledger(entry("0001", "active"), entry("0002", "active")), ledger(entry("0001", "retired: wrong"), entry("0002", "active")),
      ["## L-0001: Lesson 0001", "- Status: retired: wrong", "## L-0002: Lesson 0002", "- Status: active"]],
    ["edited on both: ours, theirs renumbered", ledger(entry("0001", "active")), ledger(entry("0001", "retired: a")),
      ledger(entry("0001", "retired: b")),
      ["## L-0001: Lesson 0001", "- Status: retired: a", "## L-0002: Lesson 0001", "- Status: retired: b"]],
  ])("ledger: %s", (_name, base, ours, theirs, want) => {
    expect(ids(mergeLedgers(ours, theirs, "L", base)) ?? []).toEqual(want);
  });

  it("handoff: an item the later side removed stays removed; no base is the two-way merge", () => {
    const doc = (decisions: string[]) => ["<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Decisions",
      ...decisions.map((d) => `- ${d}`), "", "## Next steps", "- go", ""].join("\n");
    const base = doc(["[user-directed] A: why", "[user-directed] B: why"]);
    const later = doc(["[user-directed] A: why"]);
    expect(parseHandoff(mergeHandoffs(later, base, base).text).decisions).toEqual(["[user-directed] A: why"]);
    expect(parseHandoff(mergeHandoffs(later, base).text).decisions).toEqual(["[user-directed] A: why", "[user-directed] B: why"]);
    // Both sides' only item gone from the later side: the section keeps `- none`.
    expect(parseHandoff(mergeHandoffs(doc(["[user-directed] A: why"]), doc(["none"]), later).text).decisions).toEqual(["none"]);
  });

  it("handoff: a step progressed on the other side stays in place; a reworded one joins the end", () => {
    const doc = (plan: string[], next: string[]) => ["<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Plan",
      ...plan.map((p) => `- ${p}`), "", "## Next steps", ...next.map((n, i) => `${i + 1}. ${n}`), ""].join("\n");
    const base = doc(["[ ] Port it", "[ ] Read the code", "[ ] Read the code twice"], ["Read the code"]);
    const other = doc(["[ ] Port it to Go", "[x] Read the code", "[ ] Read the code twice"], ["Read the code", "Ship"]);
    const later = base.replace("[ ] Read the code twice", "[x] Read the code twice");
    const h = parseHandoff(mergeHandoffs(later, other, base).text);
    const want = ["done Read the code", "done Read the code twice", "todo Port it to Go"];
    expect(h.plan.map((s) => `${s.status} ${s.text}`)).toEqual(want);
    expect(mergeHandoffs(base, other, base).text).toContain("## Next steps\n1. Read the code\n2. Ship\n");
  });

  it("handoff: a failed approach one side left out stays; a next step reworded in place keeps its place", () => {
    const doc = (failed: string[], next: string[]) => ["<!-- memory-schema: v1 -->", "# Session Handoff", "",
      "## Failed approaches", ...failed.map((f) => `- ${f}`), "", "## Next steps", ...next.map((n, i) => `${i + 1}. ${n}`), ""].join("\n");
    const base = doc(["gte: misses prereleases", "sort: breaks order"], ["Fix it", "Test it"]);
    const one = doc(["sort: breaks row order"], ["Fix it in a.ts", "Test it", "Ship"]);
    const two = doc(["gte: misses prereleases", "sort: breaks order"], ["fix IT", "Test it", "Docs", "`Ship`."]);
    for (const [later, other] of [[one, two], [two, one]]) {
      const h = parseHandoff(mergeHandoffs(later!, other!, base).text);
      expect(h.failedApproaches.sort()).toEqual(["gte: misses prereleases", "sort: breaks row order"]);
      expect(h.nextSteps.slice(0, 2)).toEqual(["Fix it in a.ts", "Test it"]);
      // Added on both sides in trivially different words: listed once, in the later side's words.
      expect(h.nextSteps.slice(2).map((n) => n.replace(/[`.]/g, "")).sort()).toEqual(["Docs", "Ship"]);
    }
  });

  it("a side in another schema than v1 is named; v1 and unmarked sides are merged", () => {
    const v2 = "<!-- memory-schema: v2 -->\n# Lessons\n";
    expect(unreadSchema(v2, "x")).toBe("our side is memory schema v2 and this helper reads v1 only");
    expect(unreadSchema(ledger(), v2)).toBe("their side is memory schema v2 and this helper reads v1 only");
    expect(unreadSchema(ledger(), "# Lessons\n")).toBeNull();
  });
});

describe("conflicted memory", () => {
  it.each<[string, string, boolean]>([
    ["a git conflict", "a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\nb\n", true],
    ["a diff3 conflict", "<<<<<<< ours\nx\n||||||| base\ny\n=======\nz\n>>>>>>> theirs\n", true],
    ["inside fenced code", "```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n```\n", false],
    ["indented markers", " <<<<<<< HEAD\nours\n=======\ntheirs\n >>>>>>> other\n", false],
    ["no closing marker", "<<<<<<< HEAD\nours\n=======\ntheirs\n", false],
    ["no separator", "<<<<<<< HEAD\nours\n>>>>>>> other\n", false],
    ["a setext heading rule is not a separator", "Title\n=======\n", false],
  ])("%s", (_name, text, want) => {
    expect(isConflicted(text)).toBe(want);
  });

  it("splits both sides, lines outside the conflict in both", () => {
    const s = conflictSides("a\n<<<<<<< HEAD\nours\n||||||| base\nold\n=======\ntheirs\n>>>>>>> other\nb\n")!;
    expect(s).toEqual({ line: 2, ours: "a\nours\nb\n", theirs: "a\ntheirs\nb\n" });
  });
});
