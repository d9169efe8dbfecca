// Goldens for doctor's lines (docs/design.md#sentences-the-helper-prints): an installed skill in a
// temp repository, doctor run through the copy of the built helper there, each line asserted
// word for word (rows of test/docs/sentences.ts).
import { copyHelper } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, HELPER, MARKER, tempDir } from "../helpers.ts";

/** A repository with the skill under .agents/skills and claude-code's hooks installed. */
function installed(): { root: string; run: (args: string[], extra?: Record<string, string>) => { code: number | null; stdout: string; stderr: string } } {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const helper = path.join(root, ".agents", "skills", "session-handoff", "scripts", "memory_io.mjs");
  mkdirSync(path.dirname(helper), { recursive: true });
  copyHelper(helper);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  for (const k of ["SESSION_HANDOFF_PAUSE", "SESSION_HANDOFF_DISABLE", "SESSION_HANDOFF_NODE", "MEMORY_IO_FAILPOINT", "CLAUDE_PROJECT_DIR"]) delete env[k];
  const run = (args: string[], extra: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [helper, ...args], { cwd: root, env: { ...env, ...extra }, encoding: "utf8", timeout: 60_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  expect(run(["install", "--agent", "claude-code", "--root", root]).code).toBe(0);
  return { root, run };
}

const problems = (json: string): string => (JSON.parse(json).problems as { what: string }[]).map((p) => p.what).join("\n");

describe("doctor's probe of the start command, word for word", () => {
  it("a current install: run with a bare PATH, printed nothing; the start-folder note", () => {
    const { root, run } = installed();
    const r = run(["doctor", "--root", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ran \.claude\/settings\.json SessionStart \(PATH=\/usr\/bin:\/bin\): exit 0, printed nothing$/m);
    expect(r.stdout).toContain(
      "note: claude-code: project hooks load only when claude-code starts at the project root (not from a subfolder); for monorepos, or to start anywhere, use install --agent claude-code --global\n",
    );
  });

  it("a start command that fails: its exit and first stderr line", () => {
    const { root, run } = installed();
    const fake = path.join(tempDir("sh-fake-node-"), "node");
    writeFileSync(fake, "#!/bin/sh\necho 'no such runtime' >&2\nexit 7\n");
    chmodSync(fake, 0o755);
    const r = run(["doctor", "--root", root], { SESSION_HANDOFF_NODE: fake });
    expect(r.stdout).toMatch(/^ran \.claude\/settings\.json SessionStart \(PATH=\/usr\/bin:\/bin\): exit 7, printed nothing; stderr "no such runtime"$/m);
    expect(problems(run(["doctor", "--root", root, "--json"], { SESSION_HANDOFF_NODE: fake }).stdout)).toContain(".claude/settings.json: its SessionStart command exited 7: \"no such runtime\"");
  });
});

describe("doctor's reasons an entry is outdated, word for word", () => {
  it("bare node, a start matcher without fork, a hook of ours on an event no longer installed", () => {
    const { root, run } = installed();
    const file = path.join(root, ".claude", "settings.json");
    const settings = JSON.parse(readFileSync(file, "utf8"));
    const start = settings.hooks.SessionStart[0];
    start.matcher = "startup|resume|clear|compact";
    // The bare-node form of before: the helper run with whatever `node` PATH finds.
    start.hooks[0].command = start.hooks[0].command.replace(/for n in .*; done; :$/, 'node "$f" hook --mode session --format claude');
    settings.hooks.Stop = [{ hooks: [{ type: "command", command: start.hooks[0].command.replace("hook --mode session", "checkpoint") }] }];
    writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
    expect(problems(run(["doctor", "--root", root, "--json"]).stdout)).toContain(
      "claude-code: .claude/settings.json holds an outdated session-handoff entry: its commands run bare node, which fails where node is not on the hook's PATH (nvm, fnm, volta, a harness started from a GUI); its SessionStart matcher lacks fork (now startup|resume|clear|compact|fork); it holds a hook of ours on Stop, which install no longer adds",
    );
  });
});

describe("doctor's memory findings, word for word", () => {
  it("an unsafe memory file; a journal line that breaks its schema", () => {
    const { root, run } = installed();
    const mem = path.join(root, ".ai", "memory");
    mkdirSync(path.join(mem, "journal"), { recursive: true });
    writeFileSync(path.join(root, "elsewhere.md"), `${MARKER}\n# Session Handoff\n`);
    symlinkSync(path.join(root, "elsewhere.md"), path.join(mem, "HANDOFF.md"));
    writeFileSync(path.join(mem, "journal", "2025-01.md"), `${MARKER}\n# Journal 2025-01\n\nnot an entry\n`);
    const what = problems(run(["doctor", "--root", root, "--json"]).stdout);
    expect(what).toContain("a memory file failed safety or schema checks");
    expect(what).toMatch(/^\.ai\/memory\/journal\/2025-01\.md line 4: .+; saves add no entry to it until it is fixed$/m);
  });
});
