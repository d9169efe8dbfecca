// A settings file its user made read-only (0444) or append-only (chattr +a) is one they do not
// want changed: init refuses before copying anything, saying how to make it writable, and
// nothing on disk changes. The read-only case runs as a user who is not root (root may write it).
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, lstatSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HELPER, cleanEnv, gitRepo, snapshot, tempDir } from "../helpers.ts";

const isRoot = process.getuid?.() === 0;
const UID = 1234;

function setup() {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const file = path.join(root, ".claude", "settings.json");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '{\n  "model": "opus"\n}\n');
  return { root, home, file, env: cleanEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }) };
}

function chownTree(p: string): void {
  chownSync(p, UID, UID);
  if (lstatSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(path.join(p, n));
}

const undo: (() => void)[] = [];
afterEach(() => {
  for (const f of undo.splice(0)) f();
});

describe("a settings file its user does not want changed", () => {
  it("read-only (0444), init run by its owner (not root): refused, nothing changed", () => {
    const p = setup();
    chmodSync(p.file, 0o444);
    let opts: { uid?: number; gid?: number } = {};
    let helper = HELPER;
    if (isRoot) {
      // The checkout may sit in a folder the other user cannot enter (a mktemp clone): run a copy
      // of the package's files from the run's temp folder.
      const pkg = tempDir("sh-pkg-");
      const top = path.dirname(path.dirname(HELPER));
      for (const f of ["SKILL.md", "LICENSE", "agents", "references", "templates", "scripts"]) {
        cpSync(path.join(top, f), path.join(pkg, f), { recursive: true });
      }
      chmodSync(pkg, 0o755);
      helper = path.join(pkg, "scripts", "memory_io.mjs");
      chownTree(p.root);
      chownTree(p.home);
      // The run's own temp folder is root's 0700: the other user needs to pass through it.
      const suite = tmpdir();
      const mode = statSync(suite).mode & 0o7777;
      chmodSync(suite, mode | 0o011);
      undo.push(() => chmodSync(suite, mode));
      opts = { uid: UID, gid: UID };
    }
    const before = snapshot(p.root);
    const r = spawnSync(process.execPath, [helper, "init", "--root", p.root], { env: p.env, encoding: "utf8", ...opts });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${p.file} is read-only for this user (EACCES); nothing was changed. Make it writable (chmod u+w`);
    expect(snapshot(p.root)).toEqual(before);
  });

  it("append-only (chattr +a, as root): refused before the skill is copied", (ctx) => {
    const p = setup();
    if (spawnSync("chattr", ["+a", p.file]).status !== 0) ctx.skip();
    undo.push(() => spawnSync("chattr", ["-a", p.file]));
    const before = snapshot(p.root);
    const r = spawnSync(process.execPath, [HELPER, "init", "--root", p.root], { env: p.env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${p.file} cannot be replaced (it is immutable or append-only: EPERM); nothing was changed`);
    expect(snapshot(p.root)).toEqual(before);
  });
});
