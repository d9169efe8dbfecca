// The clone's own files in its git dir (the clone id and the record of its saves) are only ever read as small
// regular files: anything else there is passed over without waiting on it, and a save puts a good one back.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, save, tempDir } from "../helpers.ts";

const dir = (root: string) => path.join(root, ".git", "session-handoff");
const markOf = (root: string) =>
  /<!-- saved in clone ([0-9a-f]{16}) -->/.exec(readFileSync(path.join(root, ".ai/memory/HANDOFF.md"), "utf8"))?.[1];

const damage: [string, (p: string) => void][] = [
  ["garbage", (p) => writeFileSync(p, "not an id\n")],
  ["a FIFO", (p) => execFileSync("mkfifo", [p])],
  ["a link to an id", (p) => {
    const target = path.join(tempDir(), "id");
    writeFileSync(target, "0123456789abcdef\n");
    symlinkSync(target, p);
  }],
  ["a folder", (p) => execFileSync("mkdir", [p])],
];

describe.skipIf(process.platform === "win32")("the clone's files in its git dir", () => {
  it.each(damage)("a clone id that is %s: nothing waits on it, and the next save makes a new one", (_, make) => {
    const root = gitRepo();
    save(root, handoff("first"));
    const p = path.join(dir(root), "clone-id");
    rmSync(p);
    make(p);
    // A FIFO opened for reading would block until a writer came: the spawned helper would hit its timeout.
    const brief = helper(["brief", "--root", root]);
    expect(brief.signal, brief.stderr).toBeNull();
    expect(brief.code, brief.stderr).toBe(0);
    save(root, handoff("second"));
    expect(lstatSync(p).isFile()).toBe(true);
    const id = readFileSync(p, "utf8").trim();
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(markOf(root)).toBe(id);
  });

  it("a record of saves that is a FIFO: write goes on and puts a file back", () => {
    const root = gitRepo();
    save(root, handoff("first"));
    const p = path.join(dir(root), "saves");
    rmSync(p);
    execFileSync("mkfifo", [p]);
    save(root, handoff("second"));
    expect(lstatSync(p).isFile()).toBe(true);
    expect(readFileSync(p, "utf8")).toMatch(/^[0-9a-f]{64} @\S+\n$/);
  });
  it("a record's lock left by a save that died: the next save takes it over, adds its line and removes it", () => {
    const root = gitRepo();
    save(root, handoff("first"));
    // The memory lock's owner file, naming a process that has exited: its holder is dead, not busy.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const lock = path.join(dir(root), "saves.lock");
    mkdirSync(lock);
    writeFileSync(path.join(lock, "owner"), JSON.stringify({ pid: dead, host: hostname(), nonce: "0123456789abcdef" }));
    const token = save(root, handoff("second"));
    expect(readFileSync(path.join(dir(root), "saves"), "utf8")).toContain(token);
    expect(existsSync(lock)).toBe(false);
  });
});
