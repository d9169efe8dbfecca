// A newcomer's team flows: a bare remote, two clones with their own identities, the built helper
// spawned in each; whose handoff a pull brought, conflicts in a clone without the merge driver,
// memory untracked before a pull, a rejected `publish --push`, and the merge's archive.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { handoff, helper, helperAsync, tempDir } from "../helpers.ts";

interface Clone {
  dir: string;
  git(...args: string[]): string;
  run(args: string[], input?: string): { code: number | null; stdout: string; stderr: string };
  runAsync(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function envOf(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: home, XDG_CONFIG_HOME: `${home}/.config` };
}

/** A bare remote with one commit, and a function making a clone of it for a named teammate. */
function team(): { remote: string; clone: (name: string) => Clone } {
  const home = tempDir("sh-team-");
  const remote = path.join(home, "remote.git");
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { env: envOf(home) });
  const clone = (name: string): Clone => {
    const dir = path.join(home, name);
    const env = envOf(path.join(home, `${name}-home`));
    mkdirSync(env.XDG_CONFIG_HOME!, { recursive: true });
    execFileSync("git", ["clone", "-q", remote, dir], { env, stdio: "pipe" });
    const email = `${name.toLowerCase()}@example.com`;
    for (const [k, v] of [["user.name", name], ["user.email", email], ["pull.rebase", "false"], ["commit.gpgsign", "false"]])
      execFileSync("git", ["config", k!, v!], { cwd: dir, env });
    const own = { HOME: env.HOME!, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME!, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    const run = (args: string[], input?: string) => helper([...args, "--root", dir], { input, env: own });
    const runAsync = (args: string[], input?: string) => helperAsync([...args, "--root", dir], { input, env: own });
    const g = (...args: string[]) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    return { dir, git: g, run, runAsync };
  };
  const seed = clone("Seed");
  writeFileSync(path.join(seed.dir, "index.js"), "module.exports = 1;\n");
  seed.git("add", "-A");
  seed.git("commit", "-qm", "initial");
  seed.git("push", "-q", "origin", "main");
  return { remote, clone };
}

// Empty anchors: write fills them from git.
const stepDoc = (goal: string, step: string) =>
  handoff(goal).replace("## Next steps\n- none", `## Next steps\n1. ${step}`).replace(/- Date: .*\n$/, "");

function save(c: Clone, goal: string, step: string): void {
  const tok = /CURRENT-SHA256: (\S+)/.exec(c.run(["read", "handoff"]).stdout)?.[1] ?? "absent";
  const r = c.run(["write", "handoff", "--expected-current-sha256", tok], stepDoc(goal, step));
  expect(r.code, r.stderr).toBe(0);
}

/** Each clone's first save, all spawned at once at the start of a second until their `Saved:` lines are the same. */
async function saveInOneSecond(saves: [Clone, string, string][]): Promise<void> {
  const savedLine = (c: Clone) => /^Saved: .*$/m.exec(readFileSync(path.join(c.dir, ".ai/memory/HANDOFF.md"), "utf8"))![0];
  const seen: string[] = [];
  for (let attempt = 0; attempt < 8; attempt++) {
    const toks = saves.map(([c]) => /CURRENT-SHA256: (\S+)/.exec(c.run(["read", "handoff"]).stdout)?.[1] ?? "absent");
    sleep(1000 - (Date.now() % 1000) + 5);
    // A new goal each try: an unchanged handoff keeps its `Saved:` line.
    const runs = await Promise.all(saves.map(([c, goal, step], i) =>
      c.runAsync(["write", "handoff", "--expected-current-sha256", toks[i]!], stepDoc(`${goal} Try ${attempt}.`, step))));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    seen.push(saves.map(([c]) => savedLine(c)).join(" / "));
    if (new Set(saves.map(([c]) => savedLine(c))).size === 1) return;
  }
  throw new Error(`no two saves landed in one second: ${seen.join("; ")}`);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("a teammate's handoff, pulled", () => {
  it("names whose save it is after a merge that kept it, and says the next step is theirs", { timeout: 60_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    save(me, "Me: add week units.", "Edit fmtLong");
    sleep(1100);
    save(tess, "Tess: fix negatives.", "Edit fmtShort");
    expect(tess.run(["publish", "--push"]).code).toBe(0);
    // My publish commit is the newest touching the handoff; the driver keeps Tess's later save.
    expect(me.run(["publish"]).code).toBe(0);
    me.git("pull", "-q", "--no-edit");
    expect(me.git("log", "-1", "--format=%an", "--", ".ai/memory/HANDOFF.md")).toBe("Me");
    const out = me.run(["brief"]).stdout;
    expect(out).toContain("Goal: Tess: fix negatives.");
    expect(out).toContain('its last commit is by "Tess" "tess@example.com"');
    expect(out).not.toContain('"Me" "me@example.com"');
    expect(out).toContain('Proposed next step: (the step of "Tess" "tess@example.com", saved in another clone) Edit fmtShort');
  });
});

describe("a teammate's handoff copied into a commit of mine", () => {
  const stepOfTess = '(the step of "Tess" "tess@example.com", saved in another clone)';
  it("names the teammate after my `git merge --squash` of her branch", { timeout: 60_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    tess.git("switch", "-qc", "tess-work");
    save(tess, "Tess: fix negatives.", "Edit fmtShort");
    tess.git("add", "-f", ".ai/memory");
    tess.git("commit", "-qm", "tess: handoff");
    tess.git("push", "-q", "origin", "tess-work");
    me.git("fetch", "-q", "origin", "tess-work");
    me.git("merge", "-q", "--squash", "origin/tess-work");
    me.git("commit", "-qm", "squash tess-work");
    expect(me.git("log", "-1", "--format=%an", "--", ".ai/memory/HANDOFF.md")).toBe("Me");
    expect(me.run(["brief"]).stdout).toContain(`${stepOfTess} Edit fmtShort`);
  });

  it("names the teammate after I restore and publish her archived handoff", { timeout: 60_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    save(tess, "Tess: fix negatives.", "Edit fmtShort");
    expect(tess.run(["publish", "--push"]).code).toBe(0);
    sleep(1100);
    save(tess, "Tess: then rounding.", "Edit fmtRound");
    expect(tess.run(["publish", "--push"]).code).toBe(0);
    me.git("pull", "-q", "--no-edit");
    const name = readdirSync(path.join(me.dir, ".ai/memory/archive")).find((f) => f.startsWith("HANDOFF"))!;
    const tok = /CURRENT-SHA256: (\S+)/.exec(me.run(["read", "handoff"]).stdout)![1]!;
    const r = me.run(["archives", "restore", name, "--expected-current-sha256", tok]);
    expect(r.code, r.stderr).toBe(0);
    expect(me.run(["publish"]).code).toBe(0);
    expect(me.git("log", "-1", "--format=%an", "--", ".ai/memory/HANDOFF.md")).toBe("Me");
    expect(me.run(["brief"]).stdout).toContain(`${stepOfTess} Edit fmtShort`);
  });
  it("names my squash commit, not me, once her branch is deleted everywhere", { timeout: 60_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    tess.git("switch", "-qc", "tess-work");
    save(tess, "Tess: fix negatives.", "Edit fmtShort");
    tess.git("add", "-f", ".ai/memory");
    tess.git("commit", "-qm", "tess: handoff");
    tess.git("push", "-q", "origin", "tess-work");
    me.git("fetch", "-q", "origin", "tess-work");
    me.git("merge", "-q", "--squash", "origin/tess-work");
    me.git("commit", "-qm", "squash tess-work");
    tess.git("push", "-q", "origin", "--delete", "tess-work");
    me.git("fetch", "-q", "--prune");
    // Only my squash brings her save now: the clone mark says another clone saved it, so my name is not its saver's.
    const squash = me.git("rev-parse", "--short=12", "HEAD");
    const out = me.run(["brief"]).stdout;
    expect(out).toContain(`(the step that came with your commit ${squash}, saved in another clone) Edit fmtShort`);
    expect(out).not.toContain('"Me" "me@example.com"');
    expect(me.run(["drift"]).stdout).toContain(`provenance: not saved in this clone; came with your commit ${squash}`);
  });
});

describe("a reset onto a teammate's later handoff", () => {
  it.each([false, true])("says it is hers and the later one, and what of mine it replaced (mine published: %s)",
    { timeout: 90_000 }, (published) => {
      const { clone } = team();
      const me = clone("Me");
      const tess = clone("Tess");
      save(me, "Me: add week units.", "Edit fmtLong");
      expect(me.run(["publish", "--push"]).code).toBe(0);
      tess.git("pull", "-q", "--no-edit");
      sleep(1100);
      save(me, "Me: never pushed.", "Edit fmtWeek");
      if (published) expect(me.run(["publish"]).code).toBe(0);
      sleep(1100);
      save(tess, "Tess: fix negatives.", "Edit fmtShort");
      expect(tess.run(["publish", "--push"]).code).toBe(0);
      me.git("fetch", "-q");
      me.git("reset", "-q", "--hard", "origin/main");
      const j = JSON.parse(me.run(["check", "--json"]).stdout);
      const said = `this clone's newest save (Saved: ${j.lost}) is in neither the working tree, a stash nor another ` +
        "branch: a `git reset --hard` or a checkout of .ai/memory/HANDOFF.md put one saved after it in its place; " +
        `\`${j.restore}\` brings it back`;
      expect(j.message).toBe(`a handoff is parked and can be resumed; but ${said}`);
      expect(j.later).toBe(true);
      expect(me.run(["hook", "--mode", "session"]).stdout).toContain(`session-handoff: ${said}.`);
      const out = me.run(["brief"]).stdout;
      expect(out).toContain("Goal: Tess: fix negatives.");
      expect(out).toContain(said);
      expect(out).not.toMatch(/newer save|older handoff/);
      // Hers is the later handoff: her step stands, after the user hears of mine.
      expect(out).toContain(`Proposed next step: tell the user first (\`${j.restore}\` brings this clone's save back ` +
        'over the later one); then: (the step of "Tess" "tess@example.com", saved in another clone) Edit fmtShort');
      expect(me.git("cat-file", "blob", j.restore.split(" ")[3])).toContain("Me: never pushed.");
    });

  it("onto her older handoff that my save replaced: mine is the newer, and the older one is said to be hers", { timeout: 60_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    save(tess, "Tess: fix negatives.", "Edit fmtShort");
    expect(tess.run(["publish", "--push"]).code).toBe(0);
    me.git("pull", "-q", "--no-edit");
    sleep(1100);
    save(me, "Me: add week units.", "Edit fmtLong");
    me.git("reset", "-q", "--hard", "origin/main");
    const j = JSON.parse(me.run(["check", "--json"]).stdout);
    expect(j.message).toContain("put another one in its place");
    expect(j.later).toBeUndefined();
    expect(me.run(["brief"]).stdout).toContain(`Proposed next step: bring this clone's newer save back with \`${j.restore}\`, ` +
      'then run brief again (the fields above are from the older handoff of "Tess" "tess@example.com", saved in another clone)');
  });
});

describe("two teammates' saves of one second, on one commit", () => {
  it("names the teammate whose save was pulled, not the one whose shared `Saved:` line came first", { timeout: 90_000 }, async () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    // The same `Saved:` line in both handoffs: only each clone's mark under it tells them apart.
    await saveInOneSecond([[tess, "Tess: fix negatives.", "Edit fmtShort"], [me, "Me: add week units.", "Edit fmtLong"]]);
    expect(tess.run(["publish"]).code).toBe(0);
    // My publish a second later: the newest commit that added that `Saved:` line is mine.
    sleep(1100);
    expect(me.run(["publish", "--push"]).code).toBe(0);
    // The driver keeps Tess's (ours, in her clone: one second cannot be ordered), and Tess pushes the merge.
    tess.git("pull", "-q", "--no-edit");
    tess.git("push", "-q", "origin", "main");
    me.git("pull", "-q", "--no-edit");
    // The driver's line now stands between Tess's `Saved:` line and her mark.
    expect(readFileSync(path.join(me.dir, ".ai/memory/HANDOFF.md"), "utf8")).toMatch(/^Saved: .*\nMerged-with: .*\n<!-- saved in clone /m);
    const out = me.run(["brief"]).stdout;
    expect(out).toContain("Goal: Tess: fix negatives.");
    expect(out).toContain('its last commit is by "Tess" "tess@example.com"');
    expect(out).not.toContain('"Me" "me@example.com"');
    expect(out).toContain('Proposed next step: (the step of "Tess" "tess@example.com", saved in another clone) Edit fmtShort');
  });
});

describe("a clone without the merge driver", () => {
  it("sees memory git left unmerged, refuses a save over it, and names commands that resolve it", { timeout: 90_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    save(me, "Me: weeks.", "Edit fmtLong");
    expect(me.run(["publish", "--push"]).code).toBe(0);
    // Tess clones the committed attributes but never runs init: git merges memory as text.
    const tess = clone("Tess");
    sleep(1100);
    save(tess, "Tess: negatives.", "Edit fmtShort");
    tess.git("add", ".ai");
    tess.git("commit", "-qm", "tess: handoff");
    save(me, "Me: months.", "Edit fmtLong for months");
    expect(me.run(["publish", "--push"]).code).toBe(0);
    expect(() => tess.git("pull", "-q", "--no-edit")).toThrow();
    const unmerged = tess.git("diff", "--name-only", "--diff-filter=U");
    expect(unmerged).toContain(".ai/memory/HANDOFF.md");
    const checkout = `git checkout -m -- ${unmerged.split("\n").join(" ")}`;
    const check = tess.run(["check"]);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain("memory is conflicted: git holds HANDOFF.md");
    expect(check.stdout).toMatch(/run `node \S+memory_io\.mjs init` once in this clone/);
    expect(check.stdout).toContain(checkout);
    expect(check.stderr).toContain("this clone's git config lacks it");
    expect(tess.run(["hook", "--mode", "session"]).stdout).toContain("do not resume from them: run the skill's `check`");
    const read = tess.run(["read", "handoff"]);
    expect(read.stderr).toContain("warning: memory is conflicted: git holds HANDOFF.md");
    // A save over the conflicted file is refused and changes nothing.
    const before = readFileSync(path.join(tess.dir, ".ai/memory/HANDOFF.md"), "utf8");
    const tok = /CURRENT-SHA256: (\S+)/.exec(read.stdout)![1]!;
    const w = tess.run(["write", "handoff", "--expected-current-sha256", tok], handoff("Tess: after the merge."));
    expect(w.code).toBe(2);
    expect(w.stderr).toContain("memory operation refused: HANDOFF.md is conflicted; nothing was saved");
    expect(readFileSync(path.join(tess.dir, ".ai/memory/HANDOFF.md"), "utf8")).toBe(before);
    // The journal's markers alone still count once the handoff's conflict is gone from the tree.
    writeFileSync(path.join(tess.dir, ".ai/memory/HANDOFF.md"), readFileSync(path.join(me.dir, ".ai/memory/HANDOFF.md")));
    expect(tess.run(["check"]).code).toBe(3);
    const b = tess.run(["brief"]);
    expect(b.code).toBe(2);
    expect(b.stdout).toContain(checkout);
    // Following the words: init, git merges again with the driver, the merge is committed.
    mkdirSync(path.join(tess.dir, ".claude"));
    const init = tess.run(["init"]);
    expect(init.code, init.stderr).toBe(0);
    tess.git("checkout", "-m", "--", ...unmerged.split("\n"));
    tess.git("add", ".ai/memory");
    tess.git("commit", "-q", "--no-edit");
    const after = tess.run(["check"]);
    expect(after.stdout).toBe("a handoff is parked and can be resumed\n");
    expect(after.code).toBe(2);
  });
});

describe("publish --push that git rejects", () => {
  it("says the commit was made and stays, and the next commands work", { timeout: 60_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    writeFileSync(path.join(tess.dir, "readme.md"), "t\n");
    tess.git("add", "-A");
    tess.git("commit", "-qm", "tess: readme");
    tess.git("push", "-q");
    save(me, "Me: weeks.", "Edit fmtLong");
    const p = me.run(["publish", "--push"]);
    expect(p.code).toBe(2);
    expect(p.stdout).toMatch(/^published \d+ file\(s\) in [0-9a-f]{12}$/m);
    expect(p.stderr).toContain("but the push failed (git exit 1)");
    expect(p.stderr).toContain("the commit stays; next: `git pull --no-rebase`, then `git push`");
    expect(p.stderr).not.toContain("memory operation refused");
    expect(me.git("log", "-1", "--format=%s")).toBe("session-handoff: publish session memory");
    me.git("pull", "-q", "--no-rebase", "--no-edit");
    me.git("push", "-q");
    const again = me.run(["publish", "--push"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("not in this branch's history");
  });
});

describe("memory untracked here, a teammate's published", () => {
  it("doctor says to publish before pulling, which git would stop", { timeout: 60_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    save(me, "Me: weeks.", "Edit fmtLong");
    save(tess, "Tess: negatives.", "Edit fmtShort");
    expect(tess.run(["publish", "--push"]).code).toBe(0);
    me.git("fetch", "-q");
    const d = me.run(["doctor"]);
    expect(d.stdout).toContain("this clone's memory is untracked and its upstream holds a published .ai/memory/HANDOFF.md");
    expect(d.stdout).toMatch(/fix: .*publish --root .* first \(it commits this clone's memory\), then `git pull`/);
    expect(() => me.git("pull", "-q", "--no-edit")).toThrow(/untracked working tree files would be overwritten/);
    expect(me.run(["publish"]).code).toBe(0);
    me.git("pull", "-q", "--no-edit");
    expect(me.run(["doctor"]).stdout).not.toContain("memory is untracked");
  });
});

describe("the merge driver's archive, pushed without publish", () => {
  it("archives show says which clone holds the archive a Merged-with line names", { timeout: 60_000 }, () => {
    const { clone } = team();
    const me = clone("Me");
    const tess = clone("Tess");
    save(me, "Me: weeks.", "Edit fmtLong");
    expect(me.run(["publish", "--push"]).code).toBe(0);
    tess.git("pull", "-q");
    sleep(1100);
    save(tess, "Tess: negatives.", "Edit fmtShort");
    expect(tess.run(["publish", "--push"]).code).toBe(0);
    sleep(1100);
    save(me, "Me: months.", "Edit fmtLong for months");
    expect(me.run(["publish"]).code).toBe(0);
    me.git("pull", "-q", "--no-edit");
    me.git("push", "-q");
    tess.git("pull", "-q", "--no-edit");
    const text = readFileSync(path.join(tess.dir, ".ai/memory/HANDOFF.md"), "utf8");
    const name = /^Merged-with: archive\/(\S+?\.md)/m.exec(text)![1]!;
    const show = tess.run(["archives", "show", name]);
    expect(show.code).toBe(3);
    expect(show.stderr).toContain("Merged-with: line names it, but the clone that made that merge holds it until it runs `publish`");
  });
});
