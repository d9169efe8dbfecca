#!/usr/bin/env node
// npm run demo: the main job on a real git history. Clones this repository into a scratch
// folder, saves a handoff there through the built helper as SKILL.md's save does (read, the
// draft written with a file tool, write --from-draft), moves the repository on (commits,
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

// Run from the project, as an agent does: the helper finds the root itself.
function helper(args, input) {
  const r = spawnSync(process.execPath, [helperPath, ...args], { cwd: project, input: input ?? "", encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function show(title, cmd, r) {
  console.log(`\n=== ${title}`);
  console.log(`$ node scripts/memory_io.mjs ${cmd}`);
  if (r.stdout) process.stdout.write(r.stdout);
  if (r.stderr) process.stdout.write(`${r.stderr.replace(/\n$/, "").replace(/^/gm, "[stderr] ")}\n`);
  console.log(`[exit ${r.code}]`);
}

function fail(message) {
  console.error(`demo failed: ${message}`);
  rmSync(scratch, { recursive: true, force: true });
  process.exit(1);
}

try {
  if (existsSync(path.join(repo, ".git"))) {
    // A local clone hard-links the objects (git never changes an object file); --no-local packed
    // the whole history again: 9 of the demo's 11 CPU seconds here (docs/decisions/test-speed.md).
    execFileSync("git", ["clone", "--quiet", repo, project], { stdio: ["ignore", "pipe", "pipe"] });
    const commits = git("rev-list", "--count", "HEAD").trim();
    console.log(`Scratch clone of this repository's own history (${commits} commits), in a temporary folder the demo removes when it ends`);
  } else {
    // A download or `git archive` export has no history: make a one-commit repository of
    // its files instead (node_modules, if any, left out), so the demo runs anywhere.
    cpSync(repo, project, { recursive: true, filter: (src) => path.basename(src) !== "node_modules" });
    execFileSync("git", ["init", "--quiet", "-b", "main"], { cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    git("add", "-A");
    git("commit", "--quiet", "-m", "this folder, as downloaded");
    console.log(`Scratch repository made from this folder (no git history here, so one commit), in a temporary folder the demo removes when it ends`);
  }

  // --- Save, as SKILL.md says, in two calls and a file write between them: what an agent does on "let's stop here".
  const read0 = helper(["read", "handoff"]);
  show("save 1/2: read the current handoff (none yet); keep its token and the DRAFT: path it names", "read handoff", read0);
  const token = /^CURRENT-SHA256: (\S+)/m.exec(read0.stdout)?.[1];
  const draft = /^DRAFT: (\S+)$/m.exec(read0.stderr)?.[1];
  if (!token || !draft) fail("no token or no DRAFT: path from read");

  const handoff = `<!-- memory-schema: v1 -->
# Session Handoff

## Current goal
Make the demo's resume brief show real drift numbers.

## Plan
- [x] Save a handoff through the helper
- [~] Move the repository on — stopped after the first commit
- [ ] Resume with \`brief\` and confirm the numbers
- [-] Show the handoff with cat — dropped: only the helper reads memory

## Verification
- Helper reads the project: node scripts/memory_io.mjs read handoff -> exit 3, no handoff yet @ ${git("rev-parse", "HEAD").trim()}
- Accepted: not yet, the user reviews the brief below

## Decisions
- Use a scratch clone, never this repository [user-directed] — the demo must not touch the work tree.

## Failed approaches
- Reading HANDOFF.md directly with cat: it skips the token and the untrusted envelope (cause: no compare-and-swap, no nonce).

## Open questions
- none

## Next steps
1. Run \`node scripts/memory_io.mjs brief\` in the project — done when its Drift line counts the commits made since the save

## Key files
- README.md — what the project is
- build.mjs — how the bundle is made (deleted below, so drift reports it missing)

## Environment anchors
`;
  // The agent's file tool writes the whole document to the draft path (never the shell: backticks stay as written).
  writeFileSync(path.join(project, draft), handoff);
  console.log(`\n=== the agent's file tool writes the whole handoff (${handoff.split("\n").length} lines) to ${draft}`);
  const write = helper(["write", "handoff", "--from-draft", draft, "--expected-current-sha256", token]);
  const said = "the helper stamps Saved:, fills the empty anchors and removes the draft";
  show(`save 2/2: write the draft with that token (compare-and-swap); ${said}`, `write handoff --from-draft ${draft} --expected-current-sha256 ${token}`, write);
  if (write.code !== 0) fail("write failed");
  if (existsSync(path.join(project, draft))) fail("the draft was not removed by the save");

  // --- Time passes: the repository moves on without the agent.
  console.log("\n=== meanwhile: four commits land, the last one deleting a key file");
  for (let i = 1; i <= 3; i++) {
    writeFileSync(path.join(project, `demo-change-${i}.txt`), `change ${i}\n`);
    git("add", `demo-change-${i}.txt`);
    git("commit", "--quiet", "-m", `demo: change ${i}`);
  }
  unlinkSync(path.join(project, "build.mjs"));
  git("commit", "--quiet", "-am", "demo: remove build.mjs");
  console.log(git("log", "--oneline", "-4").trimEnd());

  // --- Resume: what an agent does when the user says "where were we?".
  // --- Resume, as SKILL.md says, in one call: what an agent does on "where were we?".
  const brief = helper(["brief"]);
  show("resume 1/1: the six-line warm-start brief the agent answers with", "brief", brief);
  const drift = helper(["drift"]);
  show("(not part of the flow) the numbers behind the brief's Drift line", "drift", drift);
  if (brief.code !== 0 || drift.code !== 0) fail("resume failed");
  if (!/ahead: 4/.test(drift.stdout)) fail("drift did not count the 4 commits made since the save");
  console.log("\nDemo done: saved, moved on, resumed with the drift measured.");
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
rmSync(scratch, { recursive: true, force: true });
