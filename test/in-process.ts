// A verb run in the test's own process, as the CLI bundle runs it (src/entries/cli.ts): the same
// dispatch, the same redaction of what it prints, without the ~100 ms start of a node process.
// Tests about a verb's logic use it; each file keeps a few spawns of the built bundle (helper()
// in helpers.ts) for the process boundary. A crash failpoint would kill the test runner: those
// runs must spawn.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../src/cli.ts";
import { crashOutcome } from "../src/run-verb.ts";
import { redactText } from "../src/guard/redact.ts";
import { cleanEnv, HELPER, type Run } from "./helpers.ts";

/**
 * Runs one verb in this process with `input` on stdin; resolves with what the bundle would print and exit with.
 * `env` is added to cleanEnv(), as helper() does; `wholeEnv` is the verb's whole environment instead.
 * `helperPath` is the file the bundle would run as (install writes hooks that name it); scripts/memory_io.mjs unless given.
 */
export async function inProcess(
  args: string[],
  opts: {
    input?: string | Buffer;
    env?: Record<string, string>;
    wholeEnv?: Record<string, string | undefined>;
    cwd?: string;
    helperPath?: string;
  } = {},
): Promise<Run> {
  const env = opts.wholeEnv ?? cleanEnv(opts.env);
  if (/(^|,)[a-z-]+:crash(,|$)/.test(env.MEMORY_IO_FAILPOINT ?? "")) {
    throw new Error("a crash failpoint kills the process it runs in: spawn the bundle (helper) for it");
  }
  const out: Buffer[] = [];
  const err: string[] = [];
  const stdin = Buffer.from(opts.input ?? "");
  let code: number;
  try {
    code = await main({
      argv: args,
      env,
      cwd: opts.cwd ?? process.cwd(),
      stdinIsTTY: false,
      readStdin: async (max) => stdin.subarray(0, max + 1),
      readStdinWithin: async (_ms, max) => stdin.subarray(0, max + 1),
      writeOut: (d) => void out.push(Buffer.from(d)),
      writeErr: (t) => void err.push(t),
      helperPath: opts.helperPath ?? HELPER,
    });
  } catch (error) {
    // What runProcess says when a verb throws past its own handling, from the same function.
    const said = crashOutcome(args, error);
    out.push(Buffer.from(said.out));
    err.push(said.err);
    code = said.code;
  }
  const stdout = redactText(Buffer.concat(out).toString("utf8")).text;
  return { code, signal: null, stdout, stderr: redactText(err.join("")).text };
}

/** The token `read` reports (or `absent`), read in this process. */
export async function tokenIn(root: string, kind = "handoff"): Promise<string> {
  const r = await inProcess(["read", kind, "--root", root]);
  const m = /^CURRENT-SHA256: (\S+)$/m.exec(r.stdout);
  if (!m) throw new Error(`no token in read output: ${r.stdout} ${r.stderr}`);
  return m[1]!;
}

/** Writes a handoff in this process, asserting success; returns the new token. */
export async function saveIn(root: string, doc: string, token?: string): Promise<string> {
  const expected = token ?? (await tokenIn(root));
  const args = ["write", "handoff", "--root", root, "--expected-current-sha256", expected];
  const r = await inProcess(args, { input: doc });
  if (r.code !== 0) throw new Error(`write failed (${r.code}): ${r.stderr}`);
  return /CURRENT-SHA256: (\S+)\n$/.exec(r.stdout)![1]!;
}

/**
 * Runs `script` through `sh` as written (quoting, pipes, `||`, `$?` as the shell does them), except that each
 * `node <helperPath> ...` in it is a shell function handing its argv, stdin and working directory to `inProcess`
 * and printing what the verb printed, with its exit code: a script of several calls without a node start each.
 * A `node` of any other file fails as "cannot find", as the real call would.
 */
export async function shellInProcess(
  script: string,
  opts: { cwd: string; env?: Record<string, string>; helperPath?: string; timeoutMs?: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const helperPath = opts.helperPath ?? HELPER;
  const env = cleanEnv(opts.env);
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "sh-calls-")));
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  // The call's folder is made before `ready`; `read` waits on the FIFO until this process writes the exit code.
  const shim = `node() {\n  [ "$1" = ${q(helperPath)} ] || { echo "node: cannot find $1" >&2; return 1; }\n  shift\n` +
    `  _c=$(mktemp -d ${q(dir)}/call-XXXXXX) || return 1\n  printf '%s\\0' "$@" > "$_c/argv"; cat > "$_c/in"; pwd > "$_c/cwd"\n` +
    `  mkfifo "$_c/done"; : > "$_c/ready"\n  read _s < "$_c/done"; cat "$_c/out"; cat "$_c/err" >&2; return "$_s"\n}\n`;
  const child = spawn("sh", ["-c", shim + script], { cwd: opts.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 30_000);
  const served = new Set<string>();
  const serve = async (call: string) => {
    const argv = readFileSync(path.join(call, "argv"), "utf8").split("\0").slice(0, -1);
    const cwd = readFileSync(path.join(call, "cwd"), "utf8").replace(/\n$/, "");
    const r = await inProcess(argv, { wholeEnv: env, cwd, input: readFileSync(path.join(call, "in")), helperPath });
    writeFileSync(path.join(call, "out"), r.stdout);
    writeFileSync(path.join(call, "err"), r.stderr);
    await writeFile(path.join(call, "done"), `${r.code}\n`);
  };
  let done = false;
  void closed.then(() => (done = true));
  const pending: Promise<void>[] = [];
  while (!done) {
    for (const name of readdirSync(dir)) {
      const call = path.join(dir, name);
      if (served.has(call) || !existsSync(path.join(call, "ready"))) continue;
      served.add(call);
      pending.push(serve(call));
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  clearTimeout(timer);
  await Promise.all(pending);
  rmSync(dir, { recursive: true, force: true });
  return { status: await closed, stdout, stderr };
}
