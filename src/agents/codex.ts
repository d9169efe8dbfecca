import { bootstrapBody } from "./bootstrap.ts";
import { hookCommand, hookCommandPowerShell } from "./command.ts";
import { SESSION_MATCHER } from "./envelope.ts";
import type { Agent } from "./types.ts";

/**
 * Codex CLI (harnesses.md): the bootstrap block in `AGENTS.md` (global `~/.codex/AGENTS.md`)
 * and hooks in `.codex/hooks.json` (global `~/.codex/hooks.json`): SessionStart, and the
 * checkpoint hooks PreCompact and SessionEnd (docs/design.md#checkpoints), and the context offer's
 * UserPromptSubmit and PostToolUse (docs/context-threshold.md). Codex runs hooks in the
 * session's cwd with no project variable known, so the command is absolute. On Windows Codex
 * runs hooks in PowerShell and reads `commandWindows` instead: a PowerShell form of the same.
 */
export const codex: Agent = {
  name: "codex",
  format: "codex",
  transcript: "codex",
  checks: { hookTrust: "codex" },
  skillFolders: { project: [".agents/skills"], home: [".codex/skills", ".agents/skills"] },
  edits(helper, global) {
    const command = (args: string) => hookCommand(helper, args, null);
    return [
      {
        kind: "md-block",
        file: global ? ".codex/AGENTS.md" : "AGENTS.md",
        body: (agents) => bootstrapBody(global ? { ...helper, rel: null } : helper, agents),
      },
      {
        kind: "json-hooks",
        file: ".codex/hooks.json",
        command,
        commandWindows: (args: string) => hookCommandPowerShell(helper.abs, args),
        hooks: [
          { event: "SessionStart", matcher: SESSION_MATCHER, args: "hook --mode session --format codex", timeout: 10 },
          { event: "PreCompact", args: "checkpoint --format codex", timeout: 10 },
          // Codex clamps SessionEnd to 3 s.
          { event: "SessionEnd", args: "checkpoint --format codex", timeout: 3 },
          // The context-threshold offer from the rollout's token_count (docs/context-threshold.md).
          { event: "UserPromptSubmit", args: "context --format codex", timeout: 10 },
          { event: "PostToolUse", args: "context --format codex", timeout: 10 },
        ],
      },
    ];
  },
};
