// The commands check prints for memory git holds unmerged, run exactly as printed: each must work and leave the
// operation finished with no conflict markers committed (merge and rebase, driver set or not, modify/delete,
// add/add); and markers in a journal month alone, which no resume reads, never stop a resume.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { handoff, helper, MARKER, tempDir } from "../helpers.ts";

function envOf(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(GIT_|VISUAL$|EDITOR$)/.test(k)) env[k] = v;
  // An editor that fails: a printed command that opens one does not work for an agent; GIT_EDITOR outranks core.editor.
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: home, XDG_CONFIG_HOME: `${home}/.c`,
    GIT_CEILING_DIRECTORIES: path.dirname(home), EDITOR: "false", VISUAL: "false", GIT_EDITOR: "false", GIT_AUTHOR_NAME: "T",
    GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };
}

function project() {
  const top = tempDir("sh-advice-");
  const dir = path.join(top, "p");
  mkdirSync(dir);
  const env = envOf(path.join(top, "home"));
  mkdirSync(env.HOME!);
  const g = (...args: string[]) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8", stdio: "pipe" });
  const m = (args: string[], input?: string) => helper([...args, "--root", dir], { input, env });
  // A printed command runs through the shell, as a user pastes it.
  const sh = (cmd: string) => execFileSync("sh", ["-c", cmd], { cwd: dir, env, encoding: "utf8", stdio: "pipe" });
  g("init", "-q", "-b", "main");
  writeFileSync(path.join(dir, "README.md"), "x\n");
  g("add", "README.md");
  g("commit", "-qm", "init");
  const save = (goal: string) => {
    const tok = /CURRENT-SHA256: (\S+)/.exec(m(["read", "handoff"]).stdout)?.[1] ?? "absent";
    const w = m(["write", "handoff", "--expected-current-sha256", tok], handoff(goal));
    expect(w.code, w.stderr).toBe(0);
    g("add", "-f", ".ai/memory");
    g("commit", "-qm", goal);
  };
  return { dir, g, m, save, sh };
}

/**
 * Runs every command check prints, as printed (`edit` first, as a user resolving a file by hand); a printed
 * `git … --skip` only where git found nothing left to commit, as the advice says. Then git has no operation under
 * way and check no conflict.
 */
function followAdvice(p: ReturnType<typeof project>, edit = () => {}): string {
  const check = p.m(["check"]);
  expect(check.code).toBe(3);
  edit();
  const cmds = [...check.stdout.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  const skip = cmds.find((c) => c.endsWith(" --skip"));
  for (const cmd of cmds.filter((c) => c !== skip)) {
    const words = cmd.split(" ");
    // The helper's own init, as printed: node, then the helper's path.
    if (words[0] === "node" && words.at(-1) === "init") p.sh(cmd);
    else if (words[0] !== "git") throw new Error(`not a command to run: ${cmd}`);
    else if (skip === undefined) p.sh(cmd);
    else {
      try {
        p.sh(cmd);
      } catch (err) {
        const { stdout, stderr } = err as { stdout: string; stderr: string };
        expect(stdout + stderr).toMatch(/nothing to commit|No changes/);
        p.sh(skip);
        break;
      }
    }
  }
  const gitDir = path.join(p.dir, ".git");
  expect(["MERGE_HEAD", "SQUASH_MSG", "rebase-merge", "rebase-apply"].filter((f) => existsSync(path.join(gitDir, f)))).toEqual([]);
  expect(p.g("ls-files", "-u")).toBe("");
  expect(p.g("show", "HEAD:.ai/memory/HANDOFF.md")).not.toMatch(/^<<<<<<< /m);
  const after = p.m(["check"]);
  expect(after.code, after.stdout).toBe(2);
  return check.stdout;
}

/** Two branches each saving a handoff over `base` (null: none before), and main saving again. */
function diverge(p: ReturnType<typeof project>, base: string | null) {
  if (base !== null) p.save(base);
  p.g("switch", "-qc", "feat");
  p.save("feat goal");
  p.g("switch", "-q", "main");
  p.save("main goal");
}

describe("the commands printed for memory git holds unmerged", () => {
  it("work as printed in a merge when .gitattributes names no driver: init first", { timeout: 60_000 }, () => {
    const p = project();
    diverge(p, "base goal");
    expect(() => p.g("merge", "feat")).toThrow();
    // The project has an agent's folder: `init` as printed finds it.
    mkdirSync(path.join(p.dir, ".claude"));
    const said = followAdvice(p);
    expect(said).toMatch(/run `node \S+memory_io\.mjs init` once in this clone/);
    expect(said).toContain("`git commit --no-edit` to finish the merge");
  });

  it("work as printed in a clone with no agent's folder: init registers the merge driver alone", { timeout: 60_000 }, () => {
    const p = project();
    diverge(p, "base goal");
    expect(() => p.g("merge", "feat")).toThrow();
    expect(followAdvice(p)).toMatch(/run `node \S+memory_io\.mjs init` once in this clone/);
    expect(p.m(["init"]).stdout).toMatch(/^unchanged the merge driver\nnote: no agent found/);
    expect(p.g("config", "--get", "merge.session-handoff.name")).toMatch(/^session-handoff/);
    expect(existsSync(path.join(p.dir, ".agents"))).toBe(false);
    // Neither memory nor an agent's folder: still refused, nothing registered.
    const q = project();
    const r = q.m(["init"]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("no agent found")]);
    expect(() => q.g("config", "--get", "merge.session-handoff.name")).toThrow();
  });

  it("work as printed in an add/add merge", { timeout: 60_000 }, () => {
    const p = project();
    diverge(p, null);
    expect(() => p.g("merge", "feat")).toThrow();
    mkdirSync(path.join(p.dir, ".claude"));
    followAdvice(p);
  });

  it("work as printed in a rebase whose clone lacks the driver the attributes name", { timeout: 60_000 }, () => {
    const p = project();
    mkdirSync(path.join(p.dir, ".claude"));
    expect(p.m(["init"]).code).toBe(0);
    p.g("add", "-A");
    p.g("commit", "-qm", "install");
    p.g("config", "--remove-section", "merge.session-handoff");
    diverge(p, "base goal");
    p.g("switch", "-q", "feat");
    expect(() => p.g("rebase", "main")).toThrow();
    const said = followAdvice(p);
    expect(said).toContain("`git commit --no-edit` and `git rebase --continue` to finish the rebase");
  });

  it("work as printed in a `git am -3` and a `git merge --squash`, which leave no MERGE_HEAD", { timeout: 90_000 }, () => {
    const p = project();
    diverge(p, "base goal");
    mkdirSync(path.join(p.dir, ".claude"));
    const patch = p.g("format-patch", "-1", "--stdout", "feat");
    writeFileSync(path.join(p.dir, "..", "feat.patch"), patch);
    expect(() => p.g("am", "-3", path.join(p.dir, "..", "feat.patch"))).toThrow();
    expect(followAdvice(p)).toContain("`git am --continue` to finish the am");
    const q = project();
    diverge(q, "base goal");
    mkdirSync(path.join(q.dir, ".claude"));
    expect(() => q.g("merge", "--squash", "feat")).toThrow();
    expect(followAdvice(q)).toContain("`git commit --no-edit` to finish the squash");
    const c = project();
    diverge(c, "base goal");
    mkdirSync(path.join(c.dir, ".claude"));
    expect(() => c.g("cherry-pick", "feat")).toThrow();
    expect(followAdvice(c)).toContain("`git cherry-pick --continue --no-edit` to finish the cherry-pick");
  });

  it("work as printed for file names the shell would read, and a settings file the driver does not merge (found by a breaker)", { timeout: 60_000 }, () => {
    const p = project();
    mkdirSync(path.join(p.dir, ".claude"));
    expect(p.m(["init"]).code).toBe(0);
    p.g("add", "-A");
    p.g("commit", "-qm", "install");
    const odd = path.join(p.dir, ".ai", "memory", "notes $(touch PWNED) it's.md");
    const settings = path.join(p.dir, ".ai", "memory", "settings.json");
    const side = (branch: string, words: string) => {
      mkdirSync(path.dirname(settings), { recursive: true });
      writeFileSync(odd, `${MARKER}\n# Notes\n\n- ${words}\n`);
      writeFileSync(settings, `{ "journal": "${words}" }\n`);
      p.g("add", "-f", odd, settings);
      p.g("commit", "-qm", branch);
    };
    p.g("switch", "-qc", "feat");
    side("feat", "feat");
    p.g("switch", "-q", "main");
    side("main", "main");
    expect(() => p.g("merge", "feat")).toThrow();
    const check = p.m(["check"]);
    expect(check.code).toBe(3);
    // The driver merges the handoff, ledgers and journal only: the others are the user's to settle, before the add.
    expect(check.stdout).toContain("edit notes $(touch PWNED) it's.md, settings.json to keep one side, without the marker lines");
    const cmds = [...check.stdout.matchAll(/`(git [^`]+)`/g)].map((m) => m[1]!);
    expect(cmds).toHaveLength(2);
    writeFileSync(odd, `${MARKER}\n# Notes\n\n- main\n`);
    writeFileSync(settings, `{ "journal": "main" }\n`);
    p.sh(cmds[0]!);
    p.sh(cmds[1]!);
    expect(existsSync(path.join(p.dir, "PWNED"))).toBe(false);
    expect(p.g("ls-files", "-u")).toBe("");
    expect(p.g("show", "HEAD:.ai/memory/settings.json")).toBe(`{ "journal": "main" }\n`);
  });

  it("work as printed on a modify/delete conflict, which no re-merge resolves", { timeout: 60_000 }, () => {
    const p = project();
    p.save("base goal");
    p.g("switch", "-qc", "feat");
    p.save("feat goal");
    p.g("switch", "-q", "main");
    // No save on main: its archive of the base handoff would make git see the deletion as a move.
    p.g("rm", "-q", ".ai/memory/HANDOFF.md");
    p.g("commit", "-qm", "stop tracking the handoff");
    expect(() => p.g("merge", "feat")).toThrow();
    expect(p.g("status", "--short", ".ai/memory/HANDOFF.md")).toBe("DU .ai/memory/HANDOFF.md\n");
    const said = followAdvice(p);
    expect(said).not.toContain("checkout -m");
    // The side that modified it is kept, and a save works again.
    expect(p.g("show", "HEAD:.ai/memory/HANDOFF.md")).toContain("feat goal");
    p.save("after the merge");
  });
});

describe("the commands printed for memory git holds unmerged, at the edges", () => {
  it("leave a name no shell word holds to the user, quoted, and no command without paths", { timeout: 60_000 }, () => {
    const p = project();
    p.save("base goal");
    const odd = path.join(p.dir, ".ai", "memory", "journal", "odd\x01name.md");
    const side = (words: string) => {
      appendFileSync(odd, `- ${words}\n`);
      p.g("add", "-f", odd);
      p.g("commit", "-qm", words);
    };
    side("base");
    p.g("switch", "-qc", "feat");
    side("feat");
    p.g("switch", "-q", "main");
    side("main");
    expect(() => p.g("merge", "feat")).toThrow();
    mkdirSync(path.join(p.dir, ".claude"));
    const said = followAdvice(p, () => writeFileSync(odd, "- base\n- main\n- feat\n"));
    expect(said).toContain('resolve "journal/odd\\001name.md" by hand');
    expect(said).not.toContain("\x01");
    expect([...said.matchAll(/`(git [^`]+)`/g)].filter((m) => m[1]!.endsWith(" --"))).toEqual([]);
    expect(p.g("show", `HEAD:.ai/memory/journal/odd\x01name.md`)).toBe("- base\n- main\n- feat\n");
  });

  it("work as printed in a rebase of either backend, the commit emptied or not", { timeout: 120_000 }, () => {
    for (const backend of ["merge", "apply"]) for (const keep of ["main", "feat"]) {
      const p = project();
      p.save("base goal");
      const notes = path.join(p.dir, ".ai", "memory", "notes.md");
      const side = (words: string) => {
        writeFileSync(notes, `- ${words}\n`);
        p.g("add", "-f", notes);
        p.g("commit", "-qm", words);
      };
      side("base");
      p.g("switch", "-qc", "feat");
      side("feat");
      p.g("switch", "-q", "main");
      side("main");
      p.g("switch", "-q", "feat");
      expect(() => p.g("-c", `rebase.backend=${backend}`, "rebase", "main")).toThrow();
      mkdirSync(path.join(p.dir, ".claude"));
      // Keeping upstream's side leaves the commit empty: git's rebase must skip it.
      const said = followAdvice(p, () => writeFileSync(notes, `- ${keep}\n`));
      expect(said).toContain("`git rebase --skip`");
      expect(p.g("log", "--format=%s", "main..feat")).toBe(keep === "feat" ? "feat\n" : "");
    }
  });

  it("work as printed after a `git stash pop` stopped on memory, and keep its entry", { timeout: 60_000 }, () => {
    const p = project();
    p.save("base goal");
    p.save("stashed goal");
    p.g("reset", "-q", "--soft", "HEAD~1");
    p.g("stash", "-q");
    p.save("other goal");
    expect(() => p.g("stash", "pop")).toThrow();
    mkdirSync(path.join(p.dir, ".claude"));
    const said = followAdvice(p);
    expect(said).toContain("git checkout -m -- .ai/memory/HANDOFF.md");
    expect(said).toContain("kept its stash entry");
    expect(p.g("stash", "list")).toMatch(/^stash@\{0\}/);
  });
});

describe("a merge where one side saved, then removed the handoff (docs/decisions/handoff-moved-to-archive.md)", () => {
  it("puts the other side's handoff in that side's archive, no conflict; check names the branch's", { timeout: 60_000 }, () => {
    const p = project();
    mkdirSync(path.join(p.dir, ".claude"));
    expect(p.m(["init"]).code).toBe(0);
    p.g("add", "-A");
    p.g("commit", "-qm", "install");
    diverge(p, "base goal");
    // main's save archived the base handoff byte for byte: git pairs the removal with that archive, a move.
    p.g("rm", "-q", ".ai/memory/HANDOFF.md");
    p.g("commit", "-qm", "stop tracking the handoff");
    p.g("merge", "-q", "feat");
    const changed = p.g("diff", "--name-status", "HEAD^1", "HEAD", "--", ".ai/memory/archive").split("\n");
    const archive = changed.find((l) => l.startsWith("M\t"))!.slice(2);
    expect(p.g("show", `HEAD:${archive}`)).toContain("feat goal");
    expect(existsSync(path.join(p.dir, ".ai/memory/HANDOFF.md"))).toBe(false);
    // What check says brings the newer handoff back, as printed.
    const check = p.m(["check"]);
    expect(check.stdout).toContain('a handoff is parked on branch "feat", not in the working tree');
    p.sh(/bring it back with `(git [^`]+)`/.exec(check.stdout)![1]!);
    expect(p.m(["read", "handoff"]).stdout).toContain("feat goal");
    expect(p.m(["check"]).code).toBe(2);
  });
});

describe("conflict markers in a journal month alone", () => {
  it("are named by check, which exits as the hook and brief answer: resume", { timeout: 60_000 }, () => {
    const p = project();
    p.save("one");
    const month = readdirSync(path.join(p.dir, ".ai/memory/journal"))[0]!;
    appendFileSync(path.join(p.dir, ".ai/memory/journal", month), "<<<<<<< ours\n## x\n=======\n## y\n>>>>>>> theirs\n");
    const check = p.m(["check"]);
    expect(check.code).toBe(2);
    expect(check.stdout).toContain(`journal/${month} holds merge conflict markers`);
    expect(p.m(["hook", "--mode", "session"]).stdout).toContain("a parked handoff exists");
    expect(p.m(["brief"]).code).toBe(0);
  });
});
