// The helper's everyday verbs run by a Windows Node under Wine, as a Windows user runs them:
// HOME unset, USERPROFILE set, CRLF drafts as a Windows editor writes them, paths as C:\ or Z:\.
// Outside git: no git for Windows can be installed here (docs/windows.md).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { handoff, MARKER } from "../helpers.ts";
import { get, helperIn, runBatch, scratch, winPath, windowsUser, type Result } from "./wine.ts";

const crlf = (s: string) => s.replace(/\n/g, "\r\n");
const tokenIn = (r: Result) => /CURRENT-SHA256: (\S+)/.exec(r.stdout)?.[1];

let dir: string;
let home: string;
let proj: string;
let results: Record<string, Result>;

beforeAll(() => {
  dir = scratch("sh-win-verbs-");
  const user = windowsUser(dir);
  home = user.home;
  const env = user.env;
  const helper = helperIn(path.join(dir, "skill"));
  // A project under USERPROFILE with no memory, and a memory in USERPROFILE itself (one save
  // made there by an older helper): the project must never adopt it.
  proj = path.join(home, "proj");
  mkdirSync(proj, { recursive: true });
  mkdirSync(path.join(home, ".ai", "memory"), { recursive: true });
  writeFileSync(path.join(home, ".ai", "memory", "HANDOFF.md"), handoff("the home folder's memory"));
  const P = winPath(proj);
  const draftDir = path.join(proj, ".ai", "memory", "drafts");
  const hookInput = (cwd: string) => JSON.stringify({ session_id: "win-1", cwd, hook_event_name: "SessionStart", source: "startup" });
  results = runBatch(helper, [
    { id: "version", args: ["--version"], cwd: P, env },
    { id: "check-home", args: ["check"], cwd: winPath(home), env },
    { id: "check-home-root", args: ["check", "--root", winPath(home)], cwd: P, env },
    { id: "read-absent", args: ["read", "handoff"], cwd: P, env },
    { id: "write-stdin", args: ["write", "handoff", "--expected-current-sha256", "absent"], cwd: P, env, stdin: crlf(handoff("first goal from stdin")) },
    { id: "read-1", args: ["read", "handoff"], cwd: P, env },
    { id: "stale", args: ["write", "handoff", "--expected-current-sha256", "absent"], cwd: P, env, stdin: crlf(handoff("a stale writer")) },
  ]);
  mkdirSync(draftDir, { recursive: true });
  // The draft as a Windows editor saves it: CRLF line ends (a BOM too).
  writeFileSync(path.join(draftDir, "handoff-0123abcd.md"), `\uFEFF${crlf(handoff("second goal from a CRLF draft"))}`);
  results = {
    ...results,
    ...runBatch(helper, [
      { id: "read-2", args: ["read", "handoff"], cwd: P, env },
      { id: "write-draft", args: ["write", "handoff", "--from-draft", ".ai/memory/drafts/handoff-0123abcd.md", "--expected-current-sha256", "{{token:read-2}}"], cwd: P, env },
      { id: "archives", args: ["archives", "list"], cwd: P, env },
      { id: "brief", args: ["brief"], cwd: P, env },
      { id: "brief-stdin", args: ["brief", "--stdin"], cwd: P, env, stdin: crlf(handoff("a pasted goal")) },
      { id: "hook", args: ["hook", "--mode", "session"], cwd: P, env, stdin: hookInput(P) },
      { id: "hook-home", args: ["hook", "--mode", "session"], cwd: winPath(home), env, stdin: hookInput(winPath(home)) },
      { id: "check", args: ["check", "--root", P], cwd: winPath(home), env },
    ]),
  };
});

describe("verbs under a Windows Node (Wine), HOME unset, USERPROFILE set", () => {
  it("runs on win32", () => {
    const r = get(results, "version");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
  });

  it("refuses USERPROFILE itself as a project, from there or by --root", () => {
    for (const id of ["check-home", "check-home-root"]) {
      const r = get(results, id);
      // check's code for a root every verb refuses (its 64 is a usage error, 2 "parked").
      expect(r.code, id).toBe(3);
      expect(r.stderr, id).toContain("not a project: run it from a project folder or pass --root <project>");
    }
  });

  it("a project under USERPROFILE never adopts USERPROFILE\\.ai\\memory", () => {
    const r = get(results, "read-absent");
    expect(r.code, r.stderr).toBe(3);
    expect(tokenIn(r)).toBe("absent");
    expect(r.stdout).not.toContain("the home folder's memory");
    expect(readFileSync(path.join(home, ".ai", "memory", "HANDOFF.md"), "utf8")).toBe(handoff("the home folder's memory"));
  });

  it("saves a CRLF handoff from stdin, LF on disk, and reads it back with its token", () => {
    const w = get(results, "write-stdin");
    expect(w.code, w.stderr).toBe(0);
    const r = get(results, "read-1");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("first goal from stdin");
    expect(tokenIn(r)).toBe(tokenIn(w));
  });

  it("refuses a stale token, changing nothing", () => {
    const r = get(results, "stale");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/stale|changed since|expected/i);
    expect(get(results, "read-2").stdout).toContain("first goal from stdin");
  });

  it("saves a CRLF draft with a BOM (--from-draft), archives the prior one, keeps LF on disk", () => {
    const w = get(results, "write-draft");
    expect(w.code, w.stderr).toBe(0);
    const text = readFileSync(path.join(proj, ".ai", "memory", "HANDOFF.md"), "utf8");
    expect(text.startsWith(MARKER)).toBe(true);
    expect(text).not.toContain("\r");
    expect(text).toContain("second goal from a CRLF draft");
    const archived = readdirSync(path.join(proj, ".ai", "memory", "archive"));
    expect(archived).toHaveLength(1);
    const list = get(results, "archives");
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(archived[0]);
  });

  it("brief and brief --stdin give the envelope and the goal", () => {
    const b = get(results, "brief");
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/<<<BEGIN UNTRUSTED BRIEF [0-9a-f]{16}>>>/);
    expect(b.stdout).toContain("second goal from a CRLF draft");
    const s = get(results, "brief-stdin");
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain("a pasted goal");
  });

  it("the session hook announces the project's memory from a Windows cwd, and says nothing in USERPROFILE", () => {
    const h = get(results, "hook");
    expect(h.code, h.stderr).toBe(0);
    expect(h.stdout).toContain("session-handoff");
    const home = get(results, "hook-home");
    expect(home.code, home.stderr).toBe(0);
    expect(home.stdout).toBe("");
  });

  it("check by --root from USERPROFILE: a handoff is parked", () => {
    const r = get(results, "check");
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(2);
  });
});
