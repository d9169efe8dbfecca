// A handoff on a branch whose name holds a sign a shell treats specially (a quote, `=`, `%`, an emoji) is still found
// and named; the command that brings it back names the branch's commit when the name is not a plain word.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, save } from "../helpers.ts";

describe("branch names", () => {
  it.each(["it's-done", "user=alice", "rollout-50%", "fix-\u{1F41B}"])(
    "a handoff committed on %s: check names the branch and its restore command works; the status line sees it",
    { timeout: 60_000 },
    (name) => {
      const root = gitRepo();
      git(root, "switch", "-q", "-c", name);
      save(root, handoff("Ship the importer."));
      git(root, "add", "-A");
      git(root, "commit", "-qm", "memory");
      git(root, "switch", "-q", "main");
      // Before, the branch was skipped: the status line said "handoff: none" and check said nothing was saved.
      const line = helper(["statusline"], { input: JSON.stringify({ cwd: root }) }).stdout;
      expect(line).toContain(`one on branch "${name}" (run brief)`);
      const c = helper(["check", "--json", "--root", root]);
      expect(c.code, c.stderr).toBe(2);
      const j = JSON.parse(c.stdout) as { ref: string; restore: string };
      expect(j.ref).toBe(name);
      const id = git(root, "rev-parse", name).trim();
      if (!/^[\p{L}\p{N}._/+#@,-]+$/u.test(name)) expect(j.restore).toBe(`git restore --source=${id} -- .ai/memory/HANDOFF.md`);
      execFileSync("sh", ["-c", j.restore], { cwd: root });
      expect(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8")).toContain("Ship the importer.");
    },
  );

  it("a branch named like a token: every output withholds it alike and the restore command names the commit", { timeout: 60_000 }, () => {
    const root = gitRepo();
    const name = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;
    git(root, "switch", "-q", "-c", name);
    save(root, handoff("Ship the importer."));
    git(root, "add", "-A");
    git(root, "commit", "-qm", "memory");
    git(root, "switch", "-q", "main");
    const id = git(root, "rev-parse", name).trim();
    const shown = `"<name withheld: commit ${id.slice(0, 12)}>"`;
    // The session bundle (hook, status line) and the CLI's (check) spawned as users run them.
    const hook = helper(["hook", "--mode", "session", "--root", root]).stdout;
    const line = helper(["statusline", "--root", root], { input: "{}" }).stdout;
    const c = helper(["check", "--root", root]);
    // Before, the hook and the status line printed the token, and check's command read `--source=<redacted: …>`.
    for (const out of [hook, line, c.stdout + c.stderr]) {
      expect(out).not.toContain(name.slice(4));
      expect(out).toContain(`on branch ${shown}`);
    }
    expect(hook).toContain(`git restore --source=${id} -- .ai/memory/HANDOFF.md`);
    const j = JSON.parse(helper(["check", "--json", "--root", root]).stdout) as { restore: string };
    expect(j.restore).toBe(`git restore --source=${id} -- .ai/memory/HANDOFF.md`);
    execFileSync("sh", ["-c", j.restore], { cwd: root });
    expect(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8")).toContain("Ship the importer.");
  });
});
