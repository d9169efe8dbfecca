// The Drift & lessons line after a merge of two teammates' handoffs (docs/decisions/brief-cuts.md): whatever the
// 400-character cut drops, what the resume step acts on stays: the verdict, the dirty counts, the ledgers.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MARKER, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const PEOPLE = {
  alice: ["Alice Lovelace-Hopper", "alice.lovelace-hopper@engineering.example.com"],
  bob: ["Bob Babbage-Turing", "bob.babbage-turing@engineering.example.com"],
} as const;

function clone(home: string, remote: string, who: keyof typeof PEOPLE) {
  const dir = path.join(home, who);
  const env = {
    HOME: path.join(home, `${who}-home`), XDG_CONFIG_HOME: path.join(home, `${who}-home`, ".config"),
    GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: home,
  };
  mkdirSync(env.XDG_CONFIG_HOME, { recursive: true });
  const gitEnv = { ...process.env, ...env };
  const [name, email] = PEOPLE[who];
  // The clone's own config, written by the clone itself: one git process, not five.
  const config = [`user.name=${name}`, `user.email=${email}`, "commit.gpgsign=false", "pull.rebase=false"].flatMap((c) => ["-c", c]);
  execFileSync("git", ["clone", "-q", ...config, remote, dir], { env: gitEnv, stdio: "pipe" });
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  // The verbs run in this process (test/in-process.ts); git's pull still starts the merge driver as a process.
  const run = (args: string[], input?: string) => inProcess([...args, "--root", dir], { env, input });
  const save = async (kind: string, text: string) => {
    const token = /CURRENT-SHA256: (\S+)/.exec((await run(["read", kind])).stdout)![1]!;
    const r = await run(["write", kind, "--expected-current-sha256", token], text);
    expect(r.code, r.stderr).toBe(0);
  };
  return { dir, git, run, save };
}

const handoffOf = (goal: string, step: string) => `${MARKER}\n# Session Handoff\n\n## Current goal\n${goal}\n\n` +
  `## Plan\n- [x] read the code\n- [~] ${step}\n\n## Decisions\n- [user-directed] keep the API\n\n` +
  `## Failed approaches\n- none\n\n## Open questions\n- none\n\n## Next steps\n- ${step}\n\n` +
  "## Key files\n- src/app.js — the entry\n\n## Environment anchors\n";

const LESSONS = `${MARKER}\n# Lessons\n\n## L-0001: Run the app tests\n- When: changing src/app.js\n` +
  "- Lesson: run the app tests\n- Why: they caught a bug\n- Source: [user-directed], 2026-11-01\n- Status: active\n";

const driftLine = (out: string) => out.split("\n").find((l) => l.startsWith("Drift & lessons: "))!.slice(17);

describe("brief's Drift & lessons line after two handoffs met in a merge", () => {
  it("keeps the verdict, the dirty counts and the ledgers; the archive's name goes first", { timeout: 120_000 }, async () => {
    const home = tempDir("sh-drift-line-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { stdio: "pipe" });
    const alice = clone(home, remote, "alice");
    mkdirSync(path.join(alice.dir, "src"));
    writeFileSync(path.join(alice.dir, "src/app.js"), "export const app = 1;\n");
    alice.git("add", "-A");
    alice.git("commit", "-qm", "initial");
    alice.git("push", "-q", "origin", "HEAD:main");
    const bob = clone(home, remote, "bob");
    await alice.save("lessons", LESSONS);
    await alice.save("handoff", handoffOf("Alice's feature", "wire the app"));
    expect((await alice.run(["publish", "--push"])).code).toBe(0);
    bob.git("pull", "-q");
    await bob.save("handoff", handoffOf("Bob's refactor", "split the app"));
    expect((await bob.run(["publish"])).code).toBe(0);
    // `Saved:` has whole seconds: Alice's save is strictly later, so the driver keeps hers.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    await alice.save("handoff", handoffOf("Alice's feature", "ship the app"));
    expect((await alice.run(["publish", "--push"])).code).toBe(0);
    writeFileSync(path.join(bob.dir, "notes.txt"), "bob's scratch\n");
    bob.git("pull", "-q", "--no-edit");
    expect(readFileSync(path.join(bob.dir, ".ai/memory/HANDOFF.md"), "utf8")).toMatch(/^Merged-with: archive\//m);

    const merged = driftLine((await bob.run(["brief"])).stdout);
    expect([...merged].length).toBeLessThanOrEqual(400);
    expect(merged).toContain("two handoffs met in a merge");
    expect(merged).toMatch(/(^|; )fresh: /);
    expect(merged).toContain("dirty files: 0 then, 1 now");
    expect(merged).toContain("ledgers: LESSONS.md 1 entry (1 mention the key files or branch)");
    expect(merged).toContain("the handoff was not saved in this clone");
    // The longest name, the archive's, is what went: `archives list` names it, and the end counts what was dropped.
    expect(merged).not.toContain("the other is archive/");
    expect(merged).toMatch(/; … \+\d+ facts?$/);

    // Amending the merge keeps its parents: the same line.
    bob.git("commit", "-q", "--amend", "-m", "merge alice's handoff");
    expect(driftLine((await bob.run(["brief"])).stdout)).toBe(merged);

    // A checkpoint newer than the merged handoff: its source joins the ranked clauses, and the merge's notes, put in
    // after the fold, are fitted with them rather than joined on past the limit. The user's request since the save is
    // a clause of its own that goes before the counts and the ledgers.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    const at = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    mkdirSync(path.join(bob.dir, ".ai/memory/checkpoints"), { recursive: true });
    writeFileSync(path.join(bob.dir, ".ai/memory/checkpoints/s.md"), `${MARKER}\n# Session Checkpoint\nSaved: ${at}\n` +
      "Session: s\nSession-start: unknown\nTrigger: session-end\nSource: planted\n\n" +
      "## User requests\n- The user wrote: split the app into a router and handlers, keep the public API exactly " +
      "as it is and add tests\n\n" +
      `## Plan state\n- [~] split the app\n\n## Environment anchors\n- Date: ${at}\n`, { mode: 0o600 });
    const folded = driftLine((await bob.run(["brief"])).stdout);
    expect([...folded].length).toBeLessThanOrEqual(400);
    expect(folded).toMatch(/^two handoffs met in a merge; fresh: /);
    expect(folded).toContain("dirty files: 0 then, 1 now");
    expect(folded).toContain("ledgers: LESSONS.md 1 entry (1 mention the key files or branch)");
    expect(folded).toContain("; source: checkpoint 0 minutes ago;");
    expect(folded).not.toContain("the other is archive/");
    expect(folded).toMatch(/; … \+\d+ facts?$/);
    expect(JSON.parse((await bob.run(["brief", "--json"])).stdout).brief.source).toBe("handoff+checkpoint");

    // An amend that changes the saved commit's patch rewrites it: a longer verdict, the same counts kept.
    writeFileSync(path.join(alice.dir, "src/app.js"), "export const app = 2;\n");
    alice.git("commit", "-qam", "app 2");
    await alice.save("handoff", handoffOf("Alice's feature", "ship the app now"));
    writeFileSync(path.join(alice.dir, "scratch.txt"), "alice's scratch\n");
    writeFileSync(path.join(alice.dir, "src/app.js"), "export const app = 3;\n");
    alice.git("commit", "-q", "--amend", "-m", "app 3", "--", "src/app.js");
    const amended = driftLine((await alice.run(["brief"])).stdout);
    expect([...amended].length).toBeLessThanOrEqual(400);
    expect(amended).toMatch(/^rewritten: /);
    expect(amended).toContain("dirty files: 0 then, 1 now");
    expect(amended).toContain("ledgers: LESSONS.md 1 entry (1 mention the key files or branch)");
  });
});

// A newcomer's clone of a semver project: a teammate's handoff, a key file the teammate changed after the save, work
// dirty in the teammate's clone, a merge of two handoffs and a newer checkpoint with a long request, all on one line.
describe("brief's Drift & lessons line in a teammate's clone with everything at once", () => {
  const KEY = "functions/is-stable.js";
  const semverHandoff = (goal: string, step: string) => handoffOf(goal, step)
    .replace("- src/app.js — the entry", `- ${KEY} — what counts as a stable version\n- functions/compare.js — order`);
  const REQUEST = "make the prerelease comparison follow section eleven of the semver specification exactly, " +
    "build metadata ignored";

  it("keeps the verdict, the changed key file, the fates, the counts and the ledgers", { timeout: 120_000 }, async () => {
    const home = tempDir("sh-drift-newcomer-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { stdio: "pipe" });
    const alice = clone(home, remote, "alice");
    mkdirSync(path.join(alice.dir, "functions"));
    writeFileSync(path.join(alice.dir, KEY), "module.exports = (v) => !v.prerelease.length;\n");
    writeFileSync(path.join(alice.dir, "functions/compare.js"), "module.exports = (a, b) => 0;\n");
    alice.git("add", "-A");
    alice.git("commit", "-qm", "initial");
    alice.git("push", "-q", "origin", "HEAD:main");
    const bob = clone(home, remote, "bob");
    await alice.save("lessons", LESSONS.replace("src/app.js", KEY));
    await bob.save("handoff", semverHandoff("Bob's range parser", "parse the ranges"));
    expect((await bob.run(["publish"])).code).toBe(0);
    // Alice saves with work dirty in her clone only, publishes, then commits a change to a key file.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    writeFileSync(path.join(alice.dir, "functions/compare.js"), "module.exports = (a, b) => a.localeCompare(b);\n");
    writeFileSync(path.join(alice.dir, "functions/prerelease-notes.md"), "alice's notes\n");
    await alice.save("handoff", semverHandoff("Alice's stable check", "handle prereleases"));
    expect((await alice.run(["publish", "--push"])).code).toBe(0);
    writeFileSync(path.join(alice.dir, KEY), "module.exports = (v) => v.major > 0 && !v.prerelease.length;\n");
    alice.git("commit", "-qm", "0.x is not stable", "--", KEY);
    alice.git("push", "-q", "origin", "HEAD:main");
    // Bob puts a try aside (a stash since the save), keeps a scratch file dirty and pulls: the driver merges.
    writeFileSync(path.join(bob.dir, "try.js"), "bob's try\n");
    bob.git("stash", "push", "-q", "-u", "--", "try.js");
    writeFileSync(path.join(bob.dir, "notes.txt"), "bob's scratch\n");
    bob.git("pull", "-q", "--no-edit");
    expect(readFileSync(path.join(bob.dir, ".ai/memory/HANDOFF.md"), "utf8")).toMatch(/^Merged-with: archive\//m);

    const summary = JSON.parse((await bob.run(["drift", "--json"])).stdout).summary as string;
    expect(summary).toContain(`key files changed: "${KEY}"`);
    const kept = (line: string) => {
      expect([...line].length).toBeLessThanOrEqual(400);
      expect(line).toMatch(/^two handoffs met in a merge; drifted: /);
      expect(line).toContain(`key files changed: "${KEY}"`);
      expect(line).toMatch(/dirty in the clone that saved, not in this one: "functions\/compare\.js"/);
      expect(line).toContain("dirty files: 2 then, 1 now");
      expect(line).toContain("ledgers: LESSONS.md 1 entry (1 mention the key files or branch)");
      // What went is what an agent can do without, `drift` prints it, and the line says so.
      const gone = summary.split("; ").filter((c) => !line.includes(c));
      for (const c of gone) expect(c).toMatch(/memory-only|^upstream |^its last commit is by |^on "|^saved \d|^a stash /);
      // The count covers them and the merge's notes dropped with them, unless it would cost a clause kept here.
      const mark = /; …( \+(\d+) facts?)?$/.exec(line);
      expect(mark !== null, line).toBe(gone.length > 0);
      if (mark?.[2] !== undefined) expect(Number(mark[2])).toBeGreaterThanOrEqual(gone.length);
    };
    kept(driftLine((await bob.run(["brief"])).stdout));

    // A newer checkpoint with a long request: that it exists stays with the counts; the request goes before them.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    const at = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    mkdirSync(path.join(bob.dir, ".ai/memory/checkpoints"), { recursive: true });
    writeFileSync(path.join(bob.dir, ".ai/memory/checkpoints/s.md"), `${MARKER}\n# Session Checkpoint\nSaved: ${at}\n` +
      "Session: s\nSession-start: unknown\nTrigger: session-end\nSource: planted\n\n" +
      `## User requests\n- The user wrote: ${REQUEST}\n\n## Plan state\n- [~] handle prereleases\n\n` +
      `## Environment anchors\n- Date: ${at}\n`, { mode: 0o600 });
    const folded = driftLine((await bob.run(["brief"])).stdout);
    kept(folded);
    expect(folded).not.toContain("after the save the user asked");
    expect(folded).toMatch(/; source: checkpoint 0 minutes ago(;|$)/);
  });
});

// Found by a user: three long key files changed since the save made their clause too long, and the line ended in a
// bare `; …` that said neither that files were left out nor how many.
describe("brief's Drift & lessons line says what a cut left out", () => {
  it("names the count of the files in a dropped clause, within 400 characters", { timeout: 60_000 }, async () => {
    const home = tempDir("sh-drift-left-");
    const remote = path.join(home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", remote], { stdio: "pipe" });
    const alice = clone(home, remote, "alice");
    const keys = ["parser", "router", "handler"].map((w) =>
      `packages/${"the-long-named-workspace-package-".repeat(2)}${w}/src/${"a-deeply-descriptive-module-name-".repeat(2)}${w}.js`);
    for (const k of keys) {
      mkdirSync(path.dirname(path.join(alice.dir, k)), { recursive: true });
      writeFileSync(path.join(alice.dir, k), "export {};\n");
    }
    alice.git("add", "-A");
    alice.git("commit", "-qm", "initial");
    await alice.save("handoff", handoffOf("Alice's feature", "wire the app")
      .replace("- src/app.js — the entry", keys.map((k) => `- ${k} — a part`).join("\n")));
    for (const k of keys) writeFileSync(path.join(alice.dir, k), "export const changed = 1;\n");
    alice.git("commit", "-qam", "change every key file");
    const summary = JSON.parse((await alice.run(["drift", "--json"])).stdout).summary as string;
    expect(summary).toContain("key files changed: ");
    const line = driftLine((await alice.run(["brief"])).stdout);
    expect([...line].length).toBeLessThanOrEqual(400);
    expect(line).not.toContain("key files changed");
    expect(line).toMatch(/; … \+3 files(, \+\d+ facts?)?$/);
  });
});
