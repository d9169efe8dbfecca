// Memory files in a clone with `core.autocrlf=true` (Git for Windows' default): the attribute `publish` writes
// checks them out with LF, and a journal checked out with CRLF before it is still appended to.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { helper, tempDir } from "../helpers.ts";

const DOC = [
  "<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Current goal", "Ship it.", "", "## Plan", "- [ ] Dedupe rows",
  "", "## Decisions", "- [user-directed] Keep the first row: audit log", "", "## Failed approaches",
  "- Sorting first: breaks row order", "", "## Open questions", "- none", "", "## Next steps",
  "1. Bound the seen-set in a.txt — done when tests pass", "", "## Key files", "- `a.txt` — the file", "",
  "## Environment anchors", "",
].join("\n");

function person(home: string) {
  writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = U\n\temail = u@example.com\n[init]\n\tdefaultBranch = main\n");
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), GIT_CEILING_DIRECTORIES: home };
  const gitEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...env };
  return {
    git: (dir: string, ...args: string[]) => execFileSync("git", args, { cwd: dir, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
    save: (dir: string, text: string) => {
      const t = /CURRENT-SHA256: (\S+)/.exec(helper(["read", "handoff", "--root", dir], { env }).stdout)![1]!;
      return helper(["write", "handoff", "--root", dir, "--expected-current-sha256", t], { input: text, env });
    },
    run: (dir: string, args: string[]) => helper([...args, "--root", dir], { env }),
  };
}

const journalFiles = (dir: string) => {
  const j = path.join(dir, ".ai", "memory", "journal");
  return readdirSync(j).map((n) => path.join(j, n));
};

describe("memory files and core.autocrlf=true", () => {
  it("a clone made after publish checks memory out with LF, and saves append to its journal", { timeout: 60_000 }, () => {
    const home = tempDir("sh-crlf-");
    const p = person(home);
    const a = path.join(home, "a");
    mkdirSync(a);
    p.git(a, "init", "-q");
    writeFileSync(path.join(a, "a.txt"), "a\n");
    p.git(a, "add", ".");
    p.git(a, "commit", "-qm", "init");
    expect(p.save(a, DOC).code).toBe(0);
    expect(p.run(a, ["publish"]).code).toBe(0);
    const b = path.join(home, "b");
    p.git(home, "clone", "-q", "-c", "core.autocrlf=true", a, b);
    for (const f of [path.join(b, ".ai", "memory", "HANDOFF.md"), ...journalFiles(b)]) {
      expect(readFileSync(f, "utf8"), f).not.toContain("\r");
    }
    const w = p.save(b, DOC.replace("Ship it.", "Ship it today."));
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).not.toContain("journal: not appended");
    expect(journalFiles(b).map((f) => readFileSync(f, "utf8")).join("")).toContain("- Goal: Ship it today.");
    // .gitattributes is checked out with CRLF: our block in it is still ours, never added twice (found by a breaker).
    expect(readFileSync(path.join(b, ".gitattributes"), "utf8")).toContain("\r\n");
    expect(p.run(b, ["install", "--agent", "codex"]).code).toBe(0);
    expect(p.run(b, ["publish"]).code).toBe(0);
    expect(readFileSync(path.join(b, ".gitattributes"), "utf8").split("# >>> session-handoff").length).toBe(2);
    expect(p.git(b, "status", "--short", "--", ".gitattributes")).toBe("");
  });

  it("a journal with CRLF line ends (checked out before the attribute) is read and appended to", { timeout: 60_000 }, () => {
    const home = tempDir("sh-crlf-");
    const p = person(home);
    const a = path.join(home, "a");
    mkdirSync(a);
    p.git(a, "init", "-q");
    expect(p.save(a, DOC).code).toBe(0);
    const [month] = journalFiles(a);
    writeFileSync(month!, readFileSync(month!, "utf8").replace(/\n/g, "\r\n"));
    const w = p.save(a, DOC.replace("Ship it.", "Ship it today."));
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).not.toContain("journal: not appended");
    expect(readFileSync(month!, "utf8")).toContain("- Goal: Ship it today.");
    expect(p.run(a, ["doctor"]).stdout).not.toContain("journal/");
  });
});
