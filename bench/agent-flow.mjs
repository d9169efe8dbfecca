// The agent's side of the skill, read from SKILL.md itself (docs/decisions/skill-flows.md): what an agent that
// follows the save and resume flows literally must load and run. Pure functions over the
// text; bench/run.mjs replays the result and test/bench/agent-flow.test.ts pins it.
//
// How SKILL.md is read, so that the docs stay the single source:
// - A flow is a `## ` section whose heading starts with "Resume" or "Save".
// - Each ```sh fence in it is one helper call (a heredoc is part of its call).
// - A relative link to a .md file is a file the agent loads, when the sentence holding it is
//   unconditional; a sentence with if / when / only / unless / otherwise is a branch, and its
//   files and inline commands are listed apart (not part of the flow's cost).
// - A `.ai/memory/drafts/<kind>.md` path in backticks, in an unconditional sentence, is a file
//   the agent writes with its own file tool before the call that takes it (`--from-draft`):
//   listed as the flow's drafts, not a helper call (docs/decisions/save-form.md). A `DRAFT:`
//   in backticks is the draft the previous call named on that line (docs/decisions/drafts.md),
//   listed as "DRAFT:".
// - SKILL.md itself is always loaded first (the harness loads it on activation).

/** Targets (docs/decisions/skill-flows.md): helper calls and bytes loaded (SKILL.md included) per flow. */
export const AGENT_FLOW_TARGETS = {
  resume: { calls: 1, bytes: 9_000 },
  save: { calls: 2, bytes: 7_500 },
};

const CONDITIONAL = /\b(if|when|whenever|only|unless|otherwise)\b/i;
const LINK = /\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g;
const INVOCATION = 'node "<skill-dir>/scripts/memory_io.mjs"';

/** The `## ` sections of a Markdown text: [{ heading, body }] (fences respected). */
function sections(text) {
  const out = [{ heading: "", lines: [] }];
  let inFence = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const h = !inFence && /^##\s+(.*)$/.exec(line);
    if (h) out.push({ heading: h[1].trim(), lines: [] });
    else out[out.length - 1].lines.push(line);
  }
  return out.map((s) => ({ heading: s.heading, body: s.lines.join("\n") }));
}

/** Splits prose into sentences (a link's URL never holds the spaces that end one). */
function sentences(prose) {
  return prose
    .split(/\n\s*\n|\n(?=\s*(?:\d+\.|[-*])\s)/)
    .flatMap((para) => para.replace(/\s*\n\s*/g, " ").split(/(?<=[.!?])\s+(?=[A-Z`[(])/))
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Reads one flow section: its calls (the ```sh fences, in order), the files its unconditional
 * sentences link, and the branches (files and inline helper commands of conditional ones).
 */
function readFlow(heading, body) {
  const calls = [];
  const prose = body.replace(/^\s*```(\w*)\n([\s\S]*?)^\s*```\s*$/gm, (_m, lang, code) => {
    if (lang === "sh") calls.push(code.replace(/\n$/, ""));
    return "\n\n";
  });
  const files = [];
  const branchFiles = [];
  const branchCommands = [];
  const drafts = [];
  for (const sentence of sentences(prose)) {
    const conditional = CONDITIONAL.test(sentence.replace(/`[^`]*`|\[[^\]]*\]\([^)]*\)/g, ""));
    if (!conditional) for (const m of sentence.matchAll(/`(\.ai\/memory\/drafts\/[a-z]+\.md|DRAFT:)`/g)) if (!drafts.includes(m[1])) drafts.push(m[1]);
    for (const m of sentence.matchAll(LINK)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target)) continue;
      const list = conditional ? branchFiles : files;
      if (!list.includes(target)) list.push(target);
    }
    if (conditional) {
      for (const m of sentence.matchAll(/`([^`]+)`/g)) {
        const code = m[1];
        if (code.startsWith(INVOCATION) || /^(read|write|brief|drift|archives|check|recover|validate) [a-z-]+/.test(code)) {
          if (!branchCommands.includes(code)) branchCommands.push(code);
        }
      }
    }
  }
  return { heading, calls, files: files.filter((f) => !branchFiles.includes(f) || files.includes(f)), branchFiles: branchFiles.filter((f) => !files.includes(f)), branchCommands, drafts };
}

/**
 * The resume and save flows of a SKILL.md text.
 * @returns {{ resume: Flow, save: Flow, shared: string[] }} where Flow is { heading, calls:
 *   string[], files: string[], branchFiles: string[], branchCommands: string[], drafts:
 *   string[] (paths under the project root the agent writes with its file tool) } and
 *   `shared` lists the files linked unconditionally before the first `## ` section.
 * @throws Error when either flow section is missing.
 */
export function parseFlows(skillText) {
  const all = sections(skillText.replace(/^---\n[\s\S]*?\n---\n/, ""));
  const find = (re) => {
    const s = all.find((x) => re.test(x.heading));
    if (!s) throw new Error(`SKILL.md has no "## ${re.source.replace(/[\^\\b]/g, "")}…" section`);
    return readFlow(s.heading, s.body);
  };
  const intro = readFlow("", all[0]?.body ?? "");
  return { resume: find(/^Resume\b/i), save: find(/^Save\b/i), shared: intro.files };
}

/** The files a flow loads, in order, SKILL.md first. */
export function loadedFiles(flows, which) {
  return [...new Set(["SKILL.md", ...flows.shared, ...flows[which].files])];
}
