import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// Integration tests spawn the built bundle; build it once from the current src/. Every test's
// temp folders live under one private folder of this run (TMPDIR, inherited by the workers),
// and git and the root walk look no higher (GIT_CEILING_DIRECTORIES): a `.ai/memory` or `.git`
// that someone left in the system temp folder can change no result.
export default function setup(): () => void {
  execFileSync(process.execPath, ["build.mjs"], { stdio: "inherit" });
  const suite = realpathSync(mkdtempSync(path.join(tmpdir(), "sh-suite-")));
  process.env.SH_SUITE_TMP = suite;
  process.env.TMPDIR = suite;
  process.env.GIT_CEILING_DIRECTORIES = suite;
  return () => rmSync(suite, { recursive: true, force: true });
}
