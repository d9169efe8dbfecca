// `validate handoff` (9): table-driven over real handoffs of
// several styles, each with its expected errors, score parts and findings.
import { describe, expect, it } from "vitest";
import { collectAnchors } from "../../src/git/anchors.ts";
import { renderAnchorLines } from "../../src/schema/anchor-lines.ts";
import { comparable, fillAnchors, stampSaved } from "../../src/schema/stamp.ts";
import { OPTIONAL_SECTIONS, handoffKeyFiles, validateHandoff, type HandoffValidateOptions } from "../../src/schema/validate.ts";
import { parseKeyFileMtimes, readAnchorLine } from "../../src/schema/anchor-lines.ts";
import { DAY, ENV, git, newRepo, tempDir, writeTree } from "../git/repo.ts";
import { templateParts } from "../docs/support.ts";

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const { skeleton, example } = templateParts();
const EXAMPLE_FILES = new Set(handoffKeyFiles(example));

const opts = (o: Partial<HandoffValidateOptions> = {}): HandoffValidateOptions => ({ mode: "root", nowMs: NOW, ...o });
const rules = (list: { rule: string }[]) => list.map((i) => i.rule);
const score = (parts: Record<string, { score: number }>) => Object.fromEntries(Object.entries(parts).map(([k, p]) => [k, p.score]));

const HEAD = "29f1aece6c77b1ed4ebc70f1daee560f924fdf58";

/** A minimal handoff: every required section, `- none` where there is nothing to say. */
const MINIMAL = `<!-- memory-schema: v1 -->
# Session Handoff
Saved: 2026-11-30T11:00:00Z

## Current goal
Fix the login redirect.

## Plan
- [ ] Find where the redirect is built

## Decisions
- none

## Failed approaches
- none

## Open questions
- none

## Next steps
1. Read src/auth/redirect.ts — done when the bug is located

## Key files
- src/auth/redirect.ts — builds the URL

## Environment anchors
- Branch: main
- HEAD: ${HEAD}
- Dirty files: none
- Date: 2026-11-30T11:00:00Z
`;

/** Every deviation the schema tolerates (findings, never errors). */
const SLOPPY = `\uFEFF<!-- memory-schema: v1 -->\r
# Session Handoff\r
\r
Saved: \`2026-11-30T11:00:00+01:00\`\r
\r
## current goal\r
Ship it.\r
\r
## Plan\r
- Find the bug\r
- [-] Rewrite the router\r
\r
## Notes\r
free text nobody reads\r
\r
## Decisions\r
- Use fetch\r
\r
## Failed approaches\r
- Retried the request\r
\r
## Open questions\r
- none\r
\r
## Next steps\r
- Think about it\r
\r
## Key files\r
- \`src/app.ts\` — entry\r
- /etc/passwd — outside\r
\r
## Environment anchors\r
- Branch: main\r
- HEAD: \`${HEAD.toUpperCase()}\`\r
- Date: 2026-11-30T11:00:00Z\r
`;

describe("validateHandoff: handoffs of several styles", () => {
  it("the template's worked example scores 100 where its key files exist", () => {
    const v = validateHandoff(example, opts({ existingKeyFiles: EXAMPLE_FILES }));
    expect(v).toMatchObject({ valid: true, errors: [], score: 100, findings: [], dropped: [] });
    expect(Object.keys(v.parts)).toEqual(["sections", "saved", "anchors", "failed", "decisions", "nextSteps", "nextAction", "keyFiles", "verification", "size", "secrets"]);
  });

  it("the worked example loses its key-file points where they do not exist", () => {
    const v = validateHandoff(example, opts({ existingKeyFiles: new Set() }));
    expect(v.valid).toBe(true);
    expect(v.parts.keyFiles).toEqual({ score: 0, max: 10 });
    expect(v.findings.map((f) => f.message)).toEqual(['key file "src/import/csv.ts" does not exist', 'key file "src/import/dedupe.ts" does not exist']);
  });

  it("the template's skeleton is refused: each placeholder left is an error; its anchors are write's to fill", () => {
    const v = validateHandoff(skeleton, opts({ mode: "stdin" }));
    expect(new Set(rules(v.errors))).toEqual(new Set(["placeholder"]));
    expect(v.errors).toHaveLength(18);
    expect(rules(v.findings)).toEqual(["saved", "anchors-empty"]);
    expect(v.parts.anchors).toBeUndefined();
  });

  it.each([
    ["minimal", MINIMAL, { sections: 15, saved: 5, anchors: 10, failed: 10, decisions: 10, nextSteps: 10, nextAction: 5, keyFiles: 10, size: 5, secrets: 5 }, [], 100],
    [
      "sloppy (BOM, CRLF, backticks, case, unmarked steps, an unknown section, no labels, no causes, vague steps, a path outside the root, no dirty line)",
      SLOPPY,
      { sections: 15, saved: 5, anchors: 5, failed: 0, decisions: 0, nextSteps: 0, nextAction: 0, keyFiles: 5, size: 5, secrets: 5 },
      ["bom", "crlf", "heading-case", "plan-step", "plan-step", "unknown-section", "decision-label", "failed-cause", "next-step", "next-action", "key-file", "anchor-missing"],
      47,
    ],
  ] as const)("%s", (_name, text, parts, findings, total) => {
    const v = validateHandoff(text, opts({ existingKeyFiles: new Set(["src/auth/redirect.ts", "src/app.ts"]) }));
    expect(v.errors).toEqual([]);
    expect(score(v.parts)).toEqual(parts);
    expect(rules(v.findings)).toEqual(findings);
    expect(v.score).toBe(total);
  });
});

// The template calls a section optional by starting its body with `<optional`; the score must agree.
describe("the template and the score agree on what is optional (docs/decisions/verification.md)", () => {
  const optional = [...skeleton.matchAll(/^## (.+)\n<optional/gm)].map((m) => m[1]!);
  const without = (name: string) => example.replace(new RegExp(`## ${name}\\n(?:(?!## ).*\\n)*`), "");

  it("the template's optional sections are the schema's", () => {
    expect(optional).toEqual([...OPTIONAL_SECTIONS]);
    expect(optional).toContain("Verification");
  });

  it.each(optional)("leaving out %s costs no point and gives no finding", (name) => {
    const v = validateHandoff(without(name), opts({ existingKeyFiles: EXAMPLE_FILES }));
    expect(v).toMatchObject({ valid: true, score: 100, findings: [] });
  });

  it("a Verification section that is there is judged: without a check it loses points", () => {
    const empty = example.replace(/(## Verification\n)(?:- .*\n)+/, "$1- Accepted: not yet, nothing to review\n");
    const v = validateHandoff(empty, opts({ existingKeyFiles: EXAMPLE_FILES }));
    expect(rules(v.findings)).toEqual(["verification"]);
    expect(v.parts.verification).toEqual({ score: 5, max: 10 });
  });
});

const broken = (edit: (t: string) => string) => edit(MINIMAL);

describe("validateHandoff: errors are exactly the schema's, each with its line", () => {
  it.each([
    ["empty text", "", [["marker", 1], ["heading", 1], ["newline", 1]]],
    ["a non-v1 marker", broken((t) => t.replace("v1 -->", "v2 -->")), [["marker", 1]]],
    ["no title in the first four lines", broken((t) => t.replace("# Session Handoff\n", "\n\n\n# Session Handoff\n")), [["heading", 1]]],
    ["no final newline", broken((t) => t.slice(0, -1)), [["newline", 30]]],
    ["no Saved: on disk", broken((t) => t.replace("Saved: 2026-11-30T11:00:00Z\n", "")), [["saved", 3]]],
    ["a zoneless Saved:", broken((t) => t.replace("Saved: 2026-11-30T11:00:00Z", "Saved: 2026-11-30T11:00:00")), [["saved", 3]]],
    ["`## Plan` twice", broken((t) => t.replace("## Decisions", "## Plan\n- [ ] again\n\n## Decisions")), [["section-repeated", 11]]],
    ["sections out of order", broken((t) => t.replace("## Decisions\n- none\n\n## Failed approaches\n- none", "## Failed approaches\n- none\n\n## Decisions\n- none")), [["section-order", 14]]],
    ["a missing section", broken((t) => t.replace("## Open questions\n- none\n\n", "")), [["section-missing", 17]]],
    ["a 39-hex HEAD", broken((t) => t.replace(HEAD, HEAD.slice(1))), [["anchor-line", 28]]],
    ["a zoneless Date", broken((t) => t.replace("- Date: 2026-11-30T11:00:00Z", "- Date: 2026-11-30T11:00:00")), [["anchor-line", 30]]],
    ["an unquoted dirty list with a stray quote", broken((t) => t.replace("- Dirty files: none", '- Dirty files: "a.ts, b.ts')), [["anchor-line", 29]]],
    ["a label of the wrong case", broken((t) => t.replace("- Branch: main", "- branch: main")), [["anchor-line", 27]]],
    ["an anchor line twice", broken((t) => t.replace("- Branch: main", "- Branch: main\n- Branch: dev")), [["anchor-line", 28]]],
    ["prose in the anchors", broken((t) => `${t}see the wiki\n`), [["anchor-line", 31]]],
  ] as const)("%s", (_name, text, expected) => {
    const v = validateHandoff(text, opts());
    expect(v.errors.map((e) => [e.rule, e.line])).toEqual(expected);
    expect(v.valid).toBe(false);
  });

  it("names the messages precisely", () => {
    const v = validateHandoff(broken((t) => t.replace(HEAD, HEAD.slice(1)).replace("- Date: 2026-11-30T11:00:00Z", "- Date: 2026-11-30T11:00")), opts());
    expect(v.errors.map((e) => e.message)).toEqual([
      `HEAD "${HEAD.slice(1)}" (39 hex digits) is not a full 40- or 64-hex commit id`,
      'date "2026-11-30T11:00" is not an ISO-8601 time with a zone (it has no zone: add Z or an offset)',
    ]);
    expect(validateHandoff(broken((t) => t.replace("v1 -->", "v2 -->")), opts()).errors[0]!.message).toBe(
      'the marker says schema "v2"; this helper reads v1 only: the document must begin with the line <!-- memory-schema: v1 -->',
    );
  });

  it("a missing or malformed Saved: is a finding on stdin (write stamps it), an error on disk", () => {
    const text = broken((t) => t.replace("Saved: 2026-11-30T11:00:00Z\n", ""));
    expect(rules(validateHandoff(text, opts({ mode: "stdin" })).errors)).toEqual([]);
    expect(rules(validateHandoff(text, opts({ mode: "stdin" })).findings)).toContain("saved");
    expect(rules(validateHandoff(text, opts({ mode: "root" })).errors)).toEqual(["saved"]);
  });

  it("headings inside a fenced code block or an HTML comment are not headings", () => {
    const fenced = broken((t) => t.replace("## Failed approaches\n- none\n", "```\n## Failed approaches\n```\n<!--\n## Open questions\n-->\n"));
    const v = validateHandoff(fenced, opts());
    expect(v.errors).toEqual([
      { rule: "section-missing", line: 21, message: "required section `## Failed approaches` is missing; keep its heading, with `- none` when there is nothing to say" },
    ]);
    // A fenced `## Plan` does not make the real one a repeat.
    const twice = broken((t) => t.replace("## Current goal\nFix the login redirect.\n", "## Current goal\nFix it:\n\n```md\n## Plan\n- [ ] fenced\n```\n"));
    expect(validateHandoff(twice, opts()).errors).toEqual([]);
  });

  it("1 MB of headings: errors are bounded, counted, and nothing throws", () => {
    const flood = `${MINIMAL}${"## Plan\n".repeat(120_000)}`;
    const v = validateHandoff(flood, opts());
    expect(v.valid).toBe(false);
    expect(v.errors).toHaveLength(201);
    expect(v.errors[200]).toEqual({ rule: "more", line: 0, message: "… and 119800 more error(s)" });
  });
});

describe("heading typos name the section they resemble", () => {
  it.each([
    ["## Failed approaches:", "Failed approaches"],
    ["## Failed approachs", "Failed approaches"],
    ["## failed-approaches", "Failed approaches"],
    ["### Failed approaches", "Failed approaches"],
    ["# Failed approaches", "Failed approaches"],
  ])("%s", (typo, name) => {
    const text = broken((t) => t.replace("## Failed approaches", typo));
    const v = validateHandoff(text, opts());
    expect(v.errors).toEqual([
      { rule: "section-missing", line: 14, message: `"${typo}" is not a section heading of schema v1 and \`## ${name}\` is missing: did you mean \`## ${name}\`?` },
    ]);
  });

  it.each([
    ["### Plan", "Plan", 8],
    ["# Current goal", "Current goal", 5],
  ])("%s", (typo, name, line) => {
    const text = broken((t) => t.replace(`## ${name}\n`, `${typo}\n`));
    const v = validateHandoff(text, opts());
    expect(v.errors[0]).toEqual({ rule: "section-missing", line, message: `"${typo}" is not a section heading of schema v1 and \`## ${name}\` is missing: did you mean \`## ${name}\`?` });
  });

  it("an unknown section far from every name is a finding; a sub-heading is nothing", () => {
    const text = broken((t) => t.replace("## Decisions", "## Notes\nx\n\n### Details\ny\n\n## Decisions"));
    const v = validateHandoff(text, opts());
    expect(v.errors).toEqual([]);
    expect(v.findings.filter((f) => f.rule === "unknown-section").map((f) => f.message)).toEqual(['"## Notes" is not a section of schema v1; nothing reads it']);
  });
});

describe("dropped items", () => {
  const prior = (plan: string, next: string) => MINIMAL.replace("- [ ] Find where the redirect is built", plan).replace("1. Read src/auth/redirect.ts — done when the bug is located", next);
  it.each([
    ["carried over", prior("- [ ] a step\n- [~] b step", "1. c step"), prior("- [ ] a step\n- [~] b step", "1. c step"), []],
    ["closed as done", prior("- [ ] a step\n- [~] b step", "1. c step"), prior("- [x] a step\n- [x] b step", "1. c step done"), []],
    ["dropped on purpose", prior("- [ ] a step\n- [~] b step", "1. c step"), prior("- [-] a step — dropped: obsolete\n- [-] b step — dropped: done upstream", "1. [-] c step — dropped: no longer needed"), []],
    ["silently lost", prior("- [ ] a step\n- [~] b step", "1. c step"), prior("- [x] other", "1. other step"), ["a step", "b step", "c step"]],
    ["partly lost", prior("- [ ] a step\n- [~] b step", "1. c step"), prior("- [-] a step — dropped: obsolete", "1. c step"), ["b step"]],
  ])("%s", (_name, before, after, dropped) => {
    const v = validateHandoff(after, opts({ prior: before }));
    expect(v.dropped).toEqual(dropped);
    expect(v.parts.dropped).toEqual({ score: dropped.length === 0 ? 5 : 0, max: 5 });
    expect(v.findings.filter((f) => f.rule === "dropped")).toHaveLength(dropped.length);
  });

  it("a dropped step without its reason is a finding, still closed", () => {
    const v = validateHandoff(MINIMAL.replace("- [ ] Find", "- [-] Find"), opts());
    expect(v.findings.map((f) => f.message)).toContain("a `[-]` step without `— dropped: <why>`");
  });
});

describe("every output of `anchors` passes validate", () => {
  const withAnchors = (lines: string) => `${MINIMAL.slice(0, MINIMAL.indexOf("## Environment anchors"))}## Environment anchors\n${lines}`;
  const valid = (lines: string) => {
    const v = validateHandoff(withAnchors(lines), opts());
    expect(v.errors, lines).toEqual([]);
  };

  it("a clean repository: the four lines", async () => valid(renderAnchorLines(await collectAnchors(newRepo(NOW - DAY), ENV, NOW, []))));

  it("a repository without commits: HEAD none (no commits yet)", async () => {
    const root = tempDir();
    git(root, ["init", "-q"]);
    writeTree(root, { "a.txt": "a" });
    const lines = renderAnchorLines(await collectAnchors(root, ENV, NOW, []));
    expect(lines).toContain("- HEAD: none (no commits yet)");
    valid(lines);
  });

  it("a dirty list past 50 paths ends with … and N more; odd paths are quoted", async () => {
    const root = newRepo(NOW - DAY);
    const tree: Record<string, string> = { "a, b.txt": "x", 'q"uote.txt': "x", "tab\there.txt": "x", "ünï.txt": "x", "with space.txt": "x" };
    for (let i = 0; i < 60; i++) tree[`f${i}.txt`] = "x";
    writeTree(root, tree);
    const lines = renderAnchorLines(await collectAnchors(root, ENV, NOW, []));
    expect(lines).toMatch(/, … and 15 more\n/);
    valid(lines);
  });

  it("outside git: the date and key file mtimes, @ missing included", async () => {
    const root = tempDir();
    writeTree(root, { "src/a b.ts": "a", "x,y.ts": "b" });
    const lines = renderAnchorLines(await collectAnchors(root, ENV, NOW, ["src/a b.ts", "x,y.ts", "gone.ts"]));
    expect(lines).toMatch(/^- Key file mtimes: src\/a b\.ts @ \S+Z, "x,y\.ts" @ \S+Z, gone\.ts @ missing$/m);
    valid(lines);
  });

  it.each([
    "- In progress: rebase of feature/login (2 conflicted files)",
    "- In progress: merge (0 conflicted files)",
    "- In progress: cherry-pick (1 conflicted file)",
    "- In progress: bisect (0 conflicted files)",
    "- In progress: revert (3 conflicted files)",
  ])("the fifth line while git is mid-operation: %s", (line) => {
    expect(readAnchorLine(line)).toEqual({ label: "In progress", value: line.slice("- In progress: ".length) });
    valid(`- Branch: (detached)\n- HEAD: ${HEAD}\n- Dirty files: none\n${line}\n- Date: 2026-11-30T11:00:00Z\n`);
  });

  it("a key file mtimes line is read as drift reads it: a bare path up to ` @ `, a comma included", () => {
    const value = "a, b.ts @ 2026-11-30T11:00:00Z, c.ts @ missing";
    expect(parseKeyFileMtimes(value)).toEqual([{ path: "a, b.ts", mtime: "2026-11-30T11:00:00Z" }, { path: "c.ts", mtime: null }]);
    expect(readAnchorLine(`- Key file mtimes: ${value}`)).toEqual({ label: "Key file mtimes", value });
    expect(readAnchorLine("- Key file mtimes: a.ts @ 2026-11-30T11:00:00Z, b.ts")).toHaveProperty("error");
  });

  it.each([
    ["- In progress: rebasing (2 conflicted files)"],
    ["- In progress: am (1 conflicted file)"],
    ["- HEAD: none"],
    ["- Key file mtimes: a.ts @ yesterday"],
    ["- Key file mtimes: "],
    ["- Dirty files: "],
    ["- Branch: my branch"],
  ])("and nothing else: %s", (line) => {
    expect(readAnchorLine(line)).toHaveProperty("error");
  });
});

describe("stamping and filling (2)", () => {
  it.each([
    ["replaces a value", "# Session Handoff\nSaved: yesterday\n", "# Session Handoff\nSaved: 2026-11-30T12:00:00Z\n", "yesterday", null, 0],
    ["inserts the line as the first non-blank one after the title", "# Session Handoff\n\n## Current goal\n", "# Session Handoff\n\nSaved: 2026-11-30T12:00:00Z\n\n## Current goal\n", null, 4, 2],
    ["leaves a Saved: inside a code block alone", "# Session Handoff\n\n```\nSaved: x\n```\n", "# Session Handoff\n\nSaved: 2026-11-30T12:00:00Z\n\n```\nSaved: x\n```\n", null, 4, 2],
  ])("Saved: %s", (_name, body, want, replaced, insertedAt, inserted) => {
    const s = stampSaved(`<!-- memory-schema: v1 -->\n${body}`, "2026-11-30T12:00:00Z");
    expect(s).toEqual({ text: `<!-- memory-schema: v1 -->\n${want}`, replaced, insertedAt, inserted });
  });

  it("fills the anchors section's body and says which lines it wrote", () => {
    const text = MINIMAL.replace(/- Branch[\s\S]*$/, "- none\n");
    const filled = fillAnchors(text, "- Date: 2026-11-30T12:00:00Z\n");
    expect(filled.text.endsWith("## Environment anchors\n- Date: 2026-11-30T12:00:00Z\n")).toBe(true);
    expect([...filled.lines]).toEqual([filled.text.split("\n").length - 1]);
  });

  it("compares without Saved: and, when write filled them, without the anchors' Date", () => {
    const a = MINIMAL;
    const b = MINIMAL.replace("Saved: 2026-11-30T11:00:00Z", "Saved: 2026-11-30T11:30:00Z").replace("- Date: 2026-11-30T11:00:00Z", "- Date: 2026-11-30T11:30:00Z");
    expect(comparable(a, true)).toBe(comparable(b, true));
    expect(comparable(a, false)).not.toBe(comparable(b, false));
    expect(comparable(a, true)).not.toBe(comparable(a.replace("Fix the login", "Fix the logout"), true));
  });
});
