import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionFileId } from "../../src/checkpoint/store.ts";
import { gitRepo, helper } from "../helpers.ts";
import { githubToken } from "../fixtures/redaction/attacks.ts";
import { checkpoint, cpFiles } from "../verbs/support.ts";

// Our file names never collide on a case-insensitive file system and never hit a Windows
// device name (docs/design.md#checkpoints): ids outside the safe lowercase form are hashed.

const hashed = (id: string) => createHash("sha256").update(id, "utf8").digest("hex").slice(0, 16);

describe("session ids as file names", () => {
  it.each([
    ["sess-1", "sess-1"],
    ["0a.b_c-d", "0a.b_c-d"],
    ["Sess-1", null],
    ["SESS-1", null],
    ["ends.", null],
    ["con", null],
    ["CON.txt", null],
    ["nul.md", null],
    ["com0", null],
    ["Lpt9.x", null],
    ["console", "console"],
    ["com10", "com10"],
    ["aux-1", "aux-1"],
    ["x".repeat(128), "x".repeat(128)],
    ["x".repeat(129), null],
    ["-lead", null],
    [`s-${githubToken(72).toLowerCase()}`, null],
    ["0d5c8f2e-1a2b-4c3d-9e8f-0123456789ab", "0d5c8f2e-1a2b-4c3d-9e8f-0123456789ab"],
  ])("%s", (id, file) => {
    expect(sessionFileId(id)).toBe(file ?? hashed(id));
  });

  it("two ids that differ only in case write two checkpoint files, each read back by --session", () => {
    const root = gitRepo();
    expect(checkpoint(root, { session_id: "Abc-1" }).code).toBe(0);
    expect(checkpoint(root, { session_id: "abc-1" }).code).toBe(0);
    expect(checkpoint(root, { session_id: "ABC-1" }).code).toBe(0);
    const names = cpFiles(root).filter((n) => n.endsWith(".md"));
    expect(names.map((n) => n.toLowerCase()).sort()).toEqual([`${hashed("ABC-1")}.md`, `${hashed("Abc-1")}.md`, "abc-1.md"].sort());
    for (const id of ["Abc-1", "abc-1", "ABC-1"]) {
      const r = helper(["read", "checkpoint", "--root", root, "--session", id]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`<<<BEGIN UNTRUSTED checkpoints/${sessionFileId(id)}.md `);
    }
  });

  it("an id holding a token names neither the file nor the Session: line, nor stderr", () => {
    const root = gitRepo();
    const id = `s-${githubToken(73).toLowerCase()}`;
    const r = checkpoint(root, { session_id: id });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr + r.stdout).not.toContain("ghp_");
    const names = cpFiles(root).filter((n) => n.endsWith(".md"));
    expect(names).toEqual([`${hashed(id)}.md`]);
    expect(readFileSync(path.join(root, ".ai", "memory", "checkpoints", names[0]!), "utf8")).not.toContain("ghp_");
  });
});
