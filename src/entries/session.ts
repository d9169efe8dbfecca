// scripts/lib/session.mjs: the verbs a harness runs at every session start or turn, and nothing
// else: memory_io.mjs sends them here unless they are asked for --help.
import { runProcess } from "../main.ts";
import { guarded, runVerb, USAGE_PREFIX } from "../run-verb.ts";
import { contextVerb } from "../verbs/context.ts";
import { hookVerb } from "../verbs/hook.ts";
import { statuslineVerb } from "../verbs/statusline.ts";
import { SESSION_VERBS, type Verb } from "../verbs/types.ts";

// Typed by SESSION_VERBS, so that this table and that list cannot differ.
const VERBS: Record<(typeof SESSION_VERBS)[number], Verb> = {
  hook: hookVerb, context: contextVerb, statusline: statuslineVerb };

await runProcess((proc) =>
  guarded(proc, async (p) => {
    const name = p.argv[0] ?? "";
    if (Object.hasOwn(VERBS, name)) return runVerb(name, VERBS[name as keyof typeof VERBS], p);
    p.writeErr(`${USAGE_PREFIX}lib/session.mjs runs ${SESSION_VERBS.join(", ")} only; run memory_io.mjs\n`);
    return 2;
  }),
);
