// Runs git: an argument vector (never a shell), a timeout, no optional locks, an environment that cannot redirect
// it to another repository, and nothing run that the repository names (docs/decisions/git-runs-nothing.md).
import { childProcess } from "../builtins.ts";
import { quotedValue } from "../guard/quote.ts";

export const GIT_TIMEOUT_MS = 15_000;

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export type Git = (args: readonly string[], input?: string) => Promise<GitResult>;

/** The environment a verb runs with, as `process.env` holds it. */
export type Env = Record<string, string | undefined>;

/** git could not be run to the end: not on PATH, killed after its timeout, or stopped for another reason. */
export class GitUnavailable extends Error {
  readonly reason: "missing" | "timeout" | "failed";
  // The cause alone, for a sentence that says "git could not be used" itself.
  readonly why: string;
  constructor(reason: "missing" | "timeout" | "failed", message: string, why = message) {
    super(message);
    this.reason = reason;
    this.why = why;
    this.name = "GitUnavailable";
  }
}

/** What `p` gives, or `fallback` when git could not be run to the end. */
export const unlessUnavailable = <T>(p: Promise<T>, fallback: T): Promise<T> =>
  p.catch((err) => {
    if (err instanceof GitUnavailable) return fallback;
    throw err;
  });

// Variables that would point git at another repository, index or object store than the root's (set when the helper
// runs from a git hook), or turn off the pathspec magic that excludes the memory dir.
const DROPPED_ENV = [
  "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS",
  "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS", "GIT_QUARANTINE_PATH",
];

/** The environment git runs with: the caller's, minus redirections, plus no locks, no prompt and C locale. */
export function gitEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && !DROPPED_ENV.includes(k)) out[k] = v;
  }
  // Reads must not take index.lock: a concurrent `git commit` would fail.
  out.GIT_OPTIONAL_LOCKS = "0";
  out.GIT_TERMINAL_PROMPT = "0";
  out.LC_ALL = "C";
  // The helper asks git for names and counts only, never a patch: no diff program need run.
  delete out.GIT_EXTERNAL_DIFF;
  out.GIT_PAGER = "cat";
  return out;
}

type Pair = readonly [string, string];

// Settings that name a program git would run for a reading or a commit, each set to one that runs nothing: a
// repository from a tarball or a shared drive carries its own .git/config, and the helper runs unasked from a hook.
const NEUTRAL: readonly Pair[] = [
  ["core.fsmonitor", "false"], ["core.pager", "cat"], ["log.showSignature", "false"], ["gc.auto", "0"],
  ["maintenance.auto", "false"], ["protocol.ext.allow", "never"],
];
const NO_HOOKS_NOR_SIGNING: readonly Pair[] = [
  ["core.hooksPath", "/dev/null"], ["commit.gpgSign", "false"], ["tag.gpgSign", "false"],
];
// Per-name settings that run a program (a filter's, a diff driver's), known only from the config itself.
const NAMED_PROGRAMS = /^(filter|diff)\.(.+)\.(clean|smudge|process|required|textconv|command)$/i;
const NAMED = "^(filter|diff)\\.";

const namedCache = new Map<string, Promise<Pair[]>>();

// The neutral values for the filters and diff drivers the config at `cwd` names (`git config` runs none).
function namedOverrides(cwd: string, env: Record<string, string>, timeoutMs: number): Promise<Pair[]> {
  let p = namedCache.get(cwd);
  if (p === undefined) {
    p = spawnGit(cwd, ["config", "-z", "--name-only", "--get-regexp", NAMED], env, timeoutMs).then((r) => {
      const out: Pair[] = [];
      for (const key of new Set(r.code === 0 ? r.stdout.toString("utf8").split("\0") : [])) {
        const m = NAMED_PROGRAMS.exec(key);
        if (m) out.push([key, m[3]!.toLowerCase() === "required" ? "false" : ""]);
      }
      return out;
    });
    namedCache.set(cwd, p);
    // A failed reading is not remembered: the next call tries again.
    p.catch(() => namedCache.delete(cwd));
  }
  return p;
}

/** The filter drivers the config at `cwd` gives a command, none of which the helper's git runs. */
export async function filterDrivers(cwd: string, env: Env): Promise<Set<string>> {
  const keys = (await namedOverrides(cwd, gitEnv(env), GIT_TIMEOUT_MS)).map(([k]) => NAMED_PROGRAMS.exec(k)!);
  return new Set(keys.filter((m) => /^filter$/i.test(m[1]!) && /^(clean|process)$/i.test(m[3]!)).map((m) => m[2]!));
}

// The named settings as GIT_CONFIG_COUNT/KEY/VALUE after the caller's own (git 2.31+): a name holding "=" is safe.
function withConfig(env: Record<string, string>, pairs: readonly Pair[]): Record<string, string> {
  const base = /^\d+$/.test(env.GIT_CONFIG_COUNT ?? "") ? Number(env.GIT_CONFIG_COUNT) : 0;
  const out = { ...env };
  pairs.forEach(([k, v], i) => {
    out[`GIT_CONFIG_KEY_${base + i}`] = k;
    out[`GIT_CONFIG_VALUE_${base + i}`] = v;
  });
  out.GIT_CONFIG_COUNT = String(base + pairs.length);
  return out;
}

// Every run's argument vector: no pager, the neutral settings, no hooks nor signing unless asked, then `args`.
function gitArgs(args: readonly string[], hooksAndSigning = false): string[] {
  for (const arg of args) {
    // A guard against a future caller passing file text: no argument of ours holds these.
    if (/[\0\n\r]/.test(arg))
      throw new Error(`refusing to pass a git argument holding a control character: ${quotedValue(arg.slice(0, 200))}`);
  }
  const fixed = [...NEUTRAL, ...(hooksAndSigning ? [] : NO_HOOKS_NOR_SIGNING)];
  return ["--no-pager", ...fixed.flatMap(([k, v]) => ["-c", `${k}=${v}`]), ...args];
}

/** Runs `git <args>` in `cwd`; the repository's hooks and signing run only with `hooksAndSigning`. */
export async function runGit(
  cwd: string, args: readonly string[], env: Env, timeoutMs = GIT_TIMEOUT_MS,
  opts: { hooksAndSigning?: boolean; input?: string | Buffer; index?: string } = {},
): Promise<GitResult> {
  const base = gitEnv(env);
  // Our own index file (publish's commit), never one inherited from the caller's environment.
  if (opts.index !== undefined) base.GIT_INDEX_FILE = opts.index;
  // These run no filter nor diff driver: asking which ones the config names would only cost a process.
  const plain = args[0] === "config" || args[0] === "for-each-ref" ||
    (args[0] === "cat-file" && !args.some((a) => /^--(filters|textconv)/.test(a)));
  const named = plain ? [] : await namedOverrides(cwd, base, timeoutMs);
  const runEnv = named.length > 0 ? withConfig(base, named) : base;
  return spawnGit(cwd, args, runEnv, timeoutMs, opts.input, opts.hooksAndSigning);
}

/** `git <args>` run to its end, hardened as `runGit`, for a read that runs no filter (`git config`); null: not run. */
export function runGitSync(
  cwd: string, args: readonly string[], env: Env, timeoutMs = GIT_TIMEOUT_MS,
): GitResult | null {
  const r = childProcess().spawnSync("git", gitArgs(args), spawnOptions(cwd, gitEnv(env), timeoutMs));
  return r.error || r.status === null ? null : { code: r.status, stdout: r.stdout, stderr: r.stderr.toString("utf8") };
}

const spawnOptions = (cwd: string, env: Record<string, string>, timeoutMs: number) => ({
  cwd, env, encoding: "buffer", timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 256 * 1024 * 1024,
  windowsHide: true,
}) as const;

function spawnGit(
  cwd: string, args: readonly string[], env: Record<string, string>, timeoutMs: number, input?: string | Buffer,
  hooks = false,
) {
  return new Promise<GitResult>((resolve, reject) => {
    const options = spawnOptions(cwd, env, timeoutMs);
    const child = childProcess().execFile("git", gitArgs(args, hooks), options, (err, stdout, stderr) => {
      const e = err as { code?: number | string; killed?: boolean; signal?: string; message: string } | null;
      if (e?.code === "ENOENT") reject(new GitUnavailable("missing", "git was not found on PATH"));
      else if (e && (e.killed || e.signal === "SIGKILL")) {
        reject(new GitUnavailable("timeout", `git ${args[0] ?? ""} took longer than ${timeoutMs} ms and was stopped`));
      } else if (e && typeof e.code !== "number") {
        reject(new GitUnavailable("failed", `git could not be run: ${e.message}`, e.message));
      } else resolve({ code: typeof e?.code === "number" ? e.code : 0, stdout, stderr: stderr.toString("utf8") });
    });
    // git may exit before reading all of it: a closed pipe is not an error of ours.
    child.stdin?.on("error", () => undefined);
    if (input !== undefined) child.stdin?.end(input);
  });
}

// A pathspec for exactly `p`; a line break, which no argument may hold, is a glob's `?` (callers match exact paths).
export const pathspecOf = (p: string, magic = "top,") => /[\r\n]/.test(p)
  ? `:(${magic}glob)${p.replace(/[*?[\\]/g, "\\$&").replace(/[\r\n]/g, "?")}` : `:(${magic}literal)${p}`;

/** Each path of `--raw -z` fields with its modes and blob ids, the parents' first, the new last. */
export function rawPaths(f: readonly string[]) {
  const out: { path: string; modes: string[]; ids: string[] }[] = [];
  for (let i = f[0] === "" ? 1 : 0; i + 1 < f.length && /^\n?:/.test(f[i]!); i += 2) {
    const fields = f[i]!.replace(/^\n?:+/, "").split(" ");
    const n = (fields.length - 1) / 2;
    out.push({ path: f[i + 1]!, modes: fields.slice(0, n), ids: fields.slice(n, -1) });
  }
  return out;
}

export function firstLine(text: string): string {
  return (text.split("\n").find((l) => l.trim() !== "") ?? "").trim();
}

// Each request's blob, or null (missing, not a blob), from `git cat-file --batch`'s output.
export function batchBlobs(out: Buffer, n: number): (Buffer | null)[] {
  const blobs: (Buffer | null)[] = [];
  let at = 0;
  while (blobs.length < n && at < out.length) {
    const nl = out.indexOf(10, at);
    if (nl < 0) break;
    const m = /^[0-9a-f]{40,64} (\S+) (\d+)$/.exec(out.subarray(at, nl).toString("utf8"));
    const size = m ? Number(m[2]) : 0;
    blobs.push(m?.[1] === "blob" ? out.subarray(nl + 1, nl + 1 + size) : null);
    at = m ? nl + 1 + size + 1 : nl + 1;
  }
  return [...blobs, ...Array<null>(n - blobs.length).fill(null)];
}
