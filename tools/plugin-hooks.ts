// Writes hooks/hooks.json, the Claude Code plugin's hooks, from the same command builder as
// `install` (src/agents/command.ts): one Node lookup everywhere (docs/design.md#integrations).
// `npx tsx tools/plugin-hooks.ts --check` fails when the committed file differs.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { nodeRun } from "../src/agents/command.ts";
import { SESSION_MATCHER } from "../src/agents/index.ts";

const file = path.join(import.meta.dirname, "..", "hooks", "hooks.json");
const command = (args: string) => `f="\${CLAUDE_PLUGIN_ROOT}/scripts/memory_io.mjs"; [ ! -f "$f" ] || ${nodeRun(args)}; :`;
const group = (args: string, timeout: number, matcher?: string) => ({ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: command(args), timeout }] });
const want = `${JSON.stringify(
  {
    hooks: {
      SessionStart: [group("hook --mode session --format claude", 10, SESSION_MATCHER)],
      PreCompact: [group("checkpoint --format claude", 10)],
      PostCompact: [group("checkpoint --format claude", 10)],
      SessionEnd: [group("checkpoint --format claude", 2)],
      UserPromptSubmit: [group("context --format claude", 10)],
      PostToolUse: [group("context --format claude", 10)],
    },
  },
  null,
  2,
)}\n`;
if (process.argv.includes("--check")) {
  if (readFileSync(file, "utf8") !== want) {
    console.error("hooks/hooks.json is stale: run npx tsx tools/plugin-hooks.ts");
    process.exit(1);
  }
} else writeFileSync(file, want);
