// A merge of two teammates' handoffs keeps both sides' open next steps, and the brief's "(the step of X …)" names
// whoever saved the step it proposes (docs/design.md#the-merge-driver): a bare origin, two clones with the driver,
// real `git pull`s, the built helper spawned.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseHandoff } from "../../src/schema/handoff.ts";
import { aged, helper, tempDir } from "../helpers.ts";

const who = { me: ["Me", "me@x"], mate: ["Mate", "mate@x"] } as const;
type Who = keyof typeof who;

function team() {
  const top = tempDir("sh-merge-steps-");
  const home = path.join(top, "home");
  mkdirSync(home);
  const base = {
    HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CEILING_DIRECTORIES: top,
  };
  const env = (w: Who) => ({
    ...base, GIT_AUTHOR_NAME: who[w][0], GIT_AUTHOR_EMAIL: who[w][1],
    GIT_COMMITTER_NAME: who[w][0], GIT_COMMITTER_EMAIL: who[w][1],
  });
  const dir = { me: path.join(top, "me"), mate: path.join(top, "mate") };
  const git = (w: Who | null, cwd: string, ...args: string[]) => {
    const r = spawnSync("git", ["-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args],
      { cwd, env: { ...process.env, ...env(w ?? "me") }, encoding: "utf8", timeout: 60_000 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };
  const run = (w: Who, args: string[], input?: string) => helper([...args, "--root", dir[w]], { env: env(w), input });
  const save = (w: Who, doc: string) => {
    const token = /CURRENT-SHA256: (\S+)/.exec(run(w, ["read", "handoff"]).stdout)![1]!;
    const wr = run(w, ["write", "handoff", "--expected-current-sha256", token], doc);
    expect(wr.code, wr.stderr).toBe(0);
    const p = run(w, ["publish"]);
    expect(p.code, p.stderr).toBe(0);
  };
  expect(git(null, top, "init", "-q", "--bare", "origin.git").code).toBe(0);
  mkdirSync(dir.me);
  writeFileSync(path.join(dir.me, "a.txt"), "a\n");
  git("me", dir.me, "init", "-q");
  git("me", dir.me, "add", ".");
  git("me", dir.me, "commit", "-qm", "init");
  git("me", dir.me, "remote", "add", "origin", path.join(top, "origin.git"));
  expect(run("me", ["install", "--agent", "codex"]).code).toBe(0);
  save("me", doc("Me's goal", ["Wire NO_DIM in a.txt"], "2026-12-01T08:00:00Z"));
  expect(git("me", dir.me, "push", "-q", "-u", "origin", "main").code).toBe(0);
  expect(git("mate", top, "clone", "-q", path.join(top, "origin.git"), dir.mate).code).toBe(0);
  expect(run("mate", ["install", "--agent", "codex"]).code).toBe(0);
  const push = (w: Who) => expect(git(w, dir[w], "push", "-q").out).toBe("");
  const pull = (w: Who, mode = "--no-rebase") => git(w, dir[w], "pull", "-q", mode);
  const read = (w: Who) => readFileSync(path.join(dir[w], ".ai", "memory", "HANDOFF.md"), "utf8");
  const proposed = (w: Who) => /^Proposed next step: .*$/m.exec(run(w, ["brief"]).stdout)?.[0] ?? "";
  return { run, save, push, pull, read, proposed };
}

function doc(goal: string, next: string[], at: string): string {
  return aged([
    "<!-- memory-schema: v1 -->", "# Session Handoff", "Saved: x", "", "## Current goal", goal, "",
    "## Plan", "- [~] Add the env switches", "", "## Decisions", "- [user-directed] No new dependency: zero deps", "",
    "## Failed approaches", "- terminfo probing: not portable", "", "## Open questions", "- none", "",
    "## Next steps", ...(next.length === 0 ? ["- none"] : next.map((n, i) => `${i + 1}. ${n}`)), "",
    "## Key files", "- `a.txt` — the file", "", "## Environment anchors", "- Date: x", "",
  ].join("\n"), at);
}

describe("a merge keeps both sides' next steps and says whose the proposed one is", () => {
  // The teammate's own handoff put its step where mine stood in the base: read as my step reworded, it replaced mine.
  it.each(["--no-rebase", "--rebase"])("my later save with its step unchanged keeps it first (git pull %s)",
    { timeout: 120_000 }, (mode) => {
      const t = team();
      t.save("mate", doc("Mate's goal", ["Wire FORCE_COLOR in a.txt"], "2026-12-01T09:00:00Z"));
      t.push("mate");
      t.save("me", doc("Me's goal", ["Wire NO_DIM in a.txt"], "2026-12-01T10:00:00Z"));
      const p = t.pull("me", mode);
      expect(p.code, p.out).toBe(0);
      const merged = parseHandoff(t.read("me"));
      expect(merged.goal).toBe("Me's goal");
      expect(merged.nextSteps).toEqual(["Wire NO_DIM in a.txt", "Wire FORCE_COLOR in a.txt"]);
      expect(t.proposed("me")).toMatch(/then: Wire NO_DIM in a\.txt — Confirm\?$|^Proposed next step: Wire NO_DIM/);
      expect(t.proposed("me")).not.toContain("the step of");
      // The teammate's steps now stand under my goal: the brief says that handoff had another (this line is too long
      // for the archive's name, kept only when it fits).
      const drift = /^Drift & lessons: .*$/m.exec(t.run("me", ["brief"]).stdout)?.[0];
      if (mode === "--no-rebase") expect(drift).toMatch(/merge; merged with Mate's handoff of \S+, for another goal: /);
    });

  // My later handoff has no next step left, so the merge proposes the teammate's: it was credited to whoever saved
  // the current handoff, in both clones.
  it("a step from the other handoff is its saver's: none in the clone that saved it, theirs elsewhere",
    { timeout: 120_000 }, () => {
      const t = team();
      t.save("me", doc("Me's goal", [], "2026-12-01T10:00:00Z"));
      t.push("me");
      t.save("mate", doc("Mate's goal", ["Wire FORCE_COLOR in a.txt"], "2026-12-01T09:00:00Z"));
      const p = t.pull("mate");
      expect(p.code, p.out).toBe(0);
      expect(parseHandoff(t.read("mate")).goal).toBe("Me's goal");
      expect(parseHandoff(t.read("mate")).nextSteps).toEqual(["Wire FORCE_COLOR in a.txt"]);
      expect(t.proposed("mate")).toContain("Wire FORCE_COLOR");
      expect(t.proposed("mate")).not.toContain("the step of");
      expect(t.run("mate", ["publish", "--push"]).code).toBe(0); // with the merge's archive
      expect(t.pull("me").code).toBe(0);
      expect(t.proposed("me")).toContain('(the step of "Mate" "mate@x", saved in another clone) Wire FORCE_COLOR');
    });
});
