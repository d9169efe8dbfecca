// scripts/lib/session.mjs: the verbs a harness runs at every session start or turn, without the rest
// of the CLI (src/entries/memory_io.ts routes them here).
import { runProcess } from "../main.ts";
import type { VerbTable } from "../verbs/types.ts";

const SESSION_VERBS: VerbTable = {
  context: { summary: "prompt/tool hooks: offer a handoff once near a full context", load: async () => (await import("../verbs/context.ts")).contextVerb },
  statusline: { summary: "Claude Code's status line: yours, then the handoff's state", load: async () => (await import("../verbs/statusline.ts")).statuslineVerb },
  hook: { summary: "session-start hook: fixed sentences about parked memory", load: async () => (await import("../verbs/hook.ts")).hookVerb },
};

await runProcess(SESSION_VERBS);
