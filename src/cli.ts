import { parseArgs } from "node:util";
import { Absent, HelperError, UsageError, type ExitCode } from "./errors.ts";
import { nearest, wrapHelp } from "./help.ts";
import { exampleBlock } from "./verbs/examples.ts";
import { VERBS } from "./verbs/index.ts";
import type { Outcome, VerbContext } from "./verbs/types.ts";

/** The helper's version, printed by `--version`. */
export const VERSION = "0.1.0";

const REFUSAL_PREFIX = "memory operation refused: ";

/** Everything the CLI needs from its process, so that it can be driven in tests too. */
export interface Process {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  stdinIsTTY: boolean;
  readStdin(): Promise<Buffer>;
  readStdinWithin(ms: number): Promise<Buffer | null>;
  writeOut(data: string | Uint8Array): void;
  writeErr(text: string): void;
  /** The running helper's file (`process.argv[1]`). */
  helperPath?: string;
}

function usageText(): string {
  const width = Math.max(...Object.keys(VERBS).map((v) => v.length));
  const lines = Object.entries(VERBS).map(([name, v]) => `  ${name.padEnd(width)}  ${v.summary}`);
  return [
    "usage: node memory_io.mjs <verb> [options]",
    "",
    "Safe reads and writes of an agent's session memory under <root>/.ai/memory/.",
    "",
    "verbs:",
    ...lines,
    "",
    "`node memory_io.mjs <verb> --help` (or `--help <verb>`) describes a verb.",
    "",
    "exit codes: 0 success; 2 refused (safety, compare-and-swap, usage); 3 absent;",
    "            4 paused (kill switch); 5 busy (lock not had in time)",
    "A refusal prints `memory operation refused: <reason>` (stderr), changes nothing.",
    "",
    // Contract §6, in the words a user can act on.
    "kill switch: the writing verbs (write, promote, recover, archives restore,",
    "  install, uninstall, publish) refuse with exit 4, and change nothing, while",
    "  any of these exist: <root>/.ai/memory/PAUSE; the file named by",
    "  SESSION_HANDOFF_PAUSE; ${XDG_CONFIG_HOME:-~/.config}/session-handoff/PAUSE.",
    "  SESSION_HANDOFF_DISABLE set to anything but empty, 0, false, no or off does",
    "  the same and also silences `hook`. Reads keep working. Remove the file (or",
    "  unset the variable) to resume.",
    "",
    "The root is found by every verb: --root DIR when given, else the nearest folder",
    "up from the current one that holds .ai/memory or .git.",
    "",
    "example: resume in one call; save in two (read for the token, then write):",
    "node memory_io.mjs brief",
    "node memory_io.mjs read handoff",
    "node memory_io.mjs write handoff --expected-current-sha256 <token> <<'EOF'",
    "<the whole handoff; see `write --help`>",
    "EOF",
    "",
  ].join("\n");
}

/** A verb's `--help` as printed: its own text, its example, wrapped at 80 columns. */
export function verbHelp(name: string, help: string): string {
  return wrapHelp(`${help.replace(/\n*$/, "\n")}${exampleBlock(name)}`);
}

/** The "did you mean" tail for an unknown verb, or "" when nothing is near (ruling 26). */
function suggestion(word: string): string {
  const near = nearest(word, Object.keys(VERBS));
  return near === null ? "" : `; did you mean ${near}?`;
}

/**
 * Runs one helper invocation and returns its exit code; the caller exits with it.
 * Usage errors exit 2, except `hook` (always 0, problem on stderr) and `check` (64).
 */
export async function main(proc: Process): Promise<ExitCode> {
  const args = proc.argv;
  const first = args[0];
  if (first === undefined) {
    // No verb is a usage error (ruling 26): the usage goes to stderr, stdout stays empty.
    proc.writeErr(`${REFUSAL_PREFIX}no verb given\n\n${wrapHelp(usageText())}`);
    return 2;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    const topic = args[1];
    if (topic !== undefined && VERBS[topic]) {
      proc.writeOut(verbHelp(topic, (await VERBS[topic].load()).help));
      return 0;
    }
    if (topic !== undefined && !topic.startsWith("-")) {
      proc.writeErr(`${REFUSAL_PREFIX}no help for ${JSON.stringify(topic)}: not a verb${suggestion(topic)}\n`);
      return 2;
    }
    proc.writeOut(wrapHelp(usageText()));
    return 0;
  }
  if (first === "--version" || first === "-V") {
    proc.writeOut(`memory_io ${VERSION}\n`);
    return 0;
  }
  const entry = VERBS[first];
  if (!entry) {
    proc.writeErr(`${REFUSAL_PREFIX}unknown verb ${JSON.stringify(first)}${suggestion(first)}\n\n${wrapHelp(usageText())}`);
    return 2;
  }
  const usageExit: ExitCode = first === "hook" ? 0 : first === "check" ? 64 : 2;
  const verb = await entry.load();
  const rest = args.slice(1);
  if (rest.includes("--help") || rest.includes("-h")) {
    proc.writeOut(verbHelp(first, verb.help));
    return 0;
  }
  let ctx: VerbContext;
  try {
    const parsed = parseArgs({ args: rest, options: verb.options, allowPositionals: true, strict: true });
    const [min, max] = verb.positionals;
    if (parsed.positionals.length < min) {
      throw new UsageError(`${first} needs ${min === 1 ? "an argument" : `${min} arguments`}; see \`${first} --help\``);
    }
    if (parsed.positionals.length > max) {
      throw new UsageError(`${first} takes at most ${max} argument(s), got ${JSON.stringify(parsed.positionals.slice(max))}`);
    }
    ctx = {
      values: parsed.values as VerbContext["values"],
      positionals: parsed.positionals,
      env: proc.env,
      cwd: proc.cwd,
      readStdin: proc.readStdin,
      readStdinWithin: proc.readStdinWithin,
      helperPath: proc.helperPath,
      get stdinIsTTY() {
        return proc.stdinIsTTY;
      },
    };
  } catch (err) {
    const message = err instanceof UsageError ? err.message : parseArgsMessage(err, first);
    proc.writeErr(`${REFUSAL_PREFIX}${message}\n`);
    return usageExit;
  }
  let outcome: Outcome;
  try {
    outcome = await verb.run(ctx);
  } catch (err) {
    if (err instanceof HelperError) {
      // Absent (exit 3) is a state, not a refusal: no refusal prefix (contract §2, §10).
      proc.writeErr(err instanceof Absent ? `${err.message}\n` : `${REFUSAL_PREFIX}${err.message}\n`);
      if (err instanceof UsageError) return usageExit;
      return err.code;
    }
    // A bug, not a refusal: say so plainly; the hook must still never fail a session.
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    proc.writeErr(`memory_io internal error: ${text}\n`);
    return first === "hook" ? 0 : 2;
  }
  for (const line of outcome.stderr) proc.writeErr(`${line}\n`);
  if (outcome.stdout.length > 0) proc.writeOut(outcome.stdout);
  return outcome.code;
}

function parseArgsMessage(err: unknown, verb: string): string {
  const message = err instanceof Error ? err.message : String(err);
  // node:util's messages already name the flag; add where to look.
  return `${message.replace(/\. To specify a positional argument.*$/s, "")} (see \`${verb} --help\`)`;
}
