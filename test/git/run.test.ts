// A git run stopped at its timeout names the git command it ran, not the first of the options
// the helper puts before it.
import { expect, it } from "vitest";
import { GitUnavailable, rawPaths, runGit } from "../../src/git/run.ts";
import { ENV, newRepo } from "./repo.ts";

it("a timeout names the command", async () => {
  const repo = newRepo(Date.UTC(2026, 0, 1));
  // Given no input, `hash-object --stdin` waits for it until it is stopped.
  const err = await runGit(repo, ["hash-object", "--stdin"], ENV, 300).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GitUnavailable);
  expect((err as GitUnavailable).message).toMatch(/^git (config|hash-object) took longer than 300 ms and was stopped$/);
});

// drift's check of commits holding the save's work and the dirty files' fates read `--raw -z` output with one reader.
const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const Z = "0".repeat(40);
it.each([
  ["a diff's change", `:100644 100755 ${A} ${B} M\0x.txt\0`, [{ path: "x.txt", modes: ["100644", "100755"], ids: [A, B] }]],
  ["a deletion, then a new file", `:100644 000000 ${A} ${Z} D\0gone\0:000000 100644 ${Z} ${C} A\0new\0`,
    [{ path: "gone", modes: ["100644", "000000"], ids: [A, Z] }, { path: "new", modes: ["000000", "100644"], ids: [Z, C] }]],
  ["a log record's paths after its header's line break", `\n:100644 100644 ${A} ${B} M\0x\0`,
    [{ path: "x", modes: ["100644", "100644"], ids: [A, B] }]],
  ["a merge's combined diff, after an empty field", `\0::100644 100644 100644 ${A} ${B} ${C} MM\0m\0`,
    [{ path: "m", modes: ["100644", "100644", "100644"], ids: [A, B, C] }]],
  ["nothing past a field that is no raw line", `:100644 100644 ${A} ${B} M\0x\0next record\0:1 2 3 4 M\0y\0`,
    [{ path: "x", modes: ["100644", "100644"], ids: [A, B] }]],
  ["no output", "", []],
])("rawPaths: %s", (_, out, want) => {
  expect(rawPaths(out.split("\0"))).toEqual(want);
});
