// What each install channel delivers (docs/decisions/distribution-ref.md): the distribution
// refs that `npm run dist` (tools/dist.mjs) builds from HEAD hold only the skill's entries
// (`dist`) and those in `skills/session-handoff/` plus the plugin's `.claude-plugin/` and
// `hooks/` (`dist-plugin`);
// `npx skillmds add` (1.3.3, from npm at test time, run as the README writes it inside a
// loopback-only network namespace, on the ref exported as a folder: it fetches GitHub sources
// through GitHub's API), `npx skills add` (the pinned devDependency, on the README's GitHub
// source, which git's insteadOf points at the clone) and the README's by-hand copy each
// deliver the `dist` files and bytes, nothing more; the installed skill then
// resumes and saves; ESLint 9 in the user's project reports nothing of ours. The plugin channel
// is installed by the real Claude Code CLIs in test/harness/claude.test.ts, which counts the
// install folder against the `dist-plugin` ref checked here. Third-party tools that cannot be
// installed, or no namespace: the test says SKIP and why.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitRepo, handoff, tempDir } from "../helpers.ts";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const ENTRIES = ["SKILL.md", "LICENSE", "agents", "references", "templates", "scripts"];
const CACHE = process.env.SESSION_HANDOFF_TOOL_CACHE || path.join(tmpdir(), "session-handoff-tools");
// The channels are written in docs/install.md (README links it; its own command is npx's).
const README = readFileSync(path.join(REPO, "docs", "install.md"), "utf8");

/** Every file under `dir` (links not followed) with its size: what a channel delivered. */
function delivered(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), st.size);
    }
  };
  walk(dir);
  return out;
}

// A clone of this checkout's HEAD (what CI has), with the distribution refs built in it by the
// release command, and the `dist` ref exported as a folder named like the skill.
let dist = { source: "", files: new Map<string, number>(), clone: "", built: "" };
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "sh-channels-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeAll(() => {
  const clone = path.join(scratch, "repo");
  execFileSync("git", ["clone", "-q", "--no-hardlinks", REPO, clone]);
  const built = execFileSync("npm", ["run", "--silent", "dist"], { cwd: clone, encoding: "utf8" });
  const source = path.join(scratch, "session-handoff");
  mkdirSync(source);
  execFileSync("tar", ["-x", "-C", source], { input: execFileSync("git", ["archive", "--format=tar", "dist"], { cwd: clone, maxBuffer: 64 * 1024 * 1024 }) });
  dist = { source, files: lsTree(clone, "HEAD", ENTRIES), clone, built };
});

/** `git ls-tree -r -l` of `entries` at `rev`: each file with its size in bytes. */
function lsTree(repo: string, rev: string, entries: string[] = []): Map<string, number> {
  const files = new Map<string, number>();
  for (const line of execFileSync("git", ["ls-tree", "-r", "-l", rev, "--", ...entries], { cwd: repo, encoding: "utf8" }).trim().split("\n")) {
    const [meta, name] = line.split("\t");
    files.set(name!, Number(meta!.trim().split(/\s+/)[3]));
  }
  return files;
}

const bytes = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

// Resume and save with the installed helper, as SKILL.md's flows run them.
function flows(helper: string, project: string, env: NodeJS.ProcessEnv): void {
  const run = (args: string[], input?: string) => spawnSync(process.execPath, [helper, ...args, "--root", project], { env, input, encoding: "utf8" });
  // Resume on a cold project: the fixed sentence, exit 3; then the save flow's read and write.
  expect(run(["brief"])).toMatchObject({ status: 3, stdout: "No saved session state exists.\n" });
  const read = run(["read", "handoff"]);
  expect(read.status).toBe(3);
  const token = /CURRENT-SHA256: (\S+)/.exec(read.stdout + read.stderr)?.[1] ?? "absent";
  const w = run(["write", "handoff", "--expected-current-sha256", token], handoff("Ship the installer channels."));
  expect(w.status, w.stderr).toBe(0);
  const b = run(["brief"]);
  expect(b.status, b.stderr).toBe(0);
  expect(b.stdout).toContain("Goal: Ship the installer channels.");
}

describe("the distribution ref", () => {
  it("holds exactly the skill's entries of HEAD: files and bytes", () => {
    const got = delivered(dist.source);
    expect([...new Set([...got.keys()].map((f) => f.split("/")[0]))].sort()).toEqual([...ENTRIES].sort());
    expect(got).toEqual(dist.files);
    // A page per verb in references/verbs/ (17) is most of the files, the plain bundle (about 920 KB)
    // most of the bytes; src/, test/ and docs/ would be hundreds of files and several MB.
    expect(got.size).toBeLessThan(40);
    expect(bytes(got)).toBeLessThan(1280 * 1024);
  });
  it("the repository root keeps its development layout, and is no plugin marketplace", () => {
    for (const e of [...ENTRIES, "src", "package.json", "test", "README.md"]) expect(existsSync(path.join(REPO, e))).toBe(true);
    // A marketplace here would make `/plugin marketplace add <owner>/<repo>` install all of it.
    expect(existsSync(path.join(REPO, ".claude-plugin", "marketplace.json"))).toBe(false);
  });
  it("is what `npm run dist` builds; a second run changes nothing", () => {
    expect(JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")).scripts.dist).toBe("node tools/dist.mjs");
    const tip = (ref: string) => execFileSync("git", ["rev-parse", ref], { cwd: dist.clone, encoding: "utf8" }).trim();
    expect(dist.built).toBe(`refs/heads/dist ${tip("dist")}\nrefs/heads/dist-plugin ${tip("dist-plugin")}\n`);
    expect(execFileSync(process.execPath, [path.join(dist.clone, "tools", "dist.mjs")], { cwd: dist.clone, encoding: "utf8" })).toBe(dist.built);
  });
  it("refuses a commit lacking an entry, and changes no ref", () => {
    const before = execFileSync("git", ["for-each-ref"], { cwd: dist.clone, encoding: "utf8" });
    const r = spawnSync(process.execPath, [path.join(dist.clone, "tools", "dist.mjs"), "--from", "HEAD:src"], { cwd: dist.clone, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^tools\/dist\.mjs: HEAD:src lacks SKILL\.md, .*; nothing was changed\n$/);
    expect(execFileSync("git", ["for-each-ref"], { cwd: dist.clone, encoding: "utf8" })).toBe(before);
  });
});

describe("the plugin's ref (dist-plugin), the Claude Code plugin channel", () => {
  const show = (file: string) => execFileSync("git", ["show", `dist-plugin:${file}`], { cwd: dist.clone, encoding: "utf8" });
  it("holds the skill's entries of HEAD in skills/session-handoff/, .claude-plugin/ and hooks/: files and bytes", () => {
    const got = lsTree(dist.clone, "dist-plugin");
    const want = new Map<string, number>([...dist.files].map(([f, n]) => [`skills/session-handoff/${f}`, n]));
    for (const f of [".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "hooks/hooks.json"]) want.set(f, Buffer.byteLength(show(f)));
    expect(got).toEqual(want);
    expect(show(".claude-plugin/plugin.json")).toBe(readFileSync(path.join(REPO, ".claude-plugin", "plugin.json"), "utf8"));
    expect(bytes(got) - bytes(dist.files)).toBeLessThan(8 * 1024);
  });
  it("its hooks are HEAD's, each helper path moved under skills/session-handoff/", () => {
    const head = readFileSync(path.join(REPO, "hooks", "hooks.json"), "utf8");
    const moved = show("hooks/hooks.json");
    expect(moved).toBe(head.replaceAll('"${CLAUDE_PLUGIN_ROOT}/scripts/', '"${CLAUDE_PLUGIN_ROOT}/skills/session-handoff/scripts/'));
    // Every hook of HEAD's file (session start, compaction, session end, the context offer) is moved.
    const commands = (head.match(/\$\{CLAUDE_PLUGIN_ROOT\}\/scripts\/memory_io\.mjs/g) ?? []).length;
    expect(commands).toBeGreaterThanOrEqual(4);
    expect(moved.match(/\$\{CLAUDE_PLUGIN_ROOT\}\/skills\/session-handoff\/scripts\/memory_io\.mjs/g)).toHaveLength(commands);
    expect(moved).not.toContain("${CLAUDE_PLUGIN_ROOT}/scripts/");
  });
  // The plugin's SessionStart command, run as Claude Code runs it from the install folder.
  it("its SessionStart command finds the helper in the plugin's tree and prints the notice", () => {
    const plugin = path.join(scratch, "plugin");
    mkdirSync(plugin);
    execFileSync("tar", ["-x", "-C", plugin], { input: execFileSync("git", ["archive", "--format=tar", "dist-plugin"], { cwd: dist.clone, maxBuffer: 64 * 1024 * 1024 }) });
    const project = gitRepo();
    mkdirSync(path.join(project, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(project, ".ai", "memory", "HANDOFF.md"), "<!-- memory-schema: v1 -->\n# Session Handoff\n");
    const command = JSON.parse(show("hooks/hooks.json")).hooks.SessionStart[0].hooks[0].command as string;
    const r = spawnSync("/bin/sh", ["-c", command], { input: JSON.stringify({ cwd: project }), encoding: "utf8", env: { PATH: process.env.PATH, HOME: tempDir("sh-home-"), CLAUDE_PLUGIN_ROOT: plugin } });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain("parked handoff exists");
  });
  it("its marketplace.json has the documented shape: one entry, the plugin, source ./ (this tree)", () => {
    const market = JSON.parse(show(".claude-plugin/marketplace.json"));
    const plugin = JSON.parse(readFileSync(path.join(REPO, ".claude-plugin", "plugin.json"), "utf8"));
    // No top-level description: Claude Code 2.1.112 refuses that key (test/harness/README.md).
    expect(Object.keys(market).sort()).toEqual(["name", "owner", "plugins"]);
    expect(market.name).toBe("session-handoff");
    expect(typeof market.owner.name).toBe("string");
    expect(market.plugins).toEqual([{ name: plugin.name, source: "./", description: plugin.description, version: plugin.version, category: "productivity", keywords: plugin.keywords }]);
  });
  it("is the ref the README's marketplace command names", () => {
    expect(README).toMatch(/^\/plugin marketplace add <owner>\/session-handoff#dist-plugin$/m);
    expect(README).toMatch(/^\/plugin install session-handoff@session-handoff$/m);
  });
});

// A tool from npm, once per machine, in the shared cache outside the repository.
function tool(name: string, pkgs: string[]): string | null {
  const prefix = path.join(CACHE, name);
  if (!existsSync(path.join(prefix, "node_modules", ".package-lock.json"))) {
    mkdirSync(prefix, { recursive: true });
    const r = spawnSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--ignore-scripts", ...pkgs], { encoding: "utf8", timeout: 240_000 });
    if (r.status !== 0) return null;
  }
  return prefix;
}

function netns(): string | null {
  const r = spawnSync("unshare", ["-n", "sh", "-c", "ip link set lo up"], { encoding: "utf8" });
  return r.status === 0 ? null : `no loopback-only network namespace (unshare -n: ${(r.stderr || r.error?.message || "").trim()})`;
}

describe("npx skillmds add, as docs/install.md writes it", () => {
  // The first command of the GitHub channels, with its source resolved inside this checkout.
  const line = /^\$ (npx skillmds add (\S+) .*?)\s+#/m.exec(README);
  it("is the first GitHub channel, on the dist-plugin ref (SKILL.md in a folder named session-handoff)", () => {
    expect(line).not.toBeNull();
    const first = /```console\n\$ (.+)/.exec(README.slice(README.indexOf("## From GitHub")))![1]!;
    expect(first.startsWith("npx skillmds add ")).toBe(true);
    expect(line![2]).toBe("<owner>/session-handoff#dist-plugin");
    expect(line![1]).toContain("--project -a claude-code -a codex");
  });

  function skillmds(ctx: { skip: () => void }): string | null {
    const skip = netns();
    const prefix = skip === null ? tool("skillmds-1.3.3", ["skillmds@1.3.3"]) : null;
    if (skip !== null || prefix === null) {
      console.log(`SKIP skillmds: ${skip ?? "skillmds@1.3.3 could not be installed from npm"}`);
      ctx.skip();
      return null;
    }
    return prefix;
  }

  it("from a local folder (the dist ref exported) installs every entry; the installed skill resumes and saves", (ctx) => {
    const prefix = skillmds(ctx);
    if (prefix === null) return;
    const project = gitRepo();
    const home = tempDir("sh-home-");
    const local = path.join(scratch, "local", "session-handoff");
    mkdirSync(local, { recursive: true });
    execFileSync("cp", ["-r", ...ENTRIES.map((e) => path.join(dist.source, e)), local]);
    const args = line![1]!.replace(line![2]!, local).split(" ").slice(1);
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), SKILLMD_NO_TELEMETRY: "1" };
    const r = spawnSync("unshare", ["-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", "npx", "--offline", "--prefix", prefix, ...args], { cwd: project, env, encoding: "utf8", timeout: 120_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const canonical = path.join(project, ".agents", "skills", "session-handoff");
    expect(delivered(canonical)).toEqual(dist.files);
    expect(lstatSync(path.join(project, ".claude", "skills", "session-handoff")).isSymbolicLink()).toBe(true);
    flows(path.join(project, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs"), project, env);
  });

  // The command as written, its GitHub source served on loopback (GIGET_GITHUB_URL: GitHub's
  // tarball endpoint): skillmds copies SKILL.md alone; doctor names the folder that lacks its
  // helper; SKILL.md's step, `npx -y session-handoff init` with the user's yes (here from the packed tarball: the
  // registry is not reachable), completes it; the skill then resumes and saves, and doctor from
  // the completed copy reports no problem.
  it("from GitHub (emulated): SKILL.md alone, named session-handoff; SKILL.md's init step completes it", (ctx) => {
    const prefix = skillmds(ctx);
    if (prefix === null) return;
    const project = gitRepo();
    mkdirSync(path.join(project, ".claude"));
    mkdirSync(path.join(project, ".codex"));
    const home = tempDir("sh-home-");
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), SKILLMD_NO_TELEMETRY: "1", npm_config_cache: path.join(home, ".npm") };
    const args = line![1]!.replace("<owner>", "example-owner").split(" ").slice(1);
    const emulator = path.join(REPO, "test", "packaging", "support", "github-emulator.mjs");
    const r = spawnSync("unshare", ["-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", process.execPath, emulator, dist.clone, "--", "npx", "--offline", "--prefix", prefix, ...args], { cwd: project, env, encoding: "utf8", timeout: 150_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^github-emulator: GET \/repos\/example-owner\/session-handoff\/tarball\/dist-plugin 200$/m);
    const canonical = path.join(project, ".agents", "skills", "session-handoff");
    expect([...delivered(canonical).keys()]).toEqual(["SKILL.md"]);
    const skillMd = readFileSync(path.join(canonical, "SKILL.md"), "utf8");
    expect(skillMd).toContain("Missing `scripts/`? With the user's yes, run `npx -y session-handoff init` first");
    expect(realpathSync(path.join(project, ".claude", "skills", "session-handoff"))).toBe(realpathSync(canonical));

    const doctor = (helper: string) => JSON.parse(spawnSync(process.execPath, [helper, "doctor", "--json", "--root", project], { env, encoding: "utf8" }).stdout).problems as { what: string; fix: string }[];
    expect(doctor(path.join(REPO, "scripts", "memory_io.mjs")).map((p) => p.what)).toContain(
      `claude-code: the skill folder ${path.join(realpathSync(project), ".claude", "skills", "session-handoff")} lacks its helper (scripts/memory_io.mjs, scripts/lib/cli.mjs, scripts/lib/session.mjs)`,
    );

    const tarball = path.join(scratch, JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: REPO, encoding: "utf8" }))[0].filename);
    const init = spawnSync("npm", ["exec", "--offline", "--yes", "--package", tarball, "--", "session-handoff", "init"], { cwd: project, env, encoding: "utf8", timeout: 180_000 });
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/^copied the skill to \.agents\/skills\/session-handoff \(\d+ new files\)\nunchanged \.claude\/skills\/session-handoff\n/);
    // Beside the skill's files, init's record of what it copied (docs/decisions/init.md).
    const copied = delivered(canonical);
    expect(copied.delete(".init.json")).toBe(true);
    expect(copied).toEqual(dist.files);
    flows(path.join(project, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs"), project, env);
    expect(doctor(path.join(canonical, "scripts", "memory_io.mjs"))).toEqual([]);
  });
});

describe("npx skills add (1.4.9), as the README writes it", () => {
  it("clones the README's GitHub source at #dist and delivers only the skill's entries", () => {
    // The README's line, its GitHub source resolved to the clone through git's insteadOf.
    const line = /^\$ npx (skills add (\S+) (-a claude-code -a codex))\s+#/m.exec(README);
    expect(line, "README's skills line").not.toBeNull();
    const source = line![2]!.replace("<owner>", "example-owner");
    expect(source).toBe("example-owner/session-handoff#dist");
    const cli = path.join(REPO, "node_modules", "skills", "bin", "cli.mjs");
    const project = gitRepo();
    const home = tempDir("sh-home-");
    const repo = source.split("#")[0]!;
    writeFileSync(path.join(home, ".gitconfig"), `[url "file://${dist.clone}"]\n\tinsteadOf = https://github.com/${repo}.git\n\tinsteadOf = git@github.com:${repo}.git\n`);
    const env = { ...process.env, DO_NOT_TRACK: "1", DISABLE_TELEMETRY: "1", npm_config_offline: "true", HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
    const add = spawnSync(process.execPath, [cli, "add", source, ...line![3]!.split(" "), "-y"], { cwd: project, env, encoding: "utf8", timeout: 120_000 });
    expect(add.status, add.stdout + add.stderr).toBe(0);
    expect(delivered(path.join(project, ".agents", "skills", "session-handoff"))).toEqual(dist.files);
    flows(path.join(project, ".agents", "skills", "session-handoff", "scripts", "memory_io.mjs"), project, env);
  });
});

describe("the README's by-hand copy", () => {
  it("copies the six entries: the same files and bytes", () => {
    const cp = /^\$ (cp -r \/tmp\/session-handoff\/\{[^}]+\} \.claude\/skills\/session-handoff\/)$/m.exec(README);
    expect(cp).not.toBeNull();
    const project = tempDir("sh-copy-");
    mkdirSync(path.join(project, ".claude", "skills", "session-handoff"), { recursive: true });
    const r = spawnSync("bash", ["-c", cp![1]!.replaceAll("/tmp/session-handoff", dist.source)], { cwd: project, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(delivered(path.join(project, ".claude", "skills", "session-handoff"))).toEqual(dist.files);
  });
});

describe("ESLint 9 in a project holding the installed skill", () => {
  it("reports nothing of ours", (ctx) => {
    const prefix = tool("eslint-9", ["eslint@9", "@eslint/js@9"]);
    if (prefix === null) {
      console.log("SKIP eslint: eslint@9 could not be installed from npm");
      ctx.skip();
      return;
    }
    const project = gitRepo();
    const skill = path.join(project, ".agents", "skills", "session-handoff");
    mkdirSync(skill, { recursive: true });
    execFileSync("cp", ["-r", ...ENTRIES.map((e) => path.join(dist.source, e)), skill]);
    writeFileSync(path.join(project, "eslint.config.mjs"), `import js from ${JSON.stringify(path.join(prefix, "node_modules", "@eslint", "js", "src", "index.js"))};\nexport default [js.configs.recommended];\n`);
    writeFileSync(path.join(project, "app.js"), "export const x = 1;\n");
    const r = spawnSync(path.join(prefix, "node_modules", ".bin", "eslint"), ["."], { cwd: project, encoding: "utf8", timeout: 120_000 });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
    // The test can fail: without the header line, the same bundle is reported.
    const bare = path.join(skill, "scripts", "memory_io.mjs");
    writeFileSync(bare, readFileSync(bare, "utf8").replace("/* eslint-disable */\n", ""));
    const again = spawnSync(path.join(prefix, "node_modules", ".bin", "eslint"), ["."], { cwd: project, encoding: "utf8", timeout: 120_000 });
    expect(again.status).not.toBe(0);
    expect(statSync(bare).size).toBeGreaterThan(0);
  });
});
