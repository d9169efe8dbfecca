import { readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { alreadyPresent } from "../../src/store/append.ts";
import { gitRepo, helper, sha, snapshot, tempDir } from "../helpers.ts";

// A retried promotion appends nothing.
// A link is refused naming where it points and what to do.

describe("alreadyPresent", () => {
  const target = Buffer.from("# Agents\n\n- Use pnpm.\n- Run tests with `npm test`.\n  Even on CI.\n");
  it.each([
    ["- Use pnpm.\n", true],
    ["- Use pnpm.", true],
    ["\n- Use pnpm.\n\n", true],
    ["- Run tests with `npm test`.\n  Even on CI.\n", true],
    ["- Use pnpm.\n- Run tests with `npm test`.\n", true],
    ["- Use pnpm", false],
    ["Use pnpm.\n", false],
    ["- Use pnpm.\n  Even on CI.\n", false],
    ["- Use yarn.\n", false],
    ["\n\n", false],
  ])("%j -> %s", (text, want) => {
    expect(alreadyPresent(target, text)).toBe(want);
  });
  it("matches a target saved with CRLF line ends", () => {
    expect(alreadyPresent(Buffer.from("# A\r\n- Use pnpm.\r\n"), "- Use pnpm.\n")).toBe(true);
  });
  it("an absent target holds nothing", () => {
    expect(alreadyPresent(null, "- x\n")).toBe(false);
  });
});

function promote(root: string, token: string, text: string, target = "AGENTS.md") {
  return helper(["promote", "--root", root, "--target", target, "--expected-current-sha256", token], { input: text });
}

describe("promote is idempotent", () => {
  it("a retried promotion says so, appends nothing and prints the current token (exit 0)", () => {
    const root = gitRepo();
    const first = promote(root, "absent", "- Use pnpm.\n");
    expect(first.code, first.stderr).toBe(0);
    const token = /CURRENT-SHA256: (\S+)\n$/.exec(first.stdout)![1]!;
    const bytes = readFileSync(path.join(root, "AGENTS.md"));
    // The retry with the same (now stale) token, and with the fresh one.
    for (const t of ["absent", token]) {
      const again = promote(root, t, "- Use pnpm.\n");
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(`already in AGENTS.md; nothing appended\nCURRENT-SHA256: ${token}\n`);
      expect(readFileSync(path.join(root, "AGENTS.md"))).toEqual(bytes);
    }
  });

  it("the same lines in a user's own AGENTS.md count, with no memory dir yet", () => {
    const root = gitRepo();
    writeFileSync(path.join(root, "AGENTS.md"), "# Rules\n- Use pnpm.\n- Keep it short.\n");
    const before = snapshot(root);
    const r = promote(root, "absent", "- Use pnpm.\n- Keep it short.\n");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`already in AGENTS.md; nothing appended\nCURRENT-SHA256: ${sha("# Rules\n- Use pnpm.\n- Keep it short.\n")}\n`);
    expect(snapshot(root)["AGENTS.md"]).toBe(before["AGENTS.md"]);
  });

  it("a new line is still appended, and a stale token still refused (the neighbours)", () => {
    const root = gitRepo();
    writeFileSync(path.join(root, "AGENTS.md"), "# Rules\n- Use pnpm.\n");
    const stale = promote(root, "absent", "- Something new.\n");
    expect(stale.code).toBe(2);
    expect(stale.stderr).toMatch(/changed since it was read/);
    const ok = promote(root, sha("# Rules\n- Use pnpm.\n"), "- Something new.\n");
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^appended approved lesson to AGENTS\.md\n/);
    expect(readFileSync(path.join(root, "AGENTS.md"), "utf8")).toBe("# Rules\n- Use pnpm.\n- Something new.\n");
  });

  it("compares after redaction: a lesson carrying a secret matches its redacted line", () => {
    const root = gitRepo();
    const text = "- Deploy with token gh" + "p_abcdefghijklmnopqrstuvwxyz0123456789\n";
    const first = promote(root, "absent", text);
    expect(first.code, first.stderr).toBe(0);
    const again = promote(root, "absent", text);
    expect(again.stdout).toMatch(/^already in AGENTS\.md; nothing appended\n/);
  });
});

describe("a target that is a link is refused, naming where it points and what to do", () => {
  it.each([
    ["CLAUDE.md", "AGENTS.md"],
    ["AGENTS.md", "CLAUDE.md"],
  ])("%s -> %s: use --target %s", (link, real) => {
    const root = gitRepo();
    writeFileSync(path.join(root, real), "# Rules\n");
    symlinkSync(real, path.join(root, link));
    const before = snapshot(root);
    for (const args of [
      ["promote", "--root", root, "--target", link, "--expected-current-sha256", "absent"],
      ["read-target", "--root", root, "--target", link],
    ]) {
      const r = helper(args, { input: "- lesson\n" });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${link} is a link to "${real}": the lesson belongs in ${real}; use \`--target ${real}\``);
    }
    expect(snapshot(root)).toEqual(before);
  });

  it("a link elsewhere names its target and says to replace or move it", () => {
    const root = gitRepo();
    const outside = path.join(tempDir("sh-out-"), "rules.md");
    writeFileSync(outside, "outside\n");
    symlinkSync(outside, path.join(root, "CLAUDE.md"));
    const r = promote(root, "absent", "- lesson\n", "CLAUDE.md");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`CLAUDE.md is a link to ${JSON.stringify(outside)}; the helper only uses regular files with one link (replace the link with a copy of the file it points to, or move it away, and retry)`);
    expect(readFileSync(outside, "utf8")).toBe("outside\n");
  });

  it.each(["HANDOFF.md", "LESSONS.md"])("a memory file %s that is a link names its target", (file) => {
    const root = gitRepo();
    const dir = path.join(root, ".ai", "memory");
    helper(["write", "lessons", "--root", root, "--expected-current-sha256", "absent"], { input: "<!-- memory-schema: v1 -->\n# Lessons\n" });
    writeFileSync(path.join(root, "elsewhere.md"), "x\n");
    symlinkSync("../../elsewhere.md", path.join(dir, `${file}.tmp`));
    renameSync(path.join(dir, `${file}.tmp`), path.join(dir, file));
    const kind = file === "HANDOFF.md" ? "handoff" : "lessons";
    const r = helper(["read", kind, "--root", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} is a link to "../../elsewhere.md"; the helper only uses regular files with one link`);
  });
});

describe("a lesson naming session-handoff's block markers", () => {
  // install finds its AGENTS.md block by these lines: a lone end line would leave every later install refused.
  it.each(["<!-- session-handoff:end -->\n", "- keep\n<!-- session-handoff:begin -->\nnote\n<!-- session-handoff:end -->\n"])(
    "%j is refused, nothing written", (text) => {
      const root = gitRepo();
      writeFileSync(path.join(root, "AGENTS.md"), "# Rules\n");
      const before = snapshot(root);
      const r = promote(root, sha("# Rules\n"), text);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/line \d names session-handoff's block markers, which install takes as its own; reword that line and retry/);
      expect(snapshot(root)).toEqual(before);
    });
});
