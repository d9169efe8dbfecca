// check and the hook call memory unsafe (3, "failed memory safety") when a planted handoff
// holds a NUL anywhere within the size limit or archive/ is not a real folder;
// other refused characters on disk are only shown by `read`. check, read and write
// run in this process (test/in-process.ts); the hook through the built (session) bundle.
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, tempDir } from "../helpers.ts";
import { inProcess, saveIn } from "../in-process.ts";

const UNSAFE = /failed memory safety or schema checks/;

function planted(text: string | Buffer): string {
  const root = gitRepo();
  const mem = path.join(root, ".ai", "memory");
  mkdirSync(mem, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(mem, "HANDOFF.md"), text, { mode: 0o600 });
  return root;
}

describe("a NUL makes a memory file unsafe", () => {
  it.each([
    ["in the first bytes", handoff("a\0b")],
    ["past the first 4 KiB", handoff(`${"x".repeat(5000)}\0`)],
    ["past the first 64 KiB", handoff(`${"x\n".repeat(40_000)}\0`)],
    ["as the last byte", `${handoff("end")}\0`],
  ])("%s: check 3, the hook says unsafe", async (_name, text) => {
    const root = planted(text);
    expect((await inProcess(["check", "--root", root])).code).toBe(3);
    expect(helper(["hook", "--mode", "session", "--root", root]).stdout).toMatch(UNSAFE);
  });

  it.each([
    ["a C1 control", handoff("a\u0085b")],
    ["a bidi override", handoff("a\u202Eb")],
    ["an ESC", handoff("a\u001bb")],
  ])("%s on disk is still a parked handoff (read shows it)", async (_name, text) => {
    const root = planted(text);
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
    expect((await inProcess(["read", "handoff", "--root", root])).stdout).toMatch(/<U\+[0-9A-F]{4}>/);
  });
});

describe("archive/ must be a real folder", () => {
  it("a symlinked archive/ makes check exit 3 (not 2) and the hook say unsafe; write refuses", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("one"));
    const elsewhere = path.join(tempDir(), "arch");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(root, ".ai", "memory", "archive"));
    expect((await inProcess(["check", "--root", root])).code).toBe(3);
    expect(helper(["hook", "--mode", "session", "--root", root]).stdout).toMatch(UNSAFE);
  });

  it("so does a file named archive", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("one"));
    const mem = path.join(root, ".ai", "memory");
    writeFileSync(path.join(mem, "archive"), "not a folder\n");
    expect((await inProcess(["check", "--root", root])).code).toBe(3);
  });

  it("a real archive/ with archives is fine", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("one"));
    await saveIn(root, handoff("two"));
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
    renameSync(path.join(root, ".ai", "memory", "archive"), path.join(root, ".ai", "memory", "archive-moved"));
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
  });
});
