import { bootstrapBody } from "./bootstrap.ts";
import { hookCommand } from "./command.ts";
import type { Agent } from "./types.ts";

/**
 * Gemini CLI (harnesses.md): the bootstrap block in `GEMINI.md` and hooks in
 * `.gemini/settings.json` (global: `~/.gemini/…`): SessionStart, and the checkpoint hook
 * SessionEnd (docs/design.md#checkpoints). No PreCompress: it fires before every model request and never
 * says whether it will compress (harnesses.md), so a checkpoint there would be taken at
 * every turn. Every command uses `--format gemini`: JSON on stdout, nothing on stderr, or
 * Gemini shows the stderr as a chat line. Timeouts are in milliseconds. Gemini matches
 * lifecycle events by exact string, not by regex, so our entries carry no matcher (every
 * source: startup, resume, clear). The command is relative to `$GEMINI_PROJECT_DIR`.
 */
export const gemini: Agent = {
  name: "gemini",
  format: "gemini",
  transcript: "gemini",
  checks: { projectHooksFromStartFolder: true },
  skillFolders: { project: [".gemini/skills", ".agents/skills"], home: [".gemini/skills"] },
  edits(helper, global) {
    const command = (args: string) => hookCommand(helper, args, global ? null : "GEMINI_PROJECT_DIR");
    return [
      {
        kind: "md-block",
        file: global ? ".gemini/GEMINI.md" : "GEMINI.md",
        body: (agents) => bootstrapBody(global ? { ...helper, rel: null } : helper, agents),
      },
      {
        kind: "json-hooks",
        file: ".gemini/settings.json",
        command,
        hooks: [
          { event: "SessionStart", args: "hook --mode session --format gemini", timeout: 10_000 },
          { event: "SessionEnd", args: "checkpoint --format gemini", timeout: 3_000 },
        ],
      },
    ];
  },
};

