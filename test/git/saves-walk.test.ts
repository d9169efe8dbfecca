// The clone's record of its saves lives in the git dir found by walking up from the root; that
// walk keeps the root walk's ownership rule (docs/design.md#the-root): a `.git` above a folder another
// user controls (a planted /tmp/.git) is never this project's, so no save is recorded there.
// Real folders and modes; another user's folder is made with chown, so that case needs root.
import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { gitTopOf } from "../../src/git/git-dir.ts";
import { savedHere, savesPath } from "../../src/git/saves.ts";
import { git, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
const NOBODY = 65534;

// A repository at `top` and a start two folders below it, through `top/shared`.
function nested(): { top: string; shared: string; root: string } {
  const top = tempDir("sh-saves-");
  git(top, "init", "-q");
  const shared = path.join(top, "shared");
  const root = path.join(shared, "project");
  mkdirSync(root, { recursive: true });
  return { top, shared, root };
}

describe("the git top above the root is found only through folders the user owns", () => {
  it("a sticky world-writable folder (like /tmp) between the root and the repository stops the walk", () => {
    const { top, shared, root } = nested();
    expect(gitTopOf(root, ENV)).toBe(top);
    expect(savesPath(root, ENV)).toBe(path.join(top, ".git", "session-handoff", "saves"));
    chmodSync(shared, 0o1777);
    expect(gitTopOf(root, ENV)).toBeNull();
    expect(savesPath(root, ENV)).toBeNull();
  });

  it.skipIf(process.getuid?.() !== 0)("another user's folder stops the walk; the root itself is trusted whoever owns it", () => {
    const { top, shared, root } = nested();
    chownSync(shared, NOBODY, NOBODY);
    expect(gitTopOf(root, ENV)).toBeNull();
    chownSync(top, NOBODY, NOBODY);
    expect(gitTopOf(top, ENV)).toBe(top);
  });

  it("the verb's environment, not the process's, says which folders git's safe.directory trusts", async () => {
    const { top, shared, root } = nested();
    writeFileSync(path.join(root, "a.txt"), "1\n");
    git(top, "add", ".");
    git(top, "commit", "-qm", "a");
    writeFileSync(path.join(root, "a.txt"), "2\n");
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    chmodSync(shared, 0o1777);
    const trusting = path.join(tempDir("sh-gitcfg-"), "config");
    writeFileSync(trusting, `[safe]\n\tdirectory = ${shared}\n`);
    // This process trusts nothing; the verb's environment trusts the sticky folder.
    vi.stubEnv("GIT_CONFIG_GLOBAL", "/dev/null");
    vi.stubEnv("GIT_CONFIG_NOSYSTEM", "1");
    try {
      const env = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: trusting };
      const trusted = await inProcess(["anchors", "--root", root], { env });
      expect(trusted.code, trusted.stderr).toBe(0);
      // Blob ids are read from the git top's files: the line is there only when the top was found.
      expect(trusted.stdout).toMatch(/^- Dirty hashes: shared\/project\/a\.txt [0-9a-f]{40}$/m);
      const untrusted = await inProcess(["anchors", "--root", root], { env: ENV });
      expect(untrusted.stdout).not.toContain("- Dirty hashes:");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("a record line names its token and its stamp", () => {
    const top = tempDir("sh-saves-");
    git(top, "init", "-q");
    const p = savesPath(top, ENV)!;
    mkdirSync(path.dirname(p), { recursive: true });
    const [mine, other] = ["a".repeat(64), "b".repeat(64)];
    writeFileSync(p, `${mine} @2026-01-01T00:00:00Z+0123456789ab\n`);
    expect(savedHere(top, ENV, null, () => mine)).toBe(true);
    expect(savedHere(top, ENV, null, () => other)).toBe(false);
    const edited = "Saved: 2026-01-01T00:00:00Z\n\n## Anchors\n- HEAD: 0123456789abcdef0123456789abcdef01234567\n";
    expect(savedHere(top, ENV, edited, () => other)).toBe(true);
  });
});
