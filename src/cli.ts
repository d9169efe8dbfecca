// The whole command line: no verb, `--help`, `--version` and unknown verbs, then the verb itself
// (run-verb.ts). The session bundle runs without this file: memory_io.mjs sends help here.
import { quotedValue } from "./guard/quote.ts";
import type { ExitCode } from "./errors.ts";
import { guarded, runVerb, USAGE_PREFIX, type Process } from "./run-verb.ts";
import { suggestion, usageText, verbHelp } from "./usage.ts";
import type { VerbTable } from "./verbs/types.ts";

/** The helper's version, printed by `--version`. */
export const VERSION = "0.1.0";

/**
 * Runs one helper invocation and returns its exit code; the caller exits with it.
 * Usage errors exit 2, except `hook` (always 0, problem on stderr) and `check` (64).
 */
export function main(verbs: VerbTable, proc: Process): Promise<ExitCode> {
  return guarded(proc, (p) => dispatch(verbs, p));
}

async function dispatch(VERBS: VerbTable, proc: Process): Promise<ExitCode> {
  const args = proc.argv;
  const first = args[0];
  if (first === undefined) {
    // The usage goes to stderr, stdout stays empty.
    proc.writeErr(`${USAGE_PREFIX}no verb given\n\n${usageText(VERBS)}`);
    return 2;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    const topic = args[1];
    if (topic !== undefined && VERBS[topic]) {
      proc.writeOut(verbHelp(topic, (await VERBS[topic].load()).help));
      return 0;
    }
    if (topic !== undefined && !topic.startsWith("-")) {
      proc.writeErr(`${USAGE_PREFIX}no help for ${quotedValue(topic)}: not a verb${suggestion(topic, VERBS)}\n`);
      return 2;
    }
    proc.writeOut(usageText(VERBS));
    return 0;
  }
  if (first === "--version" || first === "-V") {
    proc.writeOut(`memory_io ${VERSION}\n`);
    return 0;
  }
  const entry = VERBS[first];
  if (!entry) {
    const near = suggestion(first, VERBS);
    proc.writeErr(`${USAGE_PREFIX}unknown verb ${quotedValue(first)}${near}\n\n${usageText(VERBS)}`);
    return 2;
  }
  const verb = await entry.load();
  if (args.includes("--help") || args.includes("-h")) {
    proc.writeOut(verbHelp(first, verb.help));
    return 0;
  }
  return runVerb(first, verb, proc);
}
