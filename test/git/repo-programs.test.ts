// No program a repository names runs from any verb: filters (also a submodule's), hooks,
// fsmonitor, pagers, external diff and textconv, signing. Each is a script that leaves a
// marker file; every verb runs against a repository that names all of them, and no marker
// may appear (docs/decisions/git-runs-nothing.md).
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyOf, helper, lastingTempDir, type Run } from "../helpers.ts";
import { inProcess } from "../in-process.ts";
import { checkpoint, transcript } from "../verbs/support.ts";
import { commit, ENV, git, handoff, iso, tempDir } from "./repo.ts";

const HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "post-index-change",
  "reference-transaction",
  "pre-push",
  "pre-auto-gc",
  "post-rewrite",
  "post-checkout",
  "post-merge",
];

/** A script that leaves `<marks>/<name>` and passes stdin through (a filter must give bytes back). */
function spy(marks: string, dir: string, name: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, `#!/bin/sh\ntouch '${path.join(marks, name)}'\ncat\n`);
  chmodSync(p, 0o755);
  return p;
}

/**
 * Names every program it can in `repo`'s own config, as a repository from a tarball could: the
 * lines are appended to its config file (what `git config` would write, one git process fewer a key).
 */
function arm(repo: string, marks: string, bin: string, prefix = ""): void {
  const [config, attributes] = git(repo, ["rev-parse", "--git-path", "config", "--git-path", "info/attributes"]).split("\n").map((p) => path.resolve(repo, p)) as [string, string];
  const hooks = path.join(bin, `${prefix}hooks`);
  mkdirSync(hooks);
  for (const h of HOOKS) {
    writeFileSync(path.join(hooks, h), `#!/bin/sh\ntouch '${path.join(marks, `${prefix}hook-${h}`)}'\n`);
    chmodSync(path.join(hooks, h), 0o755);
  }
  const s = (name: string) => spy(marks, bin, `${prefix}${name}`);
  const lines = [
    `[filter "evil"]`, `\tclean = ${s("filter-clean")}`, `\tsmudge = ${s("filter-smudge")}`, "\trequired = true",
    `[filter "odd=name"]`, `\tprocess = ${s("filter-process")}`,
    `[diff "evil"]`, `\ttextconv = ${s("textconv")}`, `\tcommand = ${s("diff-command")}`,
    "[diff]", `\texternal = ${s("diff-external")}`,
    "[core]", `\tfsmonitor = ${s("fsmonitor")}`, `\tpager = ${s("pager")}`, `\thooksPath = ${hooks}`,
    "[gpg]", `\tprogram = ${s("gpg")}`,
    "[commit]", "\tgpgSign = true",
    "[log]", "\tshowSignature = true",
  ];
  writeFileSync(config, `${readFileSync(config, "utf8")}${lines.join("\n")}\n`);
  mkdirSync(path.dirname(attributes), { recursive: true });
  writeFileSync(attributes, "* filter=evil diff=evil\n*.md filter=odd=name\n");
}

interface Hostile {
  root: string;
  marks: string;
}

const T0 = Date.UTC(2026, 10, 1);

/**
 * A repository with a saved handoff, then a commit after it whose header carries a signature
 * (so a log that shows signatures asks gpg), a dirty tracked file git must re-hash, a
 * submodule with its own filter and a dirty file in it; then everything armed. Made once in
 * `base` (root/, bin/, marks/; the submodule's origin outside it), which hostile() copies.
 */
function build(base: string): void {
  const [marks, bin, root] = ["marks", "bin", "root"].map((d) => path.join(base, d)) as [string, string, string];
  for (const d of [marks, bin, root]) mkdirSync(d);
  const sub = lastingTempDir("sh-sub-");
  for (const [dir, tree] of [[sub, { "inner.txt": "inner\n" }], [root, { "README.md": "hi\n", "src/a.ts": "a\n" }]] as const) {
    git(dir, ["init", "-q"]);
    commit(dir, "initial", T0, tree);
  }
  git(root, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub"]);
  const head = commit(root, "with submodule", T0 + 1000);
  const doc = handoff({ saved: iso(T0 + 2000), head, date: iso(T0 + 2000), dirty: "none" });
  const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc, env: ENV });
  expect(w.code, w.stderr).toBe(0);
  commit(root, "after the save", T0 + 3000, { "src/b.ts": "b\n" });
  // A signature header on HEAD: `git log` with log.showSignature runs gpg.program on it.
  const raw = git(root, ["cat-file", "commit", "HEAD"]);
  const signed = raw.replace(/^(committer [^\n]*)$/m, "$1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----");
  const p = path.join(bin, "commit.txt");
  writeFileSync(p, `${signed}\n`);
  const id = git(root, ["hash-object", "-t", "commit", "-w", p]);
  git(root, ["update-ref", "HEAD", id]);
  writeFileSync(path.join(root, "README.md"), "edited\n");
  utimesSync(path.join(root, "src", "a.ts"), new Date(), new Date(Date.now() + 5000));
  // Same size, new mtime: git can only tell by hashing the file, through its clean filter.
  utimesSync(path.join(root, "sub", "inner.txt"), new Date(), new Date(Date.now() + 5000));
  arm(root, marks, bin);
  arm(path.join(root, "sub"), marks, bin, "sub-");
}

let template: string | null = null;

/**
 * A copy of the armed repository for one test, its absolute paths (the config's programs, the
 * scripts' marks folder) moved to the copy. Copied files are new to git's index (another inode
 * and ctime): git must hash every one of them, through the filter if it runs one.
 */
function hostile(): Hostile {
  if (template === null) {
    template = lastingTempDir("sh-hostile-");
    build(template);
  }
  const base = copyOf(template);
  const root = path.join(base, "root");
  const moved = [path.join(root, ".git", "config"), path.join(root, ".git", "modules", "sub", "config")];
  for (const d of ["bin", "bin/hooks", "bin/sub-hooks"]) {
    for (const f of readdirSync(path.join(base, d), { withFileTypes: true })) if (f.isFile()) moved.push(path.join(base, d, f.name));
  }
  for (const f of moved) writeFileSync(f, readFileSync(f, "utf8").replaceAll(template, base));
  // A program still named at the template's path would leave its mark there, out of sight.
  for (const dir of [base, template]) expect(readdirSync(path.join(dir, "marks"))).toEqual([]);
  return { root, marks: path.join(base, "marks") };
}

const WHO = { GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };
// The verbs run in this process (inProcess): git's children are what is watched, and git is a
// process either way. Spawned (spawned()): the session hook, checkpoint and one plain publish.
const run = (args: string[], opts: { input?: string; cwd?: string } = {}): Promise<Run> => inProcess(args, { ...opts, env: { ...ENV, ...WHO } });
const spawned = (args: string[]): Run => helper(args, { env: { ...ENV, ...WHO } });

const VERBS: [string, (h: Hostile) => Run | Promise<Run>][] = [
  ["brief", ({ root }) => run(["brief", "--root", root])],
  ["drift", ({ root }) => run(["drift", "--root", root])],
  ["anchors", ({ root }) => run(["anchors", "--root", root, "--key-file", "README.md"])],
  ["hook", ({ root }) => spawned(["hook", "--mode", "session", "--root", root])],
  ["checkpoint", ({ root }) => checkpoint(root, { transcript_path: transcript(root), hook_event_name: "SessionEnd" }, [], ENV)],
  [
    "write",
    async ({ root }) => {
      const token = /CURRENT-SHA256: ([0-9a-f]{64})/.exec((await run(["read", "handoff", "--root", root])).stdout)?.[1] ?? "";
      const doc = handoff({ saved: iso(Date.now()), head: git(root, ["rev-parse", "HEAD"]), date: iso(Date.now()), dirty: "README.md", goal: "Another goal." });
      return run(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: doc });
    },
  ],
  ["publish", ({ root }) => spawned(["publish", "--root", root])],
  ["publish --push", ({ root }) => {
    const remote = tempDir("sh-remote-");
    git(remote, ["init", "-q", "--bare"]);
    git(root, ["remote", "add", "origin", remote]);
    git(root, ["-c", "core.hooksPath=/dev/null", "push", "-q", "-u", "origin", "main"]);
    return run(["publish", "--root", root, "--push"]);
  }],
];

describe("a repository's programs never run", () => {
  it("the fixture is armed: plain git runs the filter, the fsmonitor, gpg and the hooks", () => {
    const { root, marks } = hostile();
    git(root, ["status", "--porcelain"]);
    git(root, ["log", "-1"]);
    git(root, ["commit", "-q", "--allow-empty", "-m", "x"]);
    const seen = readdirSync(marks);
    for (const m of ["filter-clean", "fsmonitor", "gpg", "hook-pre-commit", "hook-post-commit", "hook-reference-transaction", "sub-filter-clean"]) expect(seen).toContain(m);
  });

  it.each(VERBS)("%s runs none of them", async (_name, verb) => {
    const h = hostile();
    const r = await verb(h);
    // The verb did its work (not a refusal that stopped before git).
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBeLessThanOrEqual(_name === "brief" || _name === "drift" ? 1 : 0);
    expect(readdirSync(h.marks)).toEqual([]);
  });

  it("publish says which hooks and what signing it skipped; --run-hooks runs them", async () => {
    const { root, marks } = hostile();
    const r = await run(["publish", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ran none of the repository's hooks \(pre-commit, prepare-commit-msg, commit-msg, post-commit, post-index-change, reference-transaction\) nor its commit signing: pass --run-hooks to run them$/m);
    expect(git(root, ["cat-file", "commit", "HEAD"])).not.toContain("gpgsig");
    expect(readdirSync(marks)).toEqual([]);
    writeFileSync(path.join(root, ".ai", "memory", "LESSONS.md"), "<!-- memory-schema: v1 -->\n# Lessons\n");
    const opted = await run(["publish", "--root", root, "--run-hooks"]);
    // gpg (the spy) signs nothing: git refuses the commit, as a plain `git commit` would.
    expect(opted.code).toBe(2);
    expect(readdirSync(marks)).toEqual(expect.arrayContaining(["hook-pre-commit", "gpg"]));
    expect(existsSync(path.join(marks, "filter-clean"))).toBe(false);
  });
});
