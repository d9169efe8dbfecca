// scripts/lib/cli.mjs: every verb. Everything a verb prints is redacted on its way out.
import { main } from "../cli.ts";
import { redactText } from "../guard/redact.ts";
import { runProcess } from "../main.ts";

await runProcess(main, (text) => redactText(text).text);
