import { quotedValue, shellWord } from "../guard/quote.ts";
import { quotedPath } from "../schema/anchor-lines.ts";
import { driverPartMissing, MERGE_DRIVER_MISSING, mergeDriverMissing } from "../git/merge-driver-config.ts";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { AGENTS } from "../agents/index.ts";
import { withoutForeignHooks } from "../agents/json-hooks.ts";
import { blockAgents, findBlock } from "../agents/md-block.ts";
import { editPath, holdsOurs, installText } from "../agents/plan.ts";
import type { AgentName } from "../agents/types.ts";
import { budgetFinding, codexTrust, installShaped, outdatedReasons, runStart, startCommands, startFolderNote, type StartRun } from "../agents/doctor-checks.ts";
import { runGit } from "../git/run.ts";
import { ARCHIVE_NAME } from "../store/archive.ts";
import { inspectFile, interruptedSave } from "../store/inspect.ts";
import { archiveDir, memoryDir, type Kind } from "../store/paths.ts";
import { parseJournal } from "../journal/entry.ts";
import { claudePluginInstalls, type PluginInstall } from "../agents/claude-plugin.ts";
import { journalDir, journalOff, listJournal, readJournalFile } from "../journal/store.ts";
import { pauseSwitch } from "../store/pause.ts";
import { LOCK_NAME, lockState } from "../store/private.ts";
import { exists } from "../store/root.ts";
import { helperLocation, homeOf } from "./agent-files.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { quotePath } from "../schema/anchor-lines.ts";
import { showRefused } from "../guard/invisible.ts";
import { ok, type Verb } from "./types.ts";
import { Refused } from "../errors.ts";

/** One finding of `doctor`: what is wrong and the command that fixes it. */
export interface Problem {
  what: string;
  fix: string;
}

function readText(p: string): string | null {
  try {
    const st = lstatSync(p);
    if (!st.isFile()) return null;
    return readFileSync(p, "utf8");
  } catch {
    return null;
  }
}

/** A SessionStart command naming the helper that is not one install writes: doctor does not run it. */
const NOT_OURS = (file: string, command: string) => `${file}: a SessionStart command names memory_io.mjs but is not one install writes (not ours: not run): ${quotedValue(command)}`;

/** The command removing a PAUSE file, shell-quoted; words instead when its path holds a control character. */
function removePause(file: string): string {
  const w = shellWord(file);
  return w === null ? `remove the file ${quotedValue(file)} (a path holds a control character, so no command is printed to paste)` : `rm ${w}`;
}

/** `doctor [--root DIR | --global] [--json]`: read-only; always exit 0 (26, docs/design.md#integrations). */
/** What a skill folder needs beside SKILL.md for its flows to run. */
const HELPER_FILES = ["scripts/memory_io.mjs", "scripts/lib/cli.mjs", "scripts/lib/session.mjs"];

export const doctorVerb: Verb = {
  name: "doctor",
  options: { root: { type: "string" }, json: { type: "boolean" }, global: { type: "boolean" } },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs doctor [--root DIR | --global] [--json]

A read-only health report: the Node version; where the skill is installed for
each agent; whether each agent's hook or block is installed in the project's files
("not installed", "current", or "outdated" with why; with --global, the per-user
files); each installed SessionStart command run as a harness would (/bin/sh -c with
PATH=/usr/bin:/bin; on Windows Git for Windows' sh.exe, or not run, with a note) and
what it printed; Codex's trust entry; a block in AGENTS.md
past the 32 KiB Codex reads; a Claude Code plugin install beside installed hooks;
and the memory dir: \`check\`'s
verdict, the archive count, the journal, the kill switch, the memory lock, the
merge driver, whether .ai/ is ignored or tracked by git. Each problem comes with
the command that fixes it. Changes nothing. Every line it can print:
references/verbs.md#doctor.

options:
  --global    report the per-user files instead of the project's (runs from the
              home folder too)
  --json      print one object {"ok", "node", "agents", "runs", "notes",
              "memory", "problems": [{"what", "fix"}]}
  --root DIR  the project root
${ROOT_HELP}
stdout: the report, or the JSON object.
exit:   always 0 -- problems are in the output, and "ok": false in the JSON.
`,
  async run(ctx) {
    const home = homeOf(ctx.env);
    const global = ctx.values.global === true;
    let root: string;
    try {
      root = rootOption(ctx);
    } catch (err) {
      // `--global` is about the per-user files: it works from the home folder too, where cmd and
      // PowerShell start (the home folder is never a project, so its memory is read as is).
      if (!global || typeof ctx.values.root === "string" || !(err instanceof Refused) || home === "") throw err;
      root = path.resolve(home);
    }
    const helper = helperLocation(ctx, root);
    const problems: Problem[] = [];
    // A command to paste: shell-quoted words, or, when a path holds a control character, words saying so
    // (docs/design.md#verdicts-and-the-brief).
    const nodeRun = (verb: string, rootArg: boolean) => {
      const h = shellWord(helper.abs);
      const r = rootArg ? shellWord(root) : "";
      if (h === null || r === null) return `\`${verb}\` of the helper ${quotedValue(helper.abs)}${rootArg ? ` with --root ${quotedValue(root)}` : ""} (a path holds a control character, so no command is printed to paste)`;
      return `node ${h} ${verb}${rootArg ? ` --root ${r}` : ""}`;
    };
    const cmd = (verb: string) => nodeRun(verb, true);

    const node = process.versions.node;
    if (Number(node.split(".")[0]) < 20) problems.push({ what: `Node ${node} is older than 20`, fix: "install Node.js 20 or newer" });

    // An agent's files, the project's or the per-user ones (none for cline and cursor there).
    const agentFiles = (agent: (typeof AGENTS)[AgentName], perUser: boolean) => {
      try {
        return agent.edits(helper, perUser).map((edit) => ({ edit, file: editPath(perUser ? home : root, edit) }));
      } catch {
        return [];
      }
    };
    const gflag = global ? " --global" : "";
    const agents: Record<string, { skill: string[]; install: Record<string, string>; trust?: string; plugin?: PluginInstall[] }> = {};
    const notes: string[] = [];
    const starts: { shown: string; argv: string[]; agent: AgentName }[] = [];
    for (const [name, agent] of Object.entries(AGENTS) as [AgentName, (typeof AGENTS)[AgentName]][]) {
      const skill = [
        ...agent.skillFolders.project.map((f) => path.join(root, f, "session-handoff")),
        ...agent.skillFolders.home.map((f) => path.join(home, f, "session-handoff")),
      ].filter((d) => exists(path.join(d, "SKILL.md")));
      const install: Record<string, string> = {};
      for (const { edit, file } of agentFiles(agent, global)) {
        const text = readText(file);
        // Settings files are judged on our own entries only (docs/design.md#doctor): another
        // tool's hook naming the helper is reported as not ours below, never called outdated.
        const judged = text !== null && edit.kind === "json-hooks" ? withoutForeignHooks(text, (c) => installShaped(edit, c) !== null) : text;
        let state = "absent";
        if (judged !== null && holdsOurs(edit, judged)) {
          try {
            // A shared AGENTS.md block lists the agents that asked for it (docs/design.md#integrations): another
            // agent's block is not this one's install, current or outdated.
            const span = edit.kind === "md-block" ? findBlock(judged, edit.file) : null;
            if (span !== null && !blockAgents(judged, span).includes(name)) {
              install[edit.file] = "absent";
              continue;
            }
            state = installText(edit, name, judged, edit.file) === judged ? "current" : "outdated";
          } catch (err) {
            state = "malformed";
            problems.push({ what: `${edit.file}: ${(err as Error).message.split("\n")[0]}`, fix: `fix ${edit.file} by hand, then ${cmd(`install --agent ${name}${gflag}`)}` });
          }
        }
        if (state === "outdated") {
          const why = edit.kind === "json-hooks" && judged !== null ? outdatedReasons(judged, edit) : [];
          problems.push({ what: `${name}: ${edit.file} holds an outdated session-handoff entry${why.length > 0 ? `: ${why.join("; ")}` : ""}`, fix: `${cmd(`install --agent ${name}${gflag}`)} (upgrades it in place)` });
        }
        const installed = state === "current" || state === "outdated";
        if (installed && text !== null) {
          if (edit.kind === "md-block" && path.basename(edit.file) === "AGENTS.md") {
            const over = budgetFinding(text, edit.file, cmd(`install --agent ${name}${gflag}`));
            if (over !== null && !problems.some((p) => p.what === over.what)) problems.push(over);
            if (name === "codex") notes.push(`codex: AGENTS.md files in subfolders count toward the same 32 KiB Codex reads`);
          }
          if (edit.kind === "json-hooks" && agent.checks?.hookTrust === "codex") agents[name] = { ...agents[name]!, trust: codexTrust(ctx.env, home, file) };
          if (edit.kind === "json-hooks" && agent.checks?.projectHooksFromStartFolder && !global) notes.push(startFolderNote(agent));
        }
        // A settings file holding only another tool's entries still has them reported.
        if ((installed || edit.kind === "json-hooks") && text !== null && holdsOurs(edit, text)) {
          if (edit.kind === "json-hooks" || !edit.file.endsWith("TaskResume")) {
            const shown = global ? `~/${edit.file}` : edit.file;
            const found = startCommands(edit, text, file, state === "current");
            for (const argv of found.run) starts.push({ shown, argv, agent: name });
            // A settings file may come with a clone: only the exact commands install writes are run.
            for (const c of found.foreign) {
              problems.push({ what: NOT_OURS(shown, c.length > 200 ? `${c.slice(0, 200)}…` : c), fix: `read it in ${shown}; remove it unless you wrote it, then ${cmd(`install --agent ${name}${gflag}`)} writes ours` });
            }
          }
        }
        install[edit.file] = state;
      }
      agents[name] = { ...agents[name], skill, install };
      // Hooks or rules installed for an agent that finds no skill folder: the hooks run, but
      // the agent never loads SKILL.md's flows.
      if (skill.length === 0 && Object.values(install).some((st) => st === "current" || st === "outdated")) {
        const where = agent.skillFolders.project.map((f) => `${f}/session-handoff`).join(" or ");
        problems.push({ what: `${name}: installed, but no session-handoff skill folder where ${name} looks for skills (${where})`, fix: nodeRun(`init --agent ${name}${gflag}`, !global) });
      }
      // A SKILL.md alone (an installer that copies only it) gives the agent flows it cannot run.
      for (const dir of skill) {
        const lacking = HELPER_FILES.filter((f) => !exists(path.join(dir, f)));
        if (lacking.length === 0 || problems.some((p) => p.what.includes(dir))) continue;
        problems.push({ what: `${name}: the skill folder ${quotePath(dir)} lacks its helper (${lacking.join(", ")})`, fix: nodeRun(`init --agent ${name}${gflag}`, !global) });
      }
    }

    // The Claude Code plugin form: its hooks bring their own notice, so installed SessionStart
    // hooks as well give every session two notices (docs/design.md#integrations).
    const plugins = claudePluginInstalls(home);
    if (plugins.length > 0) {
      agents["claude-code"] = { ...agents["claude-code"]!, plugin: plugins };
      for (const p of plugins) notes.push(`claude-code: the plugin ${p.key} is installed (${p.scope} scope${p.version ? `, ${p.version}` : ""}, ${p.enabled ? "enabled" : "disabled"})`);
      for (const p of plugins.filter((p) => p.rootSkill)) notes.push(`claude-code: the plugin ${p.key} has its SKILL.md at its root, which Claude Code 2.1.112 does not list ("Unknown skill"): reinstall it from the dist-plugin branch (README, "Install")`);
      const hooked = Object.entries(agents["claude-code"]?.install ?? {}).some(([f, st]) => f.endsWith("settings.json") && (st === "current" || st === "outdated"));
      if (plugins.some((p) => p.enabled) && hooked) {
        problems.push({ what: "claude-code: the plugin and the installed .claude/settings.json hooks both announce parked memory: every session gets the notice twice", fix: `${cmd(`uninstall --agent claude-code${gflag}`)} (the plugin's hooks stay), or disable the plugin with /plugin` });
      }
    }

    const kinds: Kind[] = ["handoff", "lessons", "solutions"];
    const files = Object.fromEntries(kinds.map((k) => [k, inspectFile(root, k).status]));
    const interrupted = interruptedSave(root) || Object.values(files).includes("interrupted");
    const unsafe = Object.values(files).some((s) => s === "unsafe" || s === "foreign");
    const verdict = interrupted ? "interrupted" : unsafe ? "unsafe" : files.handoff === "present" ? "parked" : "clean";
    if (interrupted) problems.push({ what: "an interrupted save needs recovery", fix: cmd("recover") });
    // A lock no single look can judge (docs/decisions/lock.md): a writer takes it over only
    // after watching it unchanged for 10 s, so a short --lock-timeout keeps saying busy.
    const lock = lockState(memoryDir(root));
    if (lock.unproven) {
      const who = lock.host === null ? "an unreadable owner file" : `process ${lock.pid} on ${quotedValue(lock.host)}, dated ahead of this clock`;
      problems.push({ what: `the memory lock ${path.join(".ai", "memory", LOCK_NAME)} names ${who}`, fix: `${cmd("recover")} takes it over after watching it 10 s (if no writer is at work there)` });
    }
    if (unsafe) problems.push({ what: "a memory file failed safety or schema checks", fix: `inspect ${path.join(".ai", "memory")} by hand (a link, a hard link, a FIFO or no v1 marker); move the file away` });
    if (mergeDriverMissing(root)) problems.push({ what: MERGE_DRIVER_MISSING, fix: cmd("publish") });
    const driverGone = await driverPartMissing(root, ctx.env);
    // Git then merges memory files as text: the driver's guard falls back to conflict markers.
    if (driverGone !== null) problems.push({ what: `${driverGone}: memory files merge as text (conflict markers)`, fix: cmd("publish") });
    let archives = 0;
    try {
      archives = readdirSync(archiveDir(root)).filter((n) => ARCHIVE_NAME.test(n)).length;
    } catch {
      // No archive yet.
    }
    // The journal (docs/decisions/journal.md): its files, the OFF switch, lines that break its schema.
    const journalFiles = listJournal(root);
    const journal = { files: journalFiles.length, off: journalOff(root), problems: [] as { file: string; line: number; message: string }[] };
    for (const f of journalFiles) {
      try {
        const read = readJournalFile(journalDir(root), f.name);
        const first = read === null ? undefined : parseJournal(read.bytes.toString("utf8"), f.kind).problems[0];
        if (first) journal.problems.push({ file: `journal/${f.name}`, ...first });
      } catch (err) {
        journal.problems.push({ file: `journal/${f.name}`, line: 0, message: (err as Error).message });
      }
    }
    for (const p of journal.problems) problems.push({ what: `${path.join(".ai", "memory", p.file)} line ${p.line}: ${p.message}; saves add no entry to it until it is fixed`, fix: "fix that line by hand, or move the file away" });
    const paused = pauseSwitch(memoryDir(root), ctx.env);
    if (paused) problems.push({ what: `memory writes are paused by ${paused.startsWith("SESSION_HANDOFF_DISABLE") ? paused : quotedPath(paused)}`, fix: paused.startsWith("SESSION_HANDOFF_DISABLE") ? "unset SESSION_HANDOFF_DISABLE" : removePause(paused) });
    let git: { ignored: boolean; tracked: boolean } | null = null;
    try {
      const ig = await runGit(root, ["check-ignore", "-q", "--", ".ai/memory/HANDOFF.md"], ctx.env, 5000);
      if (ig.code === 0 || ig.code === 1) {
        const tr = await runGit(root, ["ls-files", "--", ".ai/memory"], ctx.env, 5000);
        git = { ignored: ig.code === 0, tracked: tr.stdout.length > 0 };
      }
    } catch {
      git = null;
    }
    // The installed start commands, run as the harness runs them: what a session would see.
    const runs: StartRun[] = [];
    for (const s of starts) {
      const r = await runStart(s.shown, s.argv, root, ctx.env);
      runs.push(r);
      // A command doctor has no shell for is not run, and not broken (Windows without Git Bash).
      if (r.notRun !== undefined) notes.push(`${r.file} SessionStart: not run: ${r.notRun}`);
      else if (r.code !== 0) problems.push({ what: `${r.file}: its SessionStart command exited ${r.code ?? "by a signal or timeout"}${r.stderr ? `: ${quotedValue(r.stderr.trim().split("\n")[0]!)}` : ""}`, fix: cmd(`install --agent ${s.agent}${gflag}`) });
    }
    const memory = { verdict, files, archives, paused, git, journal };
    const result = { ok: problems.length === 0, node, helper: helper.abs, agents, runs, notes: [...new Set(notes)], memory, problems };
    if (ctx.values.json) return ok(`${JSON.stringify(result)}\n`);
    // Paths as anchors print them (docs/design.md#redaction): one holding a control character or a refused
    // code point is quoted with octal escapes, so it can neither break a line nor hide text.
    const lines = [`node ${node}`, `helper ${quotePath(helper.abs)}`];
    for (const [name, a] of Object.entries(agents)) {
      // "absent" is about this agent's entries: the file itself may hold another agent's.
      const inst = Object.entries(a.install).map(([f, s]) => `${f} ${s === "absent" ? "not installed" : s}`).join(", ");
      lines.push(`${name}: skill ${a.skill.length > 0 ? a.skill.map(quotePath).join(", ") : "not found"}; ${inst}${a.trust ? `; Codex hook review: ${a.trust}` : ""}`);
    }
    for (const r of runs) {
      // What a hook printed is quoted as every file-controlled value is (docs/design.md#verdicts-and-the-brief):
      // <U+XXXX>, never \u escapes.
      const said = r.stdout.trim() === "" ? "printed nothing" : `printed ${quotedValue(r.stdout.trim().slice(0, 300))}`;
      lines.push(`ran ${r.file} SessionStart (PATH=/usr/bin:/bin): exit ${r.code ?? "none"}, ${said}${r.stderr.trim() ? `; stderr ${quotedValue(r.stderr.trim().slice(0, 300))}` : ""}`);
    }
    for (const n of new Set(notes)) lines.push(`note: ${n}`);
    lines.push(`memory: ${verdict}; ${archives} archive(s); journal: ${journal.files} file(s)${journal.off ? ", off (journal/OFF)" : ""}; ${paused ? `paused (${paused})` : "not paused"}; git: ${git === null ? "not a repository" : `${git.ignored ? "ignored" : "not ignored"}, ${git.tracked ? "tracked" : "untracked"}`}`);
    lines.push(problems.length === 0 ? "ok" : `${problems.length} problem(s):`);
    for (const p of problems) lines.push(`- ${p.what}\n  fix: ${p.fix}`);
    // Hook output, lock owners, journal lines and file names are file-controlled: nothing the
    // report prints holds a raw control or a code point \`write\` refuses (docs/design.md#verdicts-and-the-brief).
    return ok(`${showRefused(lines.join("\n")).text}\n`);
  },
};
