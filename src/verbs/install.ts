import { forAgents, install, underInstallLock } from "../agents/installer.ts";
import { AGENT_EXIT, AGENT_HELP, AGENT_NAMES, AGENT_OPTIONS, agentTargets } from "../agents/target.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";

export const installVerb: Verb = {
  options: AGENT_OPTIONS,
  help: `usage: node memory_io.mjs install --agent
         ${AGENT_NAMES} [--root DIR | --global]
         [--dry-run]

Wires the session-start hook (and, where the harness has the events, the
checkpoint hooks) or the bootstrap block into an agent's own files:
  claude-code  .claude/settings.json: SessionStart, PreCompact, PostCompact,
               SessionEnd, UserPromptSubmit and PostToolUse (the context
               offer), statusLine (unless your user settings set one)
  codex        AGENTS.md block; .codex/hooks.json: SessionStart, PreCompact,
               SessionEnd, UserPromptSubmit and PostToolUse
  opencode     AGENTS.md block (shared with codex)
  cline        .clinerules/00-session-handoff.md; .clinerules/hooks/TaskStart
               and TaskResume (and their .ps1 forms)
  gemini       GEMINI.md block; .gemini/settings.json: SessionStart, SessionEnd
  cursor       .cursor/rules/session-handoff.mdc (alwaysApply)
Only adds, reformatting nothing of yours, so \`uninstall\` takes out exactly what
it added; idempotent. A file it cannot edit safely is refused, nothing changed,
with a snippet to paste by hand. In git it registers the merge driver, and puts
a file it creates naming this clone's path in .git/info/exclude. Every case,
its words and the hook commands: references/verbs/install.md.

options:
  --agent NAME  the agent whose files to edit; repeat it for several (as init
                takes them), each line then starting with the agent's name
${AGENT_HELP}
${ROOT_HELP}
stdout: one line per file: "created F", "updated F" or "unchanged F" ("would
        create F", "would update F" with --dry-run).
${AGENT_EXIT}
`,
  run: (ctx) =>
    underInstallLock(ctx, false, async () => {
      const ts = agentTargets(ctx, "install", () => rootOption(ctx));
      const done = await forAgents(ts, (t, said) => install(t, ctx.env, said));
      return ok(`${done.lines.join("\n")}\n`, done.notes);
    }),
};
