// What a clone's own shape says to drift: its record of saves outweighs its clone reflog's date, a shallow cut
// hides a saved commit without rewriting it, and a sparse checkout keeps key files out of the tree on purpose.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV, git, newRepo, tempDir } from "./repo.ts";
import { handoff, helper, tokenOf } from "../helpers.ts";

const NOW = Date.now();

function save(root: string, keys = "- none"): void {
  const doc = handoff("clone checks").replace("## Key files\n- none", `## Key files\n${keys}`)
    .replace(/## Environment anchors\n[\s\S]*$/, "## Environment anchors\n");
  const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", tokenOf(root)], { input: doc });
  expect(w.code, w.stderr).toBe(0);
}

function drift(root: string) {
  const r = helper(["drift", "--root", root, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

// A clone of `origin`, its HEAD reflog's `clone:` entry dated `at` (ms).
function cloneAt(origin: string, at: number, extra: string[] = []): string {
  const dir = path.join(tempDir(), "clone");
  const d = `@${Math.floor(at / 1000)} +0000`;
  execFileSync("git", ["clone", "-q", ...extra, origin, dir], { env: { ...ENV, GIT_COMMITTER_DATE: d }, stdio: "pipe" });
  return dir;
}

const HANDOFF = (root: string) => path.join(root, ".ai", "memory", "HANDOFF.md");
const savedSec = (root: string) =>
  Date.parse(/^Saved: (\S+)$/m.exec(readFileSync(HANDOFF(root), "utf8"))![1]!) / 1000;

describe("the clone that saved", () => {
  it("reads work it threw away as reverted, its reflog dated an hour ahead", { timeout: 60_000 }, () => {
    const origin = newRepo(NOW - 100_000, { "f.txt": "v0\n" });
    const dir = cloneAt(origin, NOW + 3_600_000);
    writeFileSync(path.join(dir, "f.txt"), "v1\n");
    save(dir);
    git(dir, ["checkout", "--", "f.txt"]);
    // Old: "not-here" and fresh, the clone's own record of the save outweighed by its reflog's date.
    expect(drift(dir)).toMatchObject({ verdict: "drifted", dirtyFates: [{ path: "f.txt", fate: "reverted" }] });
    expect(helper(["brief", "--root", dir]).stdout).toContain("reverted (neither committed nor stashed)");
  });

  it("with no record, counts a clone of the save's second as before it, and one of the next as after", () => {
    const origin = newRepo(NOW - 100_000, { "f.txt": "v0\n" });
    const dir = cloneAt(origin, NOW);
    writeFileSync(path.join(dir, "f.txt"), "v1\n");
    save(dir);
    git(dir, ["checkout", "--", "f.txt"]);
    // An older version's handoff: no clone mark, no record of saves.
    writeFileSync(HANDOFF(dir), readFileSync(HANDOFF(dir), "utf8").replace(/^<!-- saved in clone .*\n/m, ""));
    rmSync(path.join(dir, ".git", "session-handoff"), { recursive: true, force: true });
    const log = path.join(dir, ".git", "logs", "HEAD");
    const cloned = (sec: number) =>
      writeFileSync(log, readFileSync(log, "utf8").replace(/ \d+ ([+-]\d{4}\tclone: )/, ` ${sec} $1`));
    cloned(savedSec(dir));
    // Old: "not-here", the clone of the save's own second taken as made after it.
    expect(drift(dir).dirtyFates).toEqual([{ path: "f.txt", fate: "reverted" }]);
    cloned(savedSec(dir) + 1);
    expect(drift(dir).dirtyFates).toEqual([{ path: "f.txt", fate: "not-here" }]);
  });
});
