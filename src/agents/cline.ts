import { block, bootstrapBody } from "./bootstrap.ts";
import { shellQuote } from "./command.ts";
import { Refused } from "../errors.ts";
import type { Agent, HelperLocation } from "./types.ts";

/** The comment that marks a hook script as ours. */
export const CLINE_HOOK_MARK = "# session-handoff: installed hook";

// Cline runs the file itself, and its stdin names no cwd: the project is the script's
// folder's grandparent (`<project>/.clinerules/hooks/`), and a skill inside the project is
// found from there, so a committed script works in every clone.
function hookScript(helper: HelperLocation): string {
  const file = helper.rel !== null ? `"$root"/${shellQuote(helper.rel)}` : shellQuote(helper.abs);
  return `#!/bin/sh\n${CLINE_HOOK_MARK}\nroot=$(cd "$(dirname "$0")/../.." && pwd) || exit 0\nf=${file}\n[ -f "$f" ] || exit 0\nexec node "$f" hook --mode session --format cline --root "$root"\n`;
}

/**
 * Cline (harnesses.md): the rule `.clinerules/00-session-handoff.md` (siblings are the
 * user's), and executable hook files `.clinerules/hooks/TaskStart` and `TaskResume` (0755,
 * ruling 11; the user must enable hooks). No global folder (ruling 11).
 */
export const cline: Agent = {
  name: "cline",
  format: "cline",
  edits(helper, global) {
    if (global) throw new Refused("cline has no per-user rules folder to install into (ruling 11); run `install --agent cline` in the project instead");
    return [
      { kind: "owned-file", file: ".clinerules/00-session-handoff.md", mode: 0o644, content: `${block(bootstrapBody(helper, ["cline"]))}\n` },
      { kind: "owned-file", file: ".clinerules/hooks/TaskStart", mode: 0o755, content: hookScript(helper) },
      { kind: "owned-file", file: ".clinerules/hooks/TaskResume", mode: 0o755, content: hookScript(helper) },
    ];
  },
};

