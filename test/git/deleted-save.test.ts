// A handoff deleted from the working tree (`git clean -fd` of untracked memory, `rm -rf .ai/memory`) while git's
// objects keep this clone's newest save (docs/decisions/lost-save.md#a-handoff-deleted-from-the-tree): check, brief
// and the hook name git's copy instead of calling a cold start.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { briefBody, helper, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const doc = (step: string) => [
  "<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Current goal", "Negation flags.", "",
  "## Plan", `- [~] ${step}`, "", "## Decisions", "- none", "", "## Failed approaches", "- none", "",
  "## Open questions", "- none", "", "## Next steps", `1. ${step} — done when the test passes`, "",
  "## Key files", "- `a.txt` — the file", "", "## Environment anchors", "",
].join("\n");

function repo() {
  const home = tempDir("sh-deleted-");
  const dir = path.join(home, "p");
  mkdirSync(dir);
  writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = U\n\temail = u@example.com\n[init]\n\tdefaultBranch = main\n");
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), GIT_CEILING_DIRECTORIES: home };
  const gitEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...env };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: gitEnv, encoding: "utf8" }).trim();
  const run = (...args: string[]) => inProcess([...args, "--root", dir], { env });
  const save = async (text: string) => {
    const t = /CURRENT-SHA256: (\S+)/.exec((await run("read", "handoff")).stdout)![1]!;
    const w = await inProcess(["write", "handoff", "--expected-current-sha256", t, "--root", dir], { env, input: text });
    expect(w.code, w.stderr).toBe(0);
  };
  git("init", "-q");
  writeFileSync(path.join(dir, "a.txt"), "a\n");
  git("add", ".");
  git("commit", "-qm", "init");
  const hook = () => helper(["hook", "--mode", "session", "--root", dir], { env }).stdout;
  return { dir, git, run, save, hook };
}

describe("a handoff deleted from the working tree", () => {
  it("untracked memory and `git clean -fd`: check, brief and the hook name git's copy of the newest save (found by a newcomer)", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(doc("one"));
    await r.save(doc("two: the newest save"));
    r.git("clean", "-fdq");
    const c = await r.run("check", "--json");
    expect(c.code, c.stderr).toBe(2);
    const j = JSON.parse(c.stdout);
    expect(j).toMatchObject({ state: "parked", parked: "lost" });
    expect(j.restore).toMatch(/^git cat-file blob [0-9a-f]{40} > \.ai\/memory\/HANDOFF\.md$/);
    expect(j.message).toContain(`took it away, or a deletion (\`git clean -fd\`, \`rm\`) did; \`${j.restore}\` brings it back`);
    expect(r.hook()).toContain(`session-handoff: ${j.message}.`);
    const b = await r.run("brief");
    expect(b.code, b.stderr).toBe(0);
    expect(briefBody(b.stdout)).toContain(`Proposed next step: bring the handoff back with \`${j.restore}\``);
    // The command writes the newest save back, byte for byte.
    execFileSync("sh", ["-c", j.restore], { cwd: r.dir });
    expect(readFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), "utf8")).toContain("[~] two: the newest save");
    expect((await r.run("check")).stdout).toBe("a handoff is parked and can be resumed\n");
  });

  it("`rm -rf .ai/memory` after publish is named too; once git pruned its copy, a cold start as before", { timeout: 90_000 }, async () => {
    const r = repo();
    await r.save(doc("one"));
    expect((await r.run("publish")).code).toBe(0);
    await r.save(doc("two: never published"));
    rmSync(path.join(r.dir, ".ai/memory"), { recursive: true });
    expect(JSON.parse((await r.run("check", "--json")).stdout)).toMatchObject({ code: 2, parked: "lost" });
    r.git("prune", "--expire=now");
    expect((await r.run("check")).stdout).toBe("nothing parked: no saved session state exists\n");
    expect((await r.run("brief")).code).toBe(3);
  });
});
