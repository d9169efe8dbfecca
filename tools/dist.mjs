#!/usr/bin/env node
// Builds the two distribution refs that the install channels copy from
// (docs/decisions/distribution-ref.md), each one commit whose tree holds the skill's entries of
// a commit of this repository (SKILL.md, LICENSE, agents/, references/, templates/, scripts/)
// and nothing of the development layout (no src/, no test/ with its secret-shaped fixtures):
// - `dist`: the skill's entries only, for `npx skillmds add`, `npx skills add` and the by-hand
//   copy;
// - `dist-plugin`: the same entries in `skills/session-handoff/` (Claude Code 2.1.112 lists no
//   plugin skill whose SKILL.md sits at the plugin's root: test/harness/README.md), plus what
//   the plugin needs: `.claude-plugin/plugin.json`, a `.claude-plugin/marketplace.json` written
//   here (one entry, source "./": this tree), and `hooks/hooks.json` with its commands pointed
//   at `skills/session-handoff/scripts/`. Users add it as a marketplace
//   (`/plugin marketplace add <owner>/<repo>#dist-plugin`).
// Made with git plumbing (ls-tree, hash-object, mktree, commit-tree): the work tree and the
// index are not touched.
//
//   node tools/dist.mjs [--from <commit>] [--ref <ref>] [--plugin-ref <ref>]
//   (defaults: HEAD, refs/heads/dist, refs/heads/dist-plugin; `npm run dist`)
//
// Prints `<ref> <commit>` per ref. A ref's previous commit is the new one's parent, so the
// branches can be pushed without force; a rebuild of the same tree changes nothing.
import { execFileSync } from "node:child_process";

/** The entries every install channel delivers (docs/decisions/distribution-ref.md). */
export const SKILL_ENTRIES = ["SKILL.md", "LICENSE", "agents", "references", "templates", "scripts"];
/** Where the plugin's tree holds them. */
export const PLUGIN_SKILL = "skills/session-handoff";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const git = (args, input) => execFileSync("git", args, { encoding: "utf8", input }).trim();

const from = arg("--from", "HEAD");
const refs = { skill: arg("--ref", "refs/heads/dist"), plugin: arg("--plugin-ref", "refs/heads/dist-plugin") };

/** The `ls-tree` lines of `entries` at `from`; exits 2, changing nothing, when one is missing. */
function entries(names) {
  const listing = git(["ls-tree", from, "--", ...names]);
  const found = listing.split("\n").map((l) => l.split("\t")[1]);
  const missing = names.filter((e) => !found.includes(e));
  if (missing.length > 0) {
    console.error(`tools/dist.mjs: ${from} lacks ${missing.join(", ")}; nothing was changed`);
    process.exit(2);
  }
  return listing.split("\n");
}

/**
 * The plugin's marketplace, from its plugin.json: Claude Code 2.1.112 refuses a top-level
 * `description` (test/harness/README.md), so there is none.
 */
function marketplace() {
  const plugin = JSON.parse(git(["show", `${from}:.claude-plugin/plugin.json`]));
  const entry = { name: plugin.name, source: "./", description: plugin.description, version: plugin.version, category: "productivity", keywords: plugin.keywords };
  return `${JSON.stringify({ name: plugin.name, owner: { name: plugin.author.name }, plugins: [entry] }, null, 2)}\n`;
}

/** The plugin's hooks with each command's helper path moved under skills/session-handoff/. */
function pluginHooks() {
  const text = git(["show", `${from}:hooks/hooks.json`]);
  const moved = text.replaceAll(`"\${CLAUDE_PLUGIN_ROOT}/scripts/`, `"\${CLAUDE_PLUGIN_ROOT}/${PLUGIN_SKILL}/scripts/`);
  if (moved === text) {
    console.error(`tools/dist.mjs: ${from}'s hooks/hooks.json names no "\${CLAUDE_PLUGIN_ROOT}/scripts/" helper; nothing was changed`);
    process.exit(2);
  }
  return `${moved}\n`;
}

const skillLines = entries(SKILL_ENTRIES);
entries(["hooks/hooks.json", ".claude-plugin/plugin.json"]);
const blob = (text) => git(["hash-object", "-w", "--stdin"], text);
const tree = (lines) => git(["mktree"], `${lines.join("\n")}\n`);
const skillTree = tree(skillLines);
const [manifest] = entries([".claude-plugin/plugin.json"]).map((l) => l.replace(".claude-plugin/", ""));
const trees = {
  skill: skillTree,
  plugin: tree([
    `040000 tree ${tree([`040000 tree ${skillTree}\tsession-handoff`])}\tskills`,
    `040000 tree ${tree([manifest, `100644 blob ${blob(marketplace())}\tmarketplace.json`])}\t.claude-plugin`,
    `040000 tree ${tree([`100644 blob ${blob(pluginHooks())}\thooks.json`])}\thooks`,
  ]),
};

const source = git(["rev-parse", from]);
const env = { ...process.env, GIT_AUTHOR_NAME: "session-handoff dist", GIT_AUTHOR_EMAIL: "dist@session-handoff.invalid", GIT_COMMITTER_NAME: "session-handoff dist", GIT_COMMITTER_EMAIL: "dist@session-handoff.invalid" };
for (const kind of ["skill", "plugin"]) {
  const ref = refs[kind];
  let parent = null;
  try {
    parent = git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    parent = null;
  }
  if (parent && git(["rev-parse", `${parent}^{tree}`]) === trees[kind]) {
    console.log(`${ref} ${parent}`);
    continue;
  }
  const commit = execFileSync("git", ["commit-tree", trees[kind], ...(parent ? ["-p", parent] : []), "-m", `session-handoff ${kind === "skill" ? "skill" : "Claude Code plugin"} from ${source}`], { encoding: "utf8", env }).trim();
  git(["update-ref", ref, commit, ...(parent ? [parent] : [])]);
  console.log(`${ref} ${commit}`);
}
