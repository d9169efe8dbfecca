// Runs git: an argument vector (never a shell), a timeout, no optional locks, and an
// environment that cannot redirect it to another repository (docs/design.md#tokens-and-the-publication-protocol).
import { quotedValue } from "../guard/quote.ts";
import { execFile } from "node:child_process";

/** Default time one git process may take, in ms, before it is killed. */
export const GIT_TIMEOUT_MS = 15_000;

/** What a finished git process left: exit code, stdout bytes, stderr text. */
export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * git could not be run to the end: not on PATH (`missing`), killed after its timeout
 * (`timeout`), or stopped for another reason such as too much output (`failed`).
 */
export class GitUnavailable extends Error {
  readonly reason: "missing" | "timeout" | "failed";
  /** Why, without the message's own "git could not be run: " (for a sentence that says so itself). */
  readonly why: string;
  constructor(reason: "missing" | "timeout" | "failed", message: string, why = message) {
    super(message);
    this.reason = reason;
    this.why = why;
    this.name = "GitUnavailable";
  }
}

// Variables that would point git at another repository, index or object store than the one
// under the root (set, for instance, when the helper runs from inside a git hook), or that
// turn off the pathspec magic we rely on to exclude the memory dir. GIT_CEILING_DIRECTORIES
// is kept: it can only stop git's discovery, and the root walk honours it too (docs/design.md#the-root), so
// git never finds a repository above a ceiling that the root walk stopped at.
const DROPPED_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_LITERAL_PATHSPECS",
  "GIT_GLOB_PATHSPECS",
  "GIT_NOGLOB_PATHSPECS",
  "GIT_ICASE_PATHSPECS",
  "GIT_QUARANTINE_PATH",
];

/** The environment git runs with: the caller's, minus redirections, plus no locks and C locale. */
export function gitEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && !DROPPED_ENV.includes(k)) out[k] = v;
  }
  // Reads must not take index.lock (a concurrent `git commit` would fail) nor prompt.
  out.GIT_OPTIONAL_LOCKS = "0";
  out.GIT_TERMINAL_PROMPT = "0";
  out.LC_ALL = "C";
  return out;
}

/**
 * Runs `git <args>` in `cwd` without a shell. Every argument is either a literal of this
 * helper or a value it validated itself (a full object id, a number): callers never pass text
 * read from a memory file (docs/design.md#tokens-and-the-publication-protocol).
 * @returns the exit code and output; a non-zero exit is a result, not an error.
 * @throws GitUnavailable when git is not on PATH or ran past `timeoutMs` (default 15 s).
 */
export function runGit(
  cwd: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  timeoutMs = GIT_TIMEOUT_MS,
): Promise<GitResult> {
  for (const arg of args) {
    // A guard against a future caller passing file text: no argument of ours holds these.
    if (/[\0\n\r]/.test(arg)) throw new Error(`refusing to pass a git argument holding a control character: ${quotedValue(arg.slice(0, 200))}`);
  }
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      // A repository's own config can name a command that `git status` runs (core.fsmonitor):
      // the helper reads state, it never runs what a repository configures.
      ["-c", "core.fsmonitor=false", ...args],
      { cwd, env: gitEnv(env), encoding: "buffer", timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 256 * 1024 * 1024, windowsHide: true },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string; signal?: string | null };
          if (e.code === "ENOENT") {
            reject(new GitUnavailable("missing", "git was not found on PATH"));
            return;
          }
          if (e.killed || e.signal === "SIGKILL") {
            reject(new GitUnavailable("timeout", `git ${args[0] ?? ""} took longer than ${timeoutMs} ms and was stopped`));
            return;
          }
          if (typeof e.code !== "number") {
            reject(new GitUnavailable("failed", `git could not be run: ${e.message}`, e.message));
            return;
          }
          resolve({ code: e.code, stdout, stderr: stderr.toString("utf8") });
          return;
        }
        resolve({ code: 0, stdout, stderr: stderr.toString("utf8") });
      },
    );
  });
}

/** First line of git's stderr, for a diagnostic (`fatal: ` kept, trailing space trimmed). */
export function firstLine(text: string): string {
  return (text.split("\n").find((l) => l.trim() !== "") ?? "").trim();
}
