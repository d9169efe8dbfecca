#!/usr/bin/env node
// npm run demo: the main job on a real git history. Clones this repository into a scratch
// folder, saves a handoff there through the built helper, moves the repository on (commits,
// a deleted key file), then resumes: the warm-start brief with the drift measured in numbers.
// Everything shown is what an agent following SKILL.md would see. The scratch folder is
// removed at the end; this repository is never touched.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync, unlinkSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");
const helperPath = path.join(repo, "scripts", "memory_io.mjs");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "session-handoff-demo-")));
const project = path.join(scratch, "project");

const git = (...args) =>
  execFileSync("git", ["-c", "user.name=Demo", "-c", "user.email=demo@example.com", "-c", "commit.gpgsign=false", ...args], {
    cwd: project,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

function helper(args, input) {
  const r = spawnSync(process.execPath, [helperPath, ...args], { input: input ?? "", encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function show(title, cmd, r) {
  console.log(`\n=== ${title}`);
  console.log(`$ node scripts/memory_io.mjs ${cmd}`);
  if (r.stdout) process.stdout.write(r.stdout);
  if (r.stderr) process.stdout.write(r.stderr.replace(/^/gm, "[stderr] "));
  console.log(`[exit ${r.code}]`);
}

function fail(message) {
  console.error(`demo failed: ${message}`);
  rmSync(scratch, { recursive: true, force: true });
  process.exit(1);
}

try {
  if (existsSync(path.join(repo, ".git"))) {
    execFileSync("git", ["clone", "--quiet", "--no-local", repo, project], { stdio: ["ignore", "pipe", "pipe"] });
    const commits = git("rev-list", "--count", "HEAD").trim();
    console.log(`Scratch clone of this repository's own history (${commits} commits): ${project}`);
  } else {
    // A download or `git archive` export has no history: make a one-commit repository of
    // its files instead (node_modules, if any, left out), so the demo runs anywhere.
    cpSync(repo, project, { recursive: true, filter: (src) => path.basename(src) !== "node_modules" });
    execFileSync("git", ["init", "--quiet", "-b", "main"], { cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    git("add", "-A");
    git("commit", "--quiet", "-m", "this folder, as downloaded");
    console.log(`Scratch repository made from this folder (no git history here, so one commit): ${project}`);
  }

  // --- Save: what an agent does when the user says "let's stop here".
  const anchors = helper(["anchors", "--root", project]);
  show("save 1/3: capture the anchors", `anchors --root <project>`, anchors);
  if (anchors.code !== 0) fail("anchors failed");
  const read0 = helper(["read", "handoff", "--root", project]);
  show("save 2/3: read the current handoff (none yet) and keep its token", `read handoff --root <project>`, read0);
  const token = /^CURRENT-SHA256: (\S+)/m.exec(read0.stdout)?.[1];
  if (!token) fail("no token from read");

  const handoff = `<!-- memory-schema: v1 -->
# Session Handoff
Saved: ${new Date().toISOString().replace(/\.\d{3}Z$/, "Z")}

## Current goal
Make the demo's resume brief show real drift numbers.

## Plan
- [x] Save a handoff through the helper
- [~] Move the repository on — stopped after the first commit
- [ ] Resume with \`brief\` and confirm the numbers

## Decisions
- Use a scratch clone, never this repository [user-directed] — the demo must not touch the work tree.

## Failed approaches
- Reading HANDOFF.md directly with cat: it skips the token and the untrusted envelope (cause: no compare-and-swap, no nonce).

## Open questions
- none

## Next steps
- Run \`node scripts/memory_io.mjs brief --root <project>\` and check the Drift line.

## Key files
- README.md — what the project is
- build.mjs — how the bundle is made (deleted below, so drift reports it missing)

## Environment anchors
${anchors.stdout.trimEnd()}
`;
  const write = helper(["write", "handoff", "--root", project, "--expected-current-sha256", token], handoff);
  show("save 3/3: write it with that token (compare-and-swap)", `write handoff --root <project> --expected-current-sha256 ${token} < handoff`, write);
  if (write.code !== 0) fail("write failed");

  // --- Time passes: the repository moves on without the agent.
  console.log("\n=== meanwhile: three commits land and a key file is deleted");
  for (let i = 1; i <= 3; i++) {
    writeFileSync(path.join(project, `demo-change-${i}.txt`), `change ${i}\n`);
    git("add", `demo-change-${i}.txt`);
    git("commit", "--quiet", "-m", `demo: change ${i}`);
  }
  unlinkSync(path.join(project, "build.mjs"));
  git("commit", "--quiet", "-am", "demo: remove build.mjs");
  console.log(git("log", "--oneline", "-4").trimEnd());

  // --- Resume: what an agent does when the user says "where were we?".
  const check = helper(["check", "--root", project]);
  show("resume 1/3: bootstrap check (2 = a handoff is parked)", "check --root <project>", check);
  const drift = helper(["drift", "--root", project]);
  show("resume 2/3: drift, in numbers", "drift --root <project>", drift);
  const brief = helper(["brief", "--root", project]);
  show("resume 3/3: the six-line warm-start brief the agent answers with", "brief --root <project>", brief);
  if (brief.code !== 0 || drift.code !== 0) fail("resume failed");
  if (!/ahead: 4/.test(drift.stdout)) fail("drift did not count the 4 commits made since the save");
  console.log("\nDemo done: saved, moved on, resumed with the drift measured.");
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
rmSync(scratch, { recursive: true, force: true });
