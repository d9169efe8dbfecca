import { quotedValue } from "../guard/quote.ts";
import path from "node:path";
import { installText, snippetOf } from "../agents/plan.ts";
import { tokenOf } from "../store/files.ts";
import { assertNotPaused } from "../store/pause.ts";
import { mergeDriverStep } from "../git/merge-driver-config.ts";
import { makeDirs, missingDirs, prepareDir, publishAgentFile, readAgentFile, readRecord, recordNode, recordsDir, removeEmptyDirs, userDir, writeRecord } from "../store/install-files.ts";
import { existsSync } from "node:fs";
import { Refused } from "../errors.ts";
import { homeFolder } from "../store/home.ts";
import { NODE_LOCATIONS } from "../agents/command.ts";
import { editTargets, repairAgentFiles } from "./agent-repair.ts";
import { AGENT_OPTIONS, agentTarget } from "./agent-files.ts";
import { failpointOf, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { underInstallLock } from "../store/install-lock.ts";

/** Options of `install` and `uninstall`. */
export const installHelpCommon = `The hook commands name this helper's file: for a skill inside the project, relative to the
harness's project variable ($CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR; Cline's from the hook
file's folder) so a committed file works in every clone; otherwise (and always for Codex)
its absolute path, quoted. Each command runs the helper with the first Node it finds:
$SESSION_HANDOFF_NODE, else the Node that install recorded in
\${XDG_CONFIG_HOME:-~/.config}/session-handoff/node, else node on PATH, else
${NODE_LOCATIONS.join(", ")}
(a harness started from a GUI runs hooks without your login PATH). It exits 0 with nothing
printed when the helper file is missing (a branch without the skill checked out) or no
Node is found. Codex also gets a PowerShell form (commandWindows); Cline gets TaskStart.ps1
and TaskResume.ps1 beside its POSIX scripts.

--global edits the per-user files instead: ~/.claude/settings.json; ~/.codex/AGENTS.md and
~/.codex/hooks.json; ~/.config/opencode/AGENTS.md; ~/.gemini/GEMINI.md and
~/.gemini/settings.json (HOME from the environment). cline and cursor have none (refused).
${ROOT_HELP}`;

/** `install --agent NAME [--root DIR | --global] [--dry-run]` (docs/design.md#integrations). */
// Every agent-file edit holds the install lock (docs/decisions/lock.md).
export const installVerb: Verb = underInstallLock<Verb>({
  name: "install",
  options: AGENT_OPTIONS,
  positionals: [0, 0],
  help: `usage: node memory_io.mjs install --agent claude-code|codex|opencode|cline|gemini|cursor
         [--root DIR | --global] [--dry-run]

Wires the session-start hook (and, where the harness has the events, the checkpoint hooks)
or the bootstrap block into an agent's own files:
  claude-code  .claude/settings.json: SessionStart (matcher
               startup|resume|clear|compact|fork), PreCompact, PostCompact, SessionEnd
  codex        AGENTS.md block; .codex/hooks.json: SessionStart, PreCompact, SessionEnd
  opencode     AGENTS.md block (shared with codex: it lists the agents that asked for it)
  cline        .clinerules/00-session-handoff.md; .clinerules/hooks/TaskStart and
               TaskResume (executable, 0755), TaskStart.ps1 and TaskResume.ps1
  gemini       GEMINI.md block; .gemini/settings.json: SessionStart, SessionEnd
               (timeouts in milliseconds, no matcher, --format gemini: JSON only on
               stdout, nothing on stderr; no PreCompress: it fires before every request)
  cursor       .cursor/rules/session-handoff.mdc (alwaysApply)

JSON settings are edited in place: the user's other keys, hooks, comments and layout are
kept, ours (the hooks whose command names memory_io.mjs) appear once; an older form of
ours (bare node, a matcher without fork, Gemini's PreCompress) is replaced where it stands.
Markdown blocks between <!-- session-handoff:begin --> and <!-- session-handoff:end -->
are replaced in place; a new block goes at the end, or, in a file over 28 KiB, right
after its first line when that is a heading, else at the top (Codex reads only the first
32 KiB of AGENTS.md; a block ending past that is moved there). Line endings (CRLF) are
kept. Refused, with a snippet to paste by hand, and nothing changed ("<file> <what is
wrong>; nothing was changed. Add this to it by hand:", then the snippet): malformed markers,
JSON that does not parse or nests over 64 levels, a file that is a link, a rule file of
ours' name that is not ours; and, before anything is read, the home folder (HOME;
USERPROFILE on Windows, named so in these sentences) unset or missing. In
these words: "<file> exists and was not written by install; nothing was changed. Move it
away, or merge this into it by hand:"; "<file> is a link to <target>; links are never
followed or replaced, so nothing was changed. Add this to its target by hand:"; "<file> has more than
one hard link; nothing was changed. Add this to it by hand:"; "<folder> is a link;
install writes only through real directories, so nothing was changed"; "install needs
HOME set (the per-user records and the recorded Node live under it); nothing was
changed"; "HOME ("<path>") does not exist; install keeps its records under it, so nothing
was changed"; leftovers only you can settle: "<what was found>; nothing was changed. To
go on, <what to do>, then run this again". Files are published as \`write\` publishes (compare-and-swap on the bytes read:
a concurrent edit is refused, never overwritten). Idempotent: a second install changes no
byte. What it changed is recorded under \${XDG_CONFIG_HOME:-~/.config}/session-handoff/
installs/ (made, 0700, when missing) so that \`uninstall\` can restore the original bytes;
the Node running install is recorded there as session-handoff/node.

An install or uninstall killed mid-publication (kill -9, a power loss) can leave private
names beside a file: .<file>.tmp-<pid>-<hex> (a new version) and .<file>.claim-<pid>-<hex>
(the previous version, set aside). Before reading a file it edits, install repairs those
whose process is no longer running: a set-aside version with no file in its place is put
back (never over a file); one beside the new version that replaced it, or beside the same
bytes, is removed; temps are removed. Each repair is one line on stderr, e.g.
"install: repaired an interrupted edit of .claude/settings.json: put its previous
version back (…)". A link, a folder or a file with other hard links under such a name
is left alone, with a line saying so. Refused, with nothing changed, when only you can
choose: two set-aside versions and no file, a set-aside version beside a file that
another program wrote since, or no file while a process still running has it set aside
(an edit in progress; the message names the paths and what to do). --dry-run
says what it would repair ("install: found an interrupted edit of F; without
--dry-run: …") and repairs nothing.

${installHelpCommon}
In a git repository (not with --global) it also registers the merge driver
session-handoff for this clone (see \`merge-driver --help\`): .git/config, a block of ours in
the root .gitattributes, and the driver's copy of the helper under
\${XDG_CONFIG_HOME:-~/.config}/session-handoff/driver/; it then prints "registered the merge
driver session-handoff in .git/config" and "added the merge driver's block to .gitattributes"
when they changed. A repeated install changes no byte under .git/.
stdout: one line per file: "created F", "updated F" or "unchanged F" ("would create F",
        "would update F" with --dry-run, which changes nothing).
exit:   0 done; 2 refused (usage, unsafe file, malformed markers, JSON that does not parse, a
        concurrent edit, leftovers of an interrupted edit that only you can settle);
        4 paused; 5 another install or uninstall held the install lock (.ai/.install.lock,
        or .install.lock in ~/.config/session-handoff with --global) for 10 s.
`,
  async run(ctx) {
    // Without a HOME nothing of ours can be found again (records, the recorded Node): the one
    // refusal that depends on the user's environment, before anything is read.
    // The home folder as os.homedir() finds it: USERPROFILE on Windows, where cmd and PowerShell set no HOME.
    const home = homeFolder(ctx.env);
    const homeVar = process.platform === "win32" ? "USERPROFILE" : "HOME";
    if (!home) throw new Refused(`install needs ${homeVar} set (the per-user records and the recorded Node live under it); nothing was changed`);
    if (!existsSync(home)) throw new Refused(`${homeVar} (${quotedValue(home)}) does not exist; install keeps its records under it, so nothing was changed`);
    const t = agentTarget(ctx, "install");
    assertNotPaused(t.memDir, ctx.env);
    const targets = editTargets(t);
    // A link on the way is refused, then what an interrupted install or uninstall left beside
    // these files is repaired (or, with --dry-run, reported), so the edit starts from a whole file.
    const viewOf = await repairAgentFiles(ctx, "install", t, targets);
    // Every file is read and every new text computed before anything is written: a refusal
    // for one file leaves all of them as they were.
    const plans = [];
    for (const { edit, file, shown } of targets) {
      const view = viewOf.get(file);
      const snap = await readAgentFile(view?.path ?? file, snippetOf(edit, t.agent.name), view?.links);
      const current = snap.bytes === null ? null : snap.bytes.toString("utf8");
      const next = installText(edit, t.agent.name, current, shown);
      plans.push({ edit, file, shown, snap, next });
    }
    const lines: string[] = [];
    const records = recordsDir(ctx.env, t.home);
    // The records folder exists before the first file is published: a record can always be
    // written for what was changed. The folders made here belong to the first record.
    let madeForRecords: string[] = [];
    if (!t.dryRun) {
      madeForRecords = prepareDir(records);
      recordNode(userDir(ctx.env, t.home), process.execPath);
    }
    for (const p of plans) {
      const same = p.snap.bytes !== null && p.snap.bytes.equals(Buffer.from(p.next, "utf8"));
      const verb = same ? "unchanged" : p.snap.bytes === null ? "created" : "updated";
      if (t.dryRun) {
        lines.push(same ? `unchanged ${p.shown}` : `would ${verb === "created" ? "create" : "update"} ${p.shown}`);
        continue;
      }
      if (same) {
        lines.push(`unchanged ${p.shown}`);
        continue;
      }
      // Recomputed here: an earlier file of this install may have made some of them.
      const dirs = missingDirs(t.base, path.dirname(p.file));
      makeDirs(dirs);
      const mode = p.edit.kind === "owned-file" ? p.edit.mode : 0o644;
      const bytes = Buffer.from(p.next, "utf8");
      try {
        await publishAgentFile(path.dirname(p.file), path.basename(p.file), p.snap.token, bytes, mode, path.join(records, "archive"), failpointOf(ctx));
      } catch (err) {
        // Folders made for a file that was not published are named by no record: they go.
        removeEmptyDirs(dirs);
        throw err;
      }
      const prior = readRecord(records, p.file);
      // The original bytes stay restorable only while nobody else wrote the file since our
      // last write; after another edit, uninstall removes only our entries (docs/design.md#integrations).
      const kept = prior !== null && prior.after === p.snap.token;
      const record = {
        path: p.file,
        before: kept ? prior.before : p.snap.bytes === null ? null : p.snap.bytes.toString("base64"),
        restorable: prior === null || (kept && prior.restorable !== false),
        after: tokenOf(bytes),
        createdDirs: [...(prior?.createdDirs ?? []), ...dirs, ...madeForRecords],
      };
      madeForRecords = [];
      const made = writeRecord(records, record);
      if (made.length > 0) writeRecord(records, { ...record, createdDirs: [...record.createdDirs, ...made] });
      lines.push(`${verb} ${p.shown}`);
    }
    const driver = await mergeDriverStep(t.global ? null : t.base, { dryRun: t.dryRun, helperPath: t.helper.abs }, ctx.env);
    return ok(`${[...lines, ...driver.lines].join("\n")}\n`, driver.notes);
  },
});
