// Shared parts of the real-harness suite: where the pinned CLIs are, whether this process may
// start them, an isolated home per scenario, and a bounded spawn (test/harness/README.md).
import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startFakeModel, type FakeModel } from "./fake-model.ts";
import { KNOWN_FAILURES } from "./known-failures.ts";

export const REPO = path.resolve(import.meta.dirname, "..", "..");
export const HELPER_SRC = path.join(REPO, "scripts", "memory_io.mjs");

interface Pin {
  package: string;
  version: string;
  bin: string;
  node?: boolean;
}
export type HarnessId = "claude-2.1.332" | "claude-2.1.112" | "codex" | "gemini" | "opencode";
export const VERSIONS: Record<HarnessId, Pin> = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "versions.json"), "utf8"),
);
export const CACHE = process.env.SESSION_HANDOFF_HARNESS_CACHE || path.join(tmpdir(), "session-handoff-harness");

/** The command that starts a pinned CLI: [file, ...leading args]. */
export function cliCommand(id: HarnessId): string[] {
  const v = VERSIONS[id];
  const bin = path.join(CACHE, `${v.package.replace("/", "+")}@${v.version}`, v.bin);
  return v.node ? [process.execPath, bin] : [bin];
}

/**
 * Why this process must not start a CLI, or null when it may: it must run inside the
 * loopback-only namespace `run.mjs` makes (only `lo` up), and the pinned CLIs must be in the cache.
 */
export function skipReason(id?: HarnessId): string | null {
  if (process.env.SESSION_HANDOFF_SKIP_HARNESS === "1") return "SESSION_HANDOFF_SKIP_HARNESS=1";
  // /proc/net/dev lists this process's namespace (/sys/class/net shows the host's).
  let links: string[] = [];
  try {
    links = readFileSync("/proc/net/dev", "utf8")
      .split("\n")
      .slice(2)
      .map((l) => (l.split(":")[0] ?? "").trim())
      .filter(Boolean);
  } catch {
    return "cannot list network interfaces (/proc/net/dev)";
  }
  if (links.some((l) => l !== "lo"))
    return `not inside a loopback-only network namespace (interfaces: ${links.join(", ")}); run npm run test:harness`;
  for (const h of id ? [id] : (Object.keys(VERSIONS) as HarnessId[])) {
    const bin = cliCommand(h).at(-1)!;
    if (!existsSync(bin))
      return (
        `${VERSIONS[h].package}@${VERSIONS[h].version} is not installed in ${CACHE} ` +
        "(npm run test:harness installs it)"
      );
  }
  return null;
}

/**
 * Runs the part of a scenario that test/harness/known-failures.ts may name as failing today.
 * Listed: it must throw (when it stops throwing the scenario fails, saying to remove the entry);
 * everything the scenario checks before it (the CLI ran, the session happened) must still hold.
 */
export type Known = (check: () => void | Promise<void>) => Promise<void>;

/**
 * A scenario, titled `[known failure: <reason>]` when test/harness/known-failures.ts names it.
 * Unlike `it.fails`, a known failure passes only when the CLI ran as scripted and the named
 * checks (those inside `known`) fail: a timeout or a broken setup still fails it.
 */
export function scenario(id: string, name: string, fn: (known: Known) => Promise<void>, timeout = 150_000): void {
  const reason = KNOWN_FAILURES[id];
  const known: Known = async (check) => {
    if (!reason) return void (await check());
    let failed = false;
    try {
      await check();
    } catch {
      failed = true;
    }
    if (!failed) throw new Error(`${id} now passes: remove its entry from test/harness/known-failures.ts (${reason})`);
  };
  it(reason ? `${name} [known failure: ${reason}]` : name, () => fn(known), timeout);
}

/** The checkpoint the hooks wrote for `sessionId`, or a line saying what is there instead. */
export function checkpointOf(w: World, sessionId: string): string {
  const p = path.join(w.proj, ".ai", "memory", "checkpoints", `${sessionId}.md`);
  return existsSync(p)
    ? readFileSync(p, "utf8")
    : `(no checkpoint at ${p}; checkpoints: ` +
        `${existsSync(path.dirname(p)) ? readdirSync(path.dirname(p)).join(", ") : "none"})`;
}

/** A saved handoff without what the helper fills in (the Saved: line, the anchors' body). */
export function stripFilled(doc: string): string {
  // What the helper fills in: the Saved: stamp, the clone's mark, the anchors.
  return doc
    .replace(/^Saved: .*\n\n?/m, "")
    .replace(/^<!-- saved in clone [0-9a-f]{16} -->\n\n?/m, "")
    .replace(/(## Environment anchors\n)[\s\S]*$/, "$1");
}

/** What a harness's describe block shares: its fake model and the worlds to remove after. */
export interface Suite {
  fake(): FakeModel;
  /** A new world, removed after the suite (kept with SESSION_HANDOFF_HARNESS_KEEP=1). */
  world(prefix: string): World;
}

/**
 * One describe block per harness: skipped with a printed `SKIP: <reason>` (and no CLI started)
 * when `skipReason` says so; else a fake model for its scenarios.
 */
export function harnessSuite(id: HarnessId, body: (suite: Suite) => void): void {
  const reason = skipReason(id);
  if (reason) {
    console.log(`SKIP: ${id}: ${reason}`);
    describe.skip(id, () => it("skipped", () => {}));
    return;
  }
  describe(id, () => {
    let fake: FakeModel | undefined;
    const worlds: World[] = [];
    beforeAll(async () => {
      fake = await startFakeModel(() => ({ text: "FAKE-MODEL-OK" }));
    });
    afterAll(async () => {
      await fake?.close();
      for (const w of worlds) if (!process.env.SESSION_HANDOFF_HARNESS_KEEP) w.rm();
    });
    body({
      fake: () => fake!,
      world: (prefix) => {
        const w = makeWorld(`${id}-${prefix}`);
        worlds.push(w);
        return w;
      },
    });
  });
}

/** An isolated world for one scenario: HOME, XDG_*, TMPDIR and a git project, all in a temp dir. */
export interface World {
  root: string;
  home: string;
  proj: string;
  tmp: string;
  env: NodeJS.ProcessEnv;
  rm(): void;
}

export function makeWorld(prefix: string): World {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), `sh-harness-${prefix}-`)));
  const home = path.join(root, "home");
  const proj = path.join(root, "proj");
  const tmp = path.join(root, "tmp");
  for (const d of [
    home,
    proj,
    tmp,
    path.join(home, ".config"),
    path.join(home, ".local/share"),
    path.join(home, ".cache"),
    path.join(home, ".local/state"),
  ])
    mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    USER: "dev",
    LANG: "C.UTF-8",
    TERM: "dumb",
    TMPDIR: tmp,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local/state"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "dev",
    GIT_AUTHOR_EMAIL: "dev@example.com",
    GIT_COMMITTER_NAME: "dev",
    GIT_COMMITTER_EMAIL: "dev@example.com",
    NO_COLOR: "1",
  };
  const git = (...a: string[]) =>
    run(["git", "-c", "init.defaultBranch=main", ...a], { cwd: proj, env, timeoutMs: 20_000 });
  mkdirSync(path.join(proj, "src"));
  writeFileSync(path.join(proj, "src/math.js"), "export function add(a, b) {\n  return a + b;\n}\n");
  writeFileSync(path.join(proj, "README.md"), "# scratch project\n");
  const w: World = { root, home, proj, tmp, env, rm: () => rmSync(root, { recursive: true, force: true }) };
  (w as any).gitInit = async () => {
    await git("init", "-q");
    await git("add", "-A");
    await git("commit", "-qm", "init");
  };
  return w;
}

export async function gitInit(w: World): Promise<void> {
  await (w as any).gitInit();
}

/**
 * A world whose project has the skill in `skillFolder` (relative to the project), a commit, a
 * parked handoff when asked, and `install --agent <agent>` run; throws when the install fails.
 */
export async function installedProject(
  w: World,
  skillFolder: string,
  agent: string,
  parked = false,
): Promise<{ w: World; helper: string; install: RunResult }> {
  const skill = path.join(w.proj, skillFolder, "session-handoff");
  copySkill(skill);
  await gitInit(w);
  const helper = path.join(skill, "scripts", "memory_io.mjs");
  if (parked) await seedHandoff(w, helper, PARKED_HANDOFF);
  const install = await run([process.execPath, helper, "install", "--agent", agent], {
    cwd: w.proj,
    env: w.env,
    timeoutMs: 20_000,
  });
  if (install.code !== 0) throw new Error(`install --agent ${agent} failed (exit ${install.code}): ${install.stderr}`);
  return { w, helper, install };
}

/** Copies the skill (SKILL.md, scripts, references, templates) into `dir`. */
export function copySkill(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const f of ["SKILL.md", "LICENSE"]) cpSync(path.join(REPO, f), path.join(dir, f));
  for (const d of ["scripts", "references", "templates"])
    cpSync(path.join(REPO, d), path.join(dir, d), { recursive: true });
}

/**
 * A clone of this checkout's HEAD (what CI has) under `dir`, with the distribution refs built in
 * it by tools/dist.mjs (`dist`, `dist-plugin`: docs/decisions/distribution-ref.md).
 */
export function distClone(dir: string): string {
  const clone = path.join(dir, "session-handoff.git");
  execFileSync("git", ["clone", "-q", "--no-hardlinks", REPO, clone]);
  execFileSync(process.execPath, [path.join(REPO, "tools", "dist.mjs")], { cwd: clone, encoding: "utf8" });
  return clone;
}

/** The files of `ref` in `repo` with their sizes in bytes (`git ls-tree -r -l`). */
export function refFiles(repo: string, ref: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of execFileSync("git", ["ls-tree", "-r", "-l", ref], { cwd: repo, encoding: "utf8" })
    .trim()
    .split("\n")) {
    const [meta, name] = line.split("\t");
    out.set(name!, Number(meta!.trim().split(/\s+/)[3]));
  }
  return out;
}

/**
 * Makes git in the world fetch GitHub's `<owner>/<repo>` (HTTPS and SSH forms) from `local`
 * instead: a harness resolves the README's GitHub source inside the checkout, offline.
 */
export function githubFrom(w: World, ownerRepo: string, local: string): void {
  const alias =
    `[url "file://${local}"]\n\tinsteadOf = https://github.com/${ownerRepo}.git\n` +
    `\tinsteadOf = git@github.com:${ownerRepo}.git\n`;
  writeFileSync(path.join(w.home, ".gitconfig"), alias);
}

export interface RunResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/**
 * Spawns `cmd` with a hard time limit (SIGTERM, then SIGKILL 3 s later); `input` is written to
 * stdin, or `feed` drives stdin from stdout as it arrives (multi-turn stream-json).
 */
export function run(
  cmd: string[],
  opts: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
    input?: string;
    feed?: (stdoutSoFar: string, write: (s: string) => void, end: () => void) => void;
  },
): Promise<RunResult> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const p = spawn(cmd[0]!, cmd.slice(1), {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let ended = false;
    const end = () => {
      if (!ended) {
        ended = true;
        p.stdin.end();
      }
    };
    const write = (s: string) => {
      if (!ended) p.stdin.write(s);
    };
    p.stdin.on("error", () => {});
    p.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
      opts.feed?.(stdout, write, end);
    });
    p.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const kill = (sig: NodeJS.Signals) => {
      try {
        process.kill(-p.pid!, sig);
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill("SIGTERM");
      setTimeout(() => kill("SIGKILL"), 3000).unref();
    }, opts.timeoutMs);
    p.on("error", (e) => {
      stderr += String(e);
    });
    p.on("close", (code, signal) => {
      clearTimeout(timer);
      // Children of the CLI (hooks still running) go with it.
      kill("SIGKILL");
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0, timedOut });
    });
    if (opts.input !== undefined) {
      p.stdin.write(opts.input);
      end();
    } else if (!opts.feed) end();
    // A CLI that prints nothing until its first input (Claude Code with no hook installed) gets it now.
    else opts.feed("", write, end);
  });
}

/** Runs the helper in the world (as the user would: from the project). */
export function helperRun(w: World, args: string[], input?: string): Promise<RunResult> {
  return run([process.execPath, HELPER_SRC, ...args], { cwd: w.proj, env: w.env, timeoutMs: 20_000, input });
}

/** Seeds a parked handoff through the helper (read → absent, write). */
export async function seedHandoff(w: World, helper: string, doc: string): Promise<void> {
  const r = await run([process.execPath, helper, "write", "handoff", "--expected-current-sha256", "absent"], {
    cwd: w.proj,
    env: w.env,
    timeoutMs: 20_000,
    input: doc,
  });
  if (r.code !== 0) throw new Error(`seeding the handoff failed: ${r.code} ${r.stderr}`);
}

/** Every file under `dir` (relative paths), for finding what a CLI wrote. */
export function listFiles(dir: string, max = 5000): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (out.length >= max || !existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/** A handoff that the schema accepts: the seeded "parked" state of the notice scenarios. */
export const PARKED_HANDOFF = `<!-- memory-schema: v1 -->
# Session Handoff

## Current goal
Add a subtract function to src/math.js. PARKED-GOAL-MARKER

## Plan
- [x] Read src/math.js
- [ ] Add subtract to src/math.js

## Decisions
- [user-directed] Keep plain ES modules: the user said so

## Failed approaches
- none

## Open questions
- none

## Next steps
1. Add subtract to src/math.js — done when node -e prints 2

## Key files
- \`src/math.js\` — the module

## Environment anchors
`;
