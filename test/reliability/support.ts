import { spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { archives, cleanEnv, HELPER, MARKER, handoff, helper, sha, tempDir, unstamped, waitFor, type Run } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

/** Every failpoint phase, in protocol order. */
export const PHASES = ["read-opened", "before-claim", "after-claim", "after-archive", "before-publication", "after-publication", "before-prune"] as const;
export type Phase = (typeof PHASES)[number];
/** The repair's steps, each fired just after it (pinned here by name: the seam is an interface). */
export const RECOVER_PHASES = [
  "recover-after-restore",
  "recover-after-unarchive",
  "recover-after-archive",
  "recover-after-claim-drop",
  "recover-after-temp-drop",
] as const;
/** A writer's rollback's steps (reached with `<phase>:fail` after the claim). */
export const ROLLBACK_PHASES = ["rollback-after-temp-drop", "rollback-before-restore", "rollback-after-restore", "rollback-after-unarchive", "rollback-after-claim-drop"] as const;

/** A spawn bound in time: a helper that hangs is killed and reported, never waited on. */
export function runBounded(args: string[], opts: { input?: string | Buffer; env?: Record<string, string>; timeoutMs?: number } = {}): Run & { timedOut: boolean } {
  const r = spawnSync(process.execPath, [HELPER, ...args], {
    input: opts.input ?? "",
    env: cleanEnv(opts.env),
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 15_000,
    killSignal: "SIGKILL",
  });
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT";
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? "", stderr: r.stderr ?? "", timedOut };
}

/** As `runBounded`, as a child process (for concurrency). */
export function runAsync(args: string[], opts: { input?: string | Buffer; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Run & { timedOut: boolean; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HELPER, ...args], { env: cleanEnv(opts.env) });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, opts.timeoutMs ?? 60_000);
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, pid: child.pid ?? 0 });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(opts.input ?? "");
  });
}

/**
 * One of the three things the helper publishes: the handoff (archived), a ledger (never
 * archived), AGENTS.md through `promote` (appended, at the root).
 */
export interface Subject {
  name: "handoff" | "lessons" | "promote";
  /** Directory holding the file. */
  dir(root: string): string;
  file: string;
  /** A whole document for this subject. */
  doc(body: string): string;
  /** The stdin of a save that turns `prior` (null: absent) into `doc(body)`. */
  input(body: string, prior: string | null): string;
  /** What the save publishes from `prior` with `input(body, prior)`. */
  result(body: string, prior: string | null): string;
  writeArgs(root: string, token: string): string[];
  readArgs(root: string): string[];
  /** Phases a save passes through, by whether a prior file exists. */
  phases(present: boolean): Phase[];
}

const lessonsDoc = (body: string) => `${MARKER}\n# Lessons\n\n- ${body}\n`;

export const SUBJECTS: Record<Subject["name"], Subject> = {
  handoff: {
    name: "handoff",
    dir: (root) => path.join(root, ".ai", "memory"),
    file: "HANDOFF.md",
    doc: handoff,
    input: (body) => handoff(body),
    // What write saved of it, through `unstamped`, as `current` and `archiveContents` read it.
    result: (body) => unstamped(handoff(body)),
    writeArgs: (root, token) => ["write", "handoff", "--root", root, "--expected-current-sha256", token, "--lock-timeout", "20"],
    readArgs: (root) => ["read", "handoff", "--root", root],
    phases: (present) => (present ? [...PHASES] : ["before-publication", "after-publication"]),
  },
  lessons: {
    name: "lessons",
    dir: (root) => path.join(root, ".ai", "memory"),
    file: "LESSONS.md",
    doc: lessonsDoc,
    input: (body) => lessonsDoc(body),
    result: (body) => lessonsDoc(body),
    writeArgs: (root, token) => ["write", "lessons", "--root", root, "--expected-current-sha256", token, "--lock-timeout", "20"],
    readArgs: (root) => ["read", "lessons", "--root", root],
    phases: (present) => (present ? ["read-opened", "before-claim", "after-claim", "before-publication", "after-publication"] : ["before-publication", "after-publication"]),
  },
  promote: {
    name: "promote",
    dir: (root) => root,
    file: "AGENTS.md",
    doc: (body) => `# Agents\n\n- ${body}\n`,
    input: (body, prior) => (prior === null ? `# Agents\n\n- ${body}\n` : `- ${body}\n`),
    result: (body, prior) => (prior === null ? `# Agents\n\n- ${body}\n` : `${prior}- ${body}\n`),
    writeArgs: (root, token) => ["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", token, "--lock-timeout", "20"],
    readArgs: (root) => ["read-target", "--root", root, "--target", "AGENTS.md"],
    phases: (present) => (present ? ["read-opened", "before-claim", "after-claim", "before-publication", "after-publication"] : ["before-publication", "after-publication"]),
  },
};

/** Saves `doc` for `subject` over nothing, through the helper. */
export function seed(root: string, subject: Subject, body: string): string {
  const r = helper(subject.writeArgs(root, "absent"), { input: subject.input(body, null) });
  expect(r.code, r.stderr).toBe(0);
  return /CURRENT-SHA256: (\S+)\n$/.exec(r.stdout)![1]!;
}

/** As `seed`, the save run in this process (inProcess): for tests whose subject is not the process. */
export async function seedIn(root: string, subject: Subject, body: string): Promise<string> {
  const r = await inProcess(subject.writeArgs(root, "absent"), { input: subject.input(body, null) });
  expect(r.code, r.stderr).toBe(0);
  return /CURRENT-SHA256: (\S+)\n$/.exec(r.stdout)![1]!;
}

/** Plants `n` old archived handoffs (names in 2020, so the newest are ours). */
export function plantArchives(root: string, n: number): string[] {
  const dir = path.join(root, ".ai", "memory", "archive");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = `HANDOFF-2020-01-0${i + 1}T00-00-00.000000Z-0000000${i}.md`;
    writeFileSync(path.join(dir, name), handoff(`ancient ${i}`), { mode: 0o600 });
    names.push(name);
  }
  return names;
}

/** Contents of the archive entries, by name (handoffs through `unstamped`: write stamped them). */
export function archiveContents(root: string): Map<string, string> {
  const dir = path.join(root, ".ai", "memory", "archive");
  // Only regular files are read: a planted FIFO would block the test itself.
  return new Map(archives(root).map((n) => {
    const st = lstatSync(path.join(dir, n));
    return [n, st.isFile() && !st.isSymbolicLink() ? unstamped(readFileSync(path.join(dir, n), "utf8")) : `<${st.isDirectory() ? "directory" : "special"}>`];
  }));
}

/** Private names (`.<FILE>.tmp-…`, `.claim-…`, `.lock…`) in the memory dir and the root. */
export function privateFiles(root: string): string[] {
  const mem = path.join(root, ".ai", "memory");
  const inMem = existsSync(mem) ? readdirSync(mem).filter((n) => n.startsWith(".")) : [];
  const inRoot = readdirSync(root).filter((n) => /^\.(AGENTS|CLAUDE)\.md\./.test(n));
  return [...inMem, ...inRoot.map((n) => `root/${n}`)];
}

/** The file's text (a handoff through `unstamped`: write stamped it), or null when absent. */
export function current(subject: Subject, root: string): string | null {
  const p = path.join(subject.dir(root), subject.file);
  return existsSync(p) ? unstamped(readFileSync(p, "utf8")) : null;
}

/** The token of the file as it is on disk (what `read` prints), or `absent`. */
export function currentToken(subject: Subject, root: string): string {
  const p = path.join(subject.dir(root), subject.file);
  return existsSync(p) ? sha(readFileSync(p)) : "absent";
}

/** Starts a helper call that pauses at a failpoint; resolves once it is parked (or has ended without passing it). */
export async function parkedAt(args: string[], phase: string, input = "", env: Record<string, string> = {}) {
  const gate = path.join(tempDir("sh-gate-"), "gate");
  const run = runAsync(args, { input, env: { ...env, MEMORY_IO_FAILPOINT: `${phase}:pause=${gate}` } });
  let parked = true;
  await Promise.race([waitFor(`${gate}.ready`, 30_000), run.then(() => (parked = false))]);
  return { run, parked, go: () => writeFileSync(`${gate}.go`, "") };
}
