#!/usr/bin/env node
// A yardstick for the checkpoint rows of bench/run.mjs, never shipped or run by users: the
// input and output a checkpoint cannot do without (docs/design.md#checkpoints), in one small file with
// nothing else. What the helper pays beyond this is its own code -- loading the bundle and its
// chunks, the schema, redaction, the claim-and-link checks -- so the ratio of this script is
// the lowest any Node implementation of a checkpoint could reach on the same machine.
//
// It does, in the helper's order: read the hook's JSON from stdin; ask git which filters and diff
// drivers the config names, then start `git status` (git runs no program a repository names:
// docs/decisions/git-runs-nothing.md; the helper turns those off for status); open the
// transcript without following a link, read its first 64 KiB and its last 1 MiB, split the
// lines and parse every record that is not a tool's output; read the 3 MiB before that and
// search them for a plan tool's name (the bench's transcript holds none, so the helper reads
// them too); wait for git; take a lock directory; hash the current checkpoint; write the new
// one to a private file, fsync it, link it into place, fsync the folder; list the folder (the
// helper keeps five sessions); remove the lock. Usage: node checkpoint-floor.mjs < hook.json
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmdirSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";

const input = JSON.parse(readFileSync(0, "utf8"));
const root = input.cwd;
const git = (args) => new Promise((resolve) => execFile("git", args, { cwd: root, timeout: 500 }, (err, out) => resolve(err ? "" : out)));
const status = git(["config", "-z", "--name-only", "--get-regexp", "^(filter|diff)\\."]).then(() => git(["status", "--porcelain=v2", "--branch", "-z"]));

const readAt = (fd, length, position) => {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
};
const fd = openSync(input.transcript_path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
const size = fstatSync(fd).size;
readAt(fd, Math.min(size, 64 * 1024), 0);
const first = Math.min(size, 1024 * 1024);
const lines = readAt(fd, first, size - first).toString("utf8").split("\n");
let records = 0;
for (const line of lines) {
  if (line.includes('"tool_use_id"')) continue;
  try {
    JSON.parse(line);
    records++;
  } catch {
    // The partial first line.
  }
}
const earlier = Math.min(size, 4 * 1024 * 1024) - first;
const planFound = earlier > 0 && readAt(fd, earlier, size - first - earlier).includes("TodoWrite");
closeSync(fd);
const anchors = await status;

const memory = path.join(root, ".ai", "memory");
const dir = path.join(memory, "checkpoints");
mkdirSync(dir, { recursive: true, mode: 0o700 });
const lock = path.join(memory, ".lock");
mkdirSync(lock, { mode: 0o700 });
writeFileSync(path.join(lock, "owner"), JSON.stringify({ pid: process.pid }), { mode: 0o600, flag: "wx" });
const file = path.join(dir, "floor.md");
let prior = "absent";
try {
  prior = createHash("sha256").update(readFileSync(file)).digest("hex");
} catch {
  // No checkpoint yet.
}
const text = `# Session Checkpoint\nSaved: ${new Date().toISOString()}\nprior ${prior}, ${records} records, plan ${planFound}\n${"- item\n".repeat(400)}${anchors.length}\n`;
const temp = path.join(dir, `.floor.md.tmp-${process.pid}`);
const out = openSync(temp, "wx", 0o600);
writeSync(out, text);
fsyncSync(out);
closeSync(out);
const claim = path.join(dir, `.floor.md.claim-${process.pid}`);
linkSync(temp, claim);
renameSync(claim, file);
const d = openSync(dir, "r");
fsyncSync(d);
closeSync(d);
unlinkSync(temp);
readdirSync(dir);
unlinkSync(path.join(lock, "owner"));
rmdirSync(lock);
