// The journal (docs/decisions/journal.md): an entry per saving write, whole or absent after a
// crash, continuation files past 1,000,000 bytes, folds of old months, OFF, purge, publish.
// Most verbs run in this process (test/in-process.ts); the first save's entries, the crashes and
// a publish run through the built helper.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { copyOf, git, gitRepo, helper, lastingGitRepo, MARKER, tempDir, tokenOf } from "../helpers.ts";
import { inProcess, tokenIn } from "../in-process.ts";

function doc(o: { goal?: string; plan?: string[]; decisions?: string[]; failed?: string[]; next?: string[] } = {}): string {
  const list = (items: string[] | undefined) => (items && items.length > 0 ? items.map((i) => `- ${i}`).join("\n") : "- none");
  return [
    MARKER,
    "# Session Handoff",
    "",
    "## Current goal",
    o.goal ?? "Stream the CSV importer",
    "",
    "## Plan",
    list(o.plan),
    "",
    "## Decisions",
    list(o.decisions),
    "",
    "## Failed approaches",
    list(o.failed),
    "",
    "## Open questions",
    "- none",
    "",
    "## Next steps",
    o.next ? o.next.map((n, i) => `${i + 1}. ${n}`).join("\n") : "1. run `npm test`",
    "",
    "## Key files",
    "- none",
    "",
    "## Environment anchors",
    "",
  ].join("\n");
}

/** A save in this process (test/in-process.ts); the crashes and a few saves below spawn the built helper. */
async function write(root: string, text: string, env: Record<string, string> = {}) {
  return inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", await tokenIn(root)], { input: text, env });
}

/** A save through the built helper (a crash failpoint kills the process it runs in). */
function spawnedWrite(root: string, text: string, env: Record<string, string> = {}) {
  return helper(["write", "handoff", "--root", root, "--expected-current-sha256", tokenOf(root)], { input: text, env });
}

const journalDir = (root: string) => path.join(root, ".ai", "memory", "journal");
const month = (ms = Date.now()) => new Date(ms).toISOString().slice(0, 7);
const monthFile = (root: string) => path.join(journalDir(root), `${month()}.md`);

function monthsBack(n: number): string {
  const d = new Date();
  const idx = d.getUTCFullYear() * 12 + d.getUTCMonth() - n;
  return `${Math.floor(idx / 12)}-${String((idx % 12) + 1).padStart(2, "0")}`;
}

describe("journal entries", () => {
  it("a save appends one entry computed from the previous and the new handoff; unchanged appends none", () => {
    const root = gitRepo();
    expect(spawnedWrite(root, doc({ plan: ["[ ] stream rows", "[ ] dedupe rows"], decisions: ["[user-directed] keep the first duplicate"], failed: ["sort -u: reorders rows"] })).code).toBe(0);
    const second = doc({
      plan: ["[x] stream rows", "[~] dedupe rows"],
      decisions: ["[agent-proposed] SHA-1 of the row as the key"],
      failed: ["sort -u: reorders rows", "sqlite temp table: lock contention"],
      next: ["hash rows in src/dedupe.ts"],
    });
    expect(spawnedWrite(root, second).code).toBe(0);
    const again = spawnedWrite(root, second);
    expect(again.stdout).toMatch(/^unchanged HANDOFF.md/);
    const text = readFileSync(monthFile(root), "utf8");
    const entries = text.split(/^## /m).slice(1);
    expect(entries).toHaveLength(2);
    expect(text.startsWith(`${MARKER}\n# Journal ${month()}\n`)).toBe(true);
    const head = git(root, "rev-parse", "HEAD").trim();
    expect(entries[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ save [0-9a-f]{16}\n/);
    expect(entries[1]).toContain(`- HEAD: ${head}\n`);
    expect(entries[1]).toContain("- Goal: Stream the CSV importer\n");
    expect(entries[1]).toContain("- Finished: stream rows\n");
    expect(entries[1]).not.toContain("- Finished: dedupe rows");
    expect(entries[1]).toContain("- Decision: [agent-proposed] SHA-1 of the row as the key\n");
    expect(entries[1]).toContain("- Superseded: [user-directed] keep the first duplicate\n");
    expect(entries[1]).toContain("- Failed approach: sqlite temp table: lock contention\n");
    expect(entries[1]).not.toContain("- Failed approach: sort -u");
    // The entry's id is the saved handoff's token.
    expect(entries[1]).toContain(` save ${tokenOf(root).slice(0, 16)}\n`);
    expect(entries[1]).toMatch(/- Dropped: run `npm test`/);
  });

  it("`- none` under Decisions or Failed approaches is journaled as nothing, then as nothing superseded", () => {
    const root = gitRepo();
    expect(spawnedWrite(root, doc({ plan: ["[ ] stream rows"], decisions: ["none"], failed: ["none"] })).code).toBe(0);
    expect(spawnedWrite(root, doc({ plan: ["[~] stream rows"], decisions: ["[user-directed] keep the first duplicate"], failed: ["None."] })).code).toBe(0);
    const text = readFileSync(monthFile(root), "utf8");
    expect(text).toContain("- Decision: [user-directed] keep the first duplicate\n");
    expect(text).not.toMatch(/^- (Decision|Failed approach|Superseded): none\.?$/im);
  });

  it("an entry stays within 4,096 bytes and says how many items it left out", async () => {
    const root = gitRepo();
    const decisions = Array.from({ length: 60 }, (_, i) => `[agent-proposed] decision number ${i} about the importer's buffering and its limits`);
    expect((await write(root, doc({ decisions }))).code).toBe(0);
    const text = readFileSync(monthFile(root), "utf8");
    const entry = text.slice(text.indexOf("\n## ") + 1);
    expect(Buffer.byteLength(entry)).toBeLessThanOrEqual(4096);
    expect(entry).toMatch(/- Dropped: \(\d+ more items left out\)\n/);
    expect(entry).toContain("decision number 0 ");
  });

  it("thousands of items: the busiest label loses its last items first, the entry filled to its limit", async () => {
    const root = gitRepo();
    const decisions = Array.from({ length: 3000 }, (_, i) => `[agent-proposed] decision number ${i} about buffering`);
    const failed = Array.from({ length: 5 }, (_, i) => `approach ${i}: broke the build`);
    expect((await write(root, doc({ decisions, failed }))).code).toBe(0);
    const text = readFileSync(monthFile(root), "utf8");
    const entry = text.slice(text.indexOf("\n## ") + 1);
    const kept = entry.match(/^- Decision: /gm)!.length;
    expect(entry).toContain(`- Dropped: (${3000 - kept} more items left out)\n`);
    for (let i = 0; i < 5; i++) expect(entry).toContain(`- Failed approach: approach ${i}: broke the build\n`);
    expect(entry).toContain(`decision number ${kept - 1} about`);
    expect(entry).not.toContain(`decision number ${kept} about`);
    expect(Buffer.byteLength(entry)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(entry) + `- Decision: [agent-proposed] decision number ${kept} about buffering\n`.length).toBeGreaterThan(4096);
  });

  it("a secret in the previous handoff's text (edited by hand) never reaches the journal", async () => {
    const root = gitRepo();
    expect((await write(root, doc({ decisions: ["[user-directed] keep it"] }))).code).toBe(0);
    const file = path.join(root, ".ai", "memory", "HANDOFF.md");
    const key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    writeFileSync(file, readFileSync(file, "utf8").replace("[user-directed] keep it", `[user-directed] keep it, token ${key}`));
    expect((await write(root, doc({ decisions: ["[user-directed] something else"] }))).code).toBe(0);
    const text = readFileSync(monthFile(root), "utf8");
    expect(text).not.toContain(key);
    expect(text).toMatch(/- Superseded: .*<redacted: [a-z-]+>/);
  });
});

describe("journal on disk", () => {
  it.each(["journal-before-publication", "journal-after-publication"])("a crash at %s leaves the month whole (the entry whole or absent); the next save appends", async (phase) => {
    const root = gitRepo();
    expect((await write(root, doc({ goal: "first" }))).code).toBe(0);
    const before = readFileSync(monthFile(root), "utf8");
    const crashed = spawnedWrite(root, doc({ goal: "second" }), { MEMORY_IO_FAILPOINT: `${phase}:crash` });
    expect(crashed.code).not.toBe(0);
    // Whatever the crash left, the month file (or its claim, when it crashed after the claim)
    // holds the first entry whole; the second entry is whole or absent.
    expect((await write(root, doc({ goal: "third" }))).code).toBe(0);
    const after = readFileSync(monthFile(root), "utf8");
    expect(after.startsWith(before)).toBe(true);
    const goals = [...after.matchAll(/^- Goal: (.*)$/gm)].map((m) => m[1]);
    expect(goals[0]).toBe("first");
    expect(goals[goals.length - 1]).toBe("third");
    expect(goals.length === 2 || (goals.length === 3 && goals[1] === "second")).toBe(true);
    expect(readdirSync(journalDir(root)).filter((n) => n.startsWith("."))).toEqual([]);
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
  });

  it("a temp file a killed append left (write-file-atomic's `<month>.md.<number>`) is removed by the next save (found by a breaker)", async () => {
    const root = gitRepo();
    expect((await write(root, doc({ goal: "first" }))).code).toBe(0);
    const dead = `${monthFile(root)}.2740516273`;
    writeFileSync(dead, readFileSync(monthFile(root)));
    const kept = path.join(journalDir(root), "notes.md.1");
    writeFileSync(kept, "the user's own file\n");
    expect((await write(root, doc({ goal: "second" }))).code).toBe(0);
    expect(existsSync(dead)).toBe(false);
    expect(readFileSync(kept, "utf8")).toBe("the user's own file\n");
  });

  it("a month that would pass 1,000,000 bytes goes on in <YYYY-MM>-2.md", async () => {
    const root = gitRepo();
    expect((await write(root, doc({ goal: "first" }))).code).toBe(0);
    const file = monthFile(root);
    const entry = (i: number) => `## ${new Date().toISOString().slice(0, 19)}Z save ${(i + 4096).toString(16).padStart(16, "0")}\n- Goal: ${"x".repeat(40)}\n\n`;
    // Built in one join with a running byte count: appending to one string and measuring it on
    // every turn was quadratic (about 15,000 turns) and timed out under load.
    const parts = [readFileSync(file, "utf8")];
    let bytes = Buffer.byteLength(parts[0]!);
    for (let i = 0; bytes < 999_900; i++) {
      const next = entry(i);
      parts.push(next);
      bytes += Buffer.byteLength(next);
    }
    const text = parts.join("");
    expect(Buffer.byteLength(text)).toBeLessThan(1_000_000);
    writeFileSync(file, text);
    expect((await write(root, doc({ goal: "overflow" }))).code).toBe(0);
    const second = path.join(journalDir(root), `${month()}-2.md`);
    expect(readFileSync(file, "utf8")).toBe(text);
    const cont = readFileSync(second, "utf8");
    expect(cont.startsWith(`${MARKER}\n# Journal ${month()} (part 2)\n`)).toBe(true);
    expect(cont).toContain("- Goal: overflow\n");
    const found = await inProcess(["search", "overflow", "--root", root, "--json"]);
    expect(JSON.parse(found.stdout).results[0].file).toBe(`journal/${month()}-2.md`);
  });

  it.each([
    ["a line outside the schema", "- Note: hand-written\n", /line \d+: expected `- <Label>: <text>`/],
    ["conflict markers", "<<<<<<< ours\n", /line \d+: a merge conflict marker/],
  ])("a month edited by hand with %s is kept as it is; the save goes on and stderr names the line", async (_what, line, message) => {
    const root = gitRepo();
    expect((await write(root, doc({ goal: "first" }))).code).toBe(0);
    const file = monthFile(root);
    const edited = readFileSync(file, "utf8").replace("- Goal: first\n", `- Goal: first\n${line}`);
    writeFileSync(file, edited);
    const r = await write(root, doc({ goal: "second" }));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/journal: not appended: journal\/\d{4}-\d\d\.md /);
    expect(r.stderr).toMatch(message);
    expect(readFileSync(file, "utf8")).toBe(edited);
  });

  it("a hand-edited entry that keeps the schema is kept and searched", async () => {
    const root = gitRepo();
    expect((await write(root, doc({ goal: "first" }))).code).toBe(0);
    const file = monthFile(root);
    writeFileSync(file, readFileSync(file, "utf8").replace("- Goal: first\n", "- Goal: first\n- Decision: [user-directed] never vendor the parser\n"));
    expect((await write(root, doc({ goal: "second" }))).code).toBe(0);
    const out = (await inProcess(["search", "vendor", "parser", "--root", root])).stdout;
    expect(out).toContain("never vendor the parser");
  });

  it("journal/OFF stops new entries and folds, and publish then commits no journal file", async () => {
    const root = gitRepo();
    expect((await write(root, doc({ goal: "first" }))).code).toBe(0);
    writeFileSync(path.join(journalDir(root), "OFF"), "");
    const before = readFileSync(monthFile(root), "utf8");
    expect((await write(root, doc({ goal: "second" }))).code).toBe(0);
    expect(readFileSync(monthFile(root), "utf8")).toBe(before);
    const pub = await inProcess(["publish", "--root", root, "--message", "memory"]);
    expect(pub.code).toBe(0);
    const committed = git(root, "show", "--name-only", "--format=", "HEAD");
    expect(committed).toContain(".ai/memory/HANDOFF.md");
    expect(committed).not.toContain("journal/");
  });

  it("publish commits the journal's month file with the handoff", async () => {
    const root = gitRepo();
    expect((await write(root, doc({ goal: "first" }))).code).toBe(0);
    writeFileSync(path.join(journalDir(root), "notes.txt"), "not ours");
    expect(helper(["publish", "--root", root, "--message", "memory"]).code).toBe(0);
    const committed = git(root, "show", "--name-only", "--format=", "HEAD");
    expect(committed).toContain(`.ai/memory/journal/${month()}.md`);
    expect(committed).not.toContain("notes.txt");
  });
});

describe("journal purge", () => {
  let fixture: string;
  beforeAll(async () => {
    fixture = lastingGitRepo();
    expect((await write(fixture, doc({ goal: "first" }))).code).toBe(0);
    for (const name of ["2025-01.md", "2025-02.md", "2025-02-2.md", "2024.md"]) {
      writeFileSync(path.join(journalDir(fixture), name), `${MARKER}\n# Journal ${name.slice(0, 7).replace(/\.md$|\.$/, "")}\n`);
    }
    writeFileSync(path.join(journalDir(fixture), "keep.txt"), "the user's");
  });
  /** A copy of one saved project with journal files of past months and a file of the user's. */
  const seeded = () => copyOf(fixture);

  it("--before deletes only journal files of earlier months; a year file goes with its whole year", async () => {
    const root = seeded();
    const r = await inProcess(["journal", "purge", "--before", "2025-02", "--root", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("purged 2 journal file(s)\njournal/2024.md\njournal/2025-01.md\n");
    expect(readdirSync(journalDir(root)).sort()).toEqual(["2025-02-2.md", "2025-02.md", `${month()}.md`, "keep.txt"].sort());
  });

  it("without --before every journal file goes, nothing else", async () => {
    const root = seeded();
    expect((await inProcess(["journal", "purge", "--root", root])).code).toBe(0);
    expect(readdirSync(journalDir(root))).toEqual(["keep.txt"]);
  });

  it.each([
    [["journal", "purge", "--before", "2025-13"], 2, /--before takes a month as YYYY-MM/],
    [["journal", "list"], 2, /journal takes one action, purge/],
  ])("%j is refused and changes nothing", async (args, code, message) => {
    const root = seeded();
    const before = readdirSync(journalDir(root)).sort();
    const r = await inProcess([...args, "--root", root]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(readdirSync(journalDir(root)).sort()).toEqual(before);
  });

  it("a link or a folder named like a journal file is refused before anything is deleted", async () => {
    const root = seeded();
    const outside = path.join(tempDir("sh-notes-"), "notes.md");
    writeFileSync(outside, "the user's notes\n");
    symlinkSync(outside, path.join(journalDir(root), "2025-03.md"));
    mkdirSync(path.join(journalDir(root), "2025-04.md"));
    const before = readdirSync(journalDir(root)).sort();
    const r = await inProcess(["journal", "purge", "--root", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: journal\/2025-03\.md is a link, not a journal file; move it/);
    expect(r.stderr).not.toMatch(/EISDIR|file system error/);
    expect(readdirSync(journalDir(root)).sort()).toEqual(before);
    expect(readFileSync(outside, "utf8")).toBe("the user's notes\n");
  });

  it("a folder alone is named as a folder, and nothing goes", async () => {
    const root = seeded();
    mkdirSync(path.join(journalDir(root), "2025-04.md"));
    const before = readdirSync(journalDir(root)).sort();
    const r = await inProcess(["journal", "purge", "--before", "2025-05", "--root", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/journal\/2025-04\.md is a folder, not a journal file/);
    expect(readdirSync(journalDir(root)).sort()).toEqual(before);
  });

  it("in a repository that never saved, there is nothing to purge and no memory folder is made", async () => {
    const root = gitRepo();
    const r = await inProcess(["journal", "purge", "--root", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^nothing to purge/);
    expect(existsSync(path.join(root, ".ai"))).toBe(false);
  });

  it("is refused while writes are paused", async () => {
    const root = seeded();
    writeFileSync(path.join(root, ".ai", "memory", "PAUSE"), "");
    const before = readdirSync(journalDir(root)).sort();
    expect((await inProcess(["journal", "purge", "--root", root])).code).toBe(4);
    expect(readdirSync(journalDir(root)).sort()).toEqual(before);
  });
});

describe("a year of saves", () => {
  // Twelve months of synthetic entries (two saves a month), as the helper writes them; then
  // real saves fold every month more than six whole months old, one month per save.
  function yearOfJournal(root: string): { period: string; decision: string; failed: string }[] {
    mkdirSync(journalDir(root), { recursive: true });
    const months: { period: string; decision: string; failed: string }[] = [];
    for (let back = 12; back >= 1; back--) {
      const period = monthsBack(back);
      const decision = `[user-directed] decision of ${period}: use codec-${back}`;
      const failed = `approach of ${period} failed: retry-loop-${back}`;
      const entries = [1, 2]
        .map((n) => `## ${period}-0${n}T10:00:00Z save ${(back * 16 + n).toString(16).padStart(16, "0")}\n- Goal: work of ${period}\n- Finished: step ${n}\n${n === 1 ? `- Decision: ${decision}\n- Failed approach: ${failed}\n` : ""}\n`)
        .join("");
      writeFileSync(path.join(journalDir(root), `${period}.md`), `${MARKER}\n# Journal ${period}\n\n${entries}`);
      months.push({ period, decision, failed });
    }
    return months;
  }

  it("folds one old month per save into its year file, keeps six whole months, and search finds every month's decisions and failed approaches", async () => {
    const root = gitRepo();
    const months = yearOfJournal(root);
    const due = months.filter((_, i) => i < 6);
    for (let i = 0; i < due.length; i++) {
      const r = await write(root, doc({ goal: `save ${i}` }));
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`journal: folded journal/${due[i]!.period}.md (2 entries) into journal/${due[i]!.period.slice(0, 4)}.md`);
    }
    // Nothing more is due.
    expect((await write(root, doc({ goal: "one more" }))).stderr).not.toContain("journal: folded");
    const left = readdirSync(journalDir(root)).filter((n) => /^\d{4}-\d\d\.md$/.test(n));
    expect(left.sort()).toEqual([...months.slice(6).map((m) => `${m.period}.md`), `${month()}.md`].sort());
    for (const m of due) {
      const year = readFileSync(path.join(journalDir(root), `${m.period.slice(0, 4)}.md`), "utf8");
      expect(year).toContain(`## ${m.period}\n`);
      expect(year).toContain(`Decision: ${m.decision}`);
      expect(year).toContain("- (2 save(s), 0 resume(s), 2 step(s) finished, 0 item(s) dropped, 0 decision(s) superseded)");
    }
    for (const m of months) {
      const hits = JSON.parse((await inProcess(["search", m.period, "codec", "--root", root, "--json"])).stdout).results;
      expect(hits.map((h: { text: string }) => h.text).join("\n")).toContain(m.decision.slice(m.decision.indexOf("decision")));
      const failed = JSON.parse((await inProcess(["search", "failed", m.period, "--kind", "journal", "--root", root, "--json"])).stdout).results;
      expect(failed.map((h: { text: string }) => h.text).join("\n")).toContain(m.failed);
    }
  });

  it("a fold killed between the year file and the month's removal adds nothing twice", async () => {
    const root = gitRepo();
    const months = yearOfJournal(root);
    const crashed = spawnedWrite(root, doc({ goal: "crash" }), { MEMORY_IO_FAILPOINT: "journal-after-publication:crash" });
    expect(crashed.code).not.toBe(0);
    // The month entry was appended (first publication); the crash was there: nothing folded yet.
    expect((await write(root, doc({ goal: "next" }))).code).toBe(0);
    const yearFile = path.join(journalDir(root), `${months[0]!.period.slice(0, 4)}.md`);
    const year = readFileSync(yearFile, "utf8");
    expect(year.split(`## ${months[0]!.period}\n`)).toHaveLength(2);
    expect(existsSync(path.join(journalDir(root), `${months[0]!.period}.md`))).toBe(false);
  });
});

describe("search", () => {
  it.each([
    [["search", "x".repeat(1001)], 2, /the query is 1001 characters; search takes at most 1000/],
    [["search", ".*", "[]"], 2, /the query has no word/],
    [["search", "a", "--since", "yesterday"], 2, /--since takes a date as YYYY-MM-DD/],
    [["search", "a", "--kind", "notes"], 2, /--kind takes journal, archive, handoff, ledger, checkpoint/],
  ])("%j is refused with what to do", async (args, code, message) => {
    const root = gitRepo();
    const r = await inProcess([...args, "--root", root]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it("a regular expression is searched as its words; results sit inside the envelope and JSON escapes invisible code points", async () => {
    const root = gitRepo();
    expect((await write(root, doc({ decisions: ["[user-directed] cache the parsed rows"] }))).code).toBe(0);
    const human = await inProcess(["search", "^cach(e|ing).*rows$", "--root", root]);
    expect(human.code).toBe(0);
    const lines = human.stdout.split("\n");
    expect(lines[0]).toMatch(/^search: \d+ result\(s\) for "cach e ing rows" in 2 file\(s\)$/);
    expect(lines[1]).toMatch(/^<<<BEGIN UNTRUSTED SEARCH [0-9a-f]{16}>>>$/);
    expect(lines[2]).toMatch(/^1\. journal\/\d{4}-\d\d\.md · \d{4}-\d\d-\d\d · Decision · \[user-directed\] \(also in 1 other file\(s\)\)$/);
    expect(lines[3]).toBe("   [user-directed] cache the parsed rows");
    expect(lines.at(-2)).toMatch(/^<<<END UNTRUSTED SEARCH [0-9a-f]{16}>>>$/);
    const ledger = path.join(root, ".ai", "memory", "LESSONS.md");
    writeFileSync(ledger, `${MARKER}\n# Lessons\n\n## L-0001: rows\n- Lesson: cache\u2028rows \u202Eevil\n- Source: [agent-proposed], 2026-10-03\n- Status: active\n`);
    const json = (await inProcess(["search", "evil", "--root", root, "--json"])).stdout;
    expect(json).not.toMatch(/[\u2028\u202E]/);
    expect(json).toContain("\\u2028");
    expect(JSON.parse(json).results[0]).toMatchObject({ file: "LESSONS.md", kind: "ledger", date: "2026-10-03", section: "L-0001: rows", label: "[agent-proposed]" });
    expect(JSON.parse(json).results[0].text).toContain("cache\u2028rows \u202Eevil");
  });
});

describe("doctor and the journal", () => {
  it("counts the journal's files, says OFF, and names a line that breaks the schema", async () => {
    const root = gitRepo();
    expect((await write(root, doc({ goal: "first" }))).code).toBe(0);
    const d1 = JSON.parse((await inProcess(["doctor", "--root", root, "--json"])).stdout);
    expect(d1.memory.journal).toEqual({ files: 1, off: false, problems: [] });
    writeFileSync(monthFile(root), readFileSync(monthFile(root), "utf8") + "stray line\n");
    writeFileSync(path.join(journalDir(root), "OFF"), "");
    const d2 = await inProcess(["doctor", "--root", root]);
    expect(d2.code).toBe(0);
    expect(d2.stdout).toMatch(/journal: 1 file\(s\), off \(journal\/OFF\)/);
    expect(d2.stdout).toMatch(/journal\/\d{4}-\d\d\.md line \d+: outside an entry/);
  });
});
