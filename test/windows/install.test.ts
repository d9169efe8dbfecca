// install, doctor and uninstall for every agent, run by a Windows Node (Wine) as a Windows user
// runs them: HOME unset, USERPROFILE set, the helper at a Z:\ path, a CRLF AGENTS.md as a Windows
// editor writes it. The Windows forms of the hooks (Codex's commandWindows, Cline's .ps1) are
// parsed here; the instruction's command is run by cmd.exe. No PowerShell runs under Wine
// (its powershell.exe is a stub): those forms stay unverified (docs/windows.md).
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { psQuote } from "../../src/agents/command.ts";
import { snapshot } from "../helpers.ts";
import { get, helperIn, runBatch, scratch, WIN_NODE, winPath, windowsUser, type Result, type Step } from "./wine.ts";

const AGENTS = ["claude-code", "codex", "opencode", "cline", "gemini", "cursor"] as const;
const GLOBAL = ["claude-code", "codex", "opencode", "gemini"] as const;
// Where each agent looks for a project skill (its first folder), and for a per-user one.
const PROJECT_SKILL: Record<string, string> = {
  "claude-code": ".claude/skills",
  codex: ".agents/skills",
  opencode: ".opencode/skills",
  cline: ".cline/skills",
  gemini: ".gemini/skills",
  cursor: ".agents/skills",
};
const HOME_SKILL: Record<string, string> = { "claude-code": ".claude/skills", codex: ".codex/skills", opencode: ".config/opencode/skills", gemini: ".gemini/skills" };
// The file holding each agent's instruction (Claude Code has none: its hook is the notice).
const INSTRUCTIONS: Record<string, string> = {
  codex: "AGENTS.md",
  opencode: "AGENTS.md",
  gemini: "GEMINI.md",
  cline: ".clinerules/00-session-handoff.md",
  cursor: ".cursor/rules/session-handoff.mdc",
};
const INSTRUCTED = Object.keys(INSTRUCTIONS);
const AGENTS_MD = "# Team notes\r\n\r\nWritten on Windows.\r\n";

let dir: string;
let home: string;
let env: Record<string, string | null>;
let installed: Record<string, Result>;
let after: Record<string, Result>;
const projects = new Map<string, string>();
const before = new Map<string, Record<string, string>>();
const files = new Map<string, Record<string, string | null>>();
let homeBefore: Record<string, string>;

const read = (p: string) => (existsSync(p) ? readFileSync(p, "utf8") : null);
const doctorOf = (r: Result) => JSON.parse(r.stdout) as { ok: boolean; problems: { what: string }[]; notes: string[]; runs: { notRun?: string }[] };

beforeAll(() => {
  dir = scratch("sh-win-install-");
  const user = windowsUser(dir);
  home = user.home;
  env = user.env;
  const built = path.join(dir, "built");
  helperIn(built);
  const first: Step[] = [];
  const second: Step[] = [];
  for (const agent of AGENTS) {
    const proj = path.join(dir, "work", agent);
    projects.set(agent, proj);
    mkdirSync(proj, { recursive: true });
    writeFileSync(path.join(proj, "AGENTS.md"), AGENTS_MD);
    const skill = path.join(proj, ...PROJECT_SKILL[agent]!.split("/"), "session-handoff");
    cpSync(path.join(built, "scripts"), path.join(skill, "scripts"), { recursive: true });
    writeFileSync(path.join(skill, "SKILL.md"), "---\nname: session-handoff\n---\n");
    before.set(agent, snapshot(proj));
    const P = winPath(proj);
    const h = winPath(path.join(skill, "scripts", "memory_io.mjs"));
    first.push({
      id: `p:${agent}`,
      sequence: [
        { id: `${agent}:install`, helper: h, args: ["install", "--agent", agent], cwd: P, env },
        { id: `${agent}:again`, helper: h, args: ["install", "--agent", agent], cwd: P, env },
        { id: `${agent}:doctor`, helper: h, args: ["doctor", "--json"], cwd: P, env },
      ],
    });
    second.push({ id: `${agent}:uninstall`, helper: h, args: ["uninstall", "--agent", agent], cwd: P, env });
  }
  // Per-user installs, the skill in USERPROFILE: the hook commands name a Z:\ path.
  for (const agent of GLOBAL) {
    const skill = path.join(home, ...HOME_SKILL[agent]!.split("/"), "session-handoff");
    cpSync(path.join(built, "scripts"), path.join(skill, "scripts"), { recursive: true });
    writeFileSync(path.join(skill, "SKILL.md"), "---\nname: session-handoff\n---\n");
  }
  homeBefore = snapshot(home);
  // One copy of the helper for every per-user install: another copy's entry is outdated by design.
  const h = winPath(path.join(home, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs"));
  // One sequence for all of them, after the project installs: they share USERPROFILE, and a doctor reading
  // ~/.gemini/settings.json while an install replaces it rightly says the file changed while it was read.
  const globals: Step = {
    id: "g:all",
    sequence: GLOBAL.flatMap((agent) => [
      { id: `${agent}:install-g`, helper: h, args: ["install", "--agent", agent, "--global"], cwd: winPath(home), env },
      { id: `${agent}:doctor-g`, helper: h, args: ["doctor", "--global", "--json"], cwd: winPath(home), env },
    ]),
  };
  for (const agent of GLOBAL) {
    second.push({ id: `${agent}:uninstall-g`, helper: h, args: ["uninstall", "--agent", agent, "--global"], cwd: winPath(home), env });
  }
  // A repository (a .git folder) with no git on PATH, as in cmd without git for Windows.
  const repo = path.join(dir, "work", "repo");
  mkdirSync(path.join(repo, ".git"), { recursive: true });
  cpSync(path.join(built, "scripts"), path.join(repo, ".claude", "skills", "session-handoff", "scripts"), { recursive: true });
  const repoHelper = winPath(path.join(repo, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs"));
  first.push({ id: "repo:install", helper: repoHelper, args: ["install", "--agent", "claude-code"], cwd: winPath(repo), env });
  second.push({ id: "repo:uninstall", helper: repoHelper, args: ["uninstall", "--agent", "claude-code"], cwd: winPath(repo), env });
  installed = runBatch("", [{ id: "installs", pool: first }, { id: "globals", pool: [globals] }]);
  for (const agent of AGENTS) {
    const proj = projects.get(agent)!;
    const names = ["AGENTS.md", "GEMINI.md", ".clinerules/00-session-handoff.md", ".cursor/rules/session-handoff.mdc", ".codex/hooks.json", ".clinerules/hooks/TaskStart.ps1", ".clinerules/hooks/TaskResume.ps1", ".claude/settings.json", ".gemini/settings.json"];
    files.set(agent, Object.fromEntries(names.map((n) => [n, read(path.join(proj, n))])));
  }
  // The instruction's command as cmd.exe runs it from the project root (node on PATH).
  const nodeDir = winPath(path.dirname(WIN_NODE));
  const cmdRuns: Step[] = INSTRUCTED.map((agent) => {
    const text = files.get(agent)![INSTRUCTIONS[agent]!] ?? "";
    const command = /`(node [^`]+ check --root \.)`/.exec(text)?.[1] ?? "exit 9";
    return { id: `${agent}:cmd`, kind: "cmd", command, cwd: winPath(projects.get(agent)!), env: { ...env, PATH: `${nodeDir};C:\\windows\\system32;C:\\windows` } };
  });
  after = runBatch("", [{ id: "cmd", pool: cmdRuns }, { id: "uninstalls", pool: second }]);
});

describe("install, doctor, uninstall under a Windows Node (Wine), HOME unset", () => {
  it.each(AGENTS)("%s: install works with USERPROFILE only, and a second install changes nothing", (agent) => {
    const r = get(installed, `${agent}:install`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^(created|updated) /m);
    const again = get(installed, `${agent}:again`);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout, `first: ${r.stdout}`).not.toMatch(/^(created|updated) /m);
  });

  it("install in a repository with no git on PATH: the agent files are written, the merge driver is said to be skipped", () => {
    const r = get(installed, "repo:install");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("created .claude/settings.json");
    expect(r.stderr).toContain("the merge driver was not registered: git was not found on PATH");
  });

  it.each(AGENTS)("%s: doctor reports no problem (no false 'not ours', no shell it lacks called broken)", (agent) => {
    const r = get(installed, `${agent}:doctor`);
    expect(r.code, r.stderr).toBe(0);
    const d = doctorOf(r);
    expect(d.problems.map((p) => p.what)).toEqual([]);
    expect(d.ok).toBe(true);
    // No POSIX shell under Wine: a command doctor cannot run is said so, never run and failed.
    for (const run of d.runs) expect(run.notRun).toMatch(/no POSIX shell/);
  });

  it.each(GLOBAL)("%s --global: install, doctor clean, uninstall leaves USERPROFILE as it was", (agent) => {
    const r = get(installed, `${agent}:install-g`);
    expect(r.code, r.stderr).toBe(0);
    const d = doctorOf(get(installed, `${agent}:doctor-g`));
    expect(d.problems.map((p) => p.what)).toEqual([]);
    const u = get(after, `${agent}:uninstall-g`);
    expect(u.code, u.stderr).toBe(0);
  });

  it("uninstall --global of every agent gives USERPROFILE back as it was, but the recorded Node", () => {
    const now = snapshot(home);
    // The recorded Node stays: other projects' hooks may use it.
    const kept = (k: string) => /^\.config(\/session-handoff(\/node)?)?$/.test(k);
    const changed = Object.keys(now).filter((k) => now[k] !== homeBefore[k]);
    expect(changed.filter((k) => !kept(k)), JSON.stringify(after)).toEqual([]);
  });

  it.each(AGENTS)("%s: uninstall gives the project back byte for byte (the CRLF AGENTS.md included)", (agent) => {
    const u = get(after, `${agent}:uninstall`);
    expect(u.code, u.stderr).toBe(0);
    const now = snapshot(projects.get(agent)!);
    const was = before.get(agent)!;
    expect(Object.keys(now).filter((k) => now[k] !== was[k]), u.stdout).toEqual([]);
    expect(readFileSync(path.join(projects.get(agent)!, "AGENTS.md"), "utf8")).toBe(AGENTS_MD);
  });

  it("the AGENTS.md block keeps the file's CRLF line ends", () => {
    const text = files.get("codex")!["AGENTS.md"]!;
    expect(text).toContain("<!-- session-handoff:begin -->\r\n");
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
  });

  it.each(INSTRUCTED)("%s: the instruction's check command runs in cmd.exe from the project root", (agent) => {
    const r = get(after, `${agent}:cmd`);
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toContain("nothing parked");
  });

  it("codex: commandWindows is a PowerShell line naming the helper's Windows path, for every hook", () => {
    const hooks = JSON.parse(files.get("codex")![".codex/hooks.json"]!) as { hooks: Record<string, { hooks: { command: string; commandWindows: string }[] }[]> };
    const helper = winPath(path.join(projects.get("codex")!, ".agents", "skills", "session-handoff", "scripts", "memory_io.mjs"));
    const events = Object.keys(hooks.hooks);
    // The session start, compaction and session end, and the context offer on prompts and tool calls.
    expect(events.sort()).toEqual(["PostToolUse", "PreCompact", "SessionEnd", "SessionStart", "UserPromptSubmit"]);
    for (const event of events) {
      const ps = hooks.hooks[event]![0]!.hooks[0]!.commandWindows;
      expect(ps.startsWith(`$f=${psQuote(helper)}; `)).toBe(true);
      expect(balanced(ps), ps).toBe(true);
      expect(ps).toMatch(/\$input \| & \$n \$f (hook --mode session|checkpoint|context) --format codex; exit \$LASTEXITCODE/);
    }
  });

  it("cline: the .ps1 hooks are CRLF PowerShell, balanced, finding the helper from their own folder", () => {
    for (const name of [".clinerules/hooks/TaskStart.ps1", ".clinerules/hooks/TaskResume.ps1"]) {
      const ps = files.get("cline")![name]!;
      expect(ps.replace(/\r\n/g, "")).not.toContain("\n");
      expect(balanced(ps), ps).toBe(true);
      expect(ps).toContain("Join-Path $root '.cline/skills/session-handoff/scripts/memory_io.mjs'");
      expect(ps).toContain("hook --mode session --format cline --root $root");
    }
  });
});

/**
 * A PowerShell text's quotes, braces and brackets balance (single-quoted strings with '' inside,
 * double-quoted ones with backtick escapes): the shape check possible without PowerShell.
 */
function balanced(ps: string): boolean {
  const open: string[] = [];
  const pairs: Record<string, string> = { ")": "(", "}": "{", "]": "[" };
  for (let i = 0; i < ps.length; i++) {
    const c = ps[i]!;
    if (c === "'") {
      i++;
      while (i < ps.length && !(ps[i] === "'" && ps[i + 1] !== "'")) i += ps[i] === "'" ? 2 : 1;
      if (i >= ps.length) return false;
    } else if (c === '"') {
      i++;
      while (i < ps.length && ps[i] !== '"') i += ps[i] === "`" ? 2 : 1;
      if (i >= ps.length) return false;
    } else if ("({[".includes(c)) open.push(c);
    else if (c in pairs && open.pop() !== pairs[c]) return false;
  }
  return open.length === 0;
}
