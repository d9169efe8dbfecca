// A dirty file's name travels from git's -z output to a quoted anchor line and back to drift's comparison: every name
// git can hold must come back as itself, so that its fate is told by its content (docs/design.md#anchors).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { briefBody, helper, tempDir } from "../helpers.ts";
import { commit, git } from "./repo.ts";

const DOC = "<!-- memory-schema: v1 -->\n# Session Handoff\n\n## Current goal\nTune the parser.\n\n## Plan\n- [~] tune\n\n" +
  "## Decisions\n- [user-directed] keep the API\n\n## Failed approaches\n- none\n\n## Open questions\n- none\n\n" +
  "## Next steps\n- tune keep.txt — done when it passes\n\n## Key files\n- keep.txt — the parser\n\n" +
  "## Environment anchors\n";

type Drift = { verdict: string; aheadAsSaved: boolean; summary: string; dirtyFates: { path: string; fate: string }[] };

// A repository (with its own HOME) holding `files` in its first commit; the helper spawned as users run it.
function setUp(base: string, files: Record<string, string>) {
  const [dir, home] = [path.join(base, "work"), path.join(base, "home")];
  mkdirSync(dir);
  mkdirSync(path.join(home, ".config"), { recursive: true });
  git(dir, ["init", "-q"]);
  commit(dir, "initial", Date.now() - 60_000, { "keep.txt": "k\n", ...files });
  const env = {
    HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CEILING_DIRECTORIES: base,
  };
  const run = (...args: string[]) => helper([...args, "--root", dir], { env, input: args[0] === "write" ? DOC : "" });
  return {
    dir,
    save(): string {
      const w = run("write", "handoff", "--expected-current-sha256", "absent");
      expect(w.code, w.stderr).toBe(0);
      return readFileSync(path.join(dir, ".ai", "memory", "HANDOFF.md"), "utf8");
    },
    drift(): Drift {
      const d = run("drift", "--json");
      expect(d.code, d.stderr).toBe(0);
      return JSON.parse(d.stdout) as Drift;
    },
    brief: () => briefBody(run("brief").stdout),
  };
}

// Each a kind git quotes or a reader could take for quoting: the quote, escape and separator characters of an anchor
// line, controls git passes through -z, names that look like C strings or escapes, non-ASCII kept as is.
const NAMES: [string, string][] = [
  ["a backslash", "a\\b.txt"],
  ["a backslash before n", "back\\n.txt"],
  ["a double quote", 'say "hi".txt'],
  ["a quoted C string", '"x"'],
  ["a tab", "tab\there.txt"],
  ["a line break", "line\nbreak.txt"],
  ["a space where another has a line break", "line break.txt"],
  ["a line break and glob characters", "star\n*[x]?.txt"],
  ["a carriage return", "cr\r.txt"],
  ["a leading space", " leading.txt"],
  ["a trailing space", "trailing.txt "],
  ["a comma", "a, b.txt"],
  ["the empty list's word", "none"],
  ["a name ending as a hash entry does", "x deleted"],
  ["a name ending as a mode entry does", "f 100755"],
  ["a cut list's tail", "\u2026 and 2 more"],
  ["an accent", "café.txt"],
  ["CJK", "日本語.txt"],
  ["a zero-width space", "zw\u200bsp.txt"],
];

// One repository holds every name, saved once: what drift says of each right after the save, after an edit, and
// after the saved content is committed.
describe("a dirty file's name round-trips from git through the anchors to drift", () => {
  const fateOf = (d: Drift, name: string) => d.dirtyFates.find((f) => f.path === name);
  let base = "";
  let seen: { text: string; saved: Drift; edited: Drift; committed: Drift; brief: string };
  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), "sh-odd-")));
    const r = setUp(base, Object.fromEntries(NAMES.map(([, n]) => [n, "v1\n"])));
    const put = (content: string) => NAMES.forEach(([, n]) => writeFileSync(path.join(r.dir, n), content));
    put("v2\n");
    // Made executable too: the `- Dirty modes:` line carries each name as well.
    NAMES.forEach(([, n]) => chmodSync(path.join(r.dir, n), 0o755));
    const text = r.save();
    const saved = r.drift();
    put("v3\n");
    const edited = r.drift();
    put("v2\n");
    git(r.dir, ["commit", "-qam", "the saved work"]);
    seen = { text, saved, edited, committed: r.drift(), brief: r.brief() };
  }, 120_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it.each(NAMES)("%s: unchanged after the save, changed when edited, committed as saved", (_, name) => {
    expect(fateOf(seen.saved, name)).toEqual({ path: name, fate: "unchanged" });
    expect(fateOf(seen.edited, name)).toEqual({ path: name, fate: "changed" });
    expect(fateOf(seen.committed, name)).toMatchObject({ path: name, fate: "committed", onHead: true });
  });

  it("the commit of every name as saved is the save's own work: fresh, as saved, in drift and the brief", () => {
    const line = (label: string) => new RegExp(`^- ${label}: (.*)$`, "m").exec(seen.text)?.[1] ?? "";
    expect(line("Dirty hashes").split(/ [0-9a-f]{40}(?:, |$)/)).toHaveLength(NAMES.length + 1);
    expect(line("Dirty modes").split(/ 100755(?:, |$)/)).toHaveLength(NAMES.length + 1);
    expect(seen.saved.verdict).toBe("fresh");
    expect(seen.committed).toMatchObject({ verdict: "fresh", aheadAsSaved: true });
    expect(seen.brief).toContain("as saved");
  });

  it("a name that is not UTF-8: no hash claimed, never said deleted nor reverted", { timeout: 60_000 }, () => {
    const r = setUp(tempDir("sh-odd-"), {});
    const file = Buffer.concat([Buffer.from(`${r.dir}/lat`), Buffer.from([0xe9]), Buffer.from(".txt")]);
    writeFileSync(file, "v1\n");
    git(r.dir, ["add", "-A"]);
    git(r.dir, ["commit", "-qm", "a Latin-1 name"]);
    writeFileSync(file, "v2\n");
    const text = r.save();
    expect(text).toContain("- Dirty files: lat\uFFFD.txt\n");
    expect(text).not.toContain("- Dirty hashes:");
    expect(r.drift().dirtyFates).toEqual([{ path: "lat\uFFFD.txt", fate: "dirty" }]);
    git(r.dir, ["commit", "-qam", "the saved work"]);
    const d = r.drift();
    expect(d.dirtyFates).toEqual([{ path: "lat\uFFFD.txt", fate: "clean" }]);
    expect(d.summary).toContain("clean now (committed, stashed or reverted)");
  });

  it("a new file with a line break, stashed with -u: never said reverted, and the stash is named", { timeout: 60_000 }, () => {
    const name = "new\nfile.txt";
    const r = setUp(tempDir("sh-odd-"), {});
    writeFileSync(path.join(r.dir, name), "work\n");
    expect(r.save()).toMatch(/^- Dirty files: "new\\nfile\.txt"$/m);
    git(r.dir, ["stash", "push", "-u", "-q", "--", name]);
    const d = r.drift();
    // cat-file reads one name a line: the untracked trees of stash entries are not asked about this one.
    expect(d.dirtyFates).toEqual([{ path: name, fate: "clean" }]);
    expect(d.summary).toContain("stash@{0}");
    expect(git(r.dir, ["show", "--format=", "--name-only", "-z", "stash@{0}^3"])).toContain(name);
  });
});
