// Every user's machine (docs/design.md#integrations): installed commands that find Node
// without the login PATH, run as harnesses run them (`/bin/sh -c`, a PATH without node);
// golden command strings (POSIX, PowerShell, Cline's .ps1); old installs upgraded in place;
// rules files' byte budgets; line endings and JSON layout kept; HOME and the config folder.
// install, uninstall, doctor and drift run in this process as the copied helper (inProcess);
// the hooks they write run as harnesses run them.
import { copyHelper } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hookCommand, hookCommandPowerShell } from "../../src/agents/command.ts";
import { AGENTS } from "../../src/agents/index.ts";
import { MARKER, gitRepo, tempDir, type Run } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const cline = AGENTS.cline;

interface Env {
  root: string;
  home: string;
  helper: string;
  env: Record<string, string>;
  /** The verb in this process, run as the helper at `helper` (the hooks install writes name that file). */
  run(args: string[], extra?: Record<string, string | undefined>): Promise<Run>;
  /** The helper at `helper` spawned: where the process is the subject (its environment as it starts). */
  spawn(args: string[], extra?: Record<string, string | undefined>): { code: number | null; stdout: string; stderr: string };
}

function setup(): Env {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const skill = path.join(root, ".agents", "skills", "session-handoff");
  mkdirSync(path.join(skill, "scripts"), { recursive: true });
  const helper = path.join(skill, "scripts", "memory_io.mjs");
  copyHelper(helper);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } as Record<string, string>;
  for (const k of ["SESSION_HANDOFF_PAUSE", "SESSION_HANDOFF_DISABLE", "SESSION_HANDOFF_NODE", "MEMORY_IO_FAILPOINT", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_CONFIG_DIR"]) delete env[k];
  return {
    root,
    home,
    helper,
    env,
    run: (args, extra = {}) => inProcess(args, { wholeEnv: { ...env, ...extra }, cwd: root, helperPath: helper }),
    spawn(args, extra = {}) {
      const e: Record<string, string> = { ...env };
      for (const [k, v] of Object.entries(extra)) if (v === undefined) delete e[k];
      else e[k] = v;
      const r = spawnSync(process.execPath, [helper, ...args], { cwd: root, env: e, encoding: "utf8", timeout: 60_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

function park(root: string): void {
  mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
  writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
}

// A PATH as a GUI-started harness has it, without node's folder: only `cat` (the lookup
// reads the recorded Node with it). Node here is /usr/bin/node, so /usr/bin:/bin would hold it.
function bareBin(): string {
  const bin = tempDir("sh-bin-");
  symlinkSync("/bin/cat", path.join(bin, "cat"));
  return bin;
}

function sh(command: string, env: Record<string, string>, input = "{}"): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync("/bin/sh", ["-c", command], { env, input, encoding: "utf8", timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const settingsOf = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("installed commands find Node without the login PATH", () => {
  it.each([
    ["claude-code", ".claude/settings.json", "CLAUDE_PROJECT_DIR"],
    ["codex", ".codex/hooks.json", null],
    ["gemini", ".gemini/settings.json", "GEMINI_PROJECT_DIR"],
  ] as const)("%s: /bin/sh -c with a PATH lacking node runs the recorded Node; with none found, silent exit 0", async (agent, file, projectVar) => {
    const e = setup();
    park(e.root);
    expect((await e.run(["install", "--agent", agent, "--root", e.root])).code).toBe(0);
    expect(readFileSync(path.join(e.home, ".config", "session-handoff", "node"), "utf8")).toBe(`${process.execPath}\n`);
    const command = settingsOf(path.join(e.root, file)).hooks.SessionStart[0].hooks[0].command as string;
    const hookEnv: Record<string, string> = { PATH: bareBin(), HOME: e.home };
    if (projectVar) hookEnv[projectVar] = e.root;
    const input = JSON.stringify({ cwd: e.root, session_id: "s1", hook_event_name: "SessionStart", source: "startup" });
    const ran = sh(command, hookEnv, input);
    expect(ran.stderr).toBe("");
    expect(ran.status).toBe(0);
    expect(JSON.parse(ran.stdout).hookSpecificOutput.additionalContext).toContain("parked handoff exists");
    // $SESSION_HANDOFF_NODE wins over the record.
    rmSync(path.join(e.home, ".config", "session-handoff", "node"));
    expect(sh(command, hookEnv, input).stdout).toBe("");
    expect(sh(command, { ...hookEnv, SESSION_HANDOFF_NODE: process.execPath }, input).stdout).toContain("parked handoff exists");
    // No Node anywhere: nothing on stdout or stderr, exit 0.
    expect(sh(command, hookEnv, input)).toEqual({ status: 0, stdout: "", stderr: "" });
    // The checkpoint commands too.
    for (const [event, groups] of Object.entries(settingsOf(path.join(e.root, file)).hooks as Record<string, { hooks: { command: string }[] }[]>)) {
      if (event === "SessionStart") continue;
      expect(sh(groups[0]!.hooks[0]!.command, hookEnv, JSON.stringify({ cwd: e.root, hook_event_name: event }))).toEqual({ status: 0, stdout: "", stderr: "" });
    }
  });

  it("cline: the TaskStart script finds the recorded Node with a PATH lacking node", async () => {
    const e = setup();
    park(e.root);
    await e.run(["install", "--agent", "cline", "--root", e.root]);
    const r = spawnSync("/bin/sh", [path.join(e.root, ".clinerules", "hooks", "TaskStart")], { cwd: "/", env: { PATH: bareBin(), HOME: e.home }, input: "{}", encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).contextModification).toContain("parked handoff exists");
    for (const name of ["TaskStart.ps1", "TaskResume.ps1"]) expect(readFileSync(path.join(e.root, ".clinerules", "hooks", name), "utf8")).toContain("# session-handoff: installed hook");
  });

  it("the plugin's hooks/hooks.json uses the same lookup", () => {
    const plugin = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "hooks", "hooks.json"), "utf8"));
    const command = plugin.hooks.SessionStart[0].hooks[0].command as string;
    const root = gitRepo();
    park(root);
    const home = tempDir("sh-home-");
    const pluginRoot = path.join(import.meta.dirname, "..", "..");
    const env = { PATH: bareBin(), HOME: home, CLAUDE_PLUGIN_ROOT: pluginRoot };
    expect(sh(command, env, JSON.stringify({ cwd: root }))).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(JSON.parse(sh(command, { ...env, SESSION_HANDOFF_NODE: process.execPath }, JSON.stringify({ cwd: root })).stdout).hookSpecificOutput.additionalContext).toContain("parked handoff exists");
  });
});

describe("golden command strings", () => {
  const h = { abs: "/p/skill dir/scripts/memory_io.mjs", rel: ".agents/skills/session-handoff/scripts/memory_io.mjs" };
  const LOOKUP =
    'for n in "$SESSION_HANDOFF_NODE" "$(cat "${XDG_CONFIG_HOME:-$HOME/.config}/session-handoff/node" 2>/dev/null)" "$(command -v node)" /opt/homebrew/bin/node /usr/local/bin/node "$HOME/.volta/bin/node" "$HOME/.local/share/fnm/aliases/default/bin/node" "$HOME/.asdf/shims/node" "$HOME/.local/share/mise/shims/node"; do [ -f "$n" ] && [ -x "$n" ] && { case $OS$f in Windows_NT*) ;; *\\\\*) printf \'session-handoff: %s holds a backslash, from which Node cannot load it; move the project to a path without one\\n\' "$f" >&2; exit 0;; esac; exec "$n" "$f"';
  it("POSIX, relative to a project variable", () => {
    expect(hookCommand(h, "hook --mode session --format claude", "CLAUDE_PROJECT_DIR")).toBe(
      `f="$CLAUDE_PROJECT_DIR"/.agents/skills/session-handoff/scripts/memory_io.mjs; [ ! -f "$f" ] || ${LOOKUP} hook --mode session --format claude; }; done; :`,
    );
  });
  it("POSIX, absolute and quoted", () => {
    expect(hookCommand(h, "checkpoint --format codex", null)).toBe(`f='/p/skill dir/scripts/memory_io.mjs'; [ ! -f "$f" ] || ${LOOKUP} checkpoint --format codex; }; done; :`);
  });
  it("PowerShell (Codex commandWindows), a Windows path with a quote", () => {
    expect(hookCommandPowerShell("C:\\Users\\O'Neil\\skill\\scripts\\memory_io.mjs", "hook --mode session --format codex")).toBe(
      "$f='C:\\Users\\O''Neil\\skill\\scripts\\memory_io.mjs'; if (Test-Path -LiteralPath $f -PathType Leaf) { $c=if ($env:XDG_CONFIG_HOME) { $env:XDG_CONFIG_HOME } else { Join-Path $HOME '.config' }; foreach ($n in @($env:SESSION_HANDOFF_NODE, (Get-Content -LiteralPath (Join-Path $c 'session-handoff/node') -ErrorAction SilentlyContinue | Select-Object -First 1), (Get-Command node -ErrorAction SilentlyContinue | Select-Object -First 1 -ExpandProperty Source), \"$env:ProgramFiles\\nodejs\\node.exe\")) { if ($n -and (Test-Path -LiteralPath $n -PathType Leaf)) { $input | & $n $f hook --mode session --format codex; exit $LASTEXITCODE } } }; exit 0",
    );
  });
  it("Cline's TaskStart and TaskStart.ps1", () => {
    const files = Object.fromEntries(cline.edits(h, false).map((e) => [e.file, e.kind === "owned-file" ? e.content : ""]));
    expect(files[".clinerules/hooks/TaskStart"]).toBe(
      `#!/bin/sh\n# session-handoff: installed hook\nroot=$(cd "\${0%/*}/../.." && pwd) || exit 0\nf="$root"/.agents/skills/session-handoff/scripts/memory_io.mjs\n[ -f "$f" ] || exit 0\n${LOOKUP} hook --mode session --format cline --root "$root"; }; done\nexit 0\n`,
    );
    expect(files[".clinerules/hooks/TaskStart.ps1"]).toBe(
      [
        "# session-handoff: installed hook",
        "$root = (Resolve-Path -LiteralPath (Join-Path $PSScriptRoot '..\\..')).Path",
        "$f = Join-Path $root '.agents/skills/session-handoff/scripts/memory_io.mjs'",
        "if (-not (Test-Path -LiteralPath $f -PathType Leaf)) { exit 0 }",
        "$c = if ($env:XDG_CONFIG_HOME) { $env:XDG_CONFIG_HOME } else { Join-Path $HOME '.config' }",
        "$record = Get-Content -LiteralPath (Join-Path $c 'session-handoff/node') -ErrorAction SilentlyContinue | Select-Object -First 1",
        "$onPath = Get-Command node -ErrorAction SilentlyContinue | Select-Object -First 1 -ExpandProperty Source",
        'foreach ($n in @($env:SESSION_HANDOFF_NODE, $record, $onPath, "$env:ProgramFiles\\nodejs\\node.exe")) {',
        "  if ($n -and (Test-Path -LiteralPath $n -PathType Leaf)) { $input | & $n $f hook --mode session --format cline --root $root; exit $LASTEXITCODE }",
        "}",
        "exit 0",
        "",
      ].join("\r\n"),
    );
    expect(files[".clinerules/hooks/TaskResume.ps1"]).toBe(files[".clinerules/hooks/TaskStart.ps1"]);
  });
});

describe("an old install is upgraded in place", () => {
  const old = (rel: string, args: string) => `f="$GEMINI_PROJECT_DIR"/${rel}; [ ! -f "$f" ] || node "$f" ${args}`;
  it("gemini: bare node and PreCompress replaced where they stood; the user's hooks and layout kept; doctor says outdated, then current", async () => {
    const e = setup();
    const rel = ".agents/skills/session-handoff/scripts/memory_io.mjs";
    const file = path.join(e.root, ".gemini", "settings.json");
    mkdirSync(path.dirname(file), { recursive: true });
    const text = `{
  // my theme
  "theme": "dark",
  "allow": ["a", "b"],
  "hooks": {
    "SessionStart": [
      { "hooks": [{ "type": "command", "command": "echo mine" }] },
      { "hooks": [{ "type": "command", "command": ${JSON.stringify(old(rel, "hook --mode session --format gemini"))}, "timeout": 10000 }] },
      { "hooks": [{ "type": "command", "command": "echo after" }] }
    ],
    "PreCompress": [
      { "hooks": [{ "type": "command", "command": ${JSON.stringify(old(rel, "checkpoint --format gemini"))}, "timeout": 10000 }] }
    ],
    "SessionEnd": [
      { "hooks": [{ "type": "command", "command": ${JSON.stringify(old(rel, "checkpoint --format gemini"))}, "timeout": 3000 }] }
    ]
  }
}
`;
    writeFileSync(file, text);
    const before = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout);
    expect(before.agents.gemini.install[".gemini/settings.json"]).toBe("outdated");
    const what = before.problems.map((p: { what: string }) => p.what).join("\n");
    expect(what).toContain("bare node");
    expect(what).toContain("PreCompress");
    expect((await e.run(["install", "--agent", "gemini", "--root", e.root])).code).toBe(0);
    const after = readFileSync(file, "utf8");
    expect(after).toContain("// my theme");
    expect(after).toContain('"allow": ["a", "b"],');
    const s = JSON.parse(after.replace("// my theme", ""));
    expect(s.hooks.SessionStart.map((g: { hooks: { command: string }[] }) => g.hooks[0]!.command.slice(0, 10))).toEqual(["echo mine", 'f="$GEMINI', "echo after"]);
    expect(s.hooks.SessionStart[1].hooks[0].command).toContain("SESSION_HANDOFF_NODE");
    expect(s.hooks.PreCompress).toBeUndefined();
    expect(Object.keys(s.hooks)).toEqual(["SessionStart", "SessionEnd"]);
    const now = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout);
    expect(now.agents.gemini.install[".gemini/settings.json"]).toBe("current");
    // A second install changes no byte.
    expect((await e.run(["install", "--agent", "gemini", "--root", e.root])).stdout).toContain("unchanged .gemini/settings.json");
    expect(readFileSync(file, "utf8")).toBe(after);
  });

  it("codex: a start matcher without fork is outdated and upgraded", async () => {
    const e = setup();
    expect((await e.run(["install", "--agent", "codex", "--root", e.root])).code).toBe(0);
    const file = path.join(e.root, ".codex", "hooks.json");
    const text = readFileSync(file, "utf8");
    expect(settingsOf(file).hooks.SessionStart[0].matcher).toBe("startup|resume|clear|compact|fork");
    expect(settingsOf(file).hooks.SessionStart[0].hooks[0].commandWindows).toContain("Test-Path");
    writeFileSync(file, text.replace("compact|fork", "compact"));
    const d = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout);
    expect(d.problems.map((p: { what: string }) => p.what).join("\n")).toContain("lacks fork");
    await e.run(["install", "--agent", "codex", "--root", e.root]);
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});

describe("an install from before the backslash guard", () => {
  it("claude-code: its commands are ours, replaced where they stand; uninstall removes them", async () => {
    const e = setup();
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    const file = path.join(e.root, ".claude", "settings.json");
    const text = readFileSync(file, "utf8");
    const before = text.replaceAll(/\{ case \$OS\$f in .*? esac; (exec [^;]*); \}; done/g, "$1; done");
    expect(before).not.toContain("Windows_NT");
    writeFileSync(file, before);
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(text);
    writeFileSync(file, before);
    expect((await e.run(["uninstall", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

describe("rules files' byte budgets and line endings", () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `Line ${i} of the team's long rules, kept as they are.`).join("\n");
  it("a new block in an AGENTS.md over 28 KiB goes after its heading line; uninstall gives the file back", async () => {
    const e = setup();
    const text = `# Team rules\n\n${filler(700)}\n`;
    expect(text.length).toBeGreaterThan(32 * 1024);
    writeFileSync(path.join(e.root, "AGENTS.md"), text);
    await e.run(["install", "--agent", "codex", "--root", e.root]);
    const after = readFileSync(path.join(e.root, "AGENTS.md"), "utf8");
    expect(after.startsWith("# Team rules\n\n<!-- session-handoff:begin -->\n")).toBe(true);
    expect(after.indexOf("<!-- session-handoff:end -->")).toBeLessThan(2048);
    expect(after).toContain(text.slice(14));
    await e.run(["uninstall", "--agent", "codex", "--root", e.root]);
    expect(readFileSync(path.join(e.root, "AGENTS.md"), "utf8")).toBe(text);
  });

  it("without a heading the block goes at the top; an old block past 32 KiB is reported and moved", async () => {
    const e = setup();
    const text = `${filler(700)}\n`;
    writeFileSync(path.join(e.root, "AGENTS.md"), text);
    await e.run(["install", "--agent", "codex", "--root", e.root]);
    expect(readFileSync(path.join(e.root, "AGENTS.md"), "utf8").startsWith("<!-- session-handoff:begin -->\n")).toBe(true);
    await e.run(["uninstall", "--agent", "codex", "--root", e.root]);
    // An install of before: the block at the end.
    const small = setup();
    await small.run(["install", "--agent", "codex", "--root", small.root]);
    const blk = readFileSync(path.join(small.root, "AGENTS.md"), "utf8").replaceAll(small.root, e.root);
    writeFileSync(path.join(e.root, "AGENTS.md"), `${text}\n${blk}`);
    const d = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout);
    expect(d.problems.map((p: { what: string }) => p.what).join("\n")).toMatch(/: the session-handoff block ends at byte \d+, past the 32768 bytes of AGENTS\.md text Codex reads; Codex never sees it/);
    expect(d.notes.join("\n")).toContain("AGENTS.md files in subfolders");
    await e.run(["install", "--agent", "codex", "--root", e.root]);
    const moved = readFileSync(path.join(e.root, "AGENTS.md"), "utf8");
    expect(moved.indexOf("<!-- session-handoff:end -->")).toBeLessThan(2048);
    expect(moved.match(/session-handoff:begin/g)).toHaveLength(1);
    expect(JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout).problems.map((p: { what: string }) => p.what).join("\n")).not.toContain("past the 32768");
  });

  it("CRLF files keep CRLF: AGENTS.md and a settings file", async () => {
    const e = setup();
    writeFileSync(path.join(e.root, "AGENTS.md"), "# Rules\r\n\r\nBe brief.\r\n");
    mkdirSync(path.join(e.root, ".codex"));
    writeFileSync(path.join(e.root, ".codex", "hooks.json"), '{\r\n  "hooks": {\r\n    "Stop": [{ "hooks": [{ "type": "command", "command": "echo stop" }] }]\r\n  }\r\n}\r\n');
    expect((await e.run(["install", "--agent", "codex", "--root", e.root])).code).toBe(0);
    for (const f of ["AGENTS.md", ".codex/hooks.json"]) {
      const t = readFileSync(path.join(e.root, f), "utf8");
      expect(t.replace(/\r\n/g, "")).not.toContain("\n");
      expect(t).toContain("\r\n");
    }
    expect(readFileSync(path.join(e.root, "AGENTS.md"), "utf8")).toContain("<!-- session-handoff:begin -->\r\n");
    // uninstall removes only ours, CRLF kept.
    expect((await e.run(["uninstall", "--agent", "codex", "--root", e.root])).code).toBe(0);
    expect(readFileSync(path.join(e.root, "AGENTS.md"), "utf8")).toBe("# Rules\r\n\r\nBe brief.\r\n");
    const hooks = readFileSync(path.join(e.root, ".codex", "hooks.json"), "utf8");
    expect(hooks.replace(/\r\n/g, "")).not.toContain("\n");
    expect(JSON.parse(hooks).hooks).toEqual({ Stop: [{ hooks: [{ type: "command", command: "echo stop" }] }] });
  });
});

describe("HOME and the config folder", () => {
  // With HOME unset, install takes the home folder os.homedir() finds (the passwd entry), as every
  // other verb does: not run here, since that is the real user's home.
  it("install refuses with HOME empty or missing, changing nothing", () => {
    const e = setup();
    for (const HOME of ["", path.join(e.home, "gone")]) {
      // Spawned: HOME as the process starts with it.
      const r = e.spawn(["install", "--agent", "claude-code", "--root", e.root], { HOME, XDG_CONFIG_HOME: undefined });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/HOME/);
      expect(existsSync(path.join(e.root, ".claude", "settings.json"))).toBe(false);
    }
  });
  it("a missing config folder (nested XDG_CONFIG_HOME) is made 0700 for the recorded Node, which uninstall leaves", async () => {
    const e = setup();
    const config = path.join(e.home, "a", "b", "config");
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root], { XDG_CONFIG_HOME: config })).code).toBe(0);
    for (const d of [path.join(e.home, "a"), config, path.join(config, "session-handoff")]) expect(statSync(d).mode & 0o777).toBe(0o700);
    expect((await e.run(["uninstall", "--agent", "claude-code", "--root", e.root], { XDG_CONFIG_HOME: config })).code).toBe(0);
    expect(readdirSync(path.join(config, "session-handoff"))).toEqual(["node"]);
  });
});

describe("doctor's new checks", () => {
  const listAll = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((p) => !p.startsWith(".git/") && p !== ".git").sort();
  it("runs each installed SessionStart command with PATH=/usr/bin:/bin and reports what it printed, changing nothing", async () => {
    const e = setup();
    park(e.root);
    await e.run(["install", "--agent", "claude-code", "--root", e.root]);
    await e.run(["install", "--agent", "cline", "--root", e.root]);
    const before = listAll(e.root).map((p) => [p, existsSync(path.join(e.root, p)) && statSync(path.join(e.root, p)).isFile() ? readFileSync(path.join(e.root, p), "utf8") : "dir"]);
    const r = await e.run(["doctor", "--root", e.root, "--json"]);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d.runs.map((x: { file: string }) => x.file).sort()).toEqual([".claude/settings.json", ".clinerules/hooks/TaskStart"]);
    for (const run of d.runs) {
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("parked handoff exists");
    }
    expect(d.notes.join("\n")).toContain("claude-code: project hooks load only when claude-code starts at the project root");
    const text = (await e.run(["doctor", "--root", e.root])).stdout;
    expect(text).toMatch(/^ran \.claude\/settings\.json SessionStart \(PATH=\/usr\/bin:\/bin\): exit 0, printed /m);
    expect(listAll(e.root).map((p) => [p, existsSync(path.join(e.root, p)) && statSync(path.join(e.root, p)).isFile() ? readFileSync(path.join(e.root, p), "utf8") : "dir"])).toEqual(before);
  });

  it("codex: no trust entry, then an entry present, read from ~/.codex/config.toml", async () => {
    const e = setup();
    await e.run(["install", "--agent", "codex", "--root", e.root]);
    expect(JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout).agents.codex.trust).toBe("no trust entry");
    mkdirSync(path.join(e.home, ".codex"));
    const hooks = path.join(e.root, ".codex", "hooks.json");
    writeFileSync(path.join(e.home, ".codex", "config.toml"), `[hooks.state."${hooks}:session_start:0:0"]\ntrusted_hash = "sha256:00"\n`);
    const d = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout);
    expect(d.agents.codex.trust).toBe("entry present (review again if the command changed)");
    expect((await e.run(["doctor", "--root", e.root])).stdout).toContain("Codex hook review: entry present (review again if the command changed)");
  });

  it("--global reports the per-user files and exits 0", async () => {
    const e = setup();
    expect((await e.run(["install", "--agent", "gemini", "--global"])).code).toBe(0);
    const r = await e.run(["doctor", "--global", "--root", e.root, "--json"]);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d.agents.gemini.install[".gemini/settings.json"]).toBe("current");
    expect(d.runs.map((x: { file: string }) => x.file)).toEqual(["~/.gemini/settings.json"]);
    expect((await e.run(["doctor", "--global"])).code).toBe(0);
  });
});

describe("text fixes", () => {
  it("drift says unknown or none, never n/a, and names git's operation apart from the plan's in-progress step", async () => {
    const e = setup();
    mkdirSync(path.join(e.root, ".ai", "memory"), { recursive: true });
    const doc = `${MARKER}\n# Session Handoff\nSaved: 2026-11-29T08:00:00Z\n\n## Current goal\nShip it.\n\n## Plan\n- [~] Wire the hooks\n\n## Decisions\n- none\n\n## Failed approaches\n- none\n\n## Open questions\n- none\n\n## Next steps\n- none\n\n## Key files\n- none\n\n## Environment anchors\n- Branch: gone-branch\n- HEAD: ${"a".repeat(40)}\n- Dirty files: none\n- Date: 2026-11-29T08:00:00Z\n`;
    writeFileSync(path.join(e.root, ".ai", "memory", "HANDOFF.md"), doc);
    const r = await e.run(["drift", "--root", e.root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("n/a");
    expect(r.stdout).not.toMatch(/^in progress: /m);
    expect(r.stdout).toMatch(/^git operation in progress \(rebase, merge…\): saved none, now none$/m);
  });
});

describe("doctor and the Claude Code plugin", () => {
  // The files Claude Code 2.1.112 and 2.1.332 write on `plugin install` (test/harness/README.md).
  function plugin(home: string, enabled: boolean, skillAt = "skills/session-handoff", dir = path.join(home, ".claude"), more = {}): void {
    mkdirSync(path.join(dir, "plugins"), { recursive: true });
    const key = "session-handoff@session-handoff";
    const installPath = `${dir}/plugins/cache/session-handoff/session-handoff/0.1.0`;
    rmSync(installPath, { recursive: true, force: true });
    mkdirSync(path.join(installPath, skillAt), { recursive: true });
    writeFileSync(path.join(installPath, skillAt, "SKILL.md"), "---\nname: session-handoff\n---\n");
    writeFileSync(path.join(dir, "plugins", "installed_plugins.json"), JSON.stringify({ version: 2, plugins: { [key]: [{ scope: "user", installPath, version: "0.1.0" }] } }));
    writeFileSync(path.join(dir, "settings.json"), JSON.stringify({ enabledPlugins: { [key]: enabled }, ...more }));
  }

  it("names the plugin install, and the duplicate notices when project hooks are installed too", async () => {
    const e = setup();
    plugin(e.home, true);
    const alone = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout);
    expect(alone.agents["claude-code"].plugin).toEqual([{ key: "session-handoff@session-handoff", scope: "user", version: "0.1.0", enabled: true, rootSkill: false }]);
    expect(alone.notes).toContain("claude-code: the plugin session-handoff@session-handoff is installed (user scope, 0.1.0, enabled)");
    expect(alone.notes.join("\n")).not.toContain("2.1.112");
    expect(alone.problems.map((p: { what: string }) => p.what).join("\n")).not.toContain("notice twice");
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    const both = await e.run(["doctor", "--root", e.root]);
    expect(both.code).toBe(0);
    expect(both.stdout).toContain("claude-code: the plugin and the installed .claude/settings.json hooks both announce parked memory: every session gets the notice twice");
    plugin(e.home, false);
    expect((await e.run(["doctor", "--root", e.root])).stdout).not.toContain("notice twice");
  });

  it("reads Claude Code's plugins and settings under CLAUDE_CONFIG_DIR when it is set", async () => {
    const e = setup();
    const dir = tempDir("sh-claude-");
    plugin(e.home, true, "skills/session-handoff", dir, { statusLine: { type: "command", command: "mine" } });
    const cfg = { CLAUDE_CONFIG_DIR: dir };
    expect(JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout).agents["claude-code"].plugin).toBeUndefined();
    const alone = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"], cfg)).stdout);
    expect(alone.notes).toContain("claude-code: the plugin session-handoff@session-handoff is installed (user scope, 0.1.0, enabled)");
    const install = await e.run(["install", "--agent", "claude-code", "--root", e.root], cfg);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).toContain(`kept your own status line (${path.join(dir, "settings.json")})`);
    const settings = path.join(e.root, ".claude", "settings.json");
    expect(settingsOf(settings).statusLine).toBeUndefined();
    const both = (await e.run(["doctor", "--root", e.root], cfg)).stdout;
    expect(both).toContain("every session gets the notice twice");
    expect(both).toContain(".claude/settings.json current");
    expect((await e.run(["uninstall", "--agent", "claude-code", "--root", e.root], cfg)).code).toBe(0);
    expect(existsSync(settings)).toBe(false);
  });

  it("install --global puts Claude Code's user settings under CLAUDE_CONFIG_DIR when it is set", async () => {
    const e = setup();
    const dir = tempDir("sh-claude-");
    const cfg = { CLAUDE_CONFIG_DIR: dir };
    const r = await e.run(["install", "--agent", "claude-code", "--global"], cfg);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`created ${path.join(dir, "settings.json")}`);
    expect(settingsOf(path.join(dir, "settings.json")).hooks.SessionStart).toHaveLength(1);
    expect(existsSync(path.join(e.home, ".claude"))).toBe(false);
    expect(JSON.parse((await e.run(["doctor", "--global", "--json"], cfg)).stdout).agents["claude-code"].install[".claude/settings.json"]).toBe("current");
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root], cfg)).code).toBe(0);
    expect((await e.run(["doctor", "--root", e.root], cfg)).stdout).toContain(`for your user (${path.join(dir, "settings.json")}) too`);
    expect((await e.run(["uninstall", "--agent", "claude-code", "--global"], cfg)).code).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    // A CLAUDE_CONFIG_DIR that is not there is the user's to make: refused, nothing written.
    const gone = { CLAUDE_CONFIG_DIR: path.join(dir, "missing") };
    const before = readdirSync(e.home, { recursive: true });
    const no = await e.run(["install", "--agent", "claude-code", "--global"], gone);
    expect(no.code).toBe(2);
    expect(no.stderr).toMatch(/^memory operation refused: \S*missing is not a folder; create it \(or unset CLAUDE_CONFIG_DIR\)/);
    expect(readdirSync(e.home, { recursive: true })).toEqual(before);
  });

  it("names an install in the project and for the user too, and its fix leaves one", async () => {
    const e = setup();
    expect((await e.run(["install", "--agent", "claude-code", "--root", e.root])).code).toBe(0);
    expect((await e.run(["doctor", "--root", e.root])).stdout).not.toContain("for your user");
    expect((await e.run(["install", "--agent", "claude-code", "--global"])).code).toBe(0);
    const both = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout);
    const twice = both.problems.find((p: { what: string }) => p.what.includes("for your user"));
    expect(twice.what).toBe("claude-code: installed in this project and for your user (~/.claude/settings.json) too: every session start runs both (two notices, two checkpoint writers)");
    expect(twice.fix).toMatch(/ uninstall --agent claude-code --global \(or this project's: /);
    // Doctor for the user's files alone names no double install.
    expect((await e.run(["doctor", "--global"])).stdout).not.toContain("for your user");
    expect((await e.run(["uninstall", "--agent", "claude-code", "--global"])).code).toBe(0);
    expect((await e.run(["doctor", "--root", e.root])).stdout).not.toContain("for your user");
  });

  it("names an install whose SKILL.md sits at its root (from before dist-plugin): 2.1.112 does not list it", async () => {
    const e = setup();
    plugin(e.home, true, ".");
    const d = JSON.parse((await e.run(["doctor", "--root", e.root, "--json"])).stdout);
    expect(d.agents["claude-code"].plugin[0].rootSkill).toBe(true);
    expect(d.notes).toContain('claude-code: the plugin session-handoff@session-handoff has its SKILL.md at its root, which Claude Code 2.1.112 does not list ("Unknown skill"): reinstall it from the dist-plugin branch (README, "Install")');
  });
});
