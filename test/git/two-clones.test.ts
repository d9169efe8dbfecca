// Machines and teammates (docs/decisions/merge-driver.md): a bare remote, Alice's and Bob's
// clones with their own identities, real pushes, pulls, merges, a rebase, a cherry-pick and a
// shallow clone, each step asserted from `brief` and `drift --json` in the clone it happens in.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { helper, tempDir } from "../helpers.ts";

const PEOPLE = { alice: ["Alice Doe", "alice@example.com"], bob: ["Bob Roe", "bob@example.com"], carol: ["Carol", "carol@example.com"] } as const;
type Who = keyof typeof PEOPLE;

function gitEnv(config: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", XDG_CONFIG_HOME: config, HOME: path.dirname(config) };
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

interface Clone {
  dir: string;
  who: Who;
  git(...args: string[]): string;
  run(args: string[], input?: string): { code: number | null; stdout: string; stderr: string };
}

function clone(home: string, remote: string, who: Who, extra: string[] = []): Clone {
  const dir = path.join(home, who + (extra.length > 0 ? "-shallow" : ""));
  const config = path.join(home, `${who}-home`, ".config");
  mkdirSync(config, { recursive: true });
  const env = gitEnv(config);
  const [name, email] = PEOPLE[who];
  const ident = ["-c", `user.name=${name}`, "-c", `user.email=${email}`, "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", "-c", "pull.rebase=false"];
  execFileSync("git", [...ident, "clone", "-q", ...extra, remote, dir], { env, stdio: "pipe" });
  for (const [k, v] of [["user.name", name], ["user.email", email], ["commit.gpgsign", "false"], ["pull.rebase", "false"]]) execFileSync("git", ["config", k!, v!], { cwd: dir, env });
  return {
    dir,
    who,
    git: (...args) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim(),
    run: (args, input) => {
      const r = helper([...args, "--root", dir], { input, env: { XDG_CONFIG_HOME: config, HOME: path.dirname(config), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } });
      return { code: r.code, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

function handoffText(goal: string, step: string, own?: { decision: string; failed: string }): string {
  return [
    "<!-- memory-schema: v1 -->",
    "# Session Handoff",
    "",
    "## Current goal",
    goal,
    "",
    "## Plan",
    "- [x] read the code",
    `- [~] ${step}`,
    "",
    "## Decisions",
    "- [user-directed] keep the API",
    ...(own ? [`- ${own.decision}`] : []),
    "",
    "## Failed approaches",
    own ? `- ${own.failed}` : "- none",
    "",
    "## Open questions",
    "- none",
    "",
    "## Next steps",
    `- ${step}`,
    "",
    "## Key files",
    "- src/app.js — the entry",
    "- src/util.js — helpers",
    "",
    "## Environment anchors",
    "",
  ].join("\n");
}

function token(c: Clone): string {
  const r = c.run(["read", "handoff"]);
  return /CURRENT-SHA256: ([0-9a-f]{64}|absent)/.exec(r.stdout)?.[1] ?? "absent";
}

function save(c: Clone, goal: string, step: string, own?: { decision: string; failed: string }): string {
  const r = c.run(["write", "handoff", "--expected-current-sha256", token(c)], handoffText(goal, step, own));
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(path.join(c.dir, ".ai/memory/HANDOFF.md"), "utf8");
}

function drift(c: Clone, pasted?: string): Record<string, unknown> {
  const r = c.run(pasted === undefined ? ["drift", "--json"] : ["drift", "--json", "--stdin"], pasted);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

function brief(c: Clone, pasted?: string): { code: number | null; out: string } {
  const r = c.run(pasted === undefined ? ["brief"] : ["brief", "--stdin"], pasted);
  return { code: r.code, out: r.stdout };
}

const MARKERS = /^(<<<<<<< |=======$|>>>>>>> )/m;

function memoryFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) out.push(p);
    }
  };
  walk(path.join(dir, ".ai", "memory"));
  return out;
}

function noMarkers(c: Clone, ...outputs: string[]): void {
  for (const f of memoryFiles(c.dir)) expect(readFileSync(f, "utf8"), f).not.toMatch(MARKERS);
  for (const o of outputs) expect(o).not.toMatch(/<<<<<<<|>>>>>>>/);
}

describe("two clones, a bare remote, two teammates", () => {
  it("tells absent from rewritten, merges handoffs, and says where memory came from", { timeout: 240_000 }, () => {
    const home = tempDir("sh-teams-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { env: gitEnv(path.join(home, "x")) });
    const seed = clone(home, remote, "alice");
    writeFileSync(path.join(seed.dir, "README.md"), "app\n");
    mkdirSync(path.join(seed.dir, "src"));
    writeFileSync(path.join(seed.dir, "src/app.js"), "export const app = 1;\n");
    writeFileSync(path.join(seed.dir, "src/util.js"), "export const util = 1;\n");
    seed.git("add", "-A");
    seed.git("commit", "-qm", "initial");
    seed.git("push", "-q", "origin", "main");
    const alice = seed;
    const bob = clone(home, remote, "bob");

    // Bob saves first and publishes: his clone records its save and registers the driver.
    save(bob, "Bob's refactor", "split util");
    const pubBob = bob.run(["publish", "--push"]);
    expect(pubBob.code, pubBob.stderr).toBe(0);
    expect(pubBob.stdout).toContain("registered the merge driver session-handoff in .git/config");
    expect(pubBob.stdout).toContain("committed .gitattributes with the merge driver's block (every clone then merges memory with it once it runs install or publish)");
    expect(bob.git("show", "HEAD:.gitattributes")).toContain(".ai/memory/**/*.md merge=session-handoff eol=lf");

    // Alice pulls Bob's handoff before her first save: her clone has no id, so the one Bob's save
    // marked it with is not hers; both the hook and drift say where it came from.
    alice.git("pull", "-q");
    expect(drift(alice).provenance).toMatchObject({ committer: '"Bob Roe" "bob@example.com"', someoneElse: true });
    expect(alice.run(["hook", "--mode", "session"]).stdout).toContain("not saved in this clone");

    // Alice commits and saves; Bob is handed her handoff before fetching her commit.
    writeFileSync(path.join(alice.dir, "src/app.js"), "export const app = 2;\n");
    alice.git("commit", "-qam", "app 2");
    const aliceHead = alice.git("rev-parse", "HEAD");
    const a1 = save(alice, "Alice's feature", "wire the app");
    const pasted = drift(bob, a1);
    expect(pasted).toMatchObject({ verdict: "unverifiable", notHereReason: "not-fetched", headPresent: false, countsAtLeast: false });
    const pastedBrief = brief(bob, a1).out;
    expect(pastedBrief).toContain("not in this clone: fetch, or the history was rewritten");
    expect(pastedBrief).not.toContain("anchors could not be checked");
    expect(pastedBrief).not.toContain("UNVERIFIED");

    // Alice publishes (her clone registers the driver too), Bob pulls: verified now.
    const pubAlice = alice.run(["publish", "--push"]);
    expect(pubAlice.code, pubAlice.stderr).toBe(0);
    expect(pubAlice.stdout).toContain("registered the merge driver session-handoff in .git/config");
    bob.git("pull", "-q");
    const afterFetch = drift(bob);
    expect(["fresh", "drifted"]).toContain(afterFetch.verdict);
    expect(afterFetch).toMatchObject({ headPresent: true, notHereReason: null, saved: { head: aliceHead } });
    // Bob's clone saved before, but not this handoff: the sentence, with Alice as its author.
    expect(afterFetch.provenance).toEqual({ committer: '"Alice Doe" "alice@example.com"', someoneElse: true });
    expect(brief(bob).out).toContain('the handoff was not saved in this clone; its last commit is by "Alice Doe" "alice@example.com"');
    expect(bob.run(["hook", "--mode", "session"]).stdout).toContain(
      "session-handoff: the parked handoff was not saved in this clone (it came with a pull, a reset, a merge or a copy); the resume flow's brief names who committed it.\n",
    );
    expect(brief(alice).out).not.toContain("not saved in this clone");
    expect(alice.run(["hook", "--mode", "session"]).stdout).not.toContain("not saved in this clone");

    // Both save at once; Alice's is later and reaches the remote first; Bob merges.
    save(bob, "Bob's refactor", "split util again");
    expect(bob.run(["publish"]).code).toBe(0);
    sleep(1100);
    const a2 = save(alice, "Alice's feature", "ship it");
    expect(alice.run(["publish", "--push"]).code).toBe(0);
    bob.git("pull", "-q", "--no-edit");
    const merged = readFileSync(path.join(bob.dir, ".ai/memory/HANDOFF.md"), "utf8");
    expect(merged).toContain("ship it");
    const name = /^Merged-with: archive\/(\S+?\.md)(?:;.*)?$/m.exec(merged)?.[1];
    expect(name).toBeDefined();
    expect(readFileSync(path.join(bob.dir, ".ai/memory/archive", name!), "utf8")).toContain("split util again");
    // Bob's open next step is kept below Alice's.
    expect(merged).toMatch(/## Next steps\n- ship it\n- split util again\n/);
    const mergedBrief = brief(bob);
    expect(mergedBrief.code).toBe(0);
    // Another goal is said; on a line this long the archive's name still goes first: `archives list` names it.
    expect(mergedBrief.out).toMatch(/Drift & lessons: two handoffs met in a merge; merged with Bob Roe's handoff of \S+, for another goal: /);
    expect(bob.run(["archives", "list"]).stdout).toContain(name);
    // Bob's merge commit only joined the two: the handoff's author is still the one who saved it.
    expect(mergedBrief.out).toContain('its last commit is by "Alice Doe" "alice@example.com"');
    // The note is a clause of the field: Drift & lessons stays within its 400 characters.
    const driftLine = mergedBrief.out.split("\n").find((l: string) => l.startsWith("Drift & lessons: "))!;
    expect([...driftLine.slice("Drift & lessons: ".length)].length).toBeLessThanOrEqual(400);
    noMarkers(bob, mergedBrief.out, JSON.stringify(drift(bob)));
    expect(bob.run(["check"]).code).toBe(2);
    expect(merged).toContain(a2.split("\n").find((l) => l.startsWith("Saved: "))!);

    // Ledgers merge by entry id: a clash renumbers theirs and notes the old id.
    // (Bob publishes the merge so Alice can rebase onto it.)
    expect(bob.run(["publish", "--push"]).code).toBe(0);

    // A rebase rewrites Alice's saved commit; the old object stays in her clone.
    alice.git("pull", "-q", "--no-edit");
    writeFileSync(path.join(alice.dir, "src/app.js"), "export const app = 3;\n");
    alice.git("commit", "-qam", "app 3");
    const saved3 = alice.git("rev-parse", "HEAD");
    save(alice, "Alice's feature", "polish");
    writeFileSync(path.join(bob.dir, "src/util.js"), "export const util = 2;\n");
    bob.git("commit", "-qam", "util 2");
    bob.git("push", "-q", "origin", "main");
    alice.git("pull", "-q", "--rebase", "--autostash");
    const rebased = drift(alice);
    // The pull kept the saved commit's patch (git cherry marks it `-`): drifted by Bob's commit, not rewritten.
    expect(alice.git("cherry", "HEAD", saved3)).toMatch(/^- [0-9a-f]{40}$/);
    expect(rebased.verdict).toBe("drifted");
    expect([rebased.savedCopied, rebased.savedChanged]).toEqual([1, 0]);
    expect(rebased.headPresent).toBe(true);
    expect(rebased.ahead).toBeNull();
    expect(rebased.sinceSaved).toBe(Number(alice.git("rev-list", "--cherry-pick", "--right-only", "--count", `${saved3}...HEAD`)));
    expect(rebased.sinceSaved).toBe(1);
    const diffed = alice.git("diff", "--name-only", saved3, "HEAD").split("\n").filter((p) => p === "src/app.js" || p === "src/util.js");
    expect(rebased.changedKeyFiles).toEqual(diffed);
    expect(rebased.changedKeyFiles).toEqual(["src/util.js"]);
    noMarkers(alice, JSON.stringify(rebased), brief(alice).out);

    // A cherry-pick of a commit that changed the handoff onto a branch with another one.
    const publishCommit = bob.git("log", "-1", "--no-merges", "--format=%H", "--", ".ai/memory/HANDOFF.md");
    bob.git("checkout", "-q", "-b", "side", `${publishCommit}~1`);
    save(bob, "Bob's side quest", "try the side");
    bob.git("add", ".ai/memory");
    bob.git("commit", "-qm", "side handoff");
    bob.git("cherry-pick", publishCommit);
    noMarkers(bob, brief(bob).out);
    const picked = readFileSync(path.join(bob.dir, ".ai/memory/HANDOFF.md"), "utf8");
    const pickedName = /^Merged-with: archive\/(\S+?\.md)(?:;.*)?$/m.exec(picked)?.[1];
    expect(pickedName && existsSync(path.join(bob.dir, ".ai/memory/archive", pickedName))).toBeTruthy();
    bob.git("checkout", "-q", "main");

    // A shallow clone lacks Alice's first saved commit: deepen it, not "rewritten".
    const shallow = clone(home, `file://${remote}`, "carol", ["--depth", "1"]);
    const cut = drift(shallow, a1);
    expect(cut).toMatchObject({ verdict: "unverifiable", notHereReason: "shallow", headPresent: false, countsAtLeast: true });
    expect(brief(shallow, a1).out).toContain("not in this clone: deepen it (git fetch --deepen or --unshallow)");
  });

  it("a clone without the driver config meets conflicting handoffs: check 3 conflicted, doctor names the missing driver", { timeout: 120_000 }, () => {
    const home = tempDir("sh-teams-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { env: gitEnv(path.join(home, "x")) });
    const alice = clone(home, remote, "alice");
    writeFileSync(path.join(alice.dir, "README.md"), "app\n");
    alice.git("add", "-A");
    alice.git("commit", "-qm", "initial");
    save(alice, "Alice's goal", "first");
    expect(alice.run(["publish", "--push"]).code).toBe(0);
    const carol = clone(home, remote, "carol");
    // Carol never runs install or publish: git merges memory as text here.
    expect(JSON.parse(carol.run(["check", "--json"]).stdout).mergeDriverMissing).toBe(true);
    save(carol, "Carol's goal", "carol's step");
    carol.git("commit", "-qam", "carol's handoff");
    sleep(1100);
    save(alice, "Alice's goal", "second");
    expect(alice.run(["publish", "--push"]).code).toBe(0);
    expect(() => carol.git("pull", "-q", "--no-edit")).toThrow();
    expect(readFileSync(path.join(carol.dir, ".ai/memory/HANDOFF.md"), "utf8")).toMatch(MARKERS);
    const check = carol.run(["check"]);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain("memory is conflicted: git holds HANDOFF.md");
    const json = JSON.parse(carol.run(["check", "--json"]).stdout);
    expect(json).toMatchObject({ code: 3, parked: "conflicted", conflicted: expect.arrayContaining(["HANDOFF.md"]), mergeDriverMissing: true });
    const b = brief(carol);
    expect(b.code).toBe(2);
    expect(b.out).toMatch(/^HANDOFF\.md has unresolved merge conflicts: one side saved \S+Z, the other saved \S+Z; git holds HANDOFF\.md.* unmerged; do not load them: run `node \S+memory_io\.mjs init` once/m);
    // The fixed sentence, pinned whole (it replaces the resume invitation).
    const hookOut = carol.run(["hook", "--mode", "session"]).stdout;
    expect(hookOut).toContain("session-handoff: memory files have unresolved merge conflicts (git holds them unmerged, or they hold conflict markers); do not resume from them: run the skill's `check`, which names the commands that resolve them.\n");
    expect(hookOut).not.toContain("a parked handoff exists");
    expect(carol.run(["validate", "handoff"]).code).toBe(2);
    const doctor = carol.run(["doctor"]);
    expect(doctor.stdout).toContain(".gitattributes names the session-handoff merge driver, but this clone's git config lacks it: git merges memory files as text (conflict markers can land); run `init` (or `install --agent NAME`) once in this clone");
    // The fix registers the driver without committing memory (publish would): install for the agents here, or init.
    expect(doctor.stdout).toMatch(/^  fix: node \S+ init --root \S+ \(add --agent NAME when it finds no agent's folder\)$/m);
    expect(doctor.stdout).not.toMatch(/fix: .* publish/);
    const w = carol.run(["write", "handoff", "--expected-current-sha256", token(carol)], readFileSync(path.join(carol.dir, ".ai/memory/HANDOFF.md"), "utf8"));
    expect(w.code).toBe(2);
    // Unmerged in git's index: refused before the document is looked at, nothing changed.
    expect(w.stderr).toContain("memory operation refused: HANDOFF.md is conflicted; nothing was saved: git holds HANDOFF.md");
  });

  it("ledgers merge by entry id: both sides kept, a clashing id renumbered on their side with the old id noted", { timeout: 120_000 }, () => {
    const home = tempDir("sh-teams-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { env: gitEnv(path.join(home, "x")) });
    const alice = clone(home, remote, "alice");
    const entry = (id: string, title: string) => `## ${id}: ${title}\n- When: always\n- Lesson: ${title}\n- Why: it broke\n- Source: [user-directed] review\n- Status: active\n`;
    const ledger = (...entries: string[]) => `<!-- memory-schema: v1 -->\n# Lessons\n\n${entries.join("\n")}`;
    mkdirSync(path.join(alice.dir, ".ai/memory"), { recursive: true });
    writeFileSync(path.join(alice.dir, ".ai/memory/LESSONS.md"), ledger(entry("L-0001", "pin the node version")));
    expect(alice.run(["publish", "--push"]).code).toBe(0);
    const bob = clone(home, remote, "bob");
    expect(bob.run(["publish"]).stdout).toContain("registered the merge driver");
    writeFileSync(path.join(alice.dir, ".ai/memory/LESSONS.md"), ledger(entry("L-0001", "pin the node version"), entry("L-0002", "run the slow tests alone")));
    expect(alice.run(["publish", "--push"]).code).toBe(0);
    writeFileSync(path.join(bob.dir, ".ai/memory/LESSONS.md"), ledger(entry("L-0001", "pin the node version"), entry("L-0002", "never mock git")));
    expect(bob.run(["publish"]).code).toBe(0);
    bob.git("pull", "-q", "--no-edit");
    const merged = readFileSync(path.join(bob.dir, ".ai/memory/LESSONS.md"), "utf8");
    expect(merged).not.toMatch(MARKERS);
    expect(merged.match(/^## L-\d{4}: .*$/gm)).toEqual(["## L-0001: pin the node version", "## L-0002: never mock git", "## L-0003: run the slow tests alone"]);
    expect(merged).toContain("## L-0003: run the slow tests alone\n- Renumbered: was L-0002 on the other side of a merge\n");
    expect(bob.run(["validate", "lessons"]).code).toBe(0);
  });

  it("install then uninstall leaves .git/config and .gitattributes byte-identical; a repeated install changes nothing under .git/", { timeout: 60_000 }, () => {
    const home = tempDir("sh-teams-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { env: gitEnv(path.join(home, "x")) });
    const c = clone(home, remote, "alice");
    writeFileSync(path.join(c.dir, ".gitattributes"), "*.png binary");
    const config = readFileSync(path.join(c.dir, ".git/config"));
    const attrs = readFileSync(path.join(c.dir, ".gitattributes"));
    const inst = c.run(["install", "--agent", "claude-code"]);
    expect(inst.code, inst.stderr).toBe(0);
    expect(inst.stdout).toContain("registered the merge driver session-handoff");
    expect(c.git("config", "--get", "merge.session-handoff.driver")).toMatch(/\.git\/session-handoff\/merge-driver\.mjs' merge-driver %O %A %B %P; else /);
    expect(c.git("check-attr", "merge", ".ai/memory/HANDOFF.md")).toBe(".ai/memory/HANDOFF.md: merge: session-handoff");
    const snapshot = () => {
      const out: Record<string, string> = {};
      const walk = (d: string) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          const p = path.join(d, e.name);
          if (e.isDirectory()) walk(p);
          else out[p] = readFileSync(p).toString("base64");
        }
      };
      walk(path.join(c.dir, ".git"));
      return out;
    };
    const before = snapshot();
    expect(c.run(["install", "--agent", "claude-code"]).code).toBe(0);
    expect(snapshot()).toEqual(before);
    const un = c.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code, un.stderr).toBe(0);
    expect(readFileSync(path.join(c.dir, ".git/config")).equals(config)).toBe(true);
    expect(readFileSync(path.join(c.dir, ".gitattributes")).equals(attrs)).toBe(true);
  });

  it("a merge keeps both sides: each clone's brief shows both teammates' decisions and failed approaches", { timeout: 180_000 }, () => {
    const home = tempDir("sh-teams-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { env: gitEnv(path.join(home, "x")) });
    const alice = clone(home, remote, "alice");
    writeFileSync(path.join(alice.dir, "README.md"), "app\n");
    alice.git("add", "-A");
    alice.git("commit", "-qm", "initial");
    save(alice, "Alice's goal", "first");
    expect(alice.run(["publish", "--push"]).code).toBe(0);
    const bob = clone(home, remote, "bob");
    expect(bob.run(["publish"]).code).toBe(0);
    const mine = { decision: "[user-directed] Alice: keep the cache in memory", failed: "Alice: a worker pool - `npm test` timed out" };
    const his = { decision: "[inferred] Bob: store dates as UTC", failed: "Bob: mocking git - it hid the rename bug" };
    save(bob, "Bob's goal", "bob's step", his);
    expect(bob.run(["publish", "--push"]).code).toBe(0);
    sleep(1100);
    save(alice, "Alice's goal", "alice's step", mine);
    expect(alice.run(["publish"]).code).toBe(0);
    alice.git("pull", "-q", "--no-edit");
    expect(alice.run(["publish", "--push"]).code).toBe(0);
    bob.git("pull", "-q", "--no-edit");
    for (const c of [alice, bob]) {
      const text = readFileSync(path.join(c.dir, ".ai/memory/HANDOFF.md"), "utf8");
      expect(c.run(["validate", "handoff"]).code, text).toBe(0);
      // The later side's goal and next step lead; the other side's open next step is kept below.
      expect(text).toContain("## Current goal\nAlice's goal");
      expect(text).toMatch(/## Next steps\n- alice's step\n- bob's step\n/);
      const out = brief(c).out;
      for (const item of [mine.decision, his.decision, "keep the API"]) expect(out.split("\n").find((l) => l.startsWith("Decisions in force"))).toContain(item.replace(/^\[[a-z-]+\] /, ""));
      for (const item of [mine.failed, his.failed]) expect(out.split("\n").find((l) => l.startsWith("Do-not-retry"))).toContain(item.split(" - ")[0]);
      // A long line drops the archive's name, but only just before the note that names another goal.
      expect(out).toMatch(/two handoffs met in a merge; (the other is archive\/HANDOFF-\S+\.md; )?merged with Bob Roe's handoff of \S+Z, for another goal: \+1 decision, \+1 failed approach/);
      expect((text.match(/keep the API/g) ?? []).length).toBe(1);
    }
  });
  it("memory saved since its last publish: the brief says a pull would stop on it until publish", { timeout: 180_000 }, () => {
    const home = tempDir("sh-teams-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { env: gitEnv(path.join(home, "x")) });
    const alice = clone(home, remote, "alice");
    writeFileSync(path.join(alice.dir, "README.md"), "app\n");
    alice.git("add", "-A");
    alice.git("commit", "-qm", "initial");
    save(alice, "Alice's goal", "first");
    expect(alice.run(["publish", "--push"]).code).toBe(0);
    const bob = clone(home, remote, "bob");
    expect(bob.run(["publish"]).code).toBe(0);
    save(bob, "Bob's goal", "bob's step");
    expect(bob.run(["publish", "--push"]).code).toBe(0);
    sleep(1100);
    save(alice, "Alice's goal", "alice's step");
    const says = /memory saves not published \(\d+ files?\) stop `git pull --rebase`, and `git pull` when the upstream/;
    // Nothing due from the upstream: nothing said, and no git asked.
    expect(brief(alice).out).not.toMatch(says);
    alice.git("fetch", "-q");
    expect(brief(alice).out).toMatch(says);
    expect(() => alice.git("pull", "-q", "--no-edit")).toThrow(/overwritten by merge/);
    expect(alice.run(["publish"]).code).toBe(0);
    alice.git("pull", "-q", "--no-edit");
    expect(brief(alice).out).not.toMatch(says);
    expect(readFileSync(path.join(alice.dir, ".ai/memory/HANDOFF.md"), "utf8")).toContain("bob's step");
  });
});
