// "Since the save" by ancestry where the saved commit is here (docs/decisions/reachability-skew.md): commit dates that
// do not follow ancestry (a backdated commit, a slow clock, a rebase that kept dates, 1970 in an imported history) must
// not hide a change since the save, nor count an ancestor of the saved commit as ahead. Each case runs the verbs in
// this process (inProcess) on a real repository whose dates are set by GIT_COMMITTER_DATE and GIT_AUTHOR_DATE; the
// status line is the built helper's.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { helper, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

type Drift = { verdict: string; summary: string; ahead: number; olderAhead: number; dirtyFates: unknown[] };

function repo() {
  const home = tempDir("sh-skew-");
  const dir = path.join(home, "work");
  mkdirSync(path.join(home, ".config"), { recursive: true });
  mkdirSync(dir);
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))),
    HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CEILING_DIRECTORIES: home,
  } as Record<string, string>;
  const id = ["-c", "user.name=Alice", "-c", "user.email=alice@example.com", "-c", "commit.gpgsign=false"];
  // `sec`: the committer and author second, as a machine with that clock (or a rebase keeping dates) writes it.
  const gitAt = (sec: number | null, ...args: string[]) => execFileSync("git", [...id, ...args], {
    cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"],
    env: sec === null ? env : { ...env, GIT_COMMITTER_DATE: `@${sec} +0000`, GIT_AUTHOR_DATE: `@${sec} +0000` },
  }).trim();
  const put = (file: string, text: string) => writeFileSync(path.join(dir, file), text);
  const commitAt = (sec: number | null, file: string, text: string) => {
    put(file, text);
    gitAt(sec, "add", file);
    gitAt(sec, "commit", "-qm", `${file}: ${text.trim()}`);
    return gitAt(null, "rev-parse", "HEAD");
  };
  const run = (args: string[], input?: string) => inProcess([...args, "--root", dir], { input, env: { HOME: home, GIT_CEILING_DIRECTORIES: home } });
  const save = async () => {
    const token = /CURRENT-SHA256: (\S+)/.exec((await run(["read", "handoff"])).stdout)![1]!;
    const w = await run(["write", "handoff", "--expected-current-sha256", token], DOC);
    expect(w.code, w.stderr).toBe(0);
  };
  const drift = async (): Promise<Drift> => {
    const d = await run(["drift", "--json"]);
    expect(d.code, d.stderr).toBe(0);
    return JSON.parse(d.stdout);
  };
  gitAt(null, "init", "-q", "-b", "main");
  writeFileSync(path.join(dir, ".git", "info", "exclude"), ".ai/\n");
  commitAt(null, "b.txt", "b\n");
  const line = () => helper(["statusline"], { input: JSON.stringify({ cwd: dir }), env: { HOME: home } }).stdout;
  return { dir, gitAt, put, commitAt, save, drift, line };
}

const DOC = [
  "<!-- memory-schema: v1 -->", "# Session Handoff", "", "## Current goal", "Finish b.txt.", "", "## Plan",
  "- [~] edit b.txt", "", "## Decisions", "- [user-directed] keep it simple", "", "## Failed approaches", "- none", "",
  "## Open questions", "- none", "", "## Next steps", "1. finish b.txt", "", "## Key files", "- `b.txt` — key", "",
  "## Environment anchors", "",
].join("\n");

const now = () => Math.floor(Date.now() / 1000);

describe("since the save, by ancestry when dates do not follow it", () => {
  // Each makes, after the save, one commit on top of the saved HEAD that changes b.txt beyond its saved dirty content,
  // dated before the save. Old: "1 of them committed before the save" and b.txt "reverted".
  it.each<[string, (r: ReturnType<typeof repo>) => void]>([
    ["a commit backdated an hour (GIT_COMMITTER_DATE)", (r) => r.commitAt(now() - 3600, "b.txt", "b done\n")],
    ["a clock two minutes slow", (r) => r.commitAt(now() - 120, "b.txt", "b done\n")],
    ["commit --date, then a rebase that keeps the author date as the committer's", (r) => {
      r.commitAt(null, "c.txt", "c\n");
      r.put("b.txt", "b done\n");
      r.gitAt(null, "commit", "-qam", "b done", "--date", `@${now() - 3600} +0000`);
      r.gitAt(null, "rebase", "-q", "--committer-date-is-author-date", "HEAD~2");
    }],
    ["a cherry-pick of work from another branch, with the commit's old date kept", (r) => {
      r.gitAt(null, "switch", "-q", "-c", "later");
      r.gitAt(null, "stash", "-q");
      const c = r.commitAt(now() - 7200, "b.txt", "b done\n");
      r.gitAt(null, "switch", "-q", "main");
      r.gitAt(null, "stash", "drop", "-q");
      r.gitAt(now() - 7200, "cherry-pick", c);
    }],
  ])("%s: a change since, not older and not reverted", { timeout: 60_000 }, async (_name, after) => {
    const r = repo();
    r.put("b.txt", "b half-done\n");
    await r.save();
    after(r);
    const d = await r.drift();
    const commit = r.gitAt(null, "log", "-1", "--format=%H", "--", "b.txt");
    expect(d.dirtyFates).toEqual([{ path: "b.txt", fate: "edited", commit }]);
    expect(d.olderAhead).toBe(0);
    expect(d.summary).not.toContain("committed before the save");
    expect(d.verdict).toBe("drifted");
  });

  it("a merge of a branch older than the save is still counted as older by its dates", { timeout: 60_000 }, async () => {
    const r = repo();
    r.gitAt(null, "switch", "-q", "-c", "old", "HEAD");
    r.commitAt(now() - 3600, "o.txt", "o\n");
    r.gitAt(null, "switch", "-q", "main");
    r.commitAt(now() - 3000, "a.txt", "a\n");
    await r.save();
    r.gitAt(null, "merge", "-q", "--no-edit", "old");
    expect(await r.drift()).toMatchObject({ ahead: 2, olderAhead: 1 });
  });

  // Commits dated 1970 between the saved commit and older history: git's date-ordered walk of `<saved>..HEAD`, reaching
  // that history through a branch merged since, stops before marking it as the saved commit's.
  it("1970-dated commits under the saved one: only the commits since count as ahead", { timeout: 60_000 }, async () => {
    const r = repo();
    const t = now() - 86_400;
    const a = r.commitAt(t, "a.txt", "a1\n");
    for (let n = 2; n <= 6; n++) r.commitAt(t + n, "a.txt", `a${n}\n`);
    for (let n = 1; n <= 3; n++) r.commitAt(100 + n, "o.txt", `1970 ${n}\n`);
    r.gitAt(null, "branch", "side", a);
    // Dirty at the save as an old commit held it: no commit since holds it.
    r.put("a.txt", "a1\n");
    await r.save();
    r.gitAt(null, "checkout", "--", "a.txt");
    r.gitAt(null, "switch", "-q", "side");
    r.commitAt(null, "s.txt", "side\n");
    r.gitAt(null, "switch", "-q", "main");
    r.gitAt(null, "merge", "-q", "--no-edit", "side");
    const d = await r.drift();
    // Old: 4 ahead (a1 and the first commit, under the 1970 ones, among them), 2 of them "committed before the save",
    // and a.txt "committed in" a1, an ancestor of the saved commit.
    expect(d).toMatchObject({ ahead: 2, olderAhead: 0 });
    expect(d.dirtyFates).toEqual([{ path: "a.txt", fate: "reverted" }]);
    // The status line counts as the brief does. Old: "4 commits since".
    expect(r.line()).toBe("handoff: saved today · 2 commits since\n");
  });
});
