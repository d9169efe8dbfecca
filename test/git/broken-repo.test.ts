// A work tree git cannot read (a corrupt index, a HEAD whose object is missing) is not "no
// repository": anchors and drift say what is wrong and how to repair it
// (docs/design.md#verdicts-and-the-brief). Real repositories, the built bundle.
import { spawnSync } from "node:child_process";
import { appendFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, tempDir } from "../helpers.ts";

function saved(): string {
  const root = gitRepo();
  const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("broken repo") });
  expect(w.code, w.stderr).toBe(0);
  return root;
}

const breakages: [string, (root: string) => void][] = [
  ["a corrupt index", (root) => writeFileSync(path.join(root, ".git", "index"), "garbage\n")],
  [
    "a missing HEAD object",
    (root) => {
      const id = git(root, "rev-parse", "HEAD").trim();
      rmSync(path.join(root, ".git", "objects", id.slice(0, 2), id.slice(2)), { force: true });
    },
  ],
];

describe("a repository git cannot read is named as such, with the repair", () => {
  for (const [what, breakIt] of breakages) {
    it(`${what}: anchors' note and drift's summary`, () => {
      const root = saved();
      breakIt(root);
      const a = helper(["anchors", "--root", root]);
      expect(a.code, a.stderr).toBe(0);
      expect(a.stderr).not.toContain("not a git repository");
      expect(a.stderr).toMatch(/^note: git cannot read the repository here \(fatal: .+\); anchors are the outside-git ones: repair it \(a corrupt index: remove \.git\/index, then `git reset`; a missing object: `git fsck`, then fetch or restore it\)$/m);
      const d = JSON.parse(helper(["drift", "--root", root, "--json"]).stdout);
      expect(d.git.state).toBe("broken");
      expect(d.verdict).toBe("unverifiable");
      expect(d.summary).toMatch(/^unverifiable: git cannot read the repository at the root \(fatal: .+\), so only age and key files were checked: repair it/);
      expect(d.summary).not.toContain("not in a git repository");
    });
  }

  it("a folder outside any repository still reads 'not a git repository'", () => {
    const root = gitRepo();
    rmSync(path.join(root, ".git"), { recursive: true, force: true });
    const a = helper(["anchors", "--root", root], { env: { GIT_CEILING_DIRECTORIES: path.dirname(root) } });
    expect(a.stderr).toMatch(/^note: not a git repository \(fatal: not a git repository/m);
  });
});

describe("a named pipe among git's config files (docs/decisions/config-pipe.md)", () => {
  it("git itself waits on it; check says so at once instead of waiting out git's timeout", { timeout: 60_000 }, () => {
    const root = saved();
    // A teammate's clone: the attributes name the merge driver, so check asks git's config for it.
    writeFileSync(path.join(root, ".gitattributes"), ".ai/memory/**/*.md merge=session-handoff eol=lf\n");
    const pipe = path.join(tempDir(), "pipe");
    spawnSync("mkfifo", [pipe]);
    appendFileSync(path.join(root, ".git", "config"), `[include]\n\tpath = ${pipe}\n`);
    const status = spawnSync("git", ["status"], { cwd: root, timeout: 2000, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
    expect(status.signal).toBe("SIGTERM");
    const said = `git reads ${pipe} (named by include.path in ${path.join(root, ".git", "config")}), a named pipe: git ` +
      "waits on it forever, so check ran no git; remove that include or the pipe\n";
    for (const [code, move] of [[2, false], [0, true]] as const) {
      // Without a handoff, check would ask git for a stash or branch holding one.
      if (move) renameSync(path.join(root, ".ai", "memory", "HANDOFF.md"), path.join(root, "HANDOFF.md"));
      const started = Date.now();
      const c = helper(["check", "--root", root]);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(c.code).toBe(code);
      expect(c.stderr).toBe(said);
    }
  });
});
