// The handoff's rule table (docs/decisions/validation-table.md): one row per rule id, a document
// that triggers it and one that does not; the parts' weights; and the values validate reads
// from the one parsed model (docs/design.md#verdicts-and-the-brief), so that it never says of a
// handoff what drift, brief and the hook do not.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../docs/support.ts";
import { parseHandoff, stateTimeOfText } from "../../src/schema/handoff.ts";
import type { StateTime } from "../../src/schema/state-time.ts";
import { LEDGER_PARTS, LEDGER_RULES, validateLedger, type LedgerKind } from "../../src/schema/validate-ledger.ts";
import { HANDOFF_PARTS, HANDOFF_RULES, handoffKeyFiles, validateHandoff, type HandoffValidateOptions } from "../../src/schema/validate.ts";

const isoOf = (st: StateTime): string | null => (st.known ? st.time.iso : null);

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const HEAD = "29f1aece6c77b1ed4ebc70f1daee560f924fdf58";

/** A handoff that breaks no rule: every section, every item as the schema wants it. */
const CLEAN = `<!-- memory-schema: v1 -->
# Session Handoff
Saved: 2026-11-30T11:00:00Z

## Current goal
Fix the login redirect.

## Plan
- [x] Find where the redirect is built
- [ ] Fix it — done when the login test passes

## Verification
- Login test: npm test -- login -> 1 failed @ ${HEAD}
- Accepted: not yet, the fix awaits review

## Decisions
- [user-directed] Keep the old URL scheme: bookmarks use it

## Failed approaches
- Caching the URL: it went stale after a logout

## Open questions
- none

## Next steps
1. Fix src/auth/redirect.ts — done when npm test passes

## Key files
- src/auth/redirect.ts — builds the URL

## Environment anchors
- Branch: main
- HEAD: ${HEAD}
- Dirty files: none
- Date: 2026-11-30T11:00:00Z
`;

const EXISTING = new Set(["src/auth/redirect.ts"]);
const base: HandoffValidateOptions = { mode: "root", nowMs: NOW, existingKeyFiles: EXISTING };
const edit = (from: string, to: string) => {
  if (!CLEAN.includes(from)) throw new Error(`not in CLEAN: ${from}`);
  return CLEAN.replace(from, to);
};
const CONFLICT = "<<<<<<< ours\n- [user-directed] A\n=======\n- [user-directed] B\n>>>>>>> theirs\n";

type Row = [id: string, triggers: string, opts?: Partial<HandoffValidateOptions>, clean?: string];

/** One row per rule id: the document that triggers it (and, where the default CLEAN does not fit, one like it that does not). */
const ROWS: Row[] = [
  ["bom", `\uFEFF${CLEAN}`],
  ["crlf", CLEAN.replace(/\n/g, "\r\n")],
  ["marker", edit("v1 -->", "v2 -->")],
  ["heading", edit("# Session Handoff\n", "# Handoff\n")],
  ["newline", CLEAN.slice(0, -1)],
  ["conflicted", edit("- [user-directed] Keep the old URL scheme: bookmarks use it\n", CONFLICT)],
  ["placeholder", edit("- none\n", "- <what was tried>: <why it failed, what ruled it out>\n")],
  ["saved", edit("Saved: 2026-11-30T11:00:00Z\n", "")],
  ["markdown", edit("- none\n", "- none\n\nOpen\n---\n")],
  ["heading-case", edit("## Plan\n", "## plan\n")],
  ["section-repeated", edit("## Decisions\n", "## Plan\n- [x] again\n\n## Decisions\n")],
  ["section-order", edit("## Open questions\n- none\n\n## Next steps", "## Next steps").replace("## Key files", "## Open questions\n- none\n\n## Key files")],
  ["section-missing", edit("## Open questions\n- none\n\n", "")],
  ["unknown-section", edit("## Decisions\n", "## Notes\nfree text\n\n## Decisions\n")],
  ["anchors-empty", CLEAN.replace(/- Branch[\s\S]*$/, "- none\n"), { mode: "stdin" }, CLEAN],
  ["anchor-line", edit(HEAD + "\n- Dirty", `${HEAD.slice(1)}\n- Dirty`)],
  ["anchor-unknown", `${CLEAN}- Newer label: x\n`],
  ["anchor-missing", edit("- Dirty files: none\n", "")],
  ["anchor-mixed", `${CLEAN}- Key file mtimes: src/auth/redirect.ts @ missing\n`],
  ["anchor-date", edit("- Date: 2026-11-30T11:00:00Z", "- Date: 2099-01-01T00:00:00Z")],
  ["plan-step", edit("- [x] Find", "- Find")],
  ["decision-label", edit("- [user-directed] Keep", "- Keep")],
  ["failed-cause", edit("- Caching the URL: it went stale after a logout", "- Caching the URL")],
  ["next-step", edit("1. Fix src/auth/redirect.ts — done when npm test passes", "1. Think about it, done when it is clear")],
  ["next-action", edit(" — done when npm test passes\n", "\n")],
  ["accepted", edit("- Accepted: not yet, the fix awaits review\n", "")],
  ["verification", edit("- Login test: npm test -- login -> 1 failed @ " + HEAD, "- Ran the tests")],
  ["key-file", edit("- src/auth/redirect.ts — builds the URL", "- /etc/passwd — outside the root")],
  ["key-file-missing", CLEAN, { existingKeyFiles: new Set() }, CLEAN],
  ["line-cap", edit("## Open questions\n- none\n", `## Open questions\n${"- none\n".repeat(140)}`)],
  ["secret", edit("- none\n", `- token ${"gh"}p_abcdefghijklmnopqrstuvwxyz0123456789\n`)],
  ["dropped", CLEAN, { prior: edit("- [ ] Fix it", "- [ ] Ship the other thing") }, CLEAN],
];

describe("the handoff's rule table", () => {
  it("has one row here per rule id, and ids are stable kebab-case and unique", () => {
    const ids = HANDOFF_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
    expect(ROWS.map((r) => r[0]).sort()).toEqual([...ids].sort());
  });

  it("placeholder: its lines are the template's, each only when left verbatim", () => {
    const template = readFileSync(path.join(REPO, "templates", "handoff.md"), "utf8");
    const skeleton = template.slice(0, template.indexOf("## Environment anchors")).split("\n");
    const lines = skeleton.flatMap((l, i) => (/<[^<>\n]+>/.test(l) && !l.startsWith("<!--") ? [i + 1] : []));
    const flagged = validateHandoff(skeleton.join("\n"), base).errors.filter((e) => e.rule === "placeholder");
    expect(lines.length).toBe(18);
    expect(flagged.map((e) => e.line)).toEqual(lines);
    const filled = edit("- none\n", "- <what was tried>: caching, stale after a logout\n  - [ ] <to do>\n");
    expect(validateHandoff(filled, base).errors).toEqual([]);
  });

  it("the clean document breaks no rule and scores 100", () => {
    expect(validateHandoff(CLEAN, base)).toMatchObject({ valid: true, errors: [], findings: [], score: 100 });
  });

  it.each(ROWS)("%s: triggered by its document, not by the one without it", (id, triggers, opts = {}, clean = CLEAN) => {
    const rule = HANDOFF_RULES.find((r) => r.id === id)!;
    const v = validateHandoff(triggers, { ...base, ...opts });
    const hits = [...v.errors, ...v.findings].filter((i) => i.rule === id);
    expect(hits.length, JSON.stringify(v)).toBeGreaterThan(0);
    // Its severity is the table's (or, for an either-way rule, on disk an error for these).
    const inErrors = v.errors.some((i) => i.rule === id);
    if (rule.severity === "error") expect(inErrors).toBe(true);
    if (rule.severity === "finding") expect(inErrors).toBe(false);
    // The part it lowers is lowered (a finding on a part it shares with others included).
    if (rule.part !== null) {
      const part = v.parts[rule.part];
      expect(part === undefined || part.score < part.max, `${id} lowers ${rule.part}: ${JSON.stringify(v.parts)}`).toBe(true);
    }
    const without = validateHandoff(clean, { ...base, ...(clean === CLEAN && opts.mode === undefined ? {} : { mode: opts.mode ?? "root" }) });
    expect([...without.errors, ...without.findings].filter((i) => i.rule === id)).toEqual([]);
  });

  it("the weights are the score's parts in order and add up to 100", () => {
    expect(HANDOFF_PARTS.map((p) => p.part)).toEqual(["sections", "saved", "anchors", "failed", "decisions", "nextSteps", "nextAction", "keyFiles", "verification", "size", "secrets", "dropped"]);
    expect(HANDOFF_PARTS.reduce((n, p) => n + p.weight, 0)).toBe(100);
    const v = validateHandoff(CLEAN, { ...base, prior: CLEAN });
    expect(Object.entries(v.parts).map(([k, p]) => [k, p.max])).toEqual(HANDOFF_PARTS.map((p) => [p.part, p.weight]));
  });

  it("two issues on one line keep the table's order", () => {
    // On the `## Verification` line: the missing acceptance, then the missing check.
    const v = validateHandoff(edit("- Login test: npm test -- login -> 1 failed @ " + HEAD + "\n- Accepted: not yet, the fix awaits review\n", ""), base);
    const line = CLEAN.split("\n").indexOf("## Verification") + 1;
    expect(v.findings.filter((f) => f.line === line).map((f) => f.rule)).toEqual(["accepted", "verification"]);
  });
});

describe("validate reads the one parsed model (docs/design.md#verdicts-and-the-brief)", () => {
  it("the model gives the positions validate names: Saved's line, every heading, every item", () => {
    const h = parseHandoff(CLEAN);
    const lines = CLEAN.split("\n");
    expect(lines[h.savedLine! - 1]).toBe("Saved: 2026-11-30T11:00:00Z");
    for (const x of h.headings) expect(lines[x.line - 1]).toMatch(new RegExp(`^#+ ${x.title}$`));
    for (const i of h.items) expect(lines[i.line - 1]).toContain(i.text.split("\n")[0]);
    expect(h.items.filter((i) => i.section === "decisions").map((i) => i.text)).toEqual(h.decisions);
    expect(h.items.filter((i) => i.section === "verification").map((i) => i.line)).toEqual([13, 14]);
  });

  it("a Saved: after a level-1 heading: validate reads it as the state time does", () => {
    const text = edit("# Session Handoff\nSaved: 2026-11-30T11:00:00Z\n", "# Session Handoff\n# Note\nSaved: 2099-11-30T11:00:00Z\n");
    expect(isoOf(stateTimeOfText(text, NOW))).toBe("2026-11-30T11:00:00Z");
    const v = validateHandoff(text, base);
    expect(v.findings.filter((f) => f.rule === "saved")).toEqual([{ rule: "saved", line: 4, message: 'Saved: "2099-11-30T11:00:00Z" is in the future' }]);
  });

  it("a Saved: offset past 23:59 is no time for validate, as for every reader of the state time", () => {
    const text = edit("Saved: 2026-11-30T11:00:00Z", "Saved: 2026-11-30T11:00:00+24:00").replace(/- Date: .*\n/, "");
    expect(isoOf(stateTimeOfText(text, NOW))).toBeNull();
    expect(validateHandoff(text, base).errors.map((e) => e.rule)).toEqual(["saved"]);
  });

  it("a key file whose path holds a space: validate looks up the path drift checks", () => {
    const text = edit("- src/auth/redirect.ts — builds the URL", "- src/a b.ts — spaced");
    expect(handoffKeyFiles(text)).toEqual(["src/a b.ts"]);
    expect(parseHandoff(text).keyFiles.map((k) => k.path)).toEqual(["src/a b.ts"]);
    const v = validateHandoff(text, { ...base, existingKeyFiles: new Set() });
    expect(v.findings.filter((f) => f.rule === "key-file-missing").map((f) => f.message)).toEqual(['key file "src/a b.ts" does not exist']);
  });

  it("the anchors' HEAD and Date are the model's: a HEAD inside a code block is not the handoff's", () => {
    const text = edit(`- HEAD: ${HEAD}\n`, "- HEAD: <full commit id>\n") + "\n```\n- HEAD: " + HEAD + "\n```\n";
    const h = parseHandoff(text);
    expect(h.anchors.head).toBe("<full commit id>");
    expect(validateHandoff(text, base).parts.anchors).toEqual({ score: 0, max: 10 });
  });
});

const LEDGER = `<!-- memory-schema: v1 -->
# Lessons

## L-0001: Run the full suite before a release
- When: before tagging a release
- Lesson: run every test file, not only the changed ones
- Why: a shared helper broke three unrelated tests
- Source: [user-directed] the user, 2026-11-02
- Status: active
`;
const SOLUTIONS = `<!-- memory-schema: v1 -->
# Solutions

## S-0001: The build hangs on a cold cache
- Symptoms: npm run build never returns
- Context: a fresh clone
- Fix: run the prepare script first
- Evidence: build took 9 s after the fix
- Recorded: 2026-11-02
`;
const ledgerEdit = (doc: string, from: string, to: string) => {
  if (!doc.includes(from)) throw new Error(`not in the ledger: ${from}`);
  return doc.replace(from, to);
};

/** One row per ledger rule id: the kind, a document that triggers it, and a clean one of that kind. */
const LEDGER_ROWS: [id: string, kind: LedgerKind, triggers: string][] = [
  ["bom", "lessons", `\uFEFF${LEDGER}`],
  ["crlf", "lessons", LEDGER.replace(/\n/g, "\r\n")],
  ["marker", "lessons", ledgerEdit(LEDGER, "v1 -->", "v2 -->")],
  ["heading", "lessons", ledgerEdit(LEDGER, "# Lessons", "# Lesson")],
  ["newline", "lessons", LEDGER.slice(0, -1)],
  ["conflicted", "lessons", ledgerEdit(LEDGER, "- Status: active\n", "<<<<<<< a\n- Status: active\n=======\n- Status: retired: old\n>>>>>>> b\n")],
  ["markdown", "lessons", ledgerEdit(LEDGER, "- Status: active\n", "- Status: active\n> quoted\n")],
  ["entry-heading", "lessons", ledgerEdit(LEDGER, "## L-0001:", "## L-1:")],
  ["entry-field", "lessons", ledgerEdit(LEDGER, "- Why: a shared helper broke three unrelated tests\n", "")],
  ["entry-number", "lessons", `${LEDGER}\n${LEDGER.slice(LEDGER.indexOf("## L-0001"))}`],
  ["entry-source", "lessons", ledgerEdit(LEDGER, "[user-directed] ", "")],
  ["entry-status", "lessons", ledgerEdit(LEDGER, "- Status: active", "- Status: maybe")],
  ["entry-date", "solutions", ledgerEdit(SOLUTIONS, "- Recorded: 2026-11-02", "- Recorded: last week")],
  ["line-cap", "solutions", `${SOLUTIONS}${"\n".repeat(250)}`],
  ["secret", "lessons", ledgerEdit(LEDGER, "the user, 2026-11-02", `the user, token ${"gh"}p_abcdefghijklmnopqrstuvwxyz0123456789`)],
];

describe("the ledgers' rule table", () => {
  it("has one row here per rule id, stable kebab-case and unique; the weights add up to 100", () => {
    const ids = LEDGER_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(LEDGER_ROWS.map((r) => r[0]).sort()).toEqual([...ids].sort());
    expect(LEDGER_PARTS.map((p) => [p.part, p.weight])).toEqual([["fields", 50], ["status", 20], ["numbering", 10], ["size", 10], ["secrets", 10]]);
  });

  it.each([
    ["lessons", LEDGER],
    ["solutions", SOLUTIONS],
  ] as const)("the clean %s ledger breaks no rule and scores 100", (kind, doc) => {
    expect(validateLedger(doc, kind)).toMatchObject({ valid: true, errors: [], findings: [], score: 100 });
  });

  it.each(LEDGER_ROWS)("%s: triggered by its document, not by the clean one", (id, kind, triggers) => {
    const rule = LEDGER_RULES.find((r) => r.id === id)!;
    const v = validateLedger(triggers, kind);
    const hits = [...v.errors, ...v.findings].filter((i) => i.rule === id);
    expect(hits.length, JSON.stringify(v)).toBeGreaterThan(0);
    expect(v.errors.some((i) => i.rule === id)).toBe(rule.severity === "error");
    if (rule.part !== null) expect(v.parts[rule.part]!.score).toBeLessThan(v.parts[rule.part]!.max);
    const clean = validateLedger(kind === "lessons" ? LEDGER : SOLUTIONS, kind);
    expect([...clean.errors, ...clean.findings].filter((i) => i.rule === id)).toEqual([]);
  });
});
