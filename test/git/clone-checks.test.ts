// What a clone's own shape says to drift: its record of saves outweighs its clone reflog's date, a shallow cut
// hides a saved commit without rewriting it, and a sparse checkout keeps key files out of the tree on purpose.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV, commit, git, newRepo, tempDir } from "./repo.ts";
import { handoff, helper, tokenOf } from "../helpers.ts";
import { inProcess, tokenIn } from "../in-process.ts";

const NOW = Date.now();

// The verbs run in this process (inProcess); the first case's save goes through the built helper.
async function save(root: string, keys = "- none", spawn = false): Promise<void> {
  const doc = handoff("clone checks").replace("## Key files\n- none", `## Key files\n${keys}`)
    .replace(/## Environment anchors\n[\s\S]*$/, "## Environment anchors\n");
  const args = ["write", "handoff", "--root", root, "--expected-current-sha256"];
  const w = spawn ? helper([...args, tokenOf(root)], { input: doc }) : await inProcess([...args, await tokenIn(root)], { input: doc });
  expect(w.code, w.stderr).toBe(0);
}

async function drift(root: string) {
  const r = await inProcess(["drift", "--root", root, "--json"]);
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
  it("reads work it threw away as reverted, its reflog dated an hour ahead", { timeout: 60_000 }, async () => {
    const origin = newRepo(NOW - 100_000, { "f.txt": "v0\n" });
    const dir = cloneAt(origin, NOW + 3_600_000);
    writeFileSync(path.join(dir, "f.txt"), "v1\n");
    await save(dir, "- none", true);
    git(dir, ["checkout", "--", "f.txt"]);
    // Old: "not-here" and fresh, the clone's own record of the save outweighed by its reflog's date.
    expect(await drift(dir)).toMatchObject({ verdict: "drifted", dirtyFates: [{ path: "f.txt", fate: "reverted" }] });
    expect((await inProcess(["brief", "--root", dir])).stdout).toContain("reverted (neither committed nor stashed)");
  });

  it("with no record, counts a clone of the save's second as before it, and one of the next as after", async () => {
    const origin = newRepo(NOW - 100_000, { "f.txt": "v0\n" });
    const dir = cloneAt(origin, NOW);
    writeFileSync(path.join(dir, "f.txt"), "v1\n");
    await save(dir);
    git(dir, ["checkout", "--", "f.txt"]);
    // An older version's handoff: no clone mark, no record of saves.
    writeFileSync(HANDOFF(dir), readFileSync(HANDOFF(dir), "utf8").replace(/^<!-- saved in clone .*\n/m, ""));
    rmSync(path.join(dir, ".git", "session-handoff"), { recursive: true, force: true });
    const log = path.join(dir, ".git", "logs", "HEAD");
    const cloned = (sec: number) =>
      writeFileSync(log, readFileSync(log, "utf8").replace(/ \d+ ([+-]\d{4}\tclone: )/, ` ${sec} $1`));
    cloned(savedSec(dir));
    // Old: "not-here", the clone of the save's own second taken as made after it.
    expect((await drift(dir)).dirtyFates).toEqual([{ path: "f.txt", fate: "reverted" }]);
    cloned(savedSec(dir) + 1);
    expect((await drift(dir)).dirtyFates).toEqual([{ path: "f.txt", fate: "not-here" }]);
  });
});

describe("a shallow clone", () => {
  it("reads a fast-forward past its cut as unverifiable, deepen it; an amend still as rewritten", { timeout: 60_000 }, async () => {
    const origin = newRepo(NOW - 300_000, { "a.txt": "a\n" });
    commit(origin, "S", NOW - 100_000, { "s.txt": "s\n" });
    const dir = cloneAt(`file://${origin}`, NOW - 50_000, ["--depth", "1"]);
    await save(dir);
    for (const n of [1, 2, 3]) commit(origin, `N${n}`, NOW - 10_000 + n * 1000, { "n.txt": `${n}\n` });
    git(dir, ["fetch", "-q", "--depth", "1", "origin", "main"]);
    git(dir, ["reset", "-q", "--hard", "origin/main"]);
    const d = await drift(dir);
    // Old: rewritten ("rebase, amend, reset…", 1 commit since), though the saved commit is under the new cut.
    expect(d).toMatchObject({ verdict: "unverifiable", notHereReason: "shallow", headPresent: true, sinceSaved: null });
    expect(d.summary).toContain("deepen it (git fetch --deepen or --unshallow)");
    // Nothing cut on HEAD's side: an amend of the saved commit cannot be under a cut.
    const amended = cloneAt(`file://${origin}`, NOW - 5_000, ["--depth", "2"]);
    await save(amended);
    git(amended, ["remote", "remove", "origin"]);
    writeFileSync(path.join(amended, "n.txt"), "amended\n");
    git(amended, ["commit", "-q", "-a", "--amend", "-m", "N3 amended"]);
    expect(await drift(amended)).toMatchObject({ verdict: "rewritten", notHereReason: null });
  });
});

describe("a sparse checkout", () => {
  it("does not call a key file outside its cone missing; one deleted still is", { timeout: 60_000 }, async () => {
    const root = newRepo(NOW - 100_000, { "src/x.txt": "s\n", "docs/y.txt": "d\n" });
    git(root, ["sparse-checkout", "set", "src"]);
    expect(git(root, ["ls-files", "-t", "docs/y.txt"])).toBe("S docs/y.txt");
    await save(root, "- `docs/y.txt` — outside the cone\n- `src/x.txt` — inside it");
    // Old: drifted, "key files missing: docs/y.txt", right after the save.
    expect(await drift(root)).toMatchObject({ verdict: "fresh", missingKeyFiles: [], keyFilesNotYetCreated: [] });
    rmSync(path.join(root, "src", "x.txt"));
    expect(await drift(root)).toMatchObject({ verdict: "drifted", missingKeyFiles: ["src/x.txt"] });
  });
});
