import { isAgentName } from "../agents/index.ts";
import { initSkill } from "../agents/skill-place.ts";
import { AGENT_NAMES as NAMES, AGENT_OPTIONS } from "../agents/target.ts";
import type { AgentName } from "../agents/types.ts";
import { UsageError } from "../errors.ts";
import { quotedValue } from "../guard/quote.ts";
import { ok, type Verb } from "./types.ts";

export const initVerb: Verb = {
  options: { ...AGENT_OPTIONS, undo: { type: "boolean" }, replace: { type: "boolean" } },
  help: `usage: npx session-handoff init [--agent NAME]... [--root DIR | --global]
         [--dry-run] [--replace]
       npx session-handoff init --undo [--agent NAME]... [--root DIR | --global]
         [--dry-run]
       (or: node <skill>/scripts/memory_io.mjs init …)

Sets the skill up in a project in one step: copies the skill (SKILL.md, LICENSE,
agents/, references/, templates/, scripts/) into .agents/skills/session-handoff/
(Codex, OpenCode, Gemini CLI and Cursor read it); links it (a relative link; a
copy on Windows) into .claude/skills/ for Claude Code and .cline/skills/ for
Cline; then runs \`install --agent NAME\` for each agent from that copy. Agents
are those whose folder is in the project (.claude/ or CLAUDE.md, .codex/,
.opencode/, .clinerules/, .gemini/ or GEMINI.md, .cursor/) or whose entries a
file holds (AGENTS.md's block names Codex and OpenCode: a teammate's clone), or
those named with --agent (${NAMES}).

--global  the same in HOME (~/.agents/skills/session-handoff/,
          \`install --global\`; Claude Code's in CLAUDE_CONFIG_DIR when set).
--dry-run says what it would do and changes nothing.
--undo    \`uninstall\` for each agent found or whose files hold its entries,
          then the links and the copy go (folders init made go when empty); a
          file of the copy you edited or added stays, named (with .init.json),
          and so do this clone's records of its saves (.git/session-handoff/)
          while .ai/memory is there.
--replace overwrite the files of the copy you edited since init copied them
          (else init refuses, naming them; .init.json in the copy records what
          it copied).

With no agent found and none named in a project holding .ai/memory, it
registers the merge driver alone. A second run changes no byte. Refused, with
nothing changed: no project (pass --root), no agent found and none named (and
no .ai/memory), a file or folder it cannot write, a
skill folder that is something else, and whatever install refuses (tried first
with --dry-run). stdout: one line per thing done, "commit: ..." when it changed
a file git would commit (not on a second run, nor for a clone's own excluded
files), then what to say to the agent.
exit:   0 done; 2 refused or usage; 4 paused; 5 the install lock stayed busy.
`,
  async run(ctx) {
    const v = ctx.values;
    const root = v.root as string | undefined;
    if (v.global === true && root !== undefined) throw new UsageError("init: --global and --root exclude each other");
    const named = (v.agent as string[] | undefined) ?? [];
    const bad = named.find((n) => !isAgentName(n));
    if (bad !== undefined) throw new UsageError(`init: unknown agent ${quotedValue(bad)}; name one of ${NAMES}`);
    const ask = { named: named as AgentName[], root, global: v.global === true, dryRun: v["dry-run"] === true,
      undo: v.undo === true, replace: v.replace === true };
    const said = await initSkill(ctx, ask);
    return ok(`${said.lines.join("\n")}\n`, said.notes);
  },
};
