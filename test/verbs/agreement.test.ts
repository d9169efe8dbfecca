// `check`, `read`, `brief` and the hook agree on every fixture (one table): the same
// root, the same parked state, the same age. check, read and brief run in this process
// (test/in-process.ts); the hook of each fixture runs through the built bundle.
import { spawnSync } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, readdirSync, renameSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DAY, ENV, git, handoff, iso, newRepo, tempDir } from "../git/repo.ts";
import { briefBody } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scripts/memory_io.mjs");
const NOW = Date.now();

/** Runs a verb in this process (test/in-process.ts), or with `spawn` through the built bundle. */
async function run(args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string; spawn?: boolean } = {}) {
  const env = { ...ENV, XDG_CONFIG_HOME: "/nonexistent-sh-config", ...opts.env };
  if (opts.spawn !== true) return inProcess(args, { wholeEnv: env, cwd: opts.cwd, input: opts.input });
  const r = spawnSync(process.execPath, [BUNDLE, ...args], { env, cwd: opts.cwd, input: opts.input ?? "", encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function park(root: string, text: string): string {
  mkdirSync(path.join(root, ".ai", "memory"), { recursive: true, mode: 0o700 });
  const file = path.join(root, ".ai", "memory", "HANDOFF.md");
  writeFileSync(file, text);
  chmodSync(file, 0o600);
  return file;
}

function parkedAt(root: string, daysAgo: number, times: { saved?: string | null; date?: string | null } = {}): void {
  park(root, handoff({ saved: iso(NOW - daysAgo * DAY), branch: "main", head: git(root, ["rev-parse", "HEAD"]), date: iso(NOW - daysAgo * DAY), ...times }));
}

/** What a fixture is: the folder the verbs start from (`--root`), and the state all four must report. */
interface Fixture {
  start: string;
  state: "nothing" | "parked" | "interrupted" | "unsafe" | "foreign" | "tree";
  /** The hook's age words when parked (`saved N days ago`, `saved today`, `age unknown`). */
  age?: string;
}

const fixtures: [string, () => Fixture][] = [
  ["no memory at all", () => ({ start: newRepo(NOW - DAY), state: "nothing" })],
  [
    "a fresh handoff at the top",
    () => {
      const root = newRepo(NOW - DAY);
      parkedAt(root, 0);
      return { start: root, state: "parked", age: "saved today" };
    },
  ],
  [
    "the same, from a package folder",
    () => {
      const root = newRepo(NOW - DAY);
      parkedAt(root, 0);
      mkdirSync(path.join(root, "pkg", "api"), { recursive: true });
      return { start: path.join(root, "pkg", "api"), state: "parked", age: "saved today" };
    },
  ],
  [
    "the same, through a symlinked folder",
    () => {
      const root = newRepo(NOW - DAY);
      parkedAt(root, 2);
      const link = path.join(tempDir("sh-links-"), "project");
      symlinkSync(root, link);
      return { start: link, state: "parked", age: "saved 2 days ago" };
    },
  ],
  [
    "saved 20 days ago, file written today",
    () => {
      const root = newRepo(NOW - 30 * DAY);
      parkedAt(root, 20);
      return { start: root, state: "parked", age: "saved 20 days ago" };
    },
  ],
  [
    "saved today, file dated 20 days back",
    () => {
      const root = newRepo(NOW - 30 * DAY);
      parkedAt(root, 0);
      const t = (NOW - 20 * DAY) / 1000;
      utimesSync(path.join(root, ".ai", "memory", "HANDOFF.md"), t, t);
      return { start: root, state: "parked", age: "saved today" };
    },
  ],
  [
    "zoneless times",
    () => {
      const root = newRepo(NOW - 30 * DAY);
      const zoneless = iso(NOW - 20 * DAY).replace(/Z$/, "");
      parkedAt(root, 0, { saved: zoneless, date: zoneless });
      return { start: root, state: "parked", age: "age unknown" };
    },
  ],
  [
    "a time in the future",
    () => {
      const root = newRepo(NOW - DAY);
      parkedAt(root, -3);
      return { start: root, state: "parked", age: "age unknown" };
    },
  ],
  [
    "an interrupted save (a claim left by a dead writer)",
    () => {
      const root = newRepo(NOW - DAY);
      parkedAt(root, 0);
      const mem = path.join(root, ".ai", "memory");
      renameSync(path.join(mem, "HANDOFF.md"), path.join(mem, `.HANDOFF.md.claim-999999-${"ab".repeat(4)}`));
      return { start: root, state: "interrupted" };
    },
  ],
  [
    "a handoff that is a link",
    () => {
      const root = newRepo(NOW - DAY);
      const outside = path.join(tempDir("sh-outside-"), "HANDOFF.md");
      writeFileSync(outside, handoff({ saved: iso(NOW), head: null }));
      mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
      symlinkSync(outside, path.join(root, ".ai", "memory", "HANDOFF.md"));
      return { start: root, state: "unsafe" };
    },
  ],
  ...(["a linked .ai", "a linked .ai/memory"] as const).map(
    (name) =>
      [
        `${name} holding a parked handoff (the tree's state: no file behind it is named)`,
        () => {
          const root = newRepo(NOW - DAY);
          parkedAt(root, 0);
          const real = path.join(tempDir("sh-real-"), "tree");
          const moved = name === "a linked .ai" ? path.join(root, ".ai") : path.join(root, ".ai", "memory");
          renameSync(moved, real);
          symlinkSync(real, moved);
          return { start: root, state: "tree" };
        },
      ] as [string, () => Fixture],
  ),
  ...(["a regular file", "a link to a folder"] as const).map(
    (kind) =>
      [
        `archive/ as ${kind} beside a parked handoff (docs/design.md#tokens-and-the-publication-protocol: archive must be a real folder)`,
        () => {
          const root = newRepo(NOW - DAY);
          parkedAt(root, 0);
          const archive = path.join(root, ".ai", "memory", "archive");
          if (kind === "a regular file") writeFileSync(archive, "x\n");
          else symlinkSync(tempDir("sh-real-"), archive);
          return { start: root, state: "tree" };
        },
      ] as [string, () => Fixture],
  ),
  [
    "a foreign file (no v1 marker)",
    () => {
      const root = newRepo(NOW - DAY);
      park(root, "# Notes\nsomething else\n");
      return { start: root, state: "foreign" };
    },
  ],
  [
    "a linked worktree without memory of its own",
    () => {
      const root = newRepo(NOW - DAY);
      parkedAt(root, 0);
      const wt = path.join(tempDir("sh-wt-"), "feature");
      git(root, ["worktree", "add", "-q", "-b", "feature", wt]);
      return { start: wt, state: "nothing" };
    },
  ],
];

// Every name under `dir` (links not followed) with its size and mtime: what a refusal must leave alone.
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: false })
    .map(String)
    .sort()
    .map((rel) => {
      const st = lstatSync(path.join(dir, rel));
      return `${rel} ${st.size} ${st.mtimeMs}`;
    });
}

describe("check, read, brief and hook agree", () => {
  it.each(fixtures)("%s", async (_name, build) => {
    const f = build();
    const check = await run(["check", "--root", f.start]);
    const read = await run(["read", "handoff", "--root", f.start]);
    const brief = await run(["brief", "--root", f.start]);
    const hook = await run(["hook", "--mode", "session"], { cwd: f.start, spawn: true });
    const want = {
      nothing: { check: 0, read: 3, brief: 3, hook: "" },
      parked: { check: 2, read: 0, brief: 0, hook: "parked handoff exists" },
      interrupted: { check: 1, read: 2, brief: 2, hook: "an interrupted save left session memory in recovery" },
      unsafe: { check: 3, read: 2, brief: 2, hook: "failed memory safety or schema checks" },
      tree: { check: 3, read: 2, brief: 2, hook: "session-handoff: the memory folder .ai/memory failed memory safety or schema checks (" },
      // A foreign file is readable data (read returns any regular file); brief warns, check and hook say do not load it.
      foreign: { check: 3, read: 0, brief: 0, hook: "failed memory safety or schema checks" },
    }[f.state];
    expect({ check: check.code, read: read.code, brief: brief.code }).toEqual({ check: want.check, read: want.read, brief: want.brief });
    if (want.hook === "") expect(hook.stdout).toBe("");
    else expect(hook.stdout).toContain(want.hook);
    if (f.state === "tree") {
      expect(hook.stdout).toBe(
        "session-handoff: the memory folder .ai/memory failed memory safety or schema checks (.ai, .ai/memory or a folder in it is a link, not a directory or another user's); do not load memory from it, and tell the user it needs attention.\n",
      );
      expect((await run(["hook", "--mode", "lessons"], { cwd: f.start })).stdout).toBe(hook.stdout);
      expect((await run(["read", "lessons", "--root", f.start])).code).toBe(2);
      expect((await run(["read", "checkpoint", "--root", f.start])).code).toBe(2);
      // drift and archives give the same verdict; write refuses and changes nothing.
      expect((await run(["drift", "--root", f.start])).code).toBe(2);
      expect((await run(["archives", "list", "--root", f.start])).code).toBe(2);
      const before = snapshot(path.join(f.start, ".ai"));
      const write = await run(["write", "handoff", "--root", f.start, "--expected-current-sha256", "absent"], { input: handoff({ saved: iso(NOW), head: null, date: iso(NOW) }) });
      expect(write.code).toBe(2);
      expect(write.stderr).toMatch(/memory operation refused: .*(is a link|is not a directory)/);
      expect(snapshot(path.join(f.start, ".ai"))).toEqual(before);
    }
    if (f.state === "nothing") expect(brief.stdout).toBe("No saved session state exists.\n");
    if (f.state === "interrupted") {
      expect(read.stderr).toContain("run `recover`");
      expect(brief.stderr).toContain("run `recover`");
    }
    if (f.state === "foreign") expect(brief.stderr).toContain("does not match schema v1");
    if (f.age !== undefined) {
      // The same age in the hook's words and in the brief's drift line.
      expect(hook.stdout).toContain(`(.ai/memory/HANDOFF.md, ${f.age})`);
      const m = /^saved (\d+) days? ago$/.exec(f.age);
      const driftLine = briefBody(brief.stdout).split("\n")[4]!;
      if (f.age === "age unknown") expect(driftLine).toContain("age unknown");
      else if (f.age === "saved today") expect(driftLine).toMatch(/saved 0(\.\d)? days ago/);
      else expect(driftLine).toMatch(new RegExp(`saved ${m![1]}(\\.\\d)? days ago`));
    }
  });
});
