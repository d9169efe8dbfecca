#!/usr/bin/env node
// Builds the two distribution refs that the install channels copy from
// (docs/decisions/distribution-ref.md), each one commit whose tree holds the skill's entries of
// a commit of this repository (SKILL.md, LICENSE, agents/, references/, templates/, scripts/)
// and nothing of the development layout (no src/, no test/ with its secret-shaped fixtures):
// - `dist`: the skill's entries only, for `npx skillmds add`, `npx skills add` and the by-hand
//   copy;
// - `dist-plugin`: the same plus what the Claude Code plugin needs: `.claude-plugin/plugin.json`,
//   a `.claude-plugin/marketplace.json` written here (one entry, source "./": this tree), and
//   `hooks/`. Users add it as a marketplace (`/plugin marketplace add <owner>/<repo>#dist-plugin`).
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
/** What the plugin channel adds to them: its manifest folder and its hooks. */
export const PLUGIN_ENTRIES = [".claude-plugin", "hooks"];

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

const skillLines = entries(SKILL_ENTRIES);
const [hooksLine] = entries(["hooks"]);
const [manifest] = entries([".claude-plugin/plugin.json"]).map((l) => l.replace(".claude-plugin/", ""));
const market = git(["hash-object", "-w", "--stdin"], marketplace());
const pluginDir = git(["mktree"], `${manifest}\n100644 blob ${market}\tmarketplace.json\n`);
const trees = {
  skill: git(["mktree"], `${skillLines.join("\n")}\n`),
  plugin: git(["mktree"], `${[...skillLines, `040000 tree ${pluginDir}\t.claude-plugin`, hooksLine].join("\n")}\n`),
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
