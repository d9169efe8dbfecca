// An immutable settings file (chattr +i, as root) can be read but never replaced: init's dry run
// of every install refuses it before the skill is copied or a link made, so nothing changes.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitRepo, helper, snapshot, tempDir } from "../helpers.ts";

const flagged: string[] = [];
afterEach(() => {
  for (const f of flagged.splice(0)) spawnSync("chattr", ["-i", f]);
});

/** Sets the immutable flag; false where it cannot be set (not root, no chattr, a file system without it). */
function immutable(file: string): boolean {
  const r = spawnSync("chattr", ["+i", file]);
  if (r.status !== 0) return false;
  flagged.push(file);
  return true;
}

describe("an immutable agent file", () => {
  it("init refuses before copying anything", (ctx) => {
    const root = gitRepo();
    const home = tempDir("sh-home-");
    const file = path.join(root, ".claude", "settings.json");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "{}\n");
    if (!immutable(file)) ctx.skip();
    const before = snapshot(root);
    const r = helper(["init", "--root", root], { env: { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file} cannot be replaced (it is immutable or append-only: EPERM); nothing was changed`);
    expect(snapshot(root)).toEqual(before);
  });
});
