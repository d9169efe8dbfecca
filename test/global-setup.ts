import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// Integration tests spawn the built bundle; build it once from the current src/. Every test's
// temp folders live under one private folder of this run (TMPDIR, inherited by the workers),
// and git and the root walk look no higher (GIT_CEILING_DIRECTORIES): a `.ai/memory` or `.git`
// that someone left in the system temp folder can change no result. HOME is a folder of this
// run too, so the developer's git config and agent settings reach no test; its .gitconfig holds
// only an identity, which git needs to commit and a CI machine may not have.
export default function setup(): () => void {
  execFileSync(process.execPath, ["build.mjs"], { stdio: "inherit" });
  const suite = realpathSync(mkdtempSync(path.join(tmpdir(), "sh-suite-")));
  const home = path.join(suite, "home");
  mkdirSync(home);
  writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = Test\n\temail = test@example.com\n");
  process.env.SH_SUITE_TMP = suite;
  process.env.TMPDIR = suite;
  process.env.GIT_CEILING_DIRECTORIES = suite;
  process.env.HOME = home;
  return () => rmSync(suite, { recursive: true, force: true });
}
