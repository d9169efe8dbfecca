// Every verb finds the same root (docs/design.md#the-root), on real repositories, worktrees and
// symlinked folders. The verbs run in this process (inProcess); the session hook and one write
// spawn the built helper.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, tempDir } from "../helpers.ts";
import { inProcess, saveIn } from "../in-process.ts";

/** A repository with its handoff at the top and a package folder `pkg/api`. */
async function monorepo(): Promise<{ top: string; pkg: string }> {
  const top = gitRepo();
  const pkg = path.join(top, "pkg", "api");
  mkdirSync(pkg, { recursive: true });
  await saveIn(top, handoff("top-level goal"), "absent");
  return { top, pkg };
}

describe("one root for every verb", () => {
  it("brief, drift, read, check and the hook from a package folder all see the top's handoff", async () => {
    const { top, pkg } = await monorepo();
    const brief = await inProcess(["brief", "--root", pkg]);
    expect(brief.code).toBe(0);
    expect(brief.stdout).toMatch(/^Goal: top-level goal$/m);
    expect(brief.stderr).toContain(`using root ${top}`);
    expect(brief.stderr.split(`using root ${top}`)).toHaveLength(2);
    expect((await inProcess(["drift", "--root", pkg])).code).toBe(0);
    expect((await inProcess(["read", "handoff", "--root", pkg])).stdout).toContain("top-level goal");
    expect((await inProcess(["check", "--root", pkg])).code).toBe(2);
    expect(helper(["hook", "--mode", "session"], { cwd: pkg }).stdout).toContain("parked handoff exists");
    // No --root at all: the current directory is the start.
    expect(await inProcess(["brief"], { cwd: pkg })).toMatchObject({ code: 0, stderr: expect.not.stringContaining("using root") });
  });

  it("a write from a package folder updates the top's handoff instead of starting a second memory", async () => {
    const { top, pkg } = await monorepo();
    const token = /CURRENT-SHA256: (\S+)/.exec((await inProcess(["read", "handoff", "--root", pkg])).stdout)![1]!;
    const w = helper(["write", "handoff", "--root", pkg, "--expected-current-sha256", token], { input: handoff("second save") });
    expect(w.code).toBe(0);
    expect(existsSync(path.join(pkg, ".ai"))).toBe(false);
    expect(readFileSync(path.join(top, ".ai", "memory", "HANDOFF.md"), "utf8")).toContain("second save");
    // The old behaviour, a second memory made with the token `absent`, is now a stale token.
    const again = await inProcess(["write", "handoff", "--root", pkg, "--expected-current-sha256", "absent"], { input: handoff("x") });
    expect(again.code).toBe(2);
    expect(existsSync(path.join(pkg, ".ai"))).toBe(false);
  });

  it("the hook takes its start from the harness's stdin cwd", async () => {
    const { pkg } = await monorepo();
    const elsewhere = tempDir("sh-elsewhere-");
    const r = helper(["hook", "--mode", "session"], { cwd: elsewhere, input: JSON.stringify({ cwd: pkg, hook_event_name: "SessionStart" }) });
    expect(r.stdout).toContain("parked handoff exists");
  });

  it("a project reached through a symlinked folder works for every verb, the hook included", async () => {
    const { top } = await monorepo();
    const links = tempDir("sh-links-");
    const link = path.join(links, "project");
    symlinkSync(top, link);
    const hook = helper(["hook", "--mode", "session", "--root", link]);
    expect(hook.stdout).toContain("parked handoff exists");
    expect(hook.stderr).toBe("");
    expect(helper(["hook", "--mode", "session"], { cwd: path.join(link, "pkg", "api") }).stdout).toContain("parked handoff exists");
    // The link's real path is the root: no `using root` note.
    const brief = await inProcess(["brief", "--root", link]);
    expect(brief).toMatchObject({ code: 0, stderr: "" });
    expect((await inProcess(["check", "--root", link])).code).toBe(2);
  });

  it("a git worktree is a project of its own: its .git file stops the walk", async () => {
    const { top } = await monorepo();
    git(top, "commit", "-qm", "placeholder", "--allow-empty");
    const wt = path.join(tempDir("sh-wt-"), "feature");
    git(top, "worktree", "add", "-q", "-b", "feature", wt);
    mkdirSync(path.join(wt, "src"));
    const brief = await inProcess(["brief", "--root", path.join(wt, "src")]);
    expect(brief.code).toBe(3);
    expect(brief.stderr).toContain(`using root ${wt}`);
    await saveIn(wt, handoff("worktree goal"), "absent");
    expect((await inProcess(["brief", "--root", path.join(wt, "src")])).stdout).toMatch(/^Goal: worktree goal$/m);
    expect((await inProcess(["brief", "--root", top])).stdout).toMatch(/^Goal: top-level goal$/m);
    const anchors = await inProcess(["anchors", "--root", path.join(wt, "src")]);
    expect(anchors.stdout).toMatch(/^- Branch: feature$/m);
  });

  it("a memory created below the repository top is kept there", async () => {
    const { top, pkg } = await monorepo();
    mkdirSync(path.join(pkg, ".ai", "memory"), { recursive: true });
    expect((await inProcess(["brief", "--root", pkg])).code).toBe(3);
    expect((await inProcess(["brief", "--root", path.join(pkg, "..")])).stdout).toMatch(/^Goal: top-level goal$/m);
    expect((await inProcess(["check", "--root", top])).code).toBe(2);
  });

  it("GIT_CEILING_DIRECTORIES stops the walk and git alike: no anchors from a repository above the ceiling", async () => {
    const top = gitRepo();
    const deep = path.join(top, "a", "b");
    mkdirSync(deep, { recursive: true });
    const env = { GIT_CEILING_DIRECTORIES: path.join(top, "a") };
    const r = await inProcess(["anchors", "--root", deep], { env });
    expect(r.stdout).toMatch(/^- Date: \S+\n$/);
    expect(r.stderr).toMatch(/not a git repository/);
    expect(r.stderr).not.toContain("using root");
    expect((await inProcess(["anchors", "--root", deep])).stdout).toMatch(/^- Branch: main$/m);
  });

  it("--root that does not exist is refused without creating anything", async () => {
    const dir = tempDir();
    const r = await inProcess(["write", "handoff", "--root", path.join(dir, "nope"), "--expected-current-sha256", "absent"], { input: handoff("x") });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/does not exist/);
    expect(existsSync(path.join(dir, "nope"))).toBe(false);
    const hook = helper(["hook", "--mode", "session", "--root", path.join(dir, "nope")]);
    expect(hook).toMatchObject({ code: 0, stdout: "" });
    expect(hook.stderr).toMatch(/does not exist/);
  });
});

describe("a folder in no git repository", () => {
  it("read handoff takes it as the root and says so once, before its memory exists", async () => {
    const dir = tempDir("sh-nogit-");
    const env = { GIT_CEILING_DIRECTORIES: path.dirname(dir), HOME: tempDir("sh-home-") };
    const first = await inProcess(["read", "handoff"], { cwd: dir, env });
    expect(first.code).toBe(3);
    expect(first.stderr).toContain(`note: "${dir}" is in no git repository and held no .ai/memory: memory starts there; pass --root <project> to choose another\n`);
    expect(existsSync(path.join(dir, ".ai", "memory", "drafts"))).toBe(true);
    expect((await inProcess(["read", "handoff"], { cwd: dir, env })).stderr).not.toContain("no git repository");
  });

  it("doctor there with nothing installed is not ok: it says the folder is not a project", async () => {
    const dir = tempDir("sh-nogit-");
    const env = { GIT_CEILING_DIRECTORIES: path.dirname(dir), HOME: tempDir("sh-home-") };
    const r = await inProcess(["doctor", "--json"], { cwd: dir, env });
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p: { what: string }) => p.what)).toEqual([`"${dir}" is not a project: no git repository, no .ai/memory and nothing installed`]);
    expect(existsSync(path.join(dir, ".ai"))).toBe(false);
  });
});
