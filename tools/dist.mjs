#!/usr/bin/env node
// Builds the distribution ref that installers copy from (docs/decisions/distribution-ref.md):
// one commit whose tree is exactly the skill's entries of a commit of this repository
// (SKILL.md, LICENSE, agents/, references/, templates/, scripts/), nothing else: no src/,
// no test/ (fixtures with secret-shaped strings), no node_modules/. Made with git plumbing
// (ls-tree, mktree, commit-tree): the work tree and the index are not touched.
//
//   node tools/dist.mjs [--from <commit>] [--ref <ref>]   (defaults: HEAD, refs/heads/dist)
//
// Prints the commit id. The previous commit of the ref, if any, is its parent, so the branch
// can be pushed without force; a rebuild of the same tree changes nothing.
import { execFileSync } from "node:child_process";

/** The entries every install channel delivers (docs/decisions/distribution-ref.md). */
export const SKILL_ENTRIES = ["SKILL.md", "LICENSE", "agents", "references", "templates", "scripts"];

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const git = (args, input) => execFileSync("git", args, { encoding: "utf8", input }).trim();

const from = arg("--from", "HEAD");
const ref = arg("--ref", "refs/heads/dist");
const listing = git(["ls-tree", from, "--", ...SKILL_ENTRIES]);
const found = listing.split("\n").map((l) => l.split("\t")[1]);
const missing = SKILL_ENTRIES.filter((e) => !found.includes(e));
if (missing.length > 0) {
  console.error(`tools/dist.mjs: ${from} lacks ${missing.join(", ")}; nothing was changed`);
  process.exit(2);
}
const tree = git(["mktree"], `${listing}\n`);
let parent = null;
try {
  parent = git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
} catch {
  parent = null;
}
if (parent && git(["rev-parse", `${parent}^{tree}`]) === tree) {
  console.log(parent);
  process.exit(0);
}
const source = git(["rev-parse", from]);
const env = { ...process.env, GIT_AUTHOR_NAME: "session-handoff dist", GIT_AUTHOR_EMAIL: "dist@session-handoff.invalid", GIT_COMMITTER_NAME: "session-handoff dist", GIT_COMMITTER_EMAIL: "dist@session-handoff.invalid" };
const commit = execFileSync("git", ["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-m", `session-handoff skill from ${source}`], { encoding: "utf8", env }).trim();
git(["update-ref", ref, commit, ...(parent ? [parent] : [])]);
console.log(commit);
