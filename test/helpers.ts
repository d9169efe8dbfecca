import { spawn, spawnSync, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

/** The built helper, as users run it. */
export const HELPER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "scripts", "memory_io.mjs");

export const MARKER = "<!-- memory-schema: v1 -->";

/** A temp dir removed when the test finishes. */
export function tempDir(prefix = "sh-test-"): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs git in `cwd` with a fixed identity; returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });
}

let repoTemplate: string | null = null;

/** The repository every gitRepo() copies: made with git once for this test process. */
function repoTemplateDir(): string {
  if (repoTemplate === null || !existsSync(repoTemplate)) {
    const dir = lastingDir("sh-repo-template-");
    git(dir, "init", "-q");
    // git's sample hooks run nothing: without them each copy writes, and its test removes, 13 files fewer.
    const hooks = path.join(dir, ".git", "hooks");
    for (const f of readdirSync(hooks)) if (f.endsWith(".sample")) rmSync(path.join(hooks, f));
    writeFileSync(path.join(dir, "README.md"), "scratch\n");
    git(dir, "add", "README.md");
    git(dir, "commit", "-qm", "init");
    repoTemplate = dir;
  }
  return repoTemplate;
}

/** A temp dir that lasts until this test process exits (a fixture several tests copy). */
function lastingDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A temp dir that lasts until this test process exits: for a fixture a file builds once and copies (copyOf). */
export function lastingTempDir(prefix = "sh-fixture-"): string {
  return lastingDir(prefix);
}

/**
 * A temp git repository with one commit. The first is made with git and kept for this test
 * process; the others are copies of it (the same repository, without three git processes each).
 */
export function gitRepo(): string {
  return copyOf(repoTemplateDir());
}

/** Like gitRepo(), but lasting until this test process exits: a fixture made once, that tests copy (copyOf). */
export function lastingGitRepo(): string {
  const dir = lastingDir("sh-fixture-");
  cpSync(repoTemplateDir(), dir, { recursive: true, preserveTimestamps: true });
  return dir;
}

/** A copy of `dir` (a fixture: a repository with its memory folder) in a temp dir of this test. */
export function copyOf(dir: string): string {
  const copy = tempDir("sh-repo-");
  cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
  return copy;
}

/** Result of one helper run. */
export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for helper runs: no kill switch from the developer's machine leaks in. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: path.join(tmpdir(), "sh-no-config"), ...extra };
  delete env.SESSION_HANDOFF_PAUSE;
  delete env.SESSION_HANDOFF_DISABLE;
  delete env.MEMORY_IO_FAILPOINT;
  // A harness's marks (a test run inside an agent): write would record that agent as the saver, hooks its project.
  for (const k of Object.keys(env)) if (/^(CLAUDECODE|CLAUDE_CODE_ENTRYPOINT|CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR|GEMINI_CLI|OPENCODE|SESSION_HANDOFF_AGENT|CODEX_(?!HOME$).*)$/.test(k)) delete env[k];
  for (const [k, v] of Object.entries(extra)) env[k] = v;
  return env;
}

/** Runs the built helper synchronously. */
export function helper(args: string[], opts: { input?: string | Buffer; env?: Record<string, string>; cwd?: string } = {}): Run {
  const r = spawnSync(process.execPath, [HELPER, ...args], {
    input: opts.input ?? "",
    env: cleanEnv(opts.env),
    cwd: opts.cwd,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the built helper as a child process; resolves when it exits. */
export function helperAsync(args: string[], opts: { input?: string | Buffer; env?: Record<string, string>; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HELPER, ...args], { env: cleanEnv(opts.env), cwd: opts.cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(opts.input ?? "");
  });
}

/**
 * A minimal valid handoff (every required section, `- none` where empty, the
 * outside-git anchors) carrying `body` as its goal. `write` stamps its `Saved:` line with the
 * time of the save: compare what is on disk through `unstamped`.
 */
export function handoff(body: string): string {
  const none = ["Plan", "Decisions", "Failed approaches", "Open questions", "Next steps", "Key files"].map((s) => `## ${s}\n- none\n`).join("\n");
  return `${MARKER}\n# Session Handoff\nSaved: 2026-11-29T08:00:00Z\n\n## Current goal\n${body}\n\n${none}\n## Environment anchors\n- Date: 2026-11-29T08:00:00Z\n`;
}

/**
 * A handoff as of `iso`: its `Saved:` and its `- Date:` anchor set to that time. `write`
 * stamps `Saved:` with the time of the save but keeps anchors the agent wrote,
 * and the state time is the `- Date:` anchor first: this is how a test saves a
 * handoff of some age through the helper.
 */
export function aged(doc: string, iso: string): string {
  return doc.replace(/^Saved: .*$/m, `Saved: ${iso}`).replace(/^- Date: .*$/m, `- Date: ${iso}`);
}

/** The `Saved:` stamp `write` puts on a handoff, ISO-8601 UTC to the second. */
export const STAMP = /^Saved: (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/m;

/**
 * A handoff's text without what `write` supplies itself: the `Saved:` value (the write's own
 * time), the clone mark after it, and the anchors section's lines (refilled when they repeat the current
 * handoff's), so that a document can be compared with what `write` saved of it.
 * Stamping and filling have tests of their own (test/schema/write-stamp.test.ts). Text
 * without those parts (ledgers, AGENTS.md, null) is returned as is.
 */
export function unstamped<T extends string | null>(text: T): T {
  if (text === null) return text;
  return text
    .replace(/^Saved: .*$/m, "Saved: <stamped>")
    .replace(/^<!-- saved in clone [0-9a-f]{16} -->\n/m, "")
    .replace(/^## Environment anchors\n(?:(?!## )[^\n]*\n)*/m, "## Environment anchors\n<anchors>\n") as T;
}

/** The token of some bytes. */
export function sha(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The token `read` reports (or `absent`). */
export function tokenOf(root: string, kind = "handoff"): string {
  const r = helper(["read", kind, "--root", root]);
  const m = /^CURRENT-SHA256: (\S+)$/m.exec(r.stdout);
  if (!m) throw new Error(`no token in read output: ${r.stdout} ${r.stderr}`);
  return m[1]!;
}

/** Writes a handoff through the helper, asserting success; returns the new token. */
export function save(root: string, doc: string, token = tokenOf(root)): string {
  const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: doc });
  if (r.code !== 0) throw new Error(`write failed (${r.code}): ${r.stderr}`);
  return /CURRENT-SHA256: (\S+)\n$/.exec(r.stdout)![1]!;
}

/** Everything under `dir`: type, mode, links, bytes' hash, link target — to prove "nothing changed". */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string, rel: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) out[rel] = `link -> ${readlinkSync(p)}`;
    else if (st.isDirectory()) {
      out[rel] = `dir ${(st.mode & 0o7777).toString(8)}`;
      if (rel === ".git" || rel.startsWith(".git/")) return;
      for (const name of readdirSync(p).sort()) walk(path.join(p, name), rel ? `${rel}/${name}` : name);
    } else if (st.isFile()) out[rel] = `file ${(st.mode & 0o7777).toString(8)} n${st.nlink} ${sha(readFileSync(p))}`;
    else out[rel] = `special ${st.mode.toString(8)}`;
  };
  walk(dir, "");
  return out;
}

/** Files in the memory dir (non-recursive, including private ones). */
export function memFiles(root: string): string[] {
  const dir = path.join(root, ".ai", "memory");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Archive entries, sorted by name. */
export function archives(root: string): string[] {
  const dir = path.join(root, ".ai", "memory", "archive");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Waits until `file` exists (the failpoint's `.ready`), polling. */
export async function waitFor(file: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!existsSync(file)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${file}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The lines of `brief`'s output between its `<<<BEGIN UNTRUSTED BRIEF <nonce>>>` and
 * `<<<END UNTRUSTED BRIEF <nonce>>>` lines (docs/decisions/brief-envelope.md), as text ending
 * with a newline. Throws when the markers are missing or their nonces differ.
 */
export function briefBody(stdout: string): string {
  // A harness may put its own words before the first line (Gemini's shell tool: "Output: ").
  const m = /<<<BEGIN UNTRUSTED BRIEF ([0-9a-f]{16})>>>\r?\n([\s\S]*?)^<<<END UNTRUSTED BRIEF \1>>>\r?$/m.exec(stdout);
  if (m === null) throw new Error(`no brief envelope in:\n${stdout}`);
  return m[2]!;
}

/**
 * Copies the helper to `dest` (a path ending in memory_io.mjs) with the bundles it loads
 * (scripts/lib/ beside it), as the install channels copy scripts/.
 */
export function copyHelper(dest: string): void {
  const dir = path.dirname(dest);
  mkdirSync(path.join(dir, "lib"), { recursive: true });
  copyFileSync(HELPER, dest);
  for (const f of readdirSync(path.join(path.dirname(HELPER), "lib"))) copyFileSync(path.join(path.dirname(HELPER), "lib", f), path.join(dir, "lib", f));
}

/**
 * The page of references/verbs/ for `verb` (or "the-root"), with every run of whitespace as one
 * space: where each verb's cases and words are written out in full, beside its one-page help.
 */
export function referenceOf(verb: string): string {
  const name = verb === "the-root" ? "root" : verb;
  return readFileSync(path.join(path.dirname(HELPER), "..", "references", "verbs", `${name}.md`), "utf8").replace(/\s+/g, " ");
}

/** Every file's bytes under `dir` (as latin1, so any byte sequence is searchable); "" when it does not exist. */
export function everyByteUnder(dir: string): string {
  let out = "";
  const walk = (p: string): void => {
    for (const name of readdirSync(p)) {
      const q = path.join(p, name);
      if (statSync(q).isDirectory()) walk(q);
      else out += readFileSync(q, "latin1");
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}
