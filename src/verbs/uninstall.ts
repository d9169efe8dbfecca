import { existsSync } from "../builtins.ts";
import path from "node:path";
import { forAgents, uninstall, underInstallLock } from "../agents/installer.ts";
import { CANONICAL } from "../agents/skill-place.ts";
import { AGENT_EXIT, AGENT_HELP, AGENT_NAMES, AGENT_OPTIONS, agentTargets } from "../agents/target.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";

export const uninstallVerb: Verb = {
  options: AGENT_OPTIONS,
  help: `usage: node memory_io.mjs uninstall --agent
         ${AGENT_NAMES} [--root DIR | --global]
         [--dry-run]

Removes exactly what \`install --agent\` added, every other byte kept; a file left
holding nothing else is deleted, and folders left empty go. The merge driver
goes with the last agent installed here. Every case:
references/verbs/uninstall.md.

options:
  --agent NAME  the agent whose files to restore; repeat it for several (as
                init takes them), each line then starting with the agent's name
${AGENT_HELP}
${ROOT_HELP}
stdout: one line per file: "updated F", "removed F", "unchanged F" or "absent F"
        (no such file) ("would …" with --dry-run).
${AGENT_EXIT}
`,
  run: (ctx) =>
    underInstallLock(ctx, true, async () => {
      const ts = agentTargets(ctx, "uninstall", () => rootOption(ctx));
      const done = await forAgents(ts, (t, said) => uninstall(t, ctx.env, said));
      // The last agent gone, what init copied is all that is left of the skill here.
      const stays = done.last?.last === true && existsSync(path.join(ts[0]!.base, CANONICAL));
      const note = `the skill's copy ${CANONICAL} and its links stay: init --undo removes them`;
      return ok(`${done.lines.join("\n")}\n`, [...done.notes, ...(stays ? [note] : [])]);
    }),
};
