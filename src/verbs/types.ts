import type { ParseArgsConfig } from "node:util";
import type { ExitCode } from "../errors.ts";

/** Verbs a harness runs at every session start or turn: the small bundle (entries/session.ts) serves them. */
export const SESSION_VERBS = ["hook", "context", "statusline"] as const;

/** Verbs a harness runs by itself: they exit 0 whatever happens, so that they never fail the user's session. */
export const HARNESS_VERBS: readonly string[] = [...SESSION_VERBS, "checkpoint"];

/** What a verb returns: stdout as is, stderr lines, and the exit code. */
export interface Outcome {
  stdout: string | Uint8Array;
  stderr: string[];
  code: ExitCode;
}

/** Everything a verb may know about its process; verbs never touch `process` themselves. */
export interface VerbContext {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  /** All of stdin; past `maxBytes` (default 1,000,000) a refusal. */
  readStdin(maxBytes?: number): Promise<Buffer>;
  /** All of stdin within `ms` (else null), for the hooks; past `maxBytes` its first `maxBytes + 1` bytes. */
  readStdinWithin(ms: number, maxBytes?: number): Promise<Buffer | null>;
  stdinIsTTY: boolean;
  /** Prints a line on stderr at once, each line once per run. */
  warn(line: string): void;
  /** The running skill's folder (the helper's `scripts/` parent), as invoked; null when unknown. */
  skillDir?: string | null;
  /** The running helper's file, as invoked (install writes hook commands naming it). */
  helperPath?: string;
}

/** One verb: its parseArgs options, positional count [min, max] (none when left out), `--help` and run function. */
export interface Verb {
  options: NonNullable<ParseArgsConfig["options"]>;
  positionals?: [number, number];
  help: string;
  run(ctx: VerbContext): Promise<Outcome>;
}

export function ok(stdout: string | Uint8Array, stderr: string[] = [], code: ExitCode = 0): Outcome {
  return { stdout, stderr, code };
}
