// archive/ through git flows (docs/decisions/archive-git.md): a stash after `publish` leaves more
// archives than are kept, which is no interrupted save; two clones that each save and publish
// pull, merge and rebase each other's memory without one conflict in archive/.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { handoff, helper, tempDir } from "../helpers.ts";

function world() {
  const base = tempDir("sh-archive-flows-");
  const home = path.join(base, "home");
  mkdirSync(home);
  const gitConfig = path.join(base, "gitconfig");
  writeFileSync(gitConfig, "[user]\n\tname = T\n\temail = t@example.com\n[commit]\n\tgpgsign = false\n[init]\n\tdefaultBranch = main\n");
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: gitConfig, GIT_CEILING_DIRECTORIES: base };
  const git = (dir: string, ...args: string[]) => {
    const r = spawnSync("git", args, { cwd: dir, env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };
  const run = (dir: string, args: string[], input?: string) => helper([...args, "--root", dir], { env, input });
  const save = (dir: string, goal: string) => {
    const token = /CURRENT-SHA256: (\S+)/.exec(run(dir, ["read", "handoff"]).stdout)?.[1] ?? "absent";
    const w = run(dir, ["write", "handoff", "--expected-current-sha256", token], handoff(goal));
    expect(w.code, w.stderr).toBe(0);
  };
  const publish = (dir: string) => {
    const p = run(dir, ["publish"]);
    expect(p.code, `${p.stdout}${p.stderr}`).toBe(0);
  };
  const archives = (dir: string) => readdirSync(path.join(dir, ".ai", "memory", "archive")).filter((n) => n.startsWith("HANDOFF-"));
  return { base, git, run, save, publish, archives };
}

describe("archive/ through git flows", () => {
  it("a stash after publish and a save leaves extra archives: no interrupted save, and brief agrees", { timeout: 120_000 }, () => {
    const { base, git, run, save, publish, archives } = world();
    const dir = path.join(base, "p");
    mkdirSync(dir);
    expect(git(dir, "init", "-q").code).toBe(0);
    expect(git(dir, "commit", "-q", "--allow-empty", "-m", "init").code).toBe(0);
    for (let i = 1; i <= 7; i++) save(dir, `goal ${i}`);
    publish(dir);
    save(dir, "goal 8");
    save(dir, "goal 9");
    const s = git(dir, "stash");
    expect(s.code, s.out).toBe(0);
    // The two new archives stay (untracked) beside the five committed ones.
    expect(archives(dir).length).toBeGreaterThan(5);
    const check = run(dir, ["check"]);
    // The stash took save 9: check names it (the tree holds save 7), and no interrupted save.
    expect(check.stdout).toMatch(/^a handoff is parked and can be resumed; but a newer save of this clone is in stash@\{0\}: /);
    expect(check.stdout).not.toContain("interrupted");
    expect(check.code).toBe(2);
    expect(run(dir, ["hook", "--mode", "session"]).stdout).not.toContain("interrupted");
    expect(run(dir, ["doctor"]).stdout).not.toContain("interrupted");
    expect(run(dir, ["brief"]).code).toBe(0);
    expect(run(dir, ["recover"]).stdout).toBe("nothing to recover\n");
  });

  it("one clone saving on two branches merges them without a conflict in archive/", { timeout: 120_000 }, () => {
    const { base, git, save, publish } = world();
    const dir = path.join(base, "p");
    mkdirSync(dir);
    expect(git(dir, "init", "-q").code).toBe(0);
    expect(git(dir, "commit", "-q", "--allow-empty", "-m", "init").code).toBe(0);
    for (let i = 1; i <= 6; i++) save(dir, `base ${i}`);
    publish(dir);
    expect(git(dir, "checkout", "-q", "-b", "side").code).toBe(0);
    for (const g of ["side 1", "side 2"]) save(dir, g), publish(dir);
    expect(git(dir, "checkout", "-q", "main").code).toBe(0);
    for (const g of ["main 1", "main 2"]) save(dir, g), publish(dir);
    const m = git(dir, "merge", "--no-edit", "side");
    expect(m.out).not.toContain("CONFLICT");
    expect(m.code, m.out).toBe(0);
  });

  for (const mode of ["merge", "rebase"] as const) {
    it(`two clones each save and publish six times: pulls by ${mode} both ways meet no conflict in archive/`, { timeout: 240_000 }, () => {
      const { base, git, run, save, publish, archives } = world();
      const remote = path.join(base, "remote.git");
      expect(git(base, "init", "-q", "--bare", remote).code).toBe(0);
      const [a, b] = [path.join(base, "a"), path.join(base, "b")];
      expect(git(base, "clone", "-q", remote, a).code).toBe(0);
      expect(git(a, "commit", "-q", "--allow-empty", "-m", "init").code).toBe(0);
      for (let i = 1; i <= 6; i++) save(a, `shared ${i}`);
      publish(a);
      expect(git(a, "push", "-q", "origin", "main").code).toBe(0);
      expect(git(base, "clone", "-q", remote, b).code).toBe(0);
      publish(b); // registers the merge driver in b's clone
      for (let i = 1; i <= 6; i++) {
        save(a, `alice ${i}`);
        publish(a);
        save(b, `bob ${i}`);
        publish(b);
      }
      const pull = mode === "merge" ? ["pull", "--no-rebase", "--no-edit"] : ["pull", "--rebase"];
      expect(git(a, "push", "-q").code).toBe(0);
      const first = git(b, ...pull);
      expect(first.out).not.toContain("CONFLICT");
      expect(first.code, first.out).toBe(0);
      // Only the merge driver's archives of the other handoff are new, untracked until publish.
      expect(git(b, "status", "--porcelain").out).toMatch(/^(\?\? \.ai\/memory\/archive\/HANDOFF-\S+\.md\n)*$/);
      expect(run(b, ["check"]).code).toBe(2);
      publish(b);
      expect(git(b, "push", "-q").code).toBe(0);
      const back = git(a, ...pull);
      expect(back.out).not.toContain("CONFLICT");
      expect(back.code, back.out).toBe(0);
      expect(run(a, ["check"]).code).toBe(2);
      // Every archive both clones published is in both.
      for (const name of git(b, "ls-files", ".ai/memory/archive").out.split("\n").filter(Boolean)) {
        expect(archives(a)).toContain(path.basename(name));
      }
    });
  }
});
