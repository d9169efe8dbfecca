import { hookCommand } from "./command.ts";
import { SESSION_MATCHER } from "./envelope.ts";
import type { Agent } from "./types.ts";

/**
 * Claude Code (harnesses.md): a SessionStart hook in `.claude/settings.json` (global:
 * `~/.claude/settings.json`) with the command relative to `$CLAUDE_PROJECT_DIR`, plus the
 * checkpoint hooks PreCompact, PostCompact and SessionEnd (docs/design.md#checkpoints), and the context offer's
 * UserPromptSubmit and PostToolUse (docs/context-threshold.md). Timeouts in seconds.
 */
export const claudeCode: Agent = {
  name: "claude-code",
  format: "claude",
  transcript: "claude",
  checks: { projectHooksFromStartFolder: true },
  skillFolders: { project: [".claude/skills"], home: [".claude/skills"] },
  edits(helper, global) {
    const command = (args: string) => hookCommand(helper, args, global ? null : "CLAUDE_PROJECT_DIR");
    return [
      {
        kind: "json-hooks",
        file: ".claude/settings.json",
        command,
        // Interactive sessions only (never with -p): the handoff's state after the user's own line.
        statusLine: "statusline",
        hooks: [
          { event: "SessionStart", matcher: SESSION_MATCHER, args: "hook --mode session --format claude", timeout: 10 },
          { event: "PreCompact", args: "checkpoint --format claude", timeout: 10 },
          { event: "PostCompact", args: "checkpoint --format claude", timeout: 10 },
          // SessionEnd hooks share a 1.5 s budget: checkpoint does the least work there.
          { event: "SessionEnd", args: "checkpoint --format claude", timeout: 2 },
          // The context-threshold offer (docs/context-threshold.md): both events reach the model
          // as additionalContext; Stop does not (2.1.112 ignores it, 2.1.332 loops on it).
          { event: "UserPromptSubmit", args: "context --format claude", timeout: 10 },
          { event: "PostToolUse", args: "context --format claude", timeout: 10 },
        ],
      },
    ];
  },
};
