import { existsSync } from "node:fs";
import path from "node:path";
import { quotedValue } from "../guard/quote.ts";
import { installText, snippetOf } from "../agents/plan.ts";
import { tokenOf } from "../store/files.ts";
import { assertNotPaused } from "../store/pause.ts";
import { mergeDriverStep } from "../git/merge-driver-config.ts";
import { makeDirs, missingDirs, prepareDir, readAgentFile, readRecord, recordNode } from "../agents/agent-file.ts";
import { recordsDir, removeEmptyDirs, userDir, writeAgentFile, writeRecord } from "../agents/agent-file.ts";
import { Refused } from "../errors.ts";
import { homeFolder } from "../store/home.ts";
import { AGENT_OPTIONS, agentTarget } from "./agent-files.ts";
import { failpointOf, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { underInstallLock } from "../agents/install-lock.ts";

/** The lines `install --help` and `uninstall --help` share. */
export const installHelpCommon = `  --global      edit the per-user files (~/.claude, ~/.codex, ~/.config/opencode,
                ~/.gemini) instead of the project's; cline and cursor have none
  --root DIR    the project root
${ROOT_HELP}`;

// Every agent-file edit holds the install lock (docs/decisions/lock.md).
export const installVerb: Verb = underInstallLock<Verb>({
  name: "install",
  options: AGENT_OPTIONS,
  positionals: [0, 0],
  help: `usage: node memory_io.mjs install --agent claude-code|codex|opencode|cline|gemini|cursor
         [--root DIR | --global] [--dry-run]

Wires the session-start hook (and, where the harness has the events, the checkpoint
hooks) or the bootstrap block into an agent's own files:
  claude-code  .claude/settings.json: SessionStart, PreCompact, PostCompact, SessionEnd
  codex        AGENTS.md block; .codex/hooks.json: SessionStart, PreCompact, SessionEnd
  opencode     AGENTS.md block (shared with codex)
  cline        .clinerules/00-session-handoff.md; .clinerules/hooks/TaskStart and
               TaskResume (and their .ps1 forms)
  gemini       GEMINI.md block; .gemini/settings.json: SessionStart, SessionEnd
  cursor       .cursor/rules/session-handoff.mdc (alwaysApply)
JSON settings are edited in place (other keys, comments and layout kept); Markdown
blocks sit between <!-- session-handoff:begin --> and <!-- session-handoff:end -->.
A file it cannot edit safely (malformed markers, JSON that does not parse, a link,
a file not ours, a read-only one) is refused with a snippet to paste by hand,
nothing changed. Idempotent; each file is replaced whole (a temp, then a rename);
what it changed is recorded under \${XDG_CONFIG_HOME:-~/.config}/session-handoff/
installs/ for \`uninstall\`. In a git repository it also registers the merge driver.
Every case, its words and the hook commands: references/verbs.md#install.

options:
  --agent NAME  the agent whose files to edit
  --dry-run     say what would change, change nothing
${installHelpCommon}
stdout: one line per file: "created F", "updated F" or "unchanged F" ("would
        create F", "would update F" with --dry-run).
exit:   0 done; 2 refused (usage, unsafe file, malformed markers, JSON that does
        not parse, a read-only file, a concurrent edit);
        4 paused; 5 another install or uninstall held the install lock for 10 s.
`,
  async run(ctx) {
    // Without a HOME nothing of ours can be found again (records, the recorded Node).
    const home = homeFolder(ctx.env);
    const homeVar = process.platform === "win32" ? "USERPROFILE" : "HOME";
    const why = "the per-user records and the recorded Node live under it";
    if (!home) throw new Refused(`install needs ${homeVar} set (${why}); nothing was changed`);
    const where = "install keeps its records under it, so nothing was changed";
    if (!existsSync(home)) throw new Refused(`${homeVar} (${quotedValue(home)}) does not exist; ${where}`);
    const t = agentTarget(ctx, "install");
    assertNotPaused(t.memDir, ctx.env);
    const targets = t.targets();
    for (const { file } of targets) missingDirs(t.base, path.dirname(file));
    // Every new text is computed before anything is written: a refusal for one file changes none.
    const plans = [];
    for (const { edit, file, shown } of targets) {
      const snap = await readAgentFile(file, snippetOf(edit, t.agent.name));
      const next = installText(edit, t.agent.name, snap.bytes?.toString("utf8") ?? null, shown);
      plans.push({ edit, file, shown, snap, next });
    }
    const lines: string[] = [];
    const records = recordsDir(ctx.env, t.home);
    // The records folder exists before the first file is written; the folders made here go in the first record.
    let madeForRecords: string[] = [];
    if (!t.dryRun) {
      madeForRecords = prepareDir(records);
      recordNode(userDir(ctx.env, t.home), process.execPath);
    }
    for (const p of plans) {
      const bytes = Buffer.from(p.next, "utf8");
      if (p.snap.bytes?.equals(bytes)) {
        lines.push(`unchanged ${p.shown}`);
        continue;
      }
      const verb = p.snap.bytes === null ? "create" : "update";
      if (t.dryRun) {
        lines.push(`would ${verb} ${p.shown}`);
        continue;
      }
      // Recomputed here: an earlier file of this install may have made some of them.
      const dirs = missingDirs(t.base, path.dirname(p.file));
      makeDirs(dirs);
      const mode = p.edit.kind === "owned-file" ? p.edit.mode : 0o644;
      try {
        await writeAgentFile(p.file, p.snap.token, bytes, mode, failpointOf(ctx));
      } catch (err) {
        // Folders made for a file that was not written are named by no record: they go.
        removeEmptyDirs(dirs);
        throw err;
      }
      const prior = readRecord(records, p.file);
      // The original bytes stay restorable only while nobody else wrote the file since our last write.
      const kept = prior !== null && prior.after === p.snap.token;
      const record = {
        path: p.file,
        before: kept ? prior.before : (p.snap.bytes?.toString("base64") ?? null),
        restorable: prior === null || (kept && prior.restorable !== false),
        after: tokenOf(bytes),
        createdDirs: [...(prior?.createdDirs ?? []), ...dirs, ...madeForRecords],
      };
      madeForRecords = [];
      const made = writeRecord(records, record);
      if (made.length > 0) writeRecord(records, { ...record, createdDirs: [...record.createdDirs, ...made] });
      lines.push(`${verb}d ${p.shown}`);
    }
    const opts = { dryRun: t.dryRun, helperPath: t.helper.abs };
    const driver = await mergeDriverStep(t.global ? null : t.base, opts, ctx.env);
    // A project file naming this clone's absolute path breaks the hook in every other clone.
    const local = t.global ? [] : plans.filter((p) => p.next.includes(t.helper.abs)).map((p) => p.shown);
    const keep = local.map((f) => `${f} names this clone's path to the helper: keep it out of git (docs/install.md)`);
    return ok(`${[...lines, ...driver.lines].join("\n")}\n`, [...driver.notes, ...keep]);
  },
});
