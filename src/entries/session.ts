// scripts/lib/session.mjs: the verbs a harness runs at every session start, without the rest
// of the CLI (src/entries/memory_io.ts routes them here).
import { runProcess } from "../main.ts";
import type { VerbTable } from "../verbs/types.ts";

const SESSION_VERBS: VerbTable = {
  hook: { summary: "session-start hook: fixed sentences about parked memory", load: async () => (await import("../verbs/hook.ts")).hookVerb },
};

await runProcess(SESSION_VERBS);
