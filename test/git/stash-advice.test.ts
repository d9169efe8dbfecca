// The stash advice check prints, run as printed through sh: the restore, the step its note gives before
// `git stash pop`, then the pop. Each case must end with the entry popped, the newest save in the tree and every
// archive in place (found by a newcomer: moving tracked memory aside before the pop deleted its committed archives).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { handoff, helper, tempDir } from "../helpers.ts";

function project() {
  const top = tempDir("sh-stash-advice-");
  const [dir, home] = [path.join(top, "p"), path.join(top, "home")];
  mkdirSync(dir);
  mkdirSync(home);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  Object.assign(env, { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: top,
    GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" });
  const g = (...args: string[]) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8", stdio: "pipe" });
  // A printed command runs through the shell, as a user pastes it.
  const sh = (cmd: string) => execFileSync("sh", ["-c", cmd], { cwd: dir, env, encoding: "utf8", stdio: "pipe" });
  const m = (args: string[]) => helper([...args, "--root", dir], { env });
  const save = async (goal: string) => {
    // A save in the tree's second reads as the tree's own: each save here gets a second of its own.
    await new Promise((done) => setTimeout(done, 1000 - (Date.now() % 1000) + 5));
    const tok = /CURRENT-SHA256: (\S+)/.exec(m(["read", "handoff"]).stdout)![1]!;
    const w = helper(["write", "handoff", "--root", dir, "--expected-current-sha256", tok], { env, input: handoff(goal) });
    expect(w.code, w.stderr).toBe(0);
  };
  g("init", "-q", "-b", "main");
  writeFileSync(path.join(dir, "a.txt"), "a\n");
  g("add", "a.txt");
  g("commit", "-qm", "init");
  const mem = path.join(dir, ".ai", "memory");
  const archives = () => readdirSync(path.join(mem, "archive")).sort();
  const handoffText = () => readFileSync(path.join(mem, "HANDOFF.md"), "utf8");
  return { dir, g, m, sh, save, archives, handoffText };
}

type Project = ReturnType<typeof project>;

// Work in progress the stash takes along, then every command check printed, in its order, through sh.
function stashAndFollow(p: Project, stash: string[]): string {
  writeFileSync(path.join(p.dir, "a.txt"), "wip\n");
  p.g("stash", "-q", ...stash);
  const said = p.m(["check"]).stdout;
  const cmds = [...said.matchAll(/`([^`]+)`/g)].map((x) => x[1]!);
  expect(cmds.at(-1), said).toBe("git stash pop");
  for (const cmd of cmds) p.sh(cmd);
  expect(p.g("stash", "list")).toBe("");
  expect(readFileSync(path.join(p.dir, "a.txt"), "utf8")).toBe("wip\n");
  expect(p.m(["check"]).stdout).not.toContain("stash@{");
  return said;
}

describe("the stash advice works as printed", () => {
  it("tracked memory after a plain `git stash`: no committed archive is left deleted", { timeout: 60_000 }, async () => {
    const p = project();
    await p.save("First goal.");
    await p.save("Second goal.");
    expect(p.m(["publish"]).code).toBe(0);
    await p.save("Newest goal.");
    const before = p.archives();
    const said = stashAndFollow(p, []);
    expect(said).toContain("run `git restore -- .ai/memory/HANDOFF.md` before `git stash pop`");
    expect(p.handoffText()).toContain("Newest goal.");
    expect(p.archives()).toEqual(before);
    expect(p.g("status", "--short")).not.toMatch(/^ ?D /m);
  });

  it("untracked memory after `git stash -u`: the folder goes aside, and the pop brings it back", { timeout: 60_000 },
    async () => {
      const p = project();
      await p.save("First goal.");
      await p.save("Second goal.");
      const before = p.archives();
      const said = stashAndFollow(p, ["-u"]);
      expect(said).toContain("run `mv .ai/memory .ai/memory-aside` before `git stash pop`");
      expect(p.handoffText()).toContain("Second goal.");
      expect(p.archives()).toEqual(before);
    });

  it("a staged handoff after a plain `git stash`: the restored copy goes before the pop", { timeout: 60_000 },
    async () => {
      const p = project();
      await p.save("First goal.");
      p.g("add", ".ai/memory/HANDOFF.md");
      const said = stashAndFollow(p, []);
      expect(said).toContain("run `rm .ai/memory/HANDOFF.md` before `git stash pop`");
      expect(p.handoffText()).toContain("First goal.");
    });
});
