// A verb run in the test's own process, as the CLI bundle runs it (src/entries/cli.ts): the same
// dispatch, the same redaction of what it prints, without the ~100 ms start of a node process.
// Tests about a verb's logic use it; each file keeps a few spawns of the built bundle (helper()
// in helpers.ts) for the process boundary. A crash failpoint would kill the test runner: those
// runs must spawn.
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
