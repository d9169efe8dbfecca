// scripts/lib/session.mjs: the verbs a harness runs at every session start or turn, and nothing
// else: memory_io.mjs sends them here unless they are asked for --help.
import { runProcess } from "../main.ts";
import { guarded, runVerb, USAGE_PREFIX } from "../run-verb.ts";
import type { Verb } from "../verbs/types.ts";

const SESSION_VERBS: Record<string, () => Promise<Verb>> = {
  hook: async () => (await import("../verbs/hook.ts")).hookVerb,
  context: async () => (await import("../verbs/context.ts")).contextVerb,
  statusline: async () => (await import("../verbs/statusline.ts")).statuslineVerb,
};

await runProcess((proc) =>
  guarded(proc, async (p) => {
    const name = p.argv[0] ?? "";
    const load = SESSION_VERBS[name];
    if (load !== undefined) return runVerb(name, await load(), p);
    p.writeErr(`${USAGE_PREFIX}lib/session.mjs runs hook, context and statusline only; run memory_io.mjs\n`);
    return 2;
  }),
);
