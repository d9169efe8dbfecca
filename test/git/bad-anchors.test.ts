import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { measureDrift } from "../../src/git/drift.ts";
import { reflogNames } from "../../src/git/git-dir.ts";
import { checkAnchors, parseHandoff } from "../../src/schema/handoff.ts";
import { helper } from "../helpers.ts";
import { DAY, ENV, git, handoff, iso, loggingGit, newRepo } from "./repo.ts";

const NOW = Date.now();

/** Each case: the handoff fields to spoil, the value that must never reach git, the field reported. */
const cases: [string, (head: string) => Parameters<typeof handoff>[0], string | null, string][] = [
  ["short id", (h) => ({ head: h.slice(0, 7) }), "SHORT", "head"],
  ["non-hex id", (h) => ({ head: `${h.slice(0, 36)}wxyz` }), "wxyz", "head"],
  ["option as id", () => ({ head: "--output=/tmp/pwned" }), "--output=/tmp/pwned", "head"],
  ["41 hex digits", (h) => ({ head: `${h}a` }), null, "head"],
  // The null id names no commit; every reflog's first line carries it as the old value.
  ["the null id, 40 zeros", () => ({ head: "0".repeat(40) }), "0".repeat(40), "head"],
  ["the null id, 64 zeros", () => ({ head: "0".repeat(64) }), "0".repeat(64), "head"],
  ["branch with $(…)", () => ({ branch: "$(touch /tmp/pwned)" }), "$(touch", "branch"],
  ["branch with backticks", () => ({ branch: "`id`" }), "`id`", "branch"],
  ["date without a zone", () => ({ saved: null, date: "2024-01-02T03:04:05" }), "2024-01-02T03:04:05", "date"],
  ["date in the future", () => ({ saved: null, date: iso(NOW + 3 * DAY) }), null, "date"],
  ["no anchors section", () => ({ anchors: false }), null, "anchors"],
];

describe("bad anchors never reach git and never throw", () => {
  it.each(cases)("%s", async (_name, spoil, needle, field) => {
    const root = newRepo(NOW - 2 * DAY);
    const head = git(root, ["rev-parse", "HEAD"]);
    const spec = { saved: iso(NOW - DAY), branch: "main", head, date: iso(NOW - DAY), ...spoil(head) };
    const text = handoff(spec).replace("SHORT", "");
    const { bin, log } = loggingGit();
    const anchors = checkAnchors(parseHandoff(text), NOW);
    expect(anchors.unverifiable).toContain(field);
    const report = await measureDrift(root, { ...ENV, PATH: `${bin}:${ENV.PATH}` }, anchors, NOW);
    expect(report.unverifiable).toContain(field);
    // Every argument git got, one a line, without the `-c key=value` settings the helper adds to
    // every call (they name `log.` and such, never an anchor).
    const lines = readFileSync(log, "utf8").split("\n");
    const argv = lines.filter((a, i) => lines[i - 1] !== "-c").join("\n");
    expect(argv).toContain("status");
    if (needle !== null && needle !== "SHORT") expect(argv).not.toContain(needle);
    if (field === "head" || field === "anchors" || field === "date") {
      // No valid state time: never fresh; this history would be fresh otherwise.
      expect(report.verdict).toBe("unverifiable");
      if (field !== "date") expect(argv.split("\n")).not.toContain("log");
    } else {
      // A bad branch or date degrades only its own comparison.
      expect(report.verdict).not.toBe("unverifiable");
    }
    if (field === "branch") expect(report.branchChanged).toBeNull();
    if (field === "date") expect(report.ageDays).toBeNull();
  });

  it("a short id is never passed to git", async () => {
    const root = newRepo(NOW - 2 * DAY);
    const head = git(root, ["rev-parse", "HEAD"]);
    const { bin, log } = loggingGit();
    const anchors = checkAnchors(parseHandoff(handoff({ saved: iso(NOW - DAY), branch: "main", head: head.slice(0, 7), date: iso(NOW - DAY) })), NOW);
    await measureDrift(root, { ...ENV, PATH: `${bin}:${ENV.PATH}` }, anchors, NOW);
    expect(readFileSync(log, "utf8")).not.toContain(head.slice(0, 7));
  });

  it.each([
    ["CRLF line ends", (t: string) => t.replace(/\n/g, "\r\n")],
    ["a BOM", (t: string) => `\uFEFF${t}`],
    ["CRLF and a BOM", (t: string) => `\uFEFF${t.replace(/\n/g, "\r\n")}`],
  ])("accepts %s", async (_name, mangle) => {
    const root = newRepo(NOW - 2 * DAY);
    const head = git(root, ["rev-parse", "HEAD"]);
    const text = mangle(handoff({ saved: iso(NOW - DAY), branch: "main", head, date: iso(NOW - DAY) }));
    const anchors = checkAnchors(parseHandoff(text), NOW);
    expect(anchors.unverifiable).toEqual([]);
    const report = await measureDrift(root, ENV, anchors, NOW);
    expect(report.verdict).toBe("fresh");
    expect(report.saved.head).toBe(head);
  });

  it("with a valid date, the --since value passed to git is a number computed here", async () => {
    const root = newRepo(NOW - 3 * DAY);
    const { bin, log } = loggingGit();
    const anchors = checkAnchors(parseHandoff(handoff({ saved: "2026-01-01T00:00:00+02:00", branch: "main", head: "c".repeat(40), date: iso(NOW - DAY) })), NOW);
    await measureDrift(root, { ...ENV, PATH: `${bin}:${ENV.PATH}` }, anchors, NOW);
    // Every argument git got, one a line, without the `-c key=value` settings the helper adds to
    // every call (they name `log.` and such, never an anchor).
    const lines = readFileSync(log, "utf8").split("\n");
    const argv = lines.filter((a, i) => lines[i - 1] !== "-c").join("\n");
    expect(argv).toMatch(/^--since=@\d+$/m);
    expect(argv).not.toContain("2026-01-01");
  });

  it("an all-zero HEAD is an invalid anchor through the bundle: validation names it, drift is unverifiable, never rewritten", () => {
    const root = newRepo(NOW - 2 * DAY);
    // The reflog's first line starts with the null id as its old value.
    expect(readFileSync(path.join(root, ".git", "logs", "HEAD"), "utf8")).toMatch(/^0{40} /);
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    for (const zeros of ["0".repeat(40), "0".repeat(64)]) {
      writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), handoff({ saved: iso(NOW - DAY), branch: "main", head: zeros, date: iso(NOW - DAY) }));
      const drift = helper(["drift", "--root", root], { cwd: root });
      expect(drift.stdout + drift.stderr).not.toContain("rewritten");
      expect(drift.stdout).toContain("unverifiable");
      const v = helper(["validate", "handoff", "--root", root], { cwd: root });
      expect(v.stdout + v.stderr).toContain(`HEAD "${zeros}" is the null object id (all zeros), which names no commit`);
    }
  });

  it("the reflog never names the null id, though its first line carries it", () => {
    const root = newRepo(NOW - 2 * DAY);
    const gitDir = path.join(root, ".git");
    expect(reflogNames(gitDir, git(root, ["rev-parse", "HEAD"]))).toBe(true);
    expect(reflogNames(gitDir, "0".repeat(40))).toBe(false);
  });
});
