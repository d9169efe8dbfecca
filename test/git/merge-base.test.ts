// The merge driver against the base (docs/design.md#the-merge-driver): what one side changed and the other left as
// it was takes the changed side's version, in a real `git pull` between two clones with the driver installed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseHandoff } from "../../src/schema/handoff.ts";
import { aged, helper, tempDir } from "../helpers.ts";

// Two clones, A (the origin) and B (cloned from it, driver installed), each saving and committing memory.
function twoClones() {
  const top = tempDir("sh-merge-base-");
  const home = path.join(top, "home");
  mkdirSync(home);
  const env = {
    HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CEILING_DIRECTORIES: top, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com",
  };
  const git = (dir: string, ...args: string[]) => {
    const r = spawnSync("git", ["-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args],
      { cwd: dir, env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };
  const a = path.join(top, "A");
  const b = path.join(top, "B");
  mkdirSync(a);
  git(a, "init", "-q");
  writeFileSync(path.join(a, "a.txt"), "a\n");
  git(a, "add", ".");
  expect(git(a, "commit", "-qm", "init").code).toBe(0);
  const run = (dir: string, args: string[], input?: string) => helper([...args, "--root", dir], { env, input });
  const save = (dir: string, kind: string, doc: string) => {
    const token = /CURRENT-SHA256: (\S+)/.exec(run(dir, ["read", kind]).stdout)![1]!;
    const w = run(dir, ["write", kind, "--expected-current-sha256", token], doc);
    expect(w.code, w.stderr).toBe(0);
    const p = run(dir, ["publish"]);
    expect(p.code, p.stderr).toBe(0);
  };
  const clone = () => {
    expect(git(top, "clone", "-q", a, b).code).toBe(0);
    expect(run(b, ["install", "--agent", "codex"]).code).toBe(0);
  };
  const pull = () => git(b, "pull", "-q", "--no-rebase", "origin", "main");
  const read = (name: string) => readFileSync(path.join(b, ".ai", "memory", name), "utf8");
  return { a, b, git, run, save, clone, pull, read };
}

const lesson = (id: string, title: string, status: string) =>
  `## L-${id}: ${title}\n- When: changing src/db\n- Lesson: ${title}\n- Why: evidence\n` +
  `- Source: [user-directed], 2026-12-01\n- Status: ${status}\n`;
const lessons = (...entries: string[]) => `<!-- memory-schema: v1 -->\n# Lessons\n\n${entries.join("\n")}`;

function handoffDoc(plan: string[], decisions: string[], questions: string[], next: string | string[],
  failed = ["F: failed because"]): string {
  const list = (items: string[]) => items.map((i) => `- ${i}`).join("\n");
  return [
    "<!-- memory-schema: v1 -->", "# Session Handoff", "Saved: 2026-12-01T08:00:00Z", "", "## Current goal", "Ship it", "",
    "## Plan", list(plan), "", "## Decisions", list(decisions), "", "## Failed approaches", list(failed), "",
    "## Open questions", list(questions), "", "## Next steps", ...[next].flat().map((n, i) => `${i + 1}. ${n}`), "", "## Key files", "- `a.txt` — the file", "",
    "## Environment anchors", "- Date: 2026-12-01T08:00:00Z", "",
  ].join("\n");
}

describe("the merge driver reads the base", () => {
  it("a lesson retired on one side while the other added one: retired once, the new one kept", { timeout: 120_000 }, () => {
    const c = twoClones();
    c.save(c.a, "lessons", lessons(lesson("0001", "Use the fake DB", "active")));
    c.clone();
    c.save(c.a, "lessons", lessons(lesson("0001", "Use the fake DB", "active"), lesson("0002", "Pin node", "active")));
    c.save(c.b, "lessons", lessons(lesson("0001", "Use the fake DB", "retired: the fake hides locking bugs")));
    const m = c.pull();
    expect(m.code, m.out).toBe(0);
    const text = c.read("LESSONS.md");
    expect(text.match(/^## L-\d{4}: .*$/gm)).toEqual(["## L-0001: Use the fake DB", "## L-0002: Pin node"]);
    expect(text).toContain("- Status: retired: the fake hides locking bugs");
    expect(text).not.toContain("Renumbered");
  });

  it("a step dropped, a decision superseded, a question answered on the earlier side stay so", { timeout: 120_000 }, () => {
    const c = twoClones();
    const sqlite = "[user-approved] Use SQLite for the cache: no server";
    const redis = "[user-directed] Use Redis for the cache: shared across pods";
    const base = handoffDoc(["[ ] Drop the legacy API", "[ ] Write docs"], [sqlite], ["which node?"], "Continue in a.txt");
    c.save(c.a, "handoff", aged(base, "2026-12-01T08:00:00Z"));
    c.clone();
    const dropped = "[-] Drop the legacy API — dropped: the user keeps it for v1 clients";
    const theirs = handoffDoc([dropped, "[ ] Write docs"], [`${sqlite} (superseded by Redis)`, redis], ["none"],
      "Continue in a.txt");
    c.save(c.a, "handoff", aged(theirs, "2026-12-01T09:00:00Z"));
    // B saves later, so B's handoff stays current; it reworded its next step.
    const ours = handoffDoc(["[ ] Drop the legacy API", "[x] Write docs"], [sqlite], ["which node?"], "Ship a.txt");
    c.save(c.b, "handoff", aged(ours, "2026-12-01T10:00:00Z"));
    const m = c.pull();
    expect(m.code, m.out).toBe(0);
    const text = c.read("HANDOFF.md");
    const section = (title: string) => /## [^\n]+\n([^#]*)/.exec(text.slice(text.indexOf(`## ${title}`)))![1]!.trim();
    // The step the earlier side dropped keeps its place in the plan.
    expect(section("Plan")).toBe(`- ${dropped}\n- [x] Write docs`);
    expect(section("Decisions")).toBe(`- ${sqlite} (superseded by Redis)\n- ${redis}`);
    expect(section("Open questions")).toBe("- none");
    expect(section("Next steps")).toBe("1. Ship a.txt");
  });

  it("a step progressed on the earlier side keeps its place; next steps numbered anew", { timeout: 120_000 }, () => {
    const c = twoClones();
    const plan = ["[ ] Read the importer", "[ ] Stream the rows", "[ ] Add a fixture"];
    const base = handoffDoc(plan, ["[user-directed] D: why"], ["none"], ["Read the importer", "Stream the rows"]);
    c.save(c.a, "handoff", aged(base, "2026-12-01T08:00:00Z"));
    c.clone();
    // A read the importer and was interrupted streaming; B, later, dropped the fixture and left the rest as it was.
    const theirs = handoffDoc(["[x] Read the importer", "[~] Stream the rows: the reader is in", "[ ] Add a fixture"],
      ["[user-directed] D: why"], ["none"], ["Stream the rows"]);
    c.save(c.a, "handoff", aged(theirs, "2026-12-01T09:00:00Z"));
    const dropped = "[-] Add a fixture — dropped: the user has one";
    const ours = handoffDoc([...plan.slice(0, 2), dropped], ["[user-directed] D: why"], ["none"],
      ["Read the importer", "Stream the rows"]);
    c.save(c.b, "handoff", aged(ours, "2026-12-01T10:00:00Z"));
    const m = c.pull();
    expect(m.code, m.out).toBe(0);
    const text = c.read("HANDOFF.md");
    const section = (title: string) => /## [^\n]+\n([^#]*)/.exec(text.slice(text.indexOf(`## ${title}`)))![1]!.trim();
    expect(section("Plan")).toBe(`- [x] Read the importer\n- [~] Stream the rows: the reader is in\n- ${dropped}`);
    expect(section("Next steps")).toBe("1. Stream the rows");
  });

  // Done on one side, dropped on the other: one line, done, whichever side is later (docs/decisions/merge-driver.md).
  it.each(["later", "earlier"])("a step done on the %s side and dropped on the other is one line, done", (side) => {
    const c = twoClones();
    const base = handoffDoc(["[ ] Drop the legacy API", "[ ] Write docs"], ["[user-directed] D: why"], ["none"], "Go");
    c.save(c.a, "handoff", aged(base, "2026-12-01T08:00:00Z"));
    c.clone();
    const done = ["[x] Drop the legacy API", "[ ] Write docs"];
    const dropped = ["[-] Drop the legacy API — dropped: v1 clients need it", "[ ] Write docs"];
    const [earlier, later] = side === "later" ? [dropped, done] : [done, dropped];
    c.save(c.a, "handoff", aged(handoffDoc(earlier, ["[user-directed] D: why"], ["none"], "Go"), "2026-12-01T09:00:00Z"));
    c.save(c.b, "handoff", aged(handoffDoc(later, ["[user-directed] D: why"], ["none"], "Go"), "2026-12-01T10:00:00Z"));
    const m = c.pull();
    expect(m.code, m.out).toBe(0);
    const text = c.read("HANDOFF.md");
    expect(/## Plan\n([^#]*)/.exec(text)![1]!.trim()).toBe("- [x] Drop the legacy API\n- [ ] Write docs");
  }, 120_000);

  // Bob's save left out Alice's dead end; her pull then removed it from her side too, as "removed there, it goes"
  // (found by a newcomer). A failed approach stays unless the other side rewrote it (docs/decisions/merge-keeps-failed.md).
  it.each(["later", "earlier"])("a failed approach the %s side left out stays; one side's edit of it replaces it", (side) => {
    const c = twoClones();
    const gte = "Comparing with gte(...): misses prereleases";
    const doc = (failed: string[]) => handoffDoc(["[ ] Fix satisfies"], ["[user-directed] D: why"], ["none"],
      "Fix satisfies in a.txt", failed);
    c.save(c.a, "handoff", aged(doc([gte, "Sorting first: breaks order"]), "2026-12-01T08:00:00Z"));
    c.clone();
    // One side forgot the first dead end and added its own; the other gave the second a better cause.
    const [forgot, edited] = [doc(["Sorting first: breaks order", "Mocking git: hid a bug"]),
      doc([gte, "Sorting first: breaks row order, which the audit log needs"])];
    const [earlier, later] = side === "later" ? [edited, forgot] : [forgot, edited];
    c.save(c.a, "handoff", aged(earlier, "2026-12-01T09:00:00Z"));
    c.save(c.b, "handoff", aged(later, "2026-12-01T10:00:00Z"));
    const m = c.pull();
    expect(m.code, m.out).toBe(0);
    const text = c.read("HANDOFF.md");
    const failed = parseHandoff(text).failedApproaches;
    expect([...failed].sort()).toEqual([gte, "Mocking git: hid a bug", "Sorting first: breaks row order, which the audit log needs"]);
    expect(text).toContain(side === "later" ? "+0 decisions, +2 failed approaches" : "+0 decisions, +1 failed approach");
    expect(c.run(c.b, ["brief"]).stdout).toMatch(/^Do-not-retry: .*Comparing with gte/m);
  }, 120_000);

  it("a failed approach both sides left out goes", { timeout: 120_000 }, () => {
    const c = twoClones();
    const doc = (failed: string[], goal: string) => handoffDoc(["[ ] Step"], ["[user-directed] D: why"], ["none"],
      "Continue in a.txt", failed).replace("Ship it", goal);
    c.save(c.a, "handoff", aged(doc(["Old: it was wrong", "Kept: why"], "g"), "2026-12-01T08:00:00Z"));
    c.clone();
    c.save(c.a, "handoff", aged(doc(["Kept: why"], "A's goal"), "2026-12-01T09:00:00Z"));
    c.save(c.b, "handoff", aged(doc(["Kept: why"], "B's goal"), "2026-12-01T10:00:00Z"));
    expect(c.pull().code).toBe(0);
    expect(parseHandoff(c.read("HANDOFF.md")).failedApproaches).toEqual(["Kept: why"]);
  });

  // The same first next step on both sides, one side rewording it (trivially, or not), each adding one: it was listed
  // twice or moved behind the other's new step, which then became the brief's proposed next step.
  it.each([
    ["in case and code spans", "Fix `satisfies` in a.txt"],
    ["in words", "Fix satisfies in a.txt, prereleases first"],
  ])("the first next step reworded on one side %s stays first, listed once", (_name, reworded) => {
    const c = twoClones();
    const doc = (next: string[]) => handoffDoc(["[ ] Fix satisfies"], ["[user-directed] D: why"], ["none"], next);
    c.save(c.a, "handoff", aged(doc(["Fix satisfies in a.txt"]), "2026-12-01T08:00:00Z"));
    c.clone();
    c.save(c.a, "handoff", aged(doc([reworded, "Update README.md for the new API"]), "2026-12-01T09:00:00Z"));
    c.save(c.b, "handoff", aged(doc(["Fix satisfies in a.txt", "Run npm test"]), "2026-12-01T10:00:00Z"));
    const m = c.pull();
    expect(m.code, m.out).toBe(0);
    const first = reworded.startsWith("Fix `") ? "Fix satisfies in a.txt" : reworded;
    expect(parseHandoff(c.read("HANDOFF.md")).nextSteps).toEqual([first, "Run npm test", "Update README.md for the new API"]);
    expect(c.run(c.b, ["brief"]).stdout).toMatch(new RegExp(`^Proposed next step: .*\\b${first.replace(/\W/g, ".")} — Confirm`, "m"));
  }, 120_000);

  it("a handoff from the future is not called the later one", { timeout: 120_000 }, () => {
    const c = twoClones();
    const doc = handoffDoc(["[ ] Step"], ["[user-directed] D: why"], ["none"], "Continue in a.txt");
    c.save(c.a, "handoff", aged(doc, "2026-12-01T08:00:00Z"));
    c.clone();
    c.save(c.b, "handoff", aged(doc.replace("Ship it", "B's goal"), "2026-12-01T09:00:00Z"));
    // A clock far ahead on A: its state time is unknown, so B's own handoff stays, and the driver says why.
    const file = path.join(c.a, ".ai", "memory", "HANDOFF.md");
    writeFileSync(file, aged(readFileSync(file, "utf8"), "2099-01-01T00:00:00Z").replace("Ship it", "A's goal"));
    expect(c.git(c.a, "commit", "-qam", "a save from the future").code).toBe(0);
    const m = c.pull();
    expect(m.code, m.out).toBe(0);
    expect(m.out).toContain("HANDOFF.md: kept ours, as a state time is unknown or in the future; the other is archive/");
    expect(c.read("HANDOFF.md")).toContain("B's goal");
  });

  it("two handoffs saved in one second: ours stays, and the driver says so rather than 'the later'", { timeout: 120_000 }, () => {
    const c = twoClones();
    const doc = handoffDoc(["[ ] Step"], ["[user-directed] D: why"], ["none"], "Continue in a.txt");
    c.save(c.a, "handoff", aged(doc, "2026-12-01T08:00:00Z"));
    c.clone();
    c.save(c.b, "handoff", aged(doc.replace("Ship it", "B's goal"), "2026-12-01T09:00:00Z"));
    const file = path.join(c.a, ".ai", "memory", "HANDOFF.md");
    writeFileSync(file, aged(readFileSync(file, "utf8"), "2026-12-01T09:00:00Z").replace("Ship it", "A's goal"));
    expect(c.git(c.a, "commit", "-qam", "a save in the same second").code).toBe(0);
    const m = c.pull();
    expect(m.code, m.out).toBe(0);
    expect(m.out).toContain("HANDOFF.md: kept ours, as both were saved in the same second; the other is archive/");
    expect(c.read("HANDOFF.md")).toContain("B's goal");
  });

  it("a handoff in a newer schema is never downgraded: git's conflict stands", { timeout: 120_000 }, () => {
    const c = twoClones();
    const doc = handoffDoc(["[ ] Step"], ["[user-directed] D: why"], ["none"], "Continue in a.txt");
    c.save(c.a, "handoff", aged(doc, "2026-12-01T08:00:00Z"));
    c.clone();
    c.save(c.b, "handoff", aged(doc.replace("Ship it", "B's goal"), "2026-12-01T09:00:00Z"));
    // A newer helper's save on A, later than B's.
    const file = path.join(c.a, ".ai", "memory", "HANDOFF.md");
    const v2 = aged(readFileSync(file, "utf8"), "2026-12-01T10:00:00Z").replace("memory-schema: v1", "memory-schema: v2");
    writeFileSync(file, v2.replace("Ship it", "A's goal"));
    expect(c.git(c.a, "commit", "-qam", "v2 save").code).toBe(0);
    const archive = path.join(c.b, ".ai", "memory", "archive");
    const before = existsSync(archive) ? readdirSync(archive) : [];
    const m = c.pull();
    expect(m.code).not.toBe(0);
    expect(m.out).toContain("their side is memory schema v2 and this helper reads v1 only; merged as text");
    const text = c.read("HANDOFF.md");
    expect(text.startsWith("<!-- memory-schema: v2 -->\n")).toBe(true);
    expect(text).toMatch(/^<<<<<<< /m);
    expect(text).not.toContain("Merged-with:");
    expect(existsSync(archive) ? readdirSync(archive) : []).toEqual(before);
  });
});
