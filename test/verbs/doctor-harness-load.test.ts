// What doctor and install say when a harness will not run the hooks it finds "current": a settings
// file Claude Code or Codex skips whole (a comment, a trailing comma), Claude Code's
// disableAllHooks, the status line install --global set, and memory files search and saves skip.
import { copyHelper } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

function setup() {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const skill = path.join(root, ".agents", "skills", "session-handoff");
  mkdirSync(path.join(skill, "scripts"), { recursive: true });
  writeFileSync(path.join(skill, "SKILL.md"), "---\nname: session-handoff\n---\n");
  const helper = path.join(skill, "scripts", "memory_io.mjs");
  copyHelper(helper);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  for (const k of ["SESSION_HANDOFF_DISABLE", "SESSION_HANDOFF_PAUSE", "CLAUDE_CONFIG_DIR", "CODEX_HOME"]) delete env[k];
  const run = (...args: string[]) => inProcess(args, { wholeEnv: env, cwd: root, helperPath: helper });
  const doctor = async (...more: string[]) => {
    const r = await run("doctor", "--root", root, "--json", ...more);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as {
      agents: Record<string, { install: Record<string, string> }>;
      problems: { what: string; fix: string }[];
    };
  };
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  return { root, home, run, doctor, write };
}

describe("a settings file the harness skips whole", () => {
  it("a comment or a trailing comma: install and doctor say Claude Code and Codex will not load it; Gemini's is loaded", async () => {
    const e = setup();
    e.write(".claude/settings.json", '{\n  // why: pinned for the team\n  "model": "opus"\n}\n');
    e.write(".codex/hooks.json", '{\n  "hooks": {},\n}\n');
    e.write(".gemini/settings.json", '{\n  // Gemini reads comments\n  "theme": "dark",\n}\n');
    const install = await e.run("install", "--agent", "claude-code", "--agent", "codex", "--agent", "gemini", "--root", e.root);
    expect(install.code, install.stderr).toBe(0);
    const skips = (file: string, harness: string, what: string) =>
      `${file} holds ${what}: ${harness} reads strict JSON only and skips the whole file, so none of its hooks run`;
    const claude = skips(".claude/settings.json", "Claude Code", "the comment on line 2");
    const codexText = readFileSync(path.join(e.root, ".codex", "hooks.json"), "utf8");
    const comma = codexText.split("\n").findIndex((l) => /^ {2}\},$/.test(l)) + 1;
    const codex = skips(".codex/hooks.json", "Codex", `the trailing comma on line ${comma}`);
    expect(comma).toBeGreaterThan(2);
    expect(install.stderr).toContain(`${claude}: remove it`);
    expect(install.stderr).toContain(`${codex}: remove it`);
    expect(install.stderr).not.toContain(".gemini/settings.json holds");

    const d = await e.doctor();
    expect(d.agents["claude-code"]!.install[".claude/settings.json"]).toBe("not loaded");
    expect(d.agents.codex!.install[".codex/hooks.json"]).toBe("not loaded");
    expect(d.agents.gemini!.install[".gemini/settings.json"]).toBe("current");
    expect(d.problems).toContainEqual({ what: claude, fix: "remove it from .claude/settings.json" });
    expect(d.problems).toContainEqual({ what: codex, fix: "remove it from .codex/hooks.json" });
    const text = (await e.run("doctor", "--root", e.root)).stdout;
    expect(text).toMatch(/^claude-code: skill .*; \.claude\/settings\.json not loaded$/m);

    // Taken out by hand: loaded, and current again.
    e.write(".claude/settings.json", readFileSync(path.join(e.root, ".claude", "settings.json"), "utf8").replace("  // why: pinned for the team\n", ""));
    e.write(".codex/hooks.json", codexText.replace(/\},\n\}\n$/, "}\n}\n"));
    const fixed = await e.doctor();
    expect(fixed.agents["claude-code"]!.install[".claude/settings.json"]).toBe("current");
    expect(fixed.agents.codex!.install[".codex/hooks.json"]).toBe("current");
    expect(fixed.problems.map((p) => p.what).join("\n")).not.toContain("strict JSON");
  });

  it("names every comment and trailing comma, block comments too", async () => {
    const e = setup();
    e.write(".claude/settings.json", '{\n  /* a */ "model": "opus", // b\n  "env": { "A": "1", },\n  "x": [1, 2,],\n}\n');
    const install = await e.run("install", "--agent", "claude-code", "--root", e.root);
    expect(install.code, install.stderr).toBe(0);
    const d = await e.doctor();
    const found = d.problems.find((p) => p.what.startsWith(".claude/settings.json holds"));
    expect(found?.what).toMatch(/^\.claude\/settings\.json holds the comments on line 2 and the trailing commas on lines 3, 4, \d+: /);
    expect(found?.fix).toBe("remove them from .claude/settings.json");
  });
});

describe("Claude Code's disableAllHooks", () => {
  it("true in settings.local.json or the user's settings stops every hook: a problem; a nearer false turns them back on", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "claude-code", "--root", e.root)).code).toBe(0);
    e.write(".claude/settings.local.json", '{ "disableAllHooks": true }\n');
    mkdirSync(path.join(e.home, ".claude"), { recursive: true });
    writeFileSync(path.join(e.home, ".claude", "settings.json"), '{ "disableAllHooks": true }\n');
    const off = (await e.doctor()).problems.find((p) => p.what.includes("disableAllHooks"));
    expect(off).toEqual({
      what: 'claude-code: "disableAllHooks": true in .claude/settings.local.json and ~/.claude/settings.json: ' +
        "Claude Code runs none of the installed hooks (no notice at session start, no checkpoint, no context offer)",
      fix: 'remove "disableAllHooks" from .claude/settings.local.json and ~/.claude/settings.json',
    });
    // The project's own files take precedence over the user's.
    e.write(".claude/settings.local.json", '{ "disableAllHooks": false }\n');
    expect((await e.doctor()).problems.map((p) => p.what).join("\n")).not.toContain("disableAllHooks");
  });

  it("with --global, the user's settings", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "claude-code", "--global")).code).toBe(0);
    const file = path.join(e.home, ".claude", "settings.json");
    writeFileSync(file, readFileSync(file, "utf8").replace(/^\{/, '{\n  "disableAllHooks": true,'));
    const off = (await e.doctor("--global")).problems.find((p) => p.what.includes("disableAllHooks"));
    expect(off?.what).toMatch(/^claude-code: "disableAllHooks": true in ~\/\.claude\/settings\.json: Claude Code runs none/);
  });
});

describe("the status line install --global set", () => {
  it("a project install after install --global does not call it the user's own", async () => {
    const e = setup();
    expect((await e.run("install", "--agent", "claude-code", "--global")).code).toBe(0);
    const project = await e.run("install", "--agent", "claude-code", "--root", e.root);
    expect(project.code, project.stderr).toBe(0);
    const user = path.join(e.home, ".claude", "settings.json");
    expect(project.stderr).toContain(`the status line install --global set (${user}) runs ours: not set again in .claude/settings.json`);
    expect(project.stderr).not.toContain("your own status line");
  });
});

describe("memory files search and saves skip", () => {
  it("a journal month that is a link, a folder or a FIFO, a HANDOFF.md over 1 MB: search warns, doctor names the file", async () => {
    const e = setup();
    const memory = path.join(e.root, ".ai", "memory");
    const journal = path.join(memory, "journal");
    mkdirSync(journal, { recursive: true });
    const real = path.join(tempDir("sh-real-"), "2026-11.md");
    writeFileSync(real, "<!-- memory-schema: v1 -->\n# Journal 2026-11\n\n## 2026-11-01T20:51:07Z save 1a2b3c4d5e6f7a8b\n- Branch: main\n- Goal: fix the sqlite lock\n");
    symlinkSync(real, path.join(journal, "2026-11.md"));
    mkdirSync(path.join(journal, "2026-10.md"));
    expect(spawnSync("mkfifo", [path.join(journal, "2026-09.md")]).status).toBe(0);
    writeFileSync(path.join(memory, "HANDOFF.md"), handoff(`Fix the sqlite lock.\n${"- padding padding padding\n".repeat(40_000)}`));
    const search = await e.run("search", "sqlite", "lock", "--root", e.root);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stderr.split("\n").sort()).toEqual([
      "",
      "warning: HANDOFF.md is larger than 1 MB: not searched",
      "warning: journal/2026-09.md is not a regular file: not searched",
      "warning: journal/2026-10.md is a folder, not a file: not searched",
      "warning: journal/2026-11.md is a link: not searched",
    ]);
    const d = await e.doctor();
    const link = d.problems.find((p) => p.what.includes("journal/2026-11.md"));
    expect(link).toEqual({
      what: ".ai/memory/journal/2026-11.md is a link: saves add no entry to it and search skips it",
      fix: "replace it with a regular file of at most 1 MB (a link: with a copy of the file it points to), or move it away",
    });
    expect(d.problems.map((p) => p.what)).toContain(".ai/memory/journal/2026-10.md is a folder, not a file: saves add no entry to it and search skips it");
    expect(JSON.stringify(d.problems)).not.toMatch(/line 0|fix that line/);
  });
});
