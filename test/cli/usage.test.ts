// Usage errors through the built bundle: a flag given twice is refused naming the flag, with
// each verb's usage exit (2; hook 0; check 64) and nothing changed.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HELPER, cleanEnv, gitRepo, handoff, helper, save, snapshot, tempDir } from "../helpers.ts";
import { saveIn } from "../in-process.ts";

describe("a repeated flag is a usage error naming the flag", () => {
  it.each([
    ["read", ["read", "handoff", "--root", "A", "--root", "B"], "root", 2],
    ["write", ["write", "handoff", "--root", "A", "--expected-current-sha256", "absent", "--expected-current-sha256", "absent"], "expected-current-sha256", 2],
    ["write (--lock-timeout)", ["write", "lessons", "--root", "A", "--expected-current-sha256", "absent", "--lock-timeout", "1", "--lock-timeout", "2"], "lock-timeout", 2],
    ["promote (--target)", ["promote", "--root", "A", "--target", "AGENTS.md", "--target", "CLAUDE.md", "--expected-current-sha256", "absent"], "target", 2],
    ["anchors", ["anchors", "--root", "A", "--root", "A"], "root", 2],
    ["drift (boolean)", ["drift", "--root", "A", "--json", "--json"], "json", 2],
    ["brief", ["brief", "--root", "A", "--root=B"], "root", 2],
    ["redact", ["redact", "--json", "--json"], "json", 2],
    ["check", ["check", "--root", "A", "--root", "B"], "root", 64],
    ["hook", ["hook", "--mode", "session", "--mode", "lessons"], "mode", 0],
    // The verbs a harness runs by itself exit 0 on every path (their help says "always 0").
    ["context", ["context", "--format", "claude", "--root", "A", "--root", "B"], "root", 0],
    ["statusline", ["statusline", "--root", "A", "--root", "B"], "root", 0],
  ])("%s", async (_name, args, flag, code) => {
    const root = gitRepo();
    // Saved in this process: the usage error, spawned, is the subject.
    await saveIn(root, handoff("keep me"));
    const before = snapshot(root);
    const r = helper(args.map((a) => a.replace(/^A$/, root).replace(/^B$/, `${root}/sub`).replace("--root=B", `--root=${root}/sub`)), { cwd: root, input: "" });
    expect(r.code).toBe(code);
    expect(r.stderr).toBe(`usage error: --${flag} is given more than once; pass it once (see \`${args[0]} --help\`)\n`);
    expect(r.stdout).toBe("");
    expect(snapshot(root)).toEqual(before);
  });

  it("a repeatable flag (anchors --key-file) may be repeated", () => {
    const root = gitRepo();
    const r = helper(["anchors", "--root", root, "--key-file", "a", "--key-file", "b"]);
    expect(r.code).toBe(0);
  });
});

describe("hook --mode lessons says nothing of the handoff", () => {
  it("is silent about a parked handoff and about the handoff's interrupted save", () => {
    const root = gitRepo();
    save(root, handoff("parked"));
    expect(helper(["hook", "--mode", "lessons", "--root", root])).toMatchObject({ code: 0, stdout: "", stderr: "" });
    // A dead writer's claim of HANDOFF.md: the session hook says so, the lessons hook does not.
    const mem = path.join(root, ".ai", "memory");
    writeFileSync(path.join(mem, ".HANDOFF.md.tmp-999999-0123abcd"), handoff("half"));
    expect(helper(["hook", "--mode", "session", "--root", root]).stdout).toMatch(/interrupted save/);
    expect(helper(["hook", "--mode", "lessons", "--root", root])).toMatchObject({ code: 0, stdout: "" });
  });

  it("still speaks of the lessons, and of their own interrupted save", () => {
    const root = gitRepo();
    const mem = path.join(root, ".ai", "memory");
    mkdirSync(mem, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(mem, "LESSONS.md"), "<!-- memory-schema: v1 -->\n# Lessons\n", { mode: 0o600 });
    writeFileSync(path.join(mem, "HANDOFF.md"), handoff("parked"), { mode: 0o600 });
    const lessons = helper(["hook", "--mode", "lessons", "--root", root]);
    expect(lessons.stdout).toMatch(/project lessons exist/);
    expect(lessons.stdout).not.toMatch(/HANDOFF\.md|parked handoff/);
    writeFileSync(path.join(mem, ".LESSONS.md.tmp-999999-0123abcd"), "x");
    expect(helper(["hook", "--mode", "lessons", "--root", root]).stdout).toMatch(/interrupted save/);
  });
});

// A skill folder copied without scripts/lib/ (only memory_io.mjs): one line that says to reinstall,
// never a stack; the verbs a harness runs by itself still end 0 so a session never fails.
describe("a helper whose scripts/lib/ is missing", () => {
  it.each([
    ["check", 2],
    ["write", 2],
    ["hook", 0],
    ["context", 0],
    ["checkpoint", 0],
    ["statusline", 0],
  ])("%s says to reinstall and exits %i", (verb, code) => {
    const scripts = path.join(realpathSync(tempDir("sh-nolib-")), "scripts");
    mkdirSync(scripts);
    copyFileSync(HELPER, path.join(scripts, "memory_io.mjs"));
    const r = spawnSync(process.execPath, [path.join(scripts, "memory_io.mjs"), verb], { env: cleanEnv(), input: "", encoding: "utf8", timeout: 30_000 });
    expect(r.stderr).toBe(`session-handoff: ${scripts}/lib/ is missing beside memory_io.mjs: reinstall the skill (npx session-handoff init)\n`);
    expect(r.status).toBe(code);
    expect(r.stdout).toBe("");
  });

  it("a bundle that fails to load: its message on one line, no stack", () => {
    const scripts = path.join(tempDir("sh-badlib-"), "scripts");
    mkdirSync(path.join(scripts, "lib"), { recursive: true });
    copyFileSync(HELPER, path.join(scripts, "memory_io.mjs"));
    writeFileSync(path.join(scripts, "lib", "cli.mjs"), 'throw new Error("damaged bundle\\nsecond line");\n');
    const r = spawnSync(process.execPath, [path.join(scripts, "memory_io.mjs"), "check"], { env: cleanEnv(), input: "", encoding: "utf8", timeout: 30_000 });
    expect(r.stderr).toBe("session-handoff: the helper's code could not be loaded (damaged bundle): reinstall the skill (npx session-handoff init)\n");
    expect(r.status).toBe(2);
  });
});

// What a session start loads (docs/decisions/hook-startup.md): the session bundle runs its verbs
// without the overview and help pages, and loads Node's heavy modules only when used.
describe("the session bundle", () => {
  const session = readFileSync(path.join(path.dirname(HELPER), "lib", "session.mjs"), "utf8");

  it("imports no node:crypto, node:util or node:child_process as an ES module, nor does the whole CLI", () => {
    const cli = readFileSync(path.join(path.dirname(HELPER), "lib", "cli.mjs"), "utf8");
    for (const bundle of [session, cli]) {
      const imported = [...bundle.matchAll(/^import [^\n]* from "(node:[a-z_]+)";$/gm)].map((m) => m[1]);
      expect(imported.filter((m) => ["node:crypto", "node:util", "node:child_process"].includes(m!))).toEqual([]);
    }
  });

  it("holds no overview or help examples; a session verb's --help comes from the whole CLI", () => {
    expect(session).not.toContain("describes a verb.");
    const r = helper(["hook", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: node memory_io\.mjs hook --mode session\|lessons/);
  });

  it("holds no transcript capture parser: the context offer reads events, a checkpoint runs in cli.mjs", () => {
    for (const name of ["parseClaude", "parseCodex", "parseGemini"]) expect(session).not.toContain(`function ${name}(`);
  });
});
