// The clone's record of its saves lives in the git dir found by walking up from the root; that
// walk keeps the root walk's ownership rule (docs/design.md#the-root): a `.git` above a folder another
// user controls (a planted /tmp/.git) is never this project's, so no save is recorded there.
// Unit level: the rule is judged for a uid the test passes (a real other user needs root).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitTopOf } from "../../src/git/git-dir.ts";
import { savedHere, savesPath } from "../../src/git/saves.ts";
import { git, tempDir } from "../helpers.ts";

describe("the git top above the root is found only through folders the user owns", () => {
  it("a repository above a folder of another user is not the root's: no git top, no saves file", () => {
    const top = tempDir("sh-saves-");
    git(top, "init", "-q");
    const root = path.join(top, "shared", "project");
    mkdirSync(root, { recursive: true });
    const me = process.getuid!();
    // The user's own folders are walked through.
    expect(gitTopOf(root, { uid: me })).toBe(top);
    expect(savesPath(root, { uid: me })).toBe(path.join(top, ".git", "session-handoff", "saves"));
    // Sticky and world-writable like /tmp: it stops the walk whoever owns it, for the user and
    // for another uid (root's folders are trusted otherwise, and this suite may run as root).
    chmodSync(path.join(top, "shared"), 0o1777);
    const other = me + 4242;
    for (const uid of [me, other]) {
      expect(gitTopOf(root, { uid })).toBeNull();
      expect(savesPath(root, { uid })).toBeNull();
    }
    // The root itself is trusted: a repository at the root is found whoever owns it.
    expect(gitTopOf(top, { uid: other })).toBe(top);
  });

  it("an older version's record line (with the file's stat) still names its token and its stamp", () => {
    const top = tempDir("sh-saves-");
    git(top, "init", "-q");
    const p = savesPath(top)!;
    mkdirSync(path.dirname(p), { recursive: true });
    const [mine, other] = ["a".repeat(64), "b".repeat(64)];
    writeFileSync(p, `${mine} 120 1 2 3 @2026-01-01T00:00:00Z+0123456789ab\n`);
    expect(savedHere(top, null, () => mine)).toBe(true);
    expect(savedHere(top, null, () => other)).toBe(false);
    const edited = "Saved: 2026-01-01T00:00:00Z\n\n## Anchors\n- HEAD: 0123456789abcdef0123456789abcdef01234567\n";
    expect(savedHere(top, edited, () => other)).toBe(true);
  });
});
