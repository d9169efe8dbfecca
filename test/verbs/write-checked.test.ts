// `write` (35): schema errors
// refused with nothing changed, `Saved:` stamped, empty anchors filled inside the lock,
// `unchanged`, the anchor exemption from redaction, score and findings on stderr.
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { archives, git, gitRepo, sha, snapshot, STAMP, tempDir } from "../helpers.ts";
import { inProcess, tokenIn } from "../in-process.ts";

const file = (root: string, name = "HANDOFF.md") => path.join(root, ".ai", "memory", name);
// In this process (test/in-process.ts): what write decides of a document is the subject, not the process.
const write = async (root: string, doc: string, token?: string, kind = "handoff") =>
  inProcess(["write", kind, "--root", root, "--expected-current-sha256", token ?? (await tokenIn(root))], { input: doc });

/** A full handoff in a repository, anchors left for write to fill. */
const DOC = `<!-- memory-schema: v1 -->
# Session Handoff

Saved: 2026-01-01T00:00:00Z

## Current goal
Fix the login redirect.

## Plan
- [x] Find the bug
- [ ] Fix it

## Verification
- Unit tests: npm test -> 3 passed @ 0123456789abcdef0123456789abcdef01234567
- Accepted: not yet, review pending

## Decisions
- [user-directed] Keep the URL format: clients depend on it

## Failed approaches
- Caching the URL: stale after logout

## Open questions
- none

## Next steps
1. Patch README.md — done when npm test passes

## Key files
- README.md — the entry

## Environment anchors
- none
`;

describe("write refuses schema errors and changes nothing", () => {
  it.each([
    ["## Failed approaches:", "Failed approaches"],
    ["## Failed approachs", "Failed approaches"],
    ["### Plan", "Plan"],
    ["# Current goal", "Current goal"],
  ])("%s is refused with the right suggestion", async (typo, name) => {
    const root = gitRepo();
    await save0(root);
    // The token first: a read leaves its mark in drafts/ (docs/decisions/drafts.md).
    const token = await tokenIn(root);
    const before = snapshot(root);
    const doc = DOC.replace(`## ${name}\n`, `${typo}\n`);
    const line = doc.split("\n").indexOf(typo) + 1;
    const r = await write(root, doc, token);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `memory operation refused: HANDOFF.md has 1 schema error(s)\n` +
        `line ${line}: section-missing: "${typo}" is not a section heading of schema v1 and \`## ${name}\` is missing: did you mean \`## ${name}\`?\n`,
    );
    expect(snapshot(root)).toEqual(before);
  });

  it("names every error of a seeded bad handoff, each with its line", async () => {
    const root = gitRepo();
    const bad = DOC.replace("## Decisions", "## Plan\n- [ ] twice\n\n## Decisions")
      .replace("## Open questions\n- none\n\n", "")
      .replace("## Environment anchors\n- none\n", "## Environment anchors\n- Branch: main\n- HEAD: 0123456\n- Dirty files: none\n- Date: 2026-01-01T00:00:00\n");
    const r = await write(root, bad, "absent");
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")).toEqual([
      "memory operation refused: HANDOFF.md has 4 schema error(s)",
      "line 17: section-repeated: `## Plan` appears again (first at line 9); merge the two",
      "line 26: section-missing: required section `## Open questions` is missing; keep its heading, with `- none` when there is nothing to say",
      'line 34: anchor-line: HEAD "0123456" (7 hex digits) is not a full 40- or 64-hex commit id',
      'line 36: anchor-line: date "2026-01-01T00:00:00" is not an ISO-8601 time with a zone (it has no zone: add Z or an offset)',
      "",
    ]);
    expect(snapshot(root)[".ai"]).toBeUndefined();
  });

  it.each([
    ["empty stdin", "", /stdin is empty/],
    ["a non-v1 marker", DOC.replace("v1 -->", "v2 -->"), /HANDOFF\.md has 1 schema error\(s\)\nline 1: marker: the marker says schema "v2"/],
    ["a NUL byte", `${DOC}\0`, /NUL byte/],
    ["1 MB of headings", `${DOC}${"## Plan\n".repeat(140_000)}`, /^memory operation refused: stdin is more than 1,000,000 bytes/],
    ["half a MB of repeated sections", `${DOC}${"## Plan\n".repeat(60_000)}`, /HANDOFF\.md has 60000 schema error\(s\)\n(line \d+: section-repeated: .*\n){200}… and 59800 more error\(s\)\n$/],
  ])("%s: a precise refusal, never a crash or a partial save", async (_name, doc, message) => {
    const root = gitRepo();
    const before = snapshot(root);
    const r = await write(root, doc, "absent");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: /);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(snapshot(root)).toEqual(before);
  });

  it("a ledger is refused only for file-format errors and malformed entry headings", async () => {
    const root = gitRepo();
    const ok = await write(root, "<!-- memory-schema: v1 -->\n# Lessons\n\n- a loose note, as the reference wrote them\n", "absent", "lessons");
    expect(ok.code, ok.stderr).toBe(0);
    const token = await tokenIn(root, "lessons");
    const before = snapshot(root);
    const r = await write(root, "<!-- memory-schema: v1 -->\n# Lessons\n\n## Lesson one\n", token, "lessons");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'memory operation refused: LESSONS.md has 1 schema error(s)\nline 4: entry-heading: "## Lesson one" is not an entry heading: write `## L-<4 digits>: <title>`\n',
    );
    expect(snapshot(root)).toEqual(before);
  });
});

async function save0(root: string): Promise<string> {
  const r = await write(root, DOC, "absent");
  expect(r.code, r.stderr).toBe(0);
  return /CURRENT-SHA256: (\S+)\n$/.exec(r.stdout)![1]!;
}

describe("Saved: and the anchors are write's (2)", () => {
  it("stamps Saved: with the time of the write and fills empty anchors with the same instant", async () => {
    const root = gitRepo();
    const before = Date.now();
    await save0(root);
    const saved = readFileSync(file(root), "utf8");
    const stamp = STAMP.exec(saved)![1]!;
    expect(Date.parse(stamp)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(stamp)).toBeLessThanOrEqual(Date.now());
    const head = git(root, "rev-parse", "HEAD").trim();
    expect(saved.endsWith(`## Environment anchors\n- Branch: main\n- HEAD: ${head}\n- Dirty files: none\n- Date: ${stamp}\n`)).toBe(true);
  });

  it("notes an agent's Saved: more than 5 minutes off, and inserts a missing one after the title", async () => {
    const root = gitRepo();
    const r = await write(root, DOC, "absent");
    expect(r.stderr).toMatch(/^note: Saved: "2026-01-01T00:00:00Z" was \d+ minutes off; stamped \S+Z$/m);
    const none = await write(root, DOC.replace("Saved: 2026-01-01T00:00:00Z\n", "").replace("Fix the login", "Fix the logout"));
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).not.toMatch(/note: Saved:/);
    // The first non-blank line after the title, a paragraph of its own before the next heading.
    const mark = expect.stringMatching(/^<!-- saved in clone [0-9a-f]{16} -->$/);
    const top = ["<!-- memory-schema: v1 -->", "# Session Handoff", "", "", expect.stringMatching(STAMP), mark, "", "## Current goal"];
    expect(readFileSync(file(root), "utf8").split("\n").slice(0, 8)).toEqual(top);
  });

  it("keeps anchors the agent wrote, noting a Date more than 5 minutes old", async () => {
    const root = gitRepo();
    const head = git(root, "rev-parse", "HEAD").trim();
    const mine = `- Branch: main\n- HEAD: ${head}\n- Dirty files: none\n- Date: 2026-01-01T00:00:00Z\n`;
    const r = await write(root, DOC.replace("## Environment anchors\n- none\n", `## Environment anchors\n${mine}`), "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: the - Date: anchor is \d+ minutes before this save; empty the anchors section to have write fill them$/m);
    expect(readFileSync(file(root), "utf8").endsWith(`## Environment anchors\n${mine}`)).toBe(true);
  });

  it("outside git, fills the date and the key files' modification times", async () => {
    const root = tempDir();
    writeFileSync(path.join(root, "README.md"), "x\n");
    const r = await write(root, DOC, "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: anchors filled outside git: not a git repository/m);
    const saved = readFileSync(file(root), "utf8");
    const stamp = STAMP.exec(saved)![1]!;
    expect(saved).toMatch(new RegExp(`## Environment anchors\\n- Date: ${stamp}\\n- Key file mtimes: README\\.md @ \\S+Z\\n$`));
  });

  it("prints the score and findings on stderr, and never refuses for them", async () => {
    const root = gitRepo();
    const r = await write(root, DOC.replace("- [user-directed] Keep", "- Keep"), "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^score: 89\/100 \(sections 15\/15, saved 5\/5, anchors 10\/10, failed 10\/10, decisions 0\/10, nextSteps 10\/10, nextAction 5\/5, keyFiles 10\/10, verification 10\/10, size 5\/5, secrets 5\/5\)$/m);
    // Line 18 of the document sent; the saved file has the clone mark below `Saved:`.
    expect(r.stderr).toMatch(/^finding: line 19: decision-label: a decision without \[user-directed\], \[user-approved\] or \[agent-proposed\]$/m);
  });

  // write inserts `Saved:` (and a blank line before a heading) and its clone mark, and a secret over several lines
  // becomes one: what it reports names the lines of the saved file, the one the user can open (the draft is gone),
  // as `validate` names them.
  const secret = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789";
  const withSecret = DOC.replace("- [user-directed] Keep", "- Keep")
    .replace("- Caching the URL", `- Caching the URL with ${secret}`);
  const pem = (kind: string) => [`-----BEGIN ${kind}-----`, ...Array.from({ length: 5 }, () =>
    randomBytes(48).toString("base64")), `-----END ${kind}-----`].join("\n");
  it.each([
    ["a Saved: line of its own", withSecret],
    ["no Saved: line, a blank line after the title", withSecret.replace(/Saved: .*\n\n/, "")],
    ["no Saved: line, a heading right after the title", withSecret.replace(/Saved: .*\n\n/, "").replace("Handoff\n\n", "Handoff\n")],
    ["a private key over seven lines before both", withSecret.replace("- Unit tests:", `${pem("RSA PRIVATE KEY")}\n- Unit tests:`)],
  ])("reports name the saved file's lines (%s)", async (_, doc) => {
    const root = gitRepo();
    const r = await write(root, doc, "absent");
    expect(r.code, r.stderr).toBe(0);
    const saved = readFileSync(file(root), "utf8");
    const lines = saved.split("\n");
    const secretLine = lines.findIndex((l) => l.includes("<redacted: github-token>")) + 1;
    const decisionLine = lines.indexOf("- Keep the URL format: clients depend on it") + 1;
    expect(secretLine * decisionLine).toBeGreaterThan(0);
    expect(r.stderr).toMatch(new RegExp(`^redacted \\d secret\\(s\\): .*github-token \\(line ${secretLine}\\)$`, "m"));
    expect(r.stderr).toMatch(new RegExp(`^finding: line ${secretLine}: secret: `, "m"));
    expect(r.stderr).toMatch(new RegExp(`^finding: line ${decisionLine}: decision-label: `, "m"));
    const validated = (await inProcess(["validate", "handoff", "--root", root])).stdout;
    expect(validated).toMatch(new RegExp(`^finding: line ${decisionLine}: decision-label: `, "m"));
  });
});

describe("unchanged", () => {
  it("read, then write with the new token, prints unchanged; nothing is archived", async () => {
    const root = gitRepo();
    const t = await save0(root);
    const body = /<<<BEGIN UNTRUSTED HANDOFF\.md \S+>>>\n([\s\S]*)<<<END UNTRUSTED/.exec((await inProcess(["read", "handoff", "--root", root])).stdout)![1]!;
    const r = await write(root, body, t);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`unchanged HANDOFF.md\nCURRENT-SHA256: ${t}\n`);
    expect(sha(readFileSync(file(root)))).toBe(t);
    expect(archives(root)).toEqual([]);
  });

  it("the same document again is unchanged whatever the token, with a new Saved: and refilled anchors", async () => {
    const root = gitRepo();
    const t = await save0(root);
    for (const token of ["absent", t, "f".repeat(64)]) {
      const r = await write(root, DOC, token);
      expect(r.stdout).toBe(`unchanged HANDOFF.md\nCURRENT-SHA256: ${t}\n`);
    }
    expect(archives(root)).toEqual([]);
  });

  it("is not unchanged once the repository moved: the refilled anchors differ", async () => {
    const root = gitRepo();
    const t = await save0(root);
    writeFileSync(path.join(root, "new.txt"), "x\n");
    const r = await write(root, DOC, t);
    expect(r.stdout).toMatch(/^saved HANDOFF\.md; archived previous handoff as /);
    expect(readFileSync(file(root), "utf8")).toMatch(/^- Dirty files: new\.txt$/m);
  });

  it("a ledger sent again byte for byte is unchanged too", async () => {
    const root = gitRepo();
    const doc = "<!-- memory-schema: v1 -->\n# Lessons\n\n- one\n";
    const first = await write(root, doc, "absent", "lessons");
    expect(first.stdout).toBe(`saved LESSONS.md\nCURRENT-SHA256: ${sha(doc)}\n`);
    expect((await write(root, doc, "absent", "lessons")).stdout).toBe(`unchanged LESSONS.md\nCURRENT-SHA256: ${sha(doc)}\n`);
    expect((await write(root, `${doc}- two\n`, "absent", "lessons")).code).toBe(2);
  });

  it("a changed document with a stale token is still refused", async () => {
    const root = gitRepo();
    await save0(root);
    const r = await write(root, DOC.replace("Fix the login", "Fix the logout"), "absent");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/changed since it was read/);
  });
});

describe("anchors and redaction", () => {
  // A branch name that the generic assignment rule would redact as prose.
  const BRANCH = "fix/password=Zq8vLr2Xw9Tk4Ya7";

  it("an anchor line write filled is never redacted", async () => {
    const root = gitRepo();
    git(root, "checkout", "-q", "-b", BRANCH);
    expect((await inProcess(["redact"], { input: `- Branch: ${BRANCH}\n` })).stdout).toContain("<redacted:");
    const r = await write(root, DOC, "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file(root), "utf8")).toContain(`\n- Branch: ${BRANCH}\n`);
    expect(r.stderr).not.toMatch(/redacted/);
  });

  it("an anchor line the agent wrote is exempt only when it is what anchors reports now", async () => {
    const root = gitRepo();
    git(root, "checkout", "-q", "-b", BRANCH);
    const head = git(root, "rev-parse", "HEAD").trim();
    const anchors = (branch: string) => `## Environment anchors\n- Branch: ${branch}\n- HEAD: ${head}\n- Dirty files: none\n- Date: 2026-01-01T00:00:00Z\n`;
    const same = await write(root, DOC.replace("## Environment anchors\n- none\n", anchors(BRANCH)), "absent");
    expect(same.code, same.stderr).toBe(0);
    expect(readFileSync(file(root), "utf8")).toContain(`\n- Branch: ${BRANCH}\n`);
    const other = "fix/password=Hq3nWc7Rb5Pd2Kx9";
    const forged = await write(root, DOC.replace("## Environment anchors\n- none\n", anchors(other)).replace("Fix the login", "Fix the logout"));
    expect(forged.code, forged.stderr).toBe(0);
    expect(readFileSync(file(root), "utf8")).not.toContain(other);
    expect(forged.stderr).toMatch(/redacted 1 secret\(s\)/);
  });
});
