import type { ParseArgsConfig } from "node:util";
import type { ExitCode } from "../errors.ts";

/** What a verb returns; `src/cli.ts` writes it out and exits with `code`. */
export interface Outcome {
  /** Bytes or text for stdout, written as is. */
  stdout: string | Uint8Array;
  /** Lines for stderr (warnings, notes); each is printed on its own line. */
  stderr: string[];
  code: ExitCode;
}

/** Everything a verb may know about its process; verbs never touch `process` themselves. */
export interface VerbContext {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * Reads all of stdin (bytes), waiting for its end; stops just past `maxBytes` (default
   * 1,000,000) and refuses (docs/design.md#tokens-and-the-publication-protocol).
   * @throws Refused (exit 2) `stdin is more than <maxBytes> bytes; …`
   */
  readStdin(maxBytes?: number): Promise<Buffer>;
  /**
   * Reads all of stdin, giving up after `ms` milliseconds (null then): for the hook (and
   * `checkpoint`). Past `maxBytes` (default 1,000,000) it stops reading and returns the first
   * `maxBytes + 1` bytes, so the caller sees the input is too long and ignores it (docs/design.md#checkpoints:
   * ignored, not refused).
   */
  readStdinWithin(ms: number, maxBytes?: number): Promise<Buffer | null>;
  /** True when stdin is a terminal (the hook then does not read it). */
  stdinIsTTY: boolean;
  /** Prints one line on stderr at once (the same line only once per run): notes such as `using root <path>`. */
  warn(line: string): void;
  /** The folder of the running skill (the helper's `scripts/` parent), as invoked; null when unknown. */
  skillDir?: string | null;
  /** The running helper's file, as invoked (install writes hook commands naming it). */
  helperPath?: string;
}

/** One verb: its parseArgs options, its `--help` text and its run function. */
export interface Verb {
  name: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  /** Positional arguments the verb accepts, as [min, max]. */
  positionals: [number, number];
  /** Full `--help` text for the verb. */
  help: string;
  run(ctx: VerbContext): Promise<Outcome>;
}

/** An outcome with text on stdout and nothing else. */
export function ok(stdout: string | Uint8Array, stderr: string[] = [], code: ExitCode = 0): Outcome {
  return { stdout, stderr, code };
}

/** Verb name -> summary and loader (src/verbs/index.ts holds them all). */
export type VerbTable = Record<string, { summary: string; load: () => Promise<Verb>; hidden?: true }>;
