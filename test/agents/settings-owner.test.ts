// Root installing into another user's project (a provisioning script, `sudo`): the settings file
// it rewrites keeps that user as owner and its mode, so the user can still edit it afterwards.
import { execFileSync } from "node:child_process";
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

describe("owner and mode of a rewritten agent settings file", () => {
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
    console.log(execFileSync("ls", ["-lan", root, path.join(root, ".git"), path.join(root, ".git", "session-handoff")], { encoding: "utf8" }));
    expect({ uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }).toEqual({ uid: UID, gid: GID, mode: 0o664 });
    const un = helper(["uninstall", "--agent", "claude-code", "--root", root], { env });
    expect(un.code, un.stderr).toBe(0);
    const after = lstatSync(file);
    expect({ uid: after.uid, gid: after.gid, mode: after.mode & 0o7777 }).toEqual({ uid: UID, gid: GID, mode: 0o664 });
  });
});
