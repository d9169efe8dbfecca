// One session saving its handoff through SKILL.md's flow, as its own process: `read handoff`
// (the token, and the draft path on its DRAFT: line), the whole document written to the draft
// as a file tool would, then `write handoff --from-draft <draft> --expected-current-sha256`.
// On "changed since it was read" it reads again and saves again, at most `rounds` times.
// `shared` follows the older flow: every session writes .ai/memory/drafts/handoff.md.
// Prints one JSON line: its document and every attempt (the refusal's words, the draft left).
// Usage: node draft-saver.mjs <helper> <root> <index> <own|shared> <barrier dir> <savers> <rounds>
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [helperPath, root, index, mode, barrier, savers, rounds] = process.argv.slice(2);
const doc = `<!-- memory-schema: v1 -->
# Session Handoff

## Current goal
SAVER-${index}: the document of session ${index} and of no other

## Plan
- [~] save while ${Number(savers) - 1} other sessions save

## Decisions
- none

## Failed approaches
- none

## Open questions
- none

## Next steps
1. check that SAVER-${index} is what was saved

## Key files
- none

## Environment anchors
`;

const helper = (args) => spawnSync(process.execPath, [helperPath, ...args], { cwd: root, encoding: "utf8", timeout: 120_000 });
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

// Every session has read and written its draft before any of them writes: the worst overlap.
function meet() {
  writeFileSync(path.join(barrier, String(index)), "");
  const until = Date.now() + 60_000;
  while (readdirSync(barrier).length < Number(savers) && Date.now() < until) sleep(10);
}

function saveFrom(draft) {
  const file = path.join(root, draft);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, doc);
  return file;
}

const attempts = [];
for (let round = 0; round < Number(rounds); round++) {
  // A read refused while another session saves ("read again", as SKILL.md says): read again.
  let r = helper(["read", "handoff"]);
  for (let i = 0; i < 20 && r.status !== 0 && r.status !== 3; i++) {
    sleep(50);
    r = helper(["read", "handoff"]);
  }
  const token = /^CURRENT-SHA256: (\S+)$/m.exec(r.stdout)?.[1] ?? "absent";
  let draft = mode === "own" ? (/^DRAFT: (\S+)$/m.exec(r.stderr)?.[1] ?? "none") : ".ai/memory/drafts/handoff.md";
  let file = saveFrom(draft);
  if (round === 0) meet();
  let w = helper(["write", "handoff", "--from-draft", ...(mode === "own" ? [draft] : []), "--expected-current-sha256", token, "--lock-timeout", "90"]);
  // The shared draft is refused, naming a draft of its own: that one, as the refusal says.
  const named = /Write your whole document to (\S+) /.exec(w.stderr)?.[1];
  if (w.status === 2 && named !== undefined) {
    attempts.push({ round, draft, token, code: w.status, stdout: w.stdout, stderr: w.stderr, kept: null });
    draft = named;
    file = saveFrom(draft);
    w = helper(["write", "handoff", "--from-draft", draft, "--expected-current-sha256", token, "--lock-timeout", "90"]);
  }
  const kept = existsSync(file) ? readFileSync(file, "utf8") : null;
  attempts.push({ round, draft, token, code: w.status, stdout: w.stdout, stderr: w.stderr, kept });
  if (w.status !== 2 || !/changed since it was read/.test(w.stderr)) break;
}
process.stdout.write(`${JSON.stringify({ index: Number(index), doc, attempts })}\n`);
