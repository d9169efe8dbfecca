// The scripted model's side of each scenario, written once for every harness: a flow asks a
// harness's `Tools` for the calls it needs, and steps on by the number of tool results since
// the prompt (test/harness/README.md).
import type { ModelRequest, Reply, Script } from "./fake-model.ts";

/** How one harness's model calls its tools. */
export interface Tools {
  hasSkillTool: boolean;
  /** Activates the skill, or null where the harness has no skill tool (then SKILL.md is read with the shell). */
  skill(req: ModelRequest): Reply | null;
  shell(cmd: string, req: ModelRequest): Reply;
  writeFile(absPath: string, content: string, req: ModelRequest): Reply;
  /** A todo list (sub in progress, tests to do), or null where the request offers no plan tool. */
  plan?(req: ModelRequest): Reply | null;
}

/** The skill's absolute folder, from the listing or the skill tool's answer in the request. */
export function skillDir(req: ModelRequest): string | null {
  const t = req.text.replace(/\\\//g, "/");
  const m =
    /Base directory for this skill: ([^\s"\\]+)/.exec(t) ??
    /<name>session-handoff<\/name>[\s\S]*?<location>([^<]*?)\/SKILL\.md<\/location>/.exec(t.replace(/\\n/g, "\n")) ??
    /(\/[^\s"'\\]*?\/session-handoff)\/SKILL\.md/.exec(t);
  if (m?.[1]) return m[1];
  // Codex: `- session-handoff: … (file: r1/session-handoff/SKILL.md)` and a roots table.
  const f = /session-handoff: [^\n]*?\(file: (r\d+)\/([^)\s]*?)\/SKILL\.md\)/.exec(req.text.replace(/\\n/g, "\n"));
  if (f) {
    const root = new RegExp("`?" + f[1] + "`?\\s*(?:=|:|\\|)\\s*`?(/[^`\\s|]+)").exec(req.text.replace(/\\n/g, "\n"));
    if (root?.[1]) return `${root[1]}/${f[2]}`;
  }
  return null;
}

export const helperCmd = (dir: string, args: string) => `node "${dir}/scripts/memory_io.mjs" ${args}`;

/** A reply after the flow's last step: plain text quoting the last result (what a model says). */
const done = (req: ModelRequest, tag: string): Reply => ({
  text: `${tag}\n${(req.results.at(-1) ?? "").slice(0, 1500)}`,
});

/**
 * Step through `steps` by tool-result count; `skill` first when the harness has a skill tool.
 * A step returning null is skipped. After the last step: text.
 */
function stepper(tools: Tools, tag: string, steps: Array<(req: ModelRequest, dir: string) => Reply | null>): Script {
  return (req) => {
    const first = tools.skill(req);
    const offset = first ? 1 : 0;
    // Claude's skill answer is two results (tool_result and the skill's body).
    const extra = req.results.some((r) => /^Base directory for this skill:/.test(r)) ? 1 : 0;
    const n = req.results.length - extra;
    if (first && n === 0 && extra === 0) return first;
    const dir = skillDir(req);
    if (!dir) return { text: `${tag}: FAKE-MODEL found no skill path in the request` };
    const i = n - offset;
    const step = steps[i];
    if (step) {
      const r = step(req, dir);
      if (r) return r;
    }
    return done(req, tag);
  };
}

/** Resume: one shell call of `brief`, then an answer quoting it. */
export function resumeFlow(tools: Tools): Script {
  const steps: Array<(req: ModelRequest, dir: string) => Reply | null> = [];
  // Without a skill tool the model reads SKILL.md with the shell first.
  if (!tools.hasSkillTool) steps.push((req, dir) => tools.shell(`cat "${dir}/SKILL.md"`, req));
  steps.push((req, dir) => tools.shell(helperCmd(dir, "brief"), req));
  return stepper(tools, "FAKE-RESUMED", steps);
}

/**
 * A resume, then the proposed next step's file edited: what the session-end checkpoint measures
 * into the journal's resume entry (docs/decisions/journal.md).
 */
export function resumeWorkFlow(tools: Tools, proj: string): Script {
  const steps: Array<(req: ModelRequest, dir: string) => Reply | null> = [];
  if (!tools.hasSkillTool) steps.push((req, dir) => tools.shell(`cat "${dir}/SKILL.md"`, req));
  steps.push((req, dir) => tools.shell(helperCmd(dir, "brief"), req));
  steps.push((req) => tools.writeFile(`${proj}/src/math.js`, "export const sub = (a, b) => a - b;\n", req));
  return stepper(tools, "FAKE-RESUMED-AND-WORKED", steps);
}

/**
 * The document the save scenario writes: backticks, `$HOME`, `$(…)` and a line `EOF`, all of
 * which must land byte for byte.
 */
export const TRICKY_HANDOFF = `<!-- memory-schema: v1 -->
# Session Handoff

## Current goal
Add a subtract function to \`src/math.js\` without touching $HOME or $(whoami) — TRICKY-MARKER.

## Plan
- [x] Read \`src/math.js\`
- [~] Add subtract: \`node -e "console.log(1)"\` still prints $PATH's first entry
- [ ] Write tests

## Decisions
- [user-directed] Keep plain ES modules: the user said \`no build step\`

## Failed approaches
- Ran \`echo $(date)\` inside the heredoc: the shell expanded it
EOF
- a lone EOF line above must survive, and 'single' "double" quotes too

## Open questions
- none

## Next steps
1. Add subtract to \`src/math.js\` — done when \`node -e\` prints 2

## Key files
- \`src/math.js\` — the module

## Environment anchors
`;

/** The save form SKILL.md shows to the model: the draft file, else the quoted heredoc. */
export function saveForm(skillBody: string): "draft" | "heredoc" {
  return /--from-draft/.test(skillBody) ? "draft" : "heredoc";
}

/**
 * Save: `read handoff` (its token, and the draft path on its `DRAFT:` line), then `write
 * handoff` in the form SKILL.md shows (the skill's text comes from the skill tool's answer, or
 * a shell `cat` of SKILL.md). `proj` is the project root (the draft is under it). A read whose
 * result shows no `DRAFT:` line (a CLI hiding stderr) stops the flow: the save then fails.
 */
export function saveFlow(tools: Tools, proj: string, doc = TRICKY_HANDOFF): Script {
  let form: "draft" | "heredoc" = "heredoc";
  let token = "absent";
  let draft: string | null = null;
  const steps: Array<(req: ModelRequest, dir: string) => Reply | null> = [];
  if (!tools.hasSkillTool) steps.push((req, dir) => tools.shell(`cat "${dir}/SKILL.md"`, req));
  steps.push((req, dir) => {
    form = saveForm(req.text);
    return tools.shell(helperCmd(dir, "read handoff"), req);
  });
  steps.push((req, dir) => {
    token = /CURRENT-SHA256: (\S+)/.exec(req.results.at(-1) ?? "")?.[1] ?? "absent";
    draft = /DRAFT: (\.ai\/memory\/drafts\/handoff-[0-9a-f]{8}\.md)/.exec(req.results.at(-1) ?? "")?.[1] ?? null;
    if (form === "draft" && draft === null) return { text: "FAKE-MODEL: the read showed no DRAFT: line" };
    if (form === "draft") return tools.writeFile(`${proj}/${draft}`, doc, req);
    return tools.shell(
      `${helperCmd(dir, `write handoff --expected-current-sha256 ${token}`)} <<'HANDOFF_END'\n${doc}HANDOFF_END`,
      req,
    );
  });
  steps.push((req, dir) =>
    form === "draft"
      ? tools.shell(helperCmd(dir, `write handoff --from-draft ${draft} --expected-current-sha256 ${token}`), req)
      : null,
  );
  return stepper(tools, "FAKE-SAVED", steps);
}

/**
 * Work: a plan (where the harness offers a plan tool), a failing command, a file written, a passing
 * command, then a claim.
 */
export function workFlow(tools: Tools, proj: string): Script {
  return (req) => {
    const plan = tools.plan?.(req) ?? null;
    const n = req.results.length - (plan ? 1 : 0);
    if (plan && n === -1) return plan;
    if (n === 0) return tools.shell("exit 7", req);
    if (n === 1) return tools.writeFile(`${proj}/src/sub.js`, "export const sub = (a, b) => a - b;\n", req);
    if (n === 2) return tools.shell(`node -e "console.log('WORK-OK')"`, req);
    return { text: "FAKE-WORK-DONE: I added src/sub.js; I believe it works." };
  };
}

/** Plain text for every request: "thanks" turns and compaction follow-ups. */
export const chat =
  (text: string): Script =>
  () => ({ text });
