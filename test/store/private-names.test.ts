import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listPrivate } from "../../src/store/files.ts";
import { tempDir } from "../helpers.ts";

// our private names (8 hex) and the reference helper's (a temp's 16 hex,
// a claim's 32) are interrupted saves alike; nothing else is.
const H8 = "0a1b2c3d";
const H16 = "0123456789abcdef";
const H32 = `${H16}${H16}`;

describe("listPrivate", () => {
  it.each([
    [`.HANDOFF.md.tmp-12-${H8}`, { file: "HANDOFF.md", role: "tmp", pid: 12 }],
    [`.HANDOFF.md.claim-12-${H8}`, { file: "HANDOFF.md", role: "claim", pid: 12 }],
    [`.HANDOFF.md.tmp-4242-${H16}`, { file: "HANDOFF.md", role: "tmp", pid: 4242 }],
    [`.LESSONS.md.claim-4242-${H32}`, { file: "LESSONS.md", role: "claim", pid: 4242 }],
    [`.AGENTS.md.claim-1-${H32}`, { file: "AGENTS.md", role: "claim", pid: 1 }],
    [`.HANDOFF.md.tmp-12-${H32}`, null],
    [`.HANDOFF.md.claim-12-${H16}`, null],
    [`.HANDOFF.md.claim-12-${H8}0`, null],
    [`.HANDOFF.md.claim-12-${H8.toUpperCase()}`, null],
    [`.HANDOFF.md.claim--${H8}`, null],
    [`HANDOFF.md.claim-12-${H8}`, null],
    [`.HANDOFF.md.lock-12-${H8}`, null],
    [".lock", null],
  ] as const)("%s -> %j", (name, want) => {
    const dir = tempDir();
    writeFileSync(path.join(dir, name), "");
    const got = listPrivate(dir).map(({ file, role, pid }) => ({ file, role, pid }));
    expect(got).toEqual(want === null ? [] : [want]);
  });
});
