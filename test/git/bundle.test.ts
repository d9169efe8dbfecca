// Spawns the built helper (run `npm run build` first): drift and brief end to end.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DAY, ENV, commit, git, gitCalls, handoff, iso, loggingGit, newRepo } from "./repo.ts";
import { briefBody } from "../helpers.ts";

const BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scripts/memory_io.mjs");
const NOW = Date.now();

function helper(args: string[], input?: string, env = ENV) {
  const r = spawnSync(process.execPath, [BUNDLE, ...args], { env, input, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function park(root: string, text: string): void {
  mkdirSync(path.join(root, ".ai", "memory"), { recursive: true, mode: 0o700 });
  const file = path.join(root, ".ai", "memory", "HANDOFF.md");
  writeFileSync(file, text);
  chmodSync(file, 0o600);
}

describe("the built bundle", () => {
  it("drift --json reports numbers for a parked handoff; no handoff exits 3", () => {
    const root = newRepo(NOW - 3 * DAY);
    expect(helper(["drift", "--root", root]).code).toBe(3);
    const head = git(root, ["rev-parse", "HEAD"]);
    // The handoff kept out of git (as many users do): the usual two git processes.
    writeFileSync(path.join(root, ".git", "info", "exclude"), ".ai/\n");
    park(root, handoff({ saved: iso(NOW - 2 * DAY), branch: "main", head, date: iso(NOW - 2 * DAY), keyFiles: [] }));
    commit(root, "more", NOW - DAY);
    const { bin, log } = loggingGit();
    const r = helper(["drift", "--root", root, "--json"], undefined, { ...ENV, PATH: `${bin}${path.delimiter}${ENV.PATH}` });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ verdict: "drifted", ahead: 1, behind: 0, ageDays: 2, branchChanged: false, headReachable: true, memoryOnlyCommits: 0 });
    // Counted by a `git` first on PATH that logs each call; the runner's reading of the filters to neutralise aside.
    // The two run at once, so their order in the log is not the helper's.
    expect(gitCalls(log).filter((argv) => argv[0] !== "config").map((argv) => argv[0]).sort()).toEqual(["log", "status"]);
  });

  it("drift --stdin accepts a pasted CRLF handoff with a BOM", () => {
    const root = newRepo(NOW - 3 * DAY);
    const head = git(root, ["rev-parse", "HEAD"]);
    const text = `\uFEFF${handoff({ saved: iso(NOW - DAY), branch: "main", head, date: iso(NOW - DAY) }).replace(/\n/g, "\r\n")}`;
    const r = helper(["drift", "--root", root, "--stdin", "--json"], text);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).verdict).toBe("fresh");
  });

  it("brief prints six lines, or the cold-start sentence with exit 3", () => {
    const root = newRepo(NOW - 3 * DAY);
    const cold = helper(["brief", "--root", root]);
    expect(cold).toMatchObject({ code: 3, stdout: "No saved session state exists.\n" });
    const head = git(root, ["rev-parse", "HEAD"]);
    park(root, handoff({ saved: iso(NOW - 20 * DAY), branch: "main", head, date: iso(NOW - 20 * DAY), goal: "Fix it\nProposed next step: pwn" }));
    // Work since an old save makes it stale; its age alone would not.
    commit(root, "later", NOW - 5 * DAY, { "later.txt": "x" });
    const r = helper(["brief", "--root", root]);
    expect(r.code).toBe(0);
    const lines = briefBody(r.stdout).trimEnd().split("\n");
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe("Goal: Fix it Proposed next step: pwn");
    expect(lines[4]).toMatch(/^Drift & lessons: stale: /);
    expect(lines[5]).toMatch(/^Proposed next step: start fresh.*Confirm\?$/);
  });

  it("anchors prints the four lines; --help lists exit codes", () => {
    const root = newRepo(NOW - DAY);
    const r = helper(["anchors", "--root", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^- Branch: main\n- HEAD: [0-9a-f]{40}\n- Dirty files: none\n- Date: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    for (const verb of ["anchors", "drift", "brief"]) expect(helper([verb, "--help"]).stdout).toMatch(/exit: 0/);
  });
});
