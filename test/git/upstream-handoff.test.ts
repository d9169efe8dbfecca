// A teammate's newer handoff fetched into the upstream and not pulled (docs/decisions/upstream-handoff.md): check
// and brief name the upstream and what to run, instead of "fresh" and this clone's older step.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { briefBody, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const doc = (step: string) => [
  "<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Current goal", "Negation flags.", "",
  "## Plan", `- [~] ${step}`, "", "## Decisions", "- none", "", "## Failed approaches", "- none", "",
  "## Open questions", "- none", "", "## Next steps", `1. ${step} — done when the test passes`, "",
  "## Key files", "- `a.txt` — the file", "", "## Environment anchors", "",
].join("\n");

// `Saved:` is stamped in whole seconds: a save meant as later waits for the next one.
const nextSecond = () => new Promise((done) => setTimeout(done, 1000 - (Date.now() % 1000) + 5));

function team() {
  const home = tempDir("sh-upstream-");
  writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = U\n\temail = u@example.com\n[init]\n\tdefaultBranch = main\n" +
    "[pull]\n\trebase = false\n");
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), GIT_CEILING_DIRECTORIES: home };
  const gitEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...env };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const remote = path.join(home, "origin.git");
  git(home, "init", "-q", "--bare", remote);
  const clone = (name: string) => {
    const dir = path.join(home, name);
    git(home, "clone", "-q", remote, dir);
    const run = (...args: string[]) => inProcess([...args, "--root", dir], { env });
    const save = async (step: string) => {
      const t = /CURRENT-SHA256: (\S+)/.exec((await run("read", "handoff")).stdout)![1]!;
      const w = await inProcess(["write", "handoff", "--expected-current-sha256", t, "--root", dir], { env, input: doc(step) });
      expect(w.code, w.stderr).toBe(0);
    };
    return { dir, run, save, git: (...args: string[]) => git(dir, ...args) };
  };
  const alice = clone("alice");
  mkdirSync(alice.dir, { recursive: true });
  writeFileSync(path.join(alice.dir, "a.txt"), "a\n");
  alice.git("add", ".");
  alice.git("commit", "-qm", "init");
  alice.git("push", "-q", "origin", "HEAD");
  return { clone, alice };
}

describe("a newer handoff in the upstream, fetched and not pulled", () => {
  it("untracked memory: check and brief name the upstream, publish then pull; pulled or saved over, nothing (found by a newcomer)", { timeout: 120_000 }, async () => {
    const { clone, alice } = team();
    const bob = clone("bob");
    await bob.save("bob step (untracked memory)");
    await nextSecond();
    await alice.save("alice step (newer, published)");
    expect((await alice.run("publish", "--push")).code).toBe(0);
    bob.git("fetch", "-q");
    const j = JSON.parse((await bob.run("check", "--json")).stdout);
    expect(j).toMatchObject({ code: 2, parked: "handoff", upstream: "origin/main" });
    expect(j.message).toMatch(/^a handoff is parked and can be resumed; but the upstream "origin\/main" holds a newer handoff \(Saved: \S+\) than this one: run `node \S+ publish`, then `git pull`/);
    const body = briefBody((await bob.run("brief")).stdout);
    expect(body).toContain('Drift & lessons: the upstream "origin/main" holds a newer handoff');
    expect(body).toMatch(/Proposed next step: run `node \S+ publish`, then `git pull` \(git pull stops on unpublished memory\), then run brief again/);
    expect(body).not.toContain("bob step (untracked memory) — done");
    // A save of Bob's after the fetch is the newer one: nothing said.
    await nextSecond();
    await bob.save("bob step two");
    expect((await bob.run("check")).stdout).toBe("a handoff is parked and can be resumed\n");
  });

  it("published and clean: `git pull` alone, and nothing once pulled", { timeout: 120_000 }, async () => {
    const { clone, alice } = team();
    await alice.save("alice step");
    expect((await alice.run("publish", "--push")).code).toBe(0);
    const carol = clone("carol");
    await nextSecond();
    await carol.save("carol step (newest, published)");
    expect((await carol.run("publish", "--push")).code).toBe(0);
    alice.git("fetch", "-q");
    const c = (await alice.run("check")).stdout;
    expect(c).toMatch(/; but the upstream "origin\/main" holds a newer handoff \(Saved: \S+\) than this one: run `git pull`, then brief again\n$/);
    expect(briefBody((await alice.run("brief")).stdout)).toContain("Proposed next step: run `git pull`, then run brief again");
    alice.git("pull", "-q");
    expect((await alice.run("check")).stdout).toBe("a handoff is parked and can be resumed\n");
  });
});
