// A `git pull --rebase` replays each of the user's commits through the merge driver
// (docs/decisions/rebase-archives.md): it leaves at most the one archive a merge would, and every
// handoff either clone saved stays in the handoff, archive/ or the history that the rebase keeps.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { aged, handoff, helper, tempDir } from "../helpers.ts";

function world() {
  const base = tempDir("sh-rebase-archives-");
  const home = path.join(base, "home");
  mkdirSync(home);
  const gitConfig = path.join(base, "gitconfig");
  writeFileSync(gitConfig, "[user]\n\tname = T\n\temail = t@example.com\n[commit]\n\tgpgsign = false\n[init]\n\tdefaultBranch = main\n");
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: gitConfig, GIT_CEILING_DIRECTORIES: base };
  const git = (dir: string, ...args: string[]) => {
    const r = spawnSync("git", args, { cwd: dir, env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 });
    expect(r.status, `git ${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(0);
    return `${r.stdout}${r.stderr}`;
  };
  const run = (dir: string, args: string[], input?: string) => helper([...args, "--root", dir], { env, input });
  // A save as of `iso` (its state time) with a decision of its own, then publish.
  const saved = (dir: string, goal: string, iso: string) => {
    const token = /CURRENT-SHA256: (\S+)/.exec(run(dir, ["read", "handoff"]).stdout)?.[1] ?? "absent";
    const doc = aged(handoff(goal), iso).replace("## Decisions\n- none", `## Decisions\n- chose ${goal}`);
    const w = run(dir, ["write", "handoff", "--expected-current-sha256", token], doc);
    expect(w.code, w.stderr).toBe(0);
    const p = run(dir, ["publish"]);
    expect(p.code, `${p.stdout}${p.stderr}`).toBe(0);
  };
  const memory = (dir: string) => path.join(dir, ".ai", "memory");
  const untracked = (dir: string) => git(dir, "status", "--porcelain").split("\n").filter((l) => l.startsWith("??"));
  // Every handoff text the clone holds: the current one and each in archive/.
  const texts = (dir: string) => [
    readFileSync(path.join(memory(dir), "HANDOFF.md"), "utf8"),
    ...readdirSync(path.join(memory(dir), "archive")).filter((n) => n.startsWith("HANDOFF-"))
      .map((n) => readFileSync(path.join(memory(dir), "archive", n), "utf8")),
  ];
  const two = () => {
    const remote = path.join(base, "remote.git");
    git(base, "init", "-q", "--bare", remote);
    const [a, b] = [path.join(base, "alice"), path.join(base, "bob")];
    git(base, "clone", "-q", remote, a);
    git(a, "commit", "-q", "--allow-empty", "-m", "init");
    saved(a, "shared", "2026-11-29T08:00:00Z");
    git(a, "push", "-q", "origin", "main");
    git(base, "clone", "-q", remote, b);
    expect(run(b, ["publish"]).code).toBe(0); // registers the merge driver in Bob's clone
    return { a, b };
  };
  return { git, run, saved, untracked, texts, two };
}

describe("git pull --rebase through the merge driver", () => {
  for (const [who, alice] of [["Bob's last handoff", "2026-11-29T09:00:00Z"], ["the upstream's", "2026-11-29T10:00:00Z"]]) {
    it(`three replayed saves leave one archive, not three, when ${who} is the later`, { timeout: 120_000 }, () => {
      const { git, run, saved, untracked, texts, two } = world();
      const { a, b } = two();
      saved(a, "alice", alice!);
      git(a, "push", "-q");
      for (const n of [1, 2, 3]) saved(b, `bob ${n}`, `2026-11-29T09:0${n}:00Z`);
      const out = git(b, "pull", "-q", "--rebase");
      expect(out).not.toContain("CONFLICT");
      // Old: one untracked archive per replayed commit (three).
      expect(untracked(b)).toHaveLength(1);
      const all = texts(b).join("\n");
      for (const goal of ["alice", "bob 1", "bob 2", "bob 3"]) expect(all).toContain(`## Current goal\n${goal}\n`);
      const current = texts(b)[0]!;
      // Each side's last decision is merged in (Bob's own saves replaced his earlier ones).
      for (const goal of ["alice", "bob 3"]) expect(current).toContain(`- chose ${goal}`);
      // The line names the archive left; brief says a merge met two handoffs (a long line leaves the archive's name
      // out first), and `archives list` names it.
      const name = /^Merged-with: archive\/(HANDOFF-\S+\.md);/m.exec(current)?.[1];
      expect(untracked(b)[0]).toBe(`?? .ai/memory/archive/${name}`);
      expect(run(b, ["brief"]).stdout).toContain("two handoffs met in a merge");
      expect(run(b, ["archives", "list"]).stdout).toContain(name);
      expect(run(b, ["check"]).code).toBe(2);
    });
  }

  it("no archive when the upstream's handoff falls between the replayed saves: it stays in the history", { timeout: 120_000 }, () => {
    const { git, saved, untracked, texts, two } = world();
    const { a, b } = two();
    saved(a, "alice", "2026-11-29T09:02:30Z");
    git(a, "push", "-q");
    for (const n of [1, 2, 3]) saved(b, `bob ${n}`, `2026-11-29T09:0${n}:00Z`);
    expect(git(b, "pull", "-q", "--rebase")).not.toContain("CONFLICT");
    expect(untracked(b)).toEqual([]);
    const current = texts(b)[0]!;
    expect(current).toContain("## Current goal\nbob 3\n");
    for (const goal of ["alice", "bob 3"]) expect(current).toContain(`- chose ${goal}`);
    expect(git(b, "show", "origin/main:.ai/memory/HANDOFF.md")).toContain("## Current goal\nalice\n");
  });
});
