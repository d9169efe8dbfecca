// scripts/lib/cli.mjs: every verb.
import { runProcess } from "../main.ts";
import { VERBS } from "../verbs/index.ts";

await runProcess(VERBS);
