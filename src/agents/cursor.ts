import { block, bootstrapBody } from "./bootstrap.ts";
import { Refused } from "../errors.ts";
import type { Agent } from "./types.ts";

/**
 * Cursor (harnesses.md): the rule `.cursor/rules/session-handoff.mdc`, always applied. Its
 * own hooks are *unverified* and, with third-party hooks on, Cursor also runs Claude Code's:
 * install adds no hook, so there is never a second one; `hook --format cursor` is there for
 * users who wire `.cursor/hooks.json` themselves. No global rules folder (docs/design.md#integrations).
 */
export const cursor: Agent = {
  name: "cursor",
  format: "cursor",
  skillFolders: { project: [".agents/skills", ".cursor/skills"], home: [] },
  edits(helper, global) {
    if (global) throw new Refused("cursor has no per-user rules file to install into; run `install --agent cursor` in the project instead");
    const frontmatter = "---\ndescription: Session handoff bootstrap: check for parked session memory at session start\nalwaysApply: true\n---\n";
    return [{ kind: "owned-file", file: ".cursor/rules/session-handoff.mdc", mode: 0o644, content: `${frontmatter}${block(bootstrapBody(helper, ["cursor"]))}\n` }];
  },
};

