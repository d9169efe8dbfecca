// What drift and the brief say after a save when the difference is not in a file's bytes: its mode, a stash made
// since, its line endings, a submodule's commit (docs/design.md#what-became-of-the-dirty-files).
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { briefBody, helper, tempDir, type Run } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

interface Repo {
  dir: string;
  git(...args: string[]): string;
  /** The verb in this process (inProcess); `spawned` runs the built helper. */
  run(args: string[], input?: string): Promise<Run>;
  spawned(args: string[], input?: string): Run;
}

function repo(home: string, dir: string): Repo {
  mkdirSync(path.join(home, ".config"), { recursive: true });
  writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = Alice\n\temail = alice@example.com\n[init]\n\tdefaultBranch = main\n[protocol \"file\"]\n\tallow = always\n");
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), GIT_CEILING_DIRECTORIES: path.dirname(dir) };
  const e = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))), ...env } as Record<string, string>;
  return {
    dir,
    git: (...args) => execFileSync("git", args, { cwd: dir, env: e, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim(),
    run: (args, input) => inProcess([...args, "--root", dir], { input, env }),
    spawned: (args, input) => helper([...args, "--root", dir], { input, env }),
  };
}

const DOC = "<!-- memory-schema: v1 -->\n# Session Handoff\n\n## Current goal\nTune the parser.\n\n## Plan\n- [~] tune\n\n" +
  "## Decisions\n- [user-directed] keep the API\n\n## Failed approaches\n- none\n\n## Open questions\n- none\n\n" +
  "## Next steps\n- tune a.ts — done when it passes\n\n## Key files\n- a.ts — the parser\n\n## Environment anchors\n";

function newRepo(): Repo {
  const home = tempDir("sh-after-");
  const dir = path.join(home, "work");
  mkdirSync(dir);
  const r = repo(path.join(home, "me"), dir);
  r.git("init", "-q");
  writeFileSync(path.join(dir, "a.ts"), "a\n");
  r.git("add", "-A");
  r.git("commit", "-qm", "initial");
  return r;
}

/** Saves DOC; `spawn` writes through the built helper (one plain save per file), else in this process. */
async function save(r: Repo, spawn = false): Promise<string> {
  const t = /CURRENT-SHA256: (\S+)/.exec((await r.run(["read", "handoff"])).stdout)![1]!;
  const w = spawn ? r.spawned(["write", "handoff", "--expected-current-sha256", t], DOC) : await r.run(["write", "handoff", "--expected-current-sha256", t], DOC);
  expect(w.code, w.stderr).toBe(0);
  return readFileSync(path.join(r.dir, ".ai", "memory", "HANDOFF.md"), "utf8");
}

type Drift = { verdict: string; aheadAsSaved: boolean; summary: string; dirtyFates: Record<string, unknown>[] };
async function drift(r: Repo): Promise<Drift> {
  const d = await r.run(["drift", "--json"]);
  expect(d.code, d.stderr).toBe(0);
  return JSON.parse(d.stdout);
}

async function brief(r: Repo): Promise<string> {
  const b = await r.run(["brief"]);
  expect(b.code, b.stderr).toBe(0);
  return briefBody(b.stdout);
}

describe("a mode is part of what was saved", () => {
  it("+x and edits saved, the edits committed without +x: not as saved; with +x: as saved", { timeout: 60_000 }, async () => {
    const r = newRepo();
    chmodSync(path.join(r.dir, "a.ts"), 0o755);
    writeFileSync(path.join(r.dir, "a.ts"), "a edited\n");
    writeFileSync(path.join(r.dir, "new.sh"), "echo new\n", { mode: 0o755 });
    const text = await save(r, true);
    expect(text).toContain("- Dirty modes: a.ts 100755, new.sh 100755\n");
    expect((await r.run(["validate", "handoff"])).stdout).not.toContain("anchor-unknown");
    // Still dirty, the bit dropped: changed, not unchanged.
    chmodSync(path.join(r.dir, "a.ts"), 0o644);
    expect((await drift(r)).dirtyFates[0]).toEqual({ path: "a.ts", fate: "changed" });
    const copy = path.join(path.dirname(r.dir), "copy");
    execFileSync("cp", ["-a", r.dir, copy]);
    r.git("add", "-A");
    r.git("commit", "-qm", "the edits, not the mode");
    const lost = await drift(r);
    expect(lost.verdict).toBe("drifted");
    expect(lost.aheadAsSaved).toBe(false);
    expect(lost.dirtyFates[0]).toMatchObject({ path: "a.ts", fate: "edited" });
    expect(await brief(r)).not.toContain("as saved");
    // The same work committed with its mode is the save's own work made permanent.
    const kept = repo(path.join(path.dirname(r.dir), "me"), copy);
    chmodSync(path.join(copy, "a.ts"), 0o755);
    kept.git("add", "-A");
    kept.git("commit", "-qm", "the edits and the mode");
    const held = await drift(kept);
    expect(held.aheadAsSaved).toBe(true);
    expect(held.verdict).toBe("fresh");
    expect(held.dirtyFates).toMatchObject([{ path: "a.ts", fate: "committed" }, { path: "new.sh", fate: "committed" }]);
  });
});

describe("a submodule is anchored by its commit", () => {
  it("moved to another commit after the save and committed: changed since, not committed; at the saved one: as saved", { timeout: 60_000 }, async () => {
    const r = newRepo();
    const lib = path.join(path.dirname(r.dir), "lib");
    mkdirSync(lib);
    const l = repo(path.join(path.dirname(r.dir), "me"), lib);
    l.git("init", "-q");
    const ids = ["1", "2", "3"].map((n) => {
      writeFileSync(path.join(lib, "f"), `${n}\n`);
      l.git("add", "f");
      l.git("commit", "-qm", n);
      return l.git("rev-parse", "HEAD");
    });
    r.git("submodule", "add", "-q", lib, "sub");
    r.git("-C", "sub", "checkout", "-q", ids[0]!);
    r.git("add", "sub");
    r.git("commit", "-qm", "the submodule");
    r.git("-C", "sub", "checkout", "-q", ids[1]!);
    expect(await save(r)).toContain(`- Dirty hashes: sub ${ids[1]}\n`);
    const copy = path.join(path.dirname(r.dir), "copy");
    execFileSync("cp", ["-a", r.dir, copy]);
    r.git("-C", "sub", "checkout", "-q", ids[2]!);
    expect((await drift(r)).dirtyFates).toEqual([{ path: "sub", fate: "changed" }]);
    r.git("add", "sub");
    r.git("commit", "-qm", "the submodule moved on");
    const moved = await drift(r);
    expect(moved.dirtyFates).toEqual([{ path: "sub", fate: "edited", commit: r.git("rev-parse", "HEAD") }]);
    expect(await brief(r)).toContain('changed since in');
    const kept = repo(path.join(path.dirname(r.dir), "me"), copy);
    kept.git("add", "sub");
    kept.git("commit", "-qm", "the submodule as saved");
    expect(await drift(kept)).toMatchObject({ verdict: "fresh", aheadAsSaved: true, dirtyFates: [{ path: "sub", fate: "committed" }] });
  });
});

describe("a stash made since the save", () => {
  it("the saved work committed as saved, later edits stashed: fresh, and the stash is named; an older one is not", { timeout: 60_000 }, async () => {
    const r = newRepo();
    writeFileSync(path.join(r.dir, "a.ts"), "an old edit\n");
    r.git("stash", "-q");
    // The reflog's times are whole seconds: the save comes in a later one.
    execFileSync("sleep", ["1.1"]);
    writeFileSync(path.join(r.dir, "a.ts"), "a edited\n");
    await save(r);
    r.git("commit", "-qam", "the saved work");
    expect((await drift(r)).summary).not.toContain("stash");
    writeFileSync(path.join(r.dir, "a.ts"), "a edited\nand more\n");
    r.git("stash", "-q");
    const d = (await drift(r)) as Drift & { stashesSince: string[] };
    expect(d.verdict).toBe("fresh");
    expect(d.stashesSince).toEqual(["stash@{0}"]);
    expect(await brief(r)).toContain("; a stash made since the save, its changes not counted: stash@{0};");
  });
});

describe("line endings changed since the save", () => {
  it("core.autocrlf turned off, then committed or stashed: named as the saved work with other line endings", { timeout: 60_000 }, async () => {
    const r = newRepo();
    r.git("config", "core.autocrlf", "true");
    writeFileSync(path.join(r.dir, "a.ts"), "a\r\nb\r\n");
    await save(r);
    const copy = path.join(path.dirname(r.dir), "copy");
    execFileSync("cp", ["-a", r.dir, copy]);
    r.git("config", "core.autocrlf", "false");
    // The bytes on disk are the saved ones; only git's conversion changed.
    expect((await drift(r)).dirtyFates).toEqual([{ path: "a.ts", fate: "unchanged", eol: true }]);
    r.git("commit", "-qam", "CRLF kept");
    const id = r.git("rev-parse", "HEAD");
    const d = await drift(r);
    expect(d.dirtyFates).toEqual([{ path: "a.ts", fate: "committed", commit: id, onHead: true, eol: true }]);
    expect(await brief(r)).toContain(`dirty at the save, committed with other line endings in ${id.slice(0, 12)}: "a.ts"`);
    // Not as saved: the commit holds CRLF where the save would have stored LF.
    expect(d.aheadAsSaved).toBe(false);
    const kept = repo(path.join(path.dirname(r.dir), "me"), copy);
    kept.git("config", "core.autocrlf", "false");
    kept.git("stash", "-q");
    expect((await drift(kept)).dirtyFates).toEqual([{ path: "a.ts", fate: "stashed", stash: "stash@{0}", eol: true }]);
  });
});
