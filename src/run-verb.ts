// Running one verb from its command line: flags parsed by parseArgs, the outcome printed, errors as exit codes.
import path from "node:path";
import { nodeUtil } from "./builtins.ts";
import { Absent, HelperError, Refused, UsageError, type ExitCode } from "./errors.ts";
import { showRefused } from "./guard/invisible.ts";
import { quotedValue } from "./guard/quote.ts";
import { HARNESS_VERBS, type Outcome, type Verb, type VerbContext } from "./verbs/types.ts";

const REFUSAL_PREFIX = "memory operation refused: ";
// A wrong command line is not a refusal of the memory operation: it gets its own first words.
export const USAGE_PREFIX = "usage error: ";

const MAX_STDIN_BYTES = 1_000_000;

/** Everything the CLI needs from its process; `helperPath` is `process.argv[1]`. */
export interface Process extends Pick<VerbContext, "env" | "cwd" | "stdinIsTTY" | "helperPath"> {
  argv: string[];
  /** All of stdin, or its first bytes just past `maxBytes` (the caller refuses those). */
  readStdin(maxBytes: number): Promise<Buffer>;
  readStdinWithin(ms: number, maxBytes: number): Promise<Buffer | null>;
  writeOut(data: string | Uint8Array): void;
  writeErr(text: string): void;
}

// Gemini shows a hook's stderr as a chat line whenever its stdout is empty: there `hook` and
// `checkpoint` print JSON on stdout (`{}` for nothing) and nothing on stderr, on every path.
export function geminiHookRun(argv: readonly string[]): boolean {
  if (argv[0] !== "hook" && argv[0] !== "checkpoint") return false;
  return argv.some((a, i) => a === "--format=gemini" || (a === "--format" && argv[i + 1] === "gemini"));
}

export const GEMINI_SILENT = "{}\n";

export const neverFails = (verb: string | undefined): boolean => HARNESS_VERBS.includes(verb ?? "");

/** What a run that threw past its verb's own handling prints and exits with: a harness's session still never fails. */
export function crashOutcome(argv: readonly string[], error: unknown): { out: string; err: string; code: ExitCode } {
  const err = `memory_io internal error: ${error instanceof Error ? error.message : String(error)}\n`;
  const gemini = geminiHookRun(argv);
  return { out: gemini ? GEMINI_SILENT : "", err: gemini ? "" : err, code: neverFails(argv[0]) ? 0 : 2 };
}

/** Runs `dispatch` with control characters on stderr shown as <U+XXXX>, and Gemini's rule above. */
export async function guarded(outer: Process, dispatch: (proc: Process) => Promise<ExitCode>): Promise<ExitCode> {
  const proc: Process = { ...outer, writeErr: (text) => outer.writeErr(showRefused(text).text) };
  if (!geminiHookRun(proc.argv)) return dispatch(proc);
  let printed = false;
  const quiet: Process = {
    ...proc,
    writeOut: (data) => {
      if (data.length > 0) printed = true;
      proc.writeOut(data);
    },
    writeErr: () => {},
  };
  const code = await dispatch(quiet).catch((): ExitCode => 0);
  if (!printed) proc.writeOut(GEMINI_SILENT);
  return code;
}

/** Runs `verb` with the flags of `proc.argv` after the verb name; prints its outcome. */
export async function runVerb(name: string, verb: Verb, proc: Process): Promise<ExitCode> {
  const usageExit: ExitCode = neverFails(name) ? 0 : name === "check" ? 64 : 2;
  let ctx: VerbContext;
  const warned = new Set<string>();
  try {
    const args = proc.argv.slice(1);
    const { options } = verb;
    const parsed = nodeUtil().parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
    const repeated = repeatedFlag(parsed.tokens, verb.options);
    if (repeated !== null) {
      throw new UsageError(`--${repeated} is given more than once; pass it once (see \`${name} --help\`)`);
    }
    const [min, max] = verb.positionals ?? [0, 0];
    if (parsed.positionals.length < min) {
      throw new UsageError(`${name} needs ${min === 1 ? "an argument" : `${min} arguments`}; see \`${name} --help\``);
    }
    if (parsed.positionals.length > max) {
      const extra = parsed.positionals.slice(max).map((p) => quotedValue(p));
      throw new UsageError(`${name} takes at most ${max} argument(s), got ${extra.join(" ")}`);
    }
    ctx = {
      values: parsed.values as VerbContext["values"],
      positionals: parsed.positionals,
      env: proc.env,
      cwd: proc.cwd,
      readStdin: async (maxBytes = MAX_STDIN_BYTES) => {
        const bytes = await proc.readStdin(maxBytes);
        const n = String(maxBytes).replace(/\B(?=(\d{3})+$)/g, ",");
        if (bytes.length > maxBytes) throw new Refused(`stdin is more than ${n} bytes; send at most ${n} bytes`);
        return bytes;
      },
      readStdinWithin: (ms, maxBytes = MAX_STDIN_BYTES) => proc.readStdinWithin(ms, maxBytes),
      helperPath: proc.helperPath,
      get stdinIsTTY() {
        return proc.stdinIsTTY;
      },
      warn: (line: string) => {
        if (warned.has(line)) return;
        warned.add(line);
        proc.writeErr(`${line}\n`);
      },
      // <skill>/scripts/memory_io.mjs, as invoked: anchors leave the skill's own folder out.
      skillDir: proc.helperPath ? path.dirname(path.dirname(path.resolve(proc.cwd, proc.helperPath))) : null,
    };
  } catch (err) {
    const message = err instanceof UsageError ? err.message : parseArgsMessage(err, name);
    proc.writeErr(`${USAGE_PREFIX}${message}\n`);
    return usageExit;
  }
  let outcome: Outcome;
  try {
    outcome = await verb.run(ctx);
  } catch (err) {
    if (err instanceof HelperError) {
      for (const line of err.before) proc.writeErr(`${line}\n`);
      // Absent (exit 3) is a state, not a refusal: no refusal prefix.
      const prefix = err instanceof Absent ? "" : err instanceof UsageError ? USAGE_PREFIX : REFUSAL_PREFIX;
      proc.writeErr(`${prefix}${err.message}\n`);
      return err instanceof UsageError ? usageExit : neverFails(name) ? 0 : err.code;
    }
    // A bug, not a refusal: say so plainly; a harness's session must still never fail.
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    proc.writeErr(`memory_io internal error: ${text}\n`);
    return neverFails(name) ? 0 : 2;
  }
  for (const line of outcome.stderr) proc.writeErr(`${line}\n`);
  const json = ctx.values.json === true && typeof outcome.stdout === "string";
  if (outcome.stdout.length > 0) proc.writeOut(json ? escapeJsonText(outcome.stdout as string) : outcome.stdout);
  return outcome.code;
}

// JSON.stringify leaves invisible code points raw; `\uXXXX` keeps them exact while no reader sees them act.
const CONTROLS = "\\x7F-\\x9F\\u00AD\\u061C\\u115F\\u1160\\u180E\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\u3164";
const FILLERS = "\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF9-\\uFFFB\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}";
const JSON_INVISIBLE = new RegExp(`[${CONTROLS}${FILLERS}]`, "gu");

function escapeJsonText(json: string): string {
  return json.replace(JSON_INVISIBLE, (ch) => {
    let out = "";
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0")}`;
    return out;
  });
}

// The first flag given twice that is not declared `multiple` (parseArgs would silently keep the last).
function repeatedFlag(tokens: readonly { kind: string; name?: string }[] = [], options: Verb["options"]) {
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== "option" || t.name === undefined || options[t.name]?.multiple === true) continue;
    if (seen.has(t.name)) return t.name;
    seen.add(t.name);
  }
  return null;
}

function parseArgsMessage(err: unknown, verb: string): string {
  const message = err instanceof Error ? err.message : String(err);
  // node:util's messages already name the flag; add where to look.
  return `${message.replace(/\. To specify a positional argument.*$/s, "")} (see \`${verb} --help\`)`;
}
