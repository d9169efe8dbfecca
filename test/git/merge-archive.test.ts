// The archive the merge driver writes during a real `git merge` is an archive like a save's: not
// ignored, untracked until `publish` commits it; the driver's line says so (docs/design.md#the-merge-driver).
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyOf, handoff, helper, lastingTempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

/** git and the helper in `base`'s project, with `base`'s home. */
function inBase(base: string) {
  const home = path.join(base, "home");
  const dir = path.join(base, "project");
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  const git = (...args: string[]) => {
    const ident = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"];
    const r = spawnSync("git", [...ident, ...args], { cwd: dir, env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };
  // The verbs run in this process; git starts the merge driver, the built helper, as its own process.
  const run = (args: string[], input?: string) => inProcess([...args, "--root", dir], { env, input });
  return { home, dir, env, git, run };
}

let template: string | null = null;

/**
 * Two branches that both saved and published HANDOFF.md, main checked out: made once (the first save
 * and publish through the built helper), each test a copy. The merge driver's command in .git/config
 * names its copy of the helper by absolute path: moved to the test's copy, as publish there would write it.
 */
async function twoBranches() {
  if (template === null) {
    const base = lastingTempDir("sh-merge-archive-");
    const { home, dir, env, git, run } = inBase(base);
    mkdirSync(home);
    mkdirSync(dir);
    const save = async (goal: string, spawn = false) => {
      const token = /CURRENT-SHA256: (\S+)/.exec((await run(["read", "handoff"])).stdout)![1]!;
      const write = ["write", "handoff", "--expected-current-sha256", token, "--root", dir];
      expect((spawn ? helper(write, { env, input: handoff(goal) }) : await inProcess(write, { env, input: handoff(goal) })).code).toBe(0);
      const p = spawn ? helper(["publish", "--root", dir], { env }) : await run(["publish"]);
      expect(p.code, `${p.stdout}${p.stderr}`).toBe(0);
    };
    expect(git("init", "-q").code).toBe(0);
    for (const [k, v] of [["user.name", "Test"], ["user.email", "test@example.com"], ["commit.gpgsign", "false"]]) git("config", k!, v!);
    expect(git("commit", "-q", "--allow-empty", "-m", "init").code).toBe(0);
    await save("the base goal", true);
    expect(git("checkout", "-q", "-b", "side").code).toBe(0);
    await save("the side's goal");
    expect(git("checkout", "-q", "main").code).toBe(0);
    await save("main's goal");
    expect(git("grep", "-q", base, "HEAD", "side").code).toBe(1);
    template = base;
  }
  const base = copyOf(template);
  const config = path.join(base, "project", ".git", "config");
  writeFileSync(config, readFileSync(config, "utf8").replaceAll(template, base));
  expect(readFileSync(config, "utf8")).toContain(path.join(base, "project", ".git", "session-handoff"));
  return inBase(base);
}

describe("the merge driver's archive", () => {
  it("two branches that both saved HANDOFF.md: the merge is clean but for the archive, which publish commits", { timeout: 120_000 }, async () => {
    const { dir, git, run } = await twoBranches();
    const m = git("merge", "--no-edit", "side");
    expect(m.code, m.out).toBe(0);
    const name = /^Merged-with: archive\/(\S+\.md);/m.exec(readFileSync(path.join(dir, ".ai", "memory", "HANDOFF.md"), "utf8"))![1]!;
    expect(readdirSync(path.join(dir, ".ai", "memory", "archive"))).toContain(name);
    const rel = `.ai/memory/archive/${name}`;
    expect(m.out).toContain(`the other is archive/${name}, not in this merge's commit: \`publish\` commits it`);
    // Like every archive a save makes: seen by git (not ignored), untracked until publish.
    expect(git("status", "--porcelain").out).toBe(`?? ${rel}\n`);
    expect(git("check-ignore", "-q", rel).code).toBe(1);
    const p = await run(["publish"]);
    expect(p.code, p.stderr).toBe(0);
    expect(git("status", "--porcelain").out).toBe("");
    expect(git("ls-files", "--", rel).out).toBe(`${rel}\n`);
  });

  it("while memory writes are paused it writes nothing: git's conflict stands, no archive (found by a breaker)", { timeout: 120_000 }, async () => {
    const { dir, git, run } = await twoBranches();
    const mem = path.join(dir, ".ai", "memory");
    writeFileSync(path.join(mem, "PAUSE"), "");
    const m = git("merge", "--no-edit", "side");
    expect(m.code).not.toBe(0);
    expect(m.out).toContain("session-handoff merge driver: memory writes are paused");
    // The side's archives come with the merge; the driver's own would be the one git does not track.
    expect(git("status", "--porcelain").out).not.toMatch(/^\?\? .*archive/m);
    expect(git("status", "--porcelain").out).toMatch(/^UU \.ai\/memory\/HANDOFF\.md$/m);
    const text = readFileSync(path.join(mem, "HANDOFF.md"), "utf8");
    expect(text).not.toContain("Merged-with:");
    // Both sides stay, between git's markers: check refuses it as conflicted, not as one side to resume (found by a
    // second breaker, when the paused driver left only ours).
    expect(text).toMatch(/^<<<<<<< ours\n[^]*main's goal[^]*^=======\n[^]*the side's goal[^]*^>>>>>>> theirs$/m);
    expect((await run(["check"])).code).toBe(3);
  });
});
