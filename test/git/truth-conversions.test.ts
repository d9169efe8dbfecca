// Dirty hashes are git's blob ids as `git add` stores them (docs/decisions/dirty-hash-conversions.md): with
// autocrlf, `text=auto`, `eol=crlf` or a clean filter, work saved dirty then committed reads committed, stashed
// reads stashed, and a file rewritten with other line ends only still reads unchanged.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { helper, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const DOC = [
  "<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Current goal", "Tune the parser.", "", "## Plan",
  "- [~] tune", "", "## Decisions", "- [user-directed] keep the API", "", "## Failed approaches", "- none", "",
  "## Open questions", "- none", "", "## Next steps", "- tune", "", "## Key files", "- f.txt — the file", "",
  "## Environment anchors", "",
].join("\n");

interface Case {
  name: string;
  // Run before the first commit (config, attributes); `dirty` is the file's work-tree bytes at the save, `same` the
  // same content as git stores it written with other line ends.
  setup: (git: (...a: string[]) => string, dir: string) => void;
  dirty: string;
  same: string | null;
  // What `f.txt` holds at the first commit, and what drift says of the file only touched after the save.
  initial?: string;
  touched?: "dirty";
}

const CASES: Case[] = [
  { name: "core.autocrlf=true", setup: (git) => git("config", "core.autocrlf", "true"), dirty: "a\r\nb\r\n", same: "a\nb\n" },
  {
    name: "text=auto", dirty: "a\r\nb\r\n", same: "a\nb\n",
    setup: (_, dir) => writeFileSync(path.join(dir, ".gitattributes"), "* text=auto\n"),
  },
  {
    name: "eol=crlf", dirty: "a\r\nb\r\n", same: "a\nb\n",
    setup: (_, dir) => writeFileSync(path.join(dir, ".gitattributes"), "*.txt eol=crlf\n"),
  },
  {
    // git keeps CRLF in a file whose indexed blob has it: `git hash-object` alone would convert it.
    name: "core.autocrlf=true over a blob holding CRLF", dirty: "a\r\nb\r\n", same: null, initial: "a\r\n",
    setup: (git, dir) => {
      writeFileSync(path.join(dir, "f.txt"), "a\r\n");
      git("add", "f.txt");
      git("commit", "-qm", "CRLF committed before autocrlf");
      git("config", "core.autocrlf", "true");
    },
  },
  {
    name: "a clean filter", dirty: "a secret\nb\n", same: null, touched: "dirty",
    setup: (git, dir) => {
      git("config", "filter.strip.clean", "sed s/secret//");
      writeFileSync(path.join(dir, ".gitattributes"), "*.txt filter=strip\n");
    },
  },
];

// One save per case; each flow after it runs on its own copy of the saved repository. The verbs run in
// this process (inProcess), but for the first case's save, which goes through the built helper.
async function savedRepo(c: Case) {
  const home = tempDir("sh-conv-");
  const dir = path.join(home, "work");
  mkdirSync(dir);
  writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = A\n\temail = a@example.com\n[init]\n\tdefaultBranch = main\n");
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), GIT_CEILING_DIRECTORIES: home };
  const e = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...env };
  const gitIn = (cwd: string) => (...args: string[]) => execFileSync("git", args, { cwd, env: e, encoding: "utf8" }).trim();
  const runIn = (cwd: string) => (args: string[], input?: string) => inProcess([...args, "--root", cwd], { input, env });
  const git = gitIn(dir);
  git("init", "-q");
  c.setup(git, dir);
  writeFileSync(path.join(dir, "f.txt"), c.initial ?? "a\n");
  git("add", "-A");
  git("commit", "-q", "--allow-empty", "-m", "initial");
  writeFileSync(path.join(dir, "f.txt"), c.dirty);
  // Edited a while before the commit: a file as new as the index is re-read by git, which the helper's status does
  // without the filter.
  utimesSync(path.join(dir, "f.txt"), new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
  const t = /CURRENT-SHA256: (\S+)/.exec((await runIn(dir)(["read", "handoff"])).stdout)![1]!;
  const write = ["write", "handoff", "--expected-current-sha256", t, "--root", dir];
  const w = c === CASES[0] ? helper(write, { input: DOC, env }) : await inProcess(write, { input: DOC, env });
  expect(w.code, w.stderr).toBe(0);
  return (name: string) => {
    const copy = path.join(home, name);
    cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
    const drift = async () => {
      const d = await runIn(copy)(["drift", "--json"]);
      expect(d.code, d.stderr).toBe(0);
      return JSON.parse(d.stdout) as { summary: string; aheadAsSaved?: boolean; dirtyFates: { path: string; fate: string }[] };
    };
    return { dir: copy, git: gitIn(copy), drift, handoff: () => readFileSync(path.join(copy, ".ai/memory/HANDOFF.md"), "utf8") };
  };
}

describe.each(CASES)("a file saved dirty under $name", (c) => {
  it("reads committed once committed, stashed once stashed, and as git's status says once touched", { timeout: 60_000 }, async () => {
    const copyOf = await savedRepo(c);
    // Soft: each of the three flows is reported on its own.
    const committed = copyOf("committed");
    committed.git("commit", "-qam", "the work");
    const head = committed.git("rev-parse", "HEAD");
    const d1 = await committed.drift();
    expect.soft(d1.dirtyFates).toEqual([{ path: "f.txt", fate: "committed", commit: head, onHead: true }]);
    expect.soft(d1.summary).not.toMatch(/changed since|edited|reverted/);
    // The one commit ahead holds only the saved work, as saved (not known of a filtered file, which has no id).
    expect.soft(d1.aheadAsSaved).toBe(c.touched !== "dirty");

    const stashed = copyOf("stashed");
    stashed.git("stash", "-q");
    const d2 = await stashed.drift();
    expect.soft(d2.dirtyFates).toEqual([{ path: "f.txt", fate: "stashed", stash: "stash@{0}" }]);
    expect.soft(d2.summary).not.toMatch(/reverted/);

    const touched = copyOf("touched");
    if (c.same !== null) writeFileSync(path.join(touched.dir, "f.txt"), c.same);
    utimesSync(path.join(touched.dir, "f.txt"), new Date(), new Date(Date.now() + 5_000));
    const d3 = await touched.drift();
    // git itself (filters run) says the file is still modified.
    expect(touched.git("status", "--porcelain", "--", "f.txt")).toBe("M f.txt");
    // A clean filter the helper does not run leaves the content unknown: dirty, never claimed unchanged.
    expect.soft(d3.dirtyFates).toEqual([{ path: "f.txt", fate: c.touched ?? "unchanged" }]);
    if (c.touched === "dirty") expect(touched.handoff()).not.toContain("- Dirty hashes:");
  });
});
