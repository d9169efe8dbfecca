// A handoff away from the working tree (docs/design.md#a-handoff-away-from-the-working-tree): `publish`
// commits it and a checkout of an older branch leaves it there; `git stash` after `publish` puts the older
// published one back while the newer save sits in the stash; `read` says where a stashed one is.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { briefBody, helper, tempDir } from "../helpers.ts";
import { gitCalls, loggingGit } from "./repo.ts";

const DOC = [
  "<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Current goal", "Make the importer fast.", "",
  "## Plan", "- [ ] Dedupe rows", "", "## Decisions", "- [user-directed] Keep the first row: audit log", "",
  "## Failed approaches", "- Sorting first: breaks row order", "", "## Open questions", "- none", "",
  "## Next steps", "1. Bound the seen-set in a.txt — done when tests pass", "", "## Key files", "- `a.txt` — the file",
  "", "## Environment anchors", "",
].join("\n");

function repo() {
  const home = tempDir("sh-away-");
  const dir = path.join(home, "p");
  mkdirSync(dir);
  writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = U\n\temail = u@example.com\n[init]\n\tdefaultBranch = main\n");
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), GIT_CEILING_DIRECTORIES: home };
  const gitEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...env };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const run = (args: string[], input?: string, extra: Record<string, string> = {}) =>
    helper([...args, "--root", dir], { input, env: { ...env, ...extra } });
  const save = (text: string) => {
    const t = /CURRENT-SHA256: (\S+)/.exec(run(["read", "handoff"]).stdout)![1]!;
    const w = run(["write", "handoff", "--expected-current-sha256", t], text);
    expect(w.code, w.stderr).toBe(0);
  };
  git("init", "-q");
  writeFileSync(path.join(dir, "a.txt"), "a\n");
  git("add", ".");
  git("commit", "-qm", "init");
  return { dir, git, run, save };
}

describe("a handoff away from the working tree", () => {
  it("found among many branches, on one whose name needs quoting (found by a breaker)", { timeout: 60_000 }, () => {
    const r = repo();
    r.git("branch", "old");
    for (let i = 0; i < 60; i++) r.git("branch", `b${String(i).padStart(2, "0")}`);
    r.git("checkout", "-q", "-b", "fix+login");
    r.save(DOC);
    r.git("add", ".ai");
    r.git("commit", "-qm", "memory");
    r.git("checkout", "-q", "old");
    const c = r.run(["check"]);
    expect(c.code, c.stderr).toBe(2);
    const cmd = "git restore --source='fix+login' --staged --worktree -- .ai/memory";
    expect(c.stdout).toBe(`a handoff is parked on branch fix+login, not in the working tree: bring it back with \`${cmd}\`\n`);
    execFileSync("sh", ["-c", cmd], { cwd: r.dir });
    expect(readFileSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"), "utf8")).toContain("Make the importer fast.");
  });

  it("after publish, a checkout of an older branch: check, brief and read name the branch; one git process", { timeout: 60_000 }, () => {
    const r = repo();
    r.git("branch", "feature");
    r.save(DOC);
    expect(r.run(["publish"]).code).toBe(0);
    r.git("checkout", "-q", "feature");
    const cmd = "git restore --source=main --staged --worktree -- .ai/memory";
    const { bin, log } = loggingGit();
    const c = r.run(["check", "--json"], undefined, { PATH: `${bin}${path.delimiter}${process.env.PATH}` });
    expect(c.code, c.stderr).toBe(2);
    expect(JSON.parse(c.stdout)).toMatchObject({ state: "parked", parked: "branch", ref: "main", restore: cmd });
    // The cold path's one look at the stash and the branches; the runner's reading of its filters is not ours.
    expect(gitCalls(log).filter((argv) => argv[0] !== "config").map((argv) => argv[0])).toEqual(["cat-file"]);
    expect(r.run(["check"]).stdout).toBe(`a handoff is parked on branch main, not in the working tree: bring it back with \`${cmd}\`\n`);
    const b = r.run(["brief"]);
    expect(b.code, b.stderr).toBe(0);
    expect(briefBody(b.stdout)).toContain(`Proposed next step: bring the handoff back with \`${cmd}\``);
    const read = r.run(["read", "handoff"]);
    expect(read.code).toBe(3);
    expect(read.stderr).toContain("note: a handoff is parked on branch main");
    // The command brings it back, and the branch it came from checks out again over it.
    r.git(...cmd.split(" ").slice(1));
    expect(briefBody(r.run(["brief"]).stdout)).toContain("Goal: Make the importer fast.");
    r.git("checkout", "-q", "main");
  });

  it("a teammate's handoff saved after this clone's last save is not called older than a branch holding that save", { timeout: 60_000 }, () => {
    const r = repo();
    r.git("checkout", "-q", "-b", "feat");
    r.save(DOC);
    r.git("add", ".ai");
    r.git("commit", "-qm", "memory");
    const file = path.join(r.dir, ".ai", "memory", "HANDOFF.md");
    const mine = readFileSync(file, "utf8");
    r.git("checkout", "-q", "main");
    const theirs = (saved: string) =>
      mine.replace(/^Saved: \S+/m, `Saved: ${saved}`).replace(/^<!-- saved in clone .*\n/m, "").replace("Make the importer fast.", "Theirs.");
    mkdirSync(path.dirname(file), { recursive: true });
    // Merged in after this clone's save (a pull): later, so nothing newer is on feat.
    writeFileSync(file, theirs(new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, "Z")));
    expect(briefBody(r.run(["brief"]).stdout)).not.toContain("a newer save of this clone");
    // Saved before this clone's save: feat does hold a newer one.
    writeFileSync(file, theirs("2020-01-01T00:00:00Z"));
    expect(briefBody(r.run(["brief"]).stdout)).toContain("a newer save of this clone is on branch feat");
  });

  it("a cold start with no save recorded runs no git for it", { timeout: 60_000 }, () => {
    const r = repo();
    const { bin, log } = loggingGit();
    const c = r.run(["check"], undefined, { PATH: `${bin}${path.delimiter}${process.env.PATH}` });
    expect(c.stdout).toBe("nothing parked: no saved session state exists\n");
    expect(gitCalls(log).filter((argv) => argv[0] !== "config")).toEqual([]);
  });

  it("`git stash` after publish: the brief of the older published handoff names the newer save's entry", { timeout: 60_000 }, () => {
    const r = repo();
    r.save(DOC);
    expect(r.run(["publish"]).code).toBe(0);
    r.save(DOC.replace("Make the importer fast.", "Ship the streaming importer."));
    writeFileSync(path.join(r.dir, "a.txt"), "wip\n");
    r.git("stash", "-q");
    const body = briefBody(r.run(["brief"]).stdout);
    expect(body).toContain("Goal: Make the importer fast.");
    expect(body).toContain("a newer save of this clone is in stash@{0}: `git restore --source=stash@{0} -- .ai/memory/HANDOFF.md` brings it back; that entry keeps a copy: move .ai/memory aside before `git stash pop`");
    r.git("stash", "pop", "-q");
    expect(briefBody(r.run(["brief"]).stdout)).not.toContain("a newer save");
  });

  it("`read` of a stashed handoff says where it is on stderr and still exits 3", { timeout: 60_000 }, () => {
    const r = repo();
    r.save(DOC);
    r.git("stash", "-u", "-q");
    const read = r.run(["read", "handoff"]);
    expect(read.code).toBe(3);
    expect(read.stdout).toBe("CURRENT-SHA256: absent\n");
    const cmd = "git restore --overlay --source=stash@{0}^3 -- .ai/memory";
    expect(read.stderr).toContain(`note: a handoff is parked in stash@{0}, not in the working tree: bring it back with \`${cmd}\``);
    expect(read.stderr).toContain("that entry keeps a copy: move .ai/memory aside before `git stash pop`");
    // The advice is whole: after the restore, the pop refuses until the memory is moved aside.
    r.git(...cmd.split(" ").slice(1));
    expect(() => r.git("stash", "pop", "-q")).toThrow();
    renameSync(path.join(r.dir, ".ai/memory"), path.join(r.dir, ".ai/aside"));
    r.git("stash", "pop", "-q");
    expect(readFileSync(path.join(r.dir, ".ai/memory/HANDOFF.md"), "utf8")).toContain("Make the importer fast.");
  });
});
