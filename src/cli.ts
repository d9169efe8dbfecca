// The whole command line: no verb, `--help`, `--version` and unknown verbs, then the verb itself.
import { quotedValue } from "./guard/quote.ts";
import type { ExitCode } from "./errors.ts";
import { guarded, runVerb, USAGE_PREFIX, type Process } from "./run-verb.ts";
import { suggestion, usageText, verbHelp } from "./usage.ts";
import { VERBS } from "./verbs/index.ts";

const VERSION = "0.1.0";

export function main(proc: Process): Promise<ExitCode> {
  return guarded(proc, dispatch);
}

async function dispatch(proc: Process): Promise<ExitCode> {
  const [first, topic] = proc.argv;
  const names = Object.keys(VERBS);
  if (first === undefined) {
    // The usage goes to stderr, stdout stays empty.
    proc.writeErr(`${USAGE_PREFIX}no verb given\n\n${usageText()}`);
    return 2;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    const load = topic === undefined ? undefined : VERBS[topic]?.load;
    if (load !== undefined) {
      proc.writeOut(verbHelp(topic!, (await load()).help));
      return 0;
    }
    if (topic !== undefined && !topic.startsWith("-")) {
      proc.writeErr(`${USAGE_PREFIX}no help for ${quotedValue(topic)}: not a verb${suggestion(topic, names)}\n`);
      return 2;
    }
    proc.writeOut(usageText());
    return 0;
  }
  if (first === "--version" || first === "-V") {
    proc.writeOut(`memory_io ${VERSION}\n`);
    return 0;
  }
  const load = VERBS[first]?.load;
  if (load === undefined) {
    proc.writeErr(`${USAGE_PREFIX}unknown verb ${quotedValue(first)}${suggestion(first, names)}\n\n${usageText()}`);
    return 2;
  }
  const verb = await load();
  if (proc.argv.includes("--help") || proc.argv.includes("-h")) {
    proc.writeOut(verbHelp(first, verb.help));
    return 0;
  }
  return runVerb(first, verb, proc);
}
