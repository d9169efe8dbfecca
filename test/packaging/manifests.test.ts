// Packaging for the two install channels users use: the Claude Code plugin's
// manifest and hooks, and Codex's UI metadata, checked against the documented shapes. The
// plugin's marketplace is written onto the dist-plugin ref by tools/dist.mjs:
// test/packaging/channels.test.ts checks it there.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { describe, expect, it } from "vitest";
import { MARKER, gitRepo, tempDir } from "../helpers.ts";
import { mkdirSync, writeFileSync } from "node:fs";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const json = (p: string) => JSON.parse(readFileSync(path.join(REPO, p), "utf8"));
const pkg = json("package.json");
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;

describe(".claude-plugin/plugin.json", () => {
  const plugin = json(".claude-plugin/plugin.json");
  it("has the documented keys only, a kebab-case name equal to the skill's, the package's version", () => {
    const allowed = ["name", "displayName", "description", "version", "author", "license", "keywords", "homepage", "repository", "skills", "hooks"];
    expect(Object.keys(plugin).filter((k) => !allowed.includes(k))).toEqual([]);
    expect(plugin.name).toMatch(KEBAB);
    expect(plugin.name).toBe(matter(readFileSync(path.join(REPO, "SKILL.md"), "utf8")).data.name);
    expect(plugin.version).toBe(pkg.version);
    expect(plugin.license).toBe(pkg.license);
    expect(typeof plugin.author.name).toBe("string");
  });
  // tools/dist.mjs moves the skill to skills/session-handoff/ on the dist-plugin ref.
  it("relies on the documented layout: hooks/hooks.json, skills in the default skills/ folder", () => {
    expect(readdirSync(REPO)).toEqual(expect.arrayContaining(["SKILL.md", "hooks"]));
    for (const key of ["skills", "hooks"]) if (plugin[key] !== undefined) expect(plugin[key]).toMatch(/^\.\//);
  });
});

describe("hooks/hooks.json (the plugin's hooks)", () => {
  const hooks = json("hooks/hooks.json");
  const commands = Object.entries(hooks.hooks as Record<string, { matcher?: string; hooks: { type: string; command: string; timeout: number }[] }[]>);
  it("has the settings shape: SessionStart with our matcher, and the checkpoint hooks", () => {
    expect(Object.keys(hooks)).toEqual(["hooks"]);
    expect(commands.map(([e]) => e).sort()).toEqual(["PostCompact", "PostToolUse", "PreCompact", "SessionEnd", "SessionStart", "UserPromptSubmit"]);
    expect(hooks.hooks.SessionStart[0].matcher).toBe("startup|resume|clear|compact|fork");
    for (const [event, groups] of commands) {
      for (const g of groups) {
        for (const h of g.hooks) {
          expect(h.type).toBe("command");
          expect(h.command).toContain("${CLAUDE_PLUGIN_ROOT}/scripts/memory_io.mjs");
          const args = { SessionStart: "hook --mode session --format claude", UserPromptSubmit: "context --format claude", PostToolUse: "context --format claude" }[event as string];
          expect(h.command).toContain(args ?? "checkpoint --format claude");
          expect(h.timeout).toBeGreaterThan(0);
        }
      }
    }
  });

  it("is what tools/plugin-hooks.ts writes (install's own command builder)", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", path.join(REPO, "tools", "plugin-hooks.ts"), "--check"], { cwd: REPO, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
  });

  // Claude Code puts the plugin's folder in CLAUDE_PLUGIN_ROOT for the command.
  const sessionStart = hooks.hooks.SessionStart[0].hooks[0].command as string;
  it("its SessionStart command runs the helper and prints Claude's JSON", () => {
    const root = gitRepo();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), `${MARKER}\n# Session Handoff\n`);
    const r = spawnSync("sh", ["-c", sessionStart], { input: JSON.stringify({ cwd: root }), encoding: "utf8", env: { ...process.env, CLAUDE_PLUGIN_ROOT: REPO } });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain("parked handoff exists");
  });
  it("with the helper missing it exits 0 and prints nothing", () => {
    const r = spawnSync("sh", ["-c", sessionStart], { input: "{}", encoding: "utf8", env: { ...process.env, CLAUDE_PLUGIN_ROOT: tempDir() } });
    expect(r).toMatchObject({ status: 0, stdout: "", stderr: "" });
  });
});

describe("agents/openai.yaml (Codex UI metadata)", () => {
  const meta = matter(`---\n${readFileSync(path.join(REPO, "agents", "openai.yaml"), "utf8")}\n---\n`).data as { interface: Record<string, string> };
  it("has interface.display_name, short_description and a default prompt naming $session-handoff", () => {
    expect(Object.keys(meta)).toEqual(["interface"]);
    expect(Object.keys(meta.interface).sort()).toEqual(["default_prompt", "display_name", "short_description"]);
    expect(meta.interface.default_prompt).toContain("$session-handoff");
    for (const v of Object.values(meta.interface)) expect(v.length).toBeGreaterThan(0);
  });
  it("is not mistaken for a Claude Code subagent: agents/ holds no .md file", () => {
    expect(readdirSync(path.join(REPO, "agents")).filter((n) => n.endsWith(".md"))).toEqual([]);
  });
});
