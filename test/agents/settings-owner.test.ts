// Root installing into another user's project (a provisioning script, `sudo`): the settings file
// it rewrites keeps that user as owner and its mode, and what the merge driver writes is theirs.
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, helper, tempDir } from "../helpers.ts";

const isRoot = process.getuid?.() === 0;
const UID = 1234;
const GID = 1234;

function chownTree(p: string): void {
  chownSync(p, UID, GID);
  if (lstatSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(path.join(p, n));
}

describe("owner and mode of the files install rewrites in another user's project", () => {
  it.skipIf(!isRoot)("root's install keeps uid 1234's settings.json owner and 0664 mode (skipped when not root: only root can give a file to another user)", () => {
    const root = gitRepo();
    const home = tempDir("sh-home-");
    // git refuses a checkout owned by another user unless safe.directory lists it.
    writeFileSync(path.join(home, ".gitconfig"), `[safe]\n\tdirectory = ${root}\n`);
    const file = path.join(root, ".claude", "settings.json");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{\n  "model": "opus"\n}\n');
    chownTree(root);
    chmodSync(file, 0o664);
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1" };
    const r = helper(["install", "--agent", "claude-code", "--root", root], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("updated .claude/settings.json");
    const st = lstatSync(file);
    expect({ uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }).toEqual({ uid: UID, gid: GID, mode: 0o664 });
    // What the merge driver's registration wrote in their clone is theirs too.
    for (const p of [".git/config", ".gitattributes", ".git/session-handoff", ".git/session-handoff/merge-driver.mjs"]) {
      const o = lstatSync(path.join(root, p));
      expect({ p, uid: o.uid, gid: o.gid }).toEqual({ p, uid: UID, gid: GID });
    }
    const un = helper(["uninstall", "--agent", "claude-code", "--root", root], { env });
    expect(un.code, un.stderr).toBe(0);
    const after = lstatSync(file);
    expect({ uid: after.uid, gid: after.gid, mode: after.mode & 0o7777 }).toEqual({ uid: UID, gid: GID, mode: 0o664 });
    expect(lstatSync(path.join(root, ".git", "config")).uid).toBe(UID);
  });
});
