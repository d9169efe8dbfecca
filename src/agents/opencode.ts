import { bootstrapBody } from "./bootstrap.ts";
import type { Agent } from "./types.ts";

/**
 * OpenCode (harnesses.md): no session-start hook is known (*unverified*), so the bootstrap
 * block in `AGENTS.md` (global `~/.config/opencode/AGENTS.md`). The block is shared with
 * Codex and lists both when both asked for it (docs/design.md#integrations).
 */
export const opencode: Agent = {
  name: "opencode",
  skillFolders: { project: [".opencode/skills", ".claude/skills", ".agents/skills"], home: [".config/opencode/skills"] },
  edits(helper, global) {
    return [
      {
        kind: "md-block",
        file: global ? ".config/opencode/AGENTS.md" : "AGENTS.md",
        body: (agents) => bootstrapBody(global ? { ...helper, rel: null } : helper, agents),
      },
    ];
  },
};
