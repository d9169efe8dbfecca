// scripts/lib/session.mjs: the verbs a harness runs at every session start or turn, and nothing
// else: memory_io.mjs sends them here unless they are asked for --help.
import { runProcess } from "../main.ts";
import { guarded, runVerb, USAGE_PREFIX } from "../run-verb.ts";
import { SESSION_VERBS, type Verb } from "../verbs/types.ts";

// Typed by SESSION_VERBS, so that this table and that list cannot differ.
const LOAD: Record<(typeof SESSION_VERBS)[number], () => Promise<Verb>> = {
  hook: async () => (await import("../verbs/hook.ts")).hookVerb,
  context: async () => (await import("../verbs/context.ts")).contextVerb,
  statusline: async () => (await import("../verbs/statusline.ts")).statuslineVerb,
};

await runProcess((proc) =>
  guarded(proc, async (p) => {
    const name = p.argv[0] ?? "";
    if (Object.hasOwn(LOAD, name)) return runVerb(name, await LOAD[name as keyof typeof LOAD](), p);
    p.writeErr(`${USAGE_PREFIX}lib/session.mjs runs ${SESSION_VERBS.join(", ")} only; run memory_io.mjs\n`);
    return 2;
  }),
);
