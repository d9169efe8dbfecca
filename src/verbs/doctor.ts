import path from "node:path";
import { quotedValue, quotePath } from "../guard/quote.ts";
import { AGENTS } from "../agents/index.ts";
import type { Agent, AgentName } from "../agents/types.ts";
import { agentInstalls, claudeHooksOff, memoryState, pluginInstalls, type Report } from "../agents/doctor-checks.ts";
import { journalHealth } from "../journal/store.ts";
import { showRefused } from "../guard/invisible.ts";
import { helperLocation } from "../agents/target.ts";
import { CANONICAL } from "../agents/skill-place.ts";
import { readFileSync } from "../builtins.ts";
import { orNull } from "../store/files.ts";
import { homeFolder } from "../store/home.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { ok, type Verb, type VerbContext } from "./types.ts";
import { Refused } from "../errors.ts";

export const doctorVerb: Verb = {
  options: { root: { type: "string" }, json: { type: "boolean" }, global: { type: "boolean" } },
  help: `usage: node memory_io.mjs doctor [--root DIR | --global] [--json]

A read-only health report: Node; per agent, its skill folders and whether each
hook or block is "not installed", "current", "outdated" (with why), "not
loaded" (a comment or trailing comma in a file Claude Code or Codex skips
whole) or "unreadable"; each installed SessionStart command run as a harness
would; the memory dir. Each problem comes with the command that fixes it.
Changes nothing. Every line it can print: references/verbs/doctor.md.

options:
  --global    the per-user files (runs from the home folder too)
  --json      one object {"ok", "node", "helper", "agents", "runs", "notes",
              "memory", "problems": [{"what", "fix"}]}
  --root DIR  the project root
${ROOT_HELP}
stdout: the report, or the JSON object.
exit:   always 0 -- problems are in the output, and "ok": false in the JSON.
`,
  async run(ctx) {
    const home = homeFolder(ctx.env);
    const global = ctx.values.global === true;
    let root: string;
    try {
      root = rootOption(ctx);
    } catch (err) {
      // --global works from the home folder too, where cmd and PowerShell start.
      if (!global || typeof ctx.values.root === "string" || !(err instanceof Refused) || home === "") throw err;
      root = path.resolve(home);
    }
    const helper = judgedHelper(ctx, root, global);
    const r: Report = { root, home, global, helper, env: ctx.env, agents: {}, runs: [], problems: [], notes: [] };
    const node = process.versions.node;
    if (Number(node.split(".")[0]) < 20) {
      r.problems.push({ what: `Node ${node} is older than 20`, fix: "install Node.js 20 or newer" });
    }
    for (const [name, agent] of Object.entries(AGENTS) as [AgentName, Agent][]) await agentInstalls(r, name, agent);
    pluginInstalls(r);
    claudeHooksOff(r);
    const memory = await memoryState(r, journalHealth(root));
    const { agents, runs, problems } = r;
    const notes = [...new Set(r.notes)];
    const result = { ok: problems.length === 0, node, helper: helper.abs, agents, runs, notes, memory, problems };
    return ok(`${ctx.values.json ? JSON.stringify(result) : reportText(r, notes, memory)}\n`);
  },
};

// The project's hooks run init's copy: doctor judges them, and fixes them, from it when it has the same bytes.
function judgedHelper(ctx: VerbContext, root: string, global: boolean) {
  const running = helperLocation(ctx, root);
  const copy = path.join(root, CANONICAL, "scripts", "memory_io.mjs");
  const bytes = (main: string) => orNull(() => ["memory_io.mjs", "lib/cli.mjs", "lib/session.mjs"]
    .map((f) => readFileSync(path.join(path.dirname(main), f)).toString("base64")).join("/"));
  const same = bytes(copy);
  if (global || running.rel !== null || same === null || same !== bytes(running.abs)) return running;
  return helperLocation({ cwd: ctx.cwd, helperPath: copy }, root);
}

/** The report as text: paths quoted as anchors print them, and nothing raw a file put there. */
function reportText(r: Report, notes: string[], memory: Awaited<ReturnType<typeof memoryState>>): string {
  const { agents, runs, problems } = r;
  const lines = [`node ${process.versions.node}`, `helper ${quotePath(r.helper.abs)}`];
  for (const [name, a] of Object.entries(agents)) {
    // "absent" is about this agent's entries: the file itself may hold another agent's.
    const inst = Object.entries(a.install).map(([f, s]) => `${f} ${s === "absent" ? "not installed" : s}`).join(", ");
    const skill = a.skill.length > 0 ? a.skill.map(quotePath).join(", ") : "not found";
    lines.push(`${name}: skill ${skill}; ${inst}${a.trust ? `; Codex hook review: ${a.trust}` : ""}`);
  }
  for (const run of runs) {
    const out = run.stdout.trim();
    const said = out === "" ? "printed nothing" : `printed ${quotedValue(out.slice(0, 300))}`;
    const stderr = run.stderr.trim() ? `; stderr ${quotedValue(run.stderr.trim().slice(0, 300))}` : "";
    lines.push(`ran ${run.file} SessionStart (PATH=/usr/bin:/bin): exit ${run.code ?? "none"}, ${said}${stderr}`);
  }
  for (const n of notes) lines.push(`note: ${n}`);
  const { verdict, archives, journal, paused, git } = memory;
  const state = (g: { ignored: boolean; tracked: boolean }) =>
    `${g.ignored ? "ignored" : "not ignored"}, ${g.tracked ? "tracked" : "untracked"}`;
  const gitWords = git === null ? "not a repository" : typeof git === "string" ? git : state(git);
  const journalWords = `journal: ${journal.files} file(s)${journal.off ? ", off (journal/OFF)" : ""}`;
  const pausedWords = paused ? `paused (${paused})` : "not paused";
  lines.push(`memory: ${verdict}; ${archives} archive(s); ${journalWords}; ${pausedWords}; git: ${gitWords}`);
  lines.push(problems.length === 0 ? "ok" : `${problems.length} problem(s):`);
  for (const p of problems) lines.push(`- ${p.what}\n  fix: ${p.fix}`);
  // Hook output, lock owners, journal lines and file names are file-controlled: no raw control reaches the screen.
  return showRefused(lines.join("\n")).text;
}
