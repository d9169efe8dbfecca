// The most git processes `drift` runs, counted through the built helper in the worst case we can
// build: every condition that adds one, at once. Its --help, references/verbs/drift.md and
// docs/design.md state that bound; this fails when the count exceeds it.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV, git, gitCalls, loggingGit, newRepo } from "./repo.ts";
import { HELPER, handoff, helper, tokenOf } from "../helpers.ts";

const NOW = Date.now();
const DAY = 86_400_000;
const REPO = path.dirname(path.dirname(HELPER));

function put(root: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), text);
  }
}

function worstCase(): string {
  const root = newRepo(NOW - 30 * DAY, {
    "README.md": "hi\n", "key.txt": "k0\n", "a.txt": "a0\n", "still.txt": "s0\n", "crlf.txt": "x\r\n",
    "gone.txt": "g0\n", ".ai/memory/HANDOFF.md": "old\n", ".gitattributes": "*.bin filter=cat\n", "out.txt": "o\n",
  });
  // A key file kept out of the work tree (a sparse checkout's skip-worktree): its index, version 3, is asked.
  git(root, ["update-index", "--skip-worktree", "out.txt"]);
  rmSync(path.join(root, "out.txt"));
  // A clean filter in the config: the ids of files dirty then and now ask which files it applies to.
  git(root, ["config", "filter.cat.clean", "cat"]);
  git(root, ["branch", "other"]);
  git(root, ["checkout", "-q", "-b", "feature"]);
  // More commits on the saved branch than drift logs (2,000): the log is cut, and counted apart.
  const sec = Math.floor((NOW - 20 * DAY) / 1000);
  const stream = Array.from({ length: 2001 }, (_, i) =>
    `commit refs/heads/feature\ncommitter T <t@example.com> ${sec} +0000\ndata 2\nc\n${i === 0 ? "from refs/heads/feature^0\n" : ""}\n`);
  execFileSync("git", ["fast-import", "--quiet"], { cwd: root, env: ENV, input: stream.join("") });
  git(root, ["reset", "-q", "--hard", "feature"]);
  put(root, { "key.txt": "k1\n", "a.txt": "a1\n", "still.txt": "s1\n", "crlf.txt": "y\r\n", "gone.txt": "g1\n" });
  const doc = handoff("worst case").replace("## Key files\n- none", "## Key files\n- key.txt — k\n- missing.txt — planned\n- out.txt — o")
    .replace(/## Environment anchors\n[\s\S]*$/, "## Environment anchors\n");
  const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", tokenOf(root)], { input: doc });
  expect(w.code, w.stderr).toBe(0);
  // Saved in another clone: the handoff's last committer is looked up.
  const file = path.join(root, ".ai", "memory", "HANDOFF.md");
  writeFileSync(file, readFileSync(file, "utf8").replace(/saved in clone [0-9a-f]{16}/, "saved in clone 0123456789abcdef"));
  const later = NOW + 60_000;
  // The saved branch is gone (its HEAD only in the reflog): rewritten, with the patch-equivalence log.
  git(root, ["checkout", "-q", "main"]);
  git(root, ["branch", "-q", "-D", "feature"]);
  // Another worktree's detached HEAD, asked with `merge-base` when no branch or the stash holds the saved commit.
  git(root, ["worktree", "add", "-q", "--detach", `${root}-wt`, "main"]);
  git(root, ["commit", "-qm", "work as saved", "--", "a.txt", "key.txt"], later);
  git(root, ["rm", "-q", "-f", "gone.txt"]);
  git(root, ["commit", "-qm", "gone"], later);
  // A publish-like commit of memory and .gitattributes, read in both logs.
  put(root, { ".ai/memory/LESSONS.md": "l\n", ".gitattributes": "*.bin filter=cat\n# x\n" });
  git(root, ["add", ".ai/memory/LESSONS.md", ".gitattributes"]);
  git(root, ["commit", "-qm", "publish"], later);
  git(root, ["checkout", "-q", "other"]);
  put(root, { "README.md": "theirs\n" });
  git(root, ["commit", "-qm", "theirs", "--", "README.md"], later);
  git(root, ["checkout", "-q", "main"]);
  put(root, { "README.md": "stashed\n" });
  git(root, ["stash", "push", "-q", "--", "README.md"]);
  put(root, { "README.md": "ours\n" });
  git(root, ["commit", "-qm", "ours", "--", "README.md"], later);
  // A merge in progress, its other side never touching the handoff.
  spawnSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", "merge", "-q", "other"], { cwd: root, env: ENV });
  expect(git(root, ["status", "--porcelain", "--", "README.md"])).toBe("UU README.md");
  return root;
}

const stated = (text: string) => Number(/at most (\d+) git processes/.exec(text.replace(/\s+/g, " "))?.[1]);

describe("drift's git processes", () => {
  it("reach, and never pass, the bound its help, its reference and the design state", { timeout: 120_000 }, () => {
    const root = worstCase();
    const { bin, log } = loggingGit();
    const r = spawnSync(process.execPath, [HELPER, "drift", "--root", root, "--json"],
      { env: { ...ENV, PATH: `${bin}${path.delimiter}${ENV.PATH}` }, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      verdict: "rewritten", headReachable: false, headPresent: true, missingKeyFiles: [], keyFilesNotYetCreated: ["missing.txt"],
    });
    // Every process counts, the runner's one reading of the filters' names too.
    const count = gitCalls(log).length;
    const help = stated(helper(["drift", "--help"]).stdout);
    // Old: the help said 11.
    expect(count).toBeLessThanOrEqual(help);
    expect(count).toBe(help);
    expect(stated(readFileSync(path.join(REPO, "references", "verbs", "drift.md"), "utf8"))).toBe(help);
    expect(stated(readFileSync(path.join(REPO, "docs", "design.md"), "utf8"))).toBe(help);
  });
});
