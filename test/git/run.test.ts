// A git run stopped at its timeout names the git command it ran, not the first of the options
// the helper puts before it.
import { expect, it } from "vitest";
import { GitUnavailable, runGit } from "../../src/git/run.ts";
import { ENV, newRepo } from "./repo.ts";

it("a timeout names the command", async () => {
  const repo = newRepo(Date.UTC(2026, 0, 1));
  // Given no input, `hash-object --stdin` waits for it until it is stopped.
  const err = await runGit(repo, ["hash-object", "--stdin"], ENV, 300).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GitUnavailable);
  expect((err as GitUnavailable).message).toMatch(/^git (config|hash-object) took longer than 300 ms and was stopped$/);
});
