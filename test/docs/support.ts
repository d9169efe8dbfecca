// Shared helpers for the checks on the skill's own text (skill.md, "Checks the project runs on
// its own bundle"): where the bundle's Markdown lives, a strict v1 handoff checker, and the
// extraction of the helper commands the text tells agents to run.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadedFiles, parseFlows } from "../../bench/agent-flow.mjs";

/** The repository root, which is the skill folder. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The skill's name; installers name the folder, so a clone in any folder must pass. */
export const SKILL_NAME = "session-handoff";

/** Reads a file of the bundle by its path relative to the repository root. */
export function readDoc(rel: string): string {
  return readFileSync(path.join(REPO, rel), "utf8");
}

// Not part of what an installer copies as the skill's text, or not ours to check.
const SKIP_DIRS = new Set(["node_modules", ".git", "test", "coverage", "bench"]);

/** Every `.md` file of the bundle, relative to the root, sorted. */
export function bundleMarkdown(): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(REPO, rel), { withFileTypes: true })) {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith(".")) walk(child);
      } else if (entry.isFile() && entry.name.endsWith(".md")) {
        out.push(child);
      }
    }
  };
  walk("");
  return out.sort();
}

/** The save and resume flows as SKILL.md writes them (bench/agent-flow.mjs reads them). */
export const FLOWS = parseFlows(readDoc("SKILL.md"));
/** The files an agent loads in each flow, SKILL.md first, counted from SKILL.md itself. */
export const SAVE_FLOW = loadedFiles(FLOWS, "save");
export const RESUME_FLOW = loadedFiles(FLOWS, "resume");

// ---------------------------------------------------------------------------------------------
// Schema v1 of HANDOFF.md, checked strictly enough to catch a broken template.

export const MARKER = "<!-- memory-schema: v1 -->";

/** The handoff's sections in order (references/handoff-schema.md); `optional` ones may be left out. */
export const SECTIONS: { name: string; optional: boolean }[] = [
  { name: "Current goal", optional: false },
  { name: "Scope", optional: true },
  { name: "Plan", optional: false },
  { name: "Verification", optional: true },
  { name: "Decisions", optional: false },
  { name: "Failed approaches", optional: false },
  { name: "Open questions", optional: false },
  { name: "Next steps", optional: false },
  { name: "Key files", optional: false },
  { name: "Environment anchors", optional: false },
];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const PLACEHOLDER = /^<[^<>]+>$/;
const LABELS = ["[user-directed]", "[user-approved]", "[agent-proposed]"];

/** True for a strict ISO-8601 time with a zone that names a real instant. */
export function isIsoWithZone(value: string): boolean {
  return ISO.test(value) && !Number.isNaN(Date.parse(value));
}

/**
 * Checks a handoff against schema v1 and returns the problems found (empty when valid).
 * With `placeholders`, a value may be an angle-bracket placeholder (the template's skeleton).
 * With `helperFills` (write stamps and fills them: docs/design.md#the-handoff), `Saved:` may be
 * missing and the anchors section empty or one placeholder line: what an agent sends for `write`
 * to fill in.
 */
export function handoffProblems(text: string, opts: { placeholders: boolean; helperFills?: boolean }): string[] {
  const problems: string[] = [];
  const value = (v: string, ok: (s: string) => boolean): boolean => ok(v) || (opts.placeholders && PLACEHOLDER.test(v));
  if (!text.endsWith("\n")) problems.push("does not end with a newline");
  const lines = text.replace(/\n$/, "").split("\n");
  if (lines.length > 150) problems.push(`${lines.length} lines, over the 150-line cap`);
  if (lines[0] !== MARKER) problems.push(`first line is not the marker: ${JSON.stringify(lines[0])}`);
  if (!lines.slice(0, 4).includes("# Session Handoff")) problems.push("no `# Session Handoff` in the first four lines");
  const firstSection = lines.findIndex((l) => l.startsWith("## "));
  const saved = lines.slice(0, firstSection < 0 ? lines.length : firstSection).find((l) => l.startsWith("Saved: "));
  if (saved === undefined) {
    if (!opts.helperFills) problems.push("no `Saved:` line before the first section");
  }
  else if (!value(saved.slice("Saved: ".length), isIsoWithZone)) problems.push(`malformed ${saved}`);

  // Sections: the headings, in order, with the body lines of each.
  const bodies = new Map<string, string[]>();
  const order: string[] = [];
  let current: string[] | null = null;
  for (const line of lines) {
    if (line.startsWith("## ")) {
      const name = line.slice(3);
      if (bodies.has(name)) problems.push(`section ${name} appears twice`);
      current = [];
      bodies.set(name, current);
      order.push(name);
    } else if (current !== null && line.trim() !== "") {
      current.push(line);
    }
  }
  const known = SECTIONS.map((s) => s.name);
  for (const name of order) if (!known.includes(name)) problems.push(`unknown section ## ${name}`);
  const expected = SECTIONS.filter((s) => !s.optional || order.includes(s.name)).map((s) => s.name);
  if (order.filter((n) => known.includes(n)).join("|") !== expected.join("|")) {
    problems.push(`sections out of order or missing: got ${order.join(", ")}`);
  }

  for (const line of bodies.get("Plan") ?? []) {
    if (opts.placeholders && PLACEHOLDER.test(line)) continue;
    // `- [-] <step> — dropped: <why>` closes a step on purpose; sub-steps nest.
    if (!/^\s*- \[[x~ ]\] \S/.test(line) && !/^\s*- \[-\] \S.* — dropped: \S/.test(line)) problems.push(`plan line without a status box: ${line}`);
  }
  for (const line of bodies.get("Decisions") ?? []) {
    if (line.startsWith("- ") && line !== "- none" && !LABELS.some((l) => line.includes(l))) {
      problems.push(`decision without a provenance label: ${line}`);
    }
  }
  for (const line of bodies.get("Failed approaches") ?? []) {
    if (line.startsWith("- ") && line !== "- none" && !/: | — /.test(line)) problems.push(`failed approach without its cause: ${line}`);
  }
  for (const line of bodies.get("Key files") ?? []) {
    if (line !== "- none" && !/^- (`[^`]+`|\S+) — \S/.test(line)) problems.push(`key file line not \`- <path> — <why>\`: ${line}`);
  }

  const anchors = bodies.get("Environment anchors") ?? [];
  // blank, `- none` or a placeholder is an empty section, which write fills.
  if (opts.helperFills && anchors.every((l) => l === "- none" || PLACEHOLDER.test(l))) return problems;
  const rules: [string, (v: string) => boolean][] = [
    ["- Branch: ", (v) => v.trim() !== "" && v === v.trim()],
    ["- HEAD: ", (v) => /^([0-9a-f]{40}|[0-9a-f]{64})$/.test(v)],
    ["- Dirty files: ", (v) => v.trim() !== "" && v === v.trim()],
    ["- Date: ", isIsoWithZone],
  ];
  if (anchors.length !== rules.length) problems.push(`anchors: ${anchors.length} lines, want ${rules.length}`);
  rules.forEach(([prefix, ok], i) => {
    const line = anchors[i] ?? "";
    if (!line.startsWith(prefix) || !value(line.slice(prefix.length), ok)) {
      problems.push(`anchor line ${i + 1} is not \`${prefix}<value>\`: ${JSON.stringify(line)}`);
    }
  });
  return problems;
}

/** The template (the fill-in skeleton) and the worked example's document, kept apart so a save reads only the first. */
export function templateParts(): { skeleton: string; example: string } {
  const skeleton = readDoc("templates/handoff.md");
  const fence = /^```markdown\n([\s\S]*?)^```$/m.exec(readDoc("references/handoff-example.md"));
  if (!fence?.[1]) throw new Error("references/handoff-example.md has no ```markdown block");
  return { skeleton, example: fence[1] };
}

/** The contents of every ```<lang> block in a Markdown text. */
export function fencedBlocks(text: string, lang: string): string[] {
  const re = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm");
  return [...text.matchAll(re)].map((m) => m[1] ?? "");
}

// ---------------------------------------------------------------------------------------------
// Helper commands written in the docs.

/** How the docs invoke the helper; everything after it up to a backtick or line end is its arguments. */
export const INVOCATION = 'node "<skill-dir>/scripts/memory_io.mjs"';

/** One helper command as written in a doc. */
export interface DocCommand {
  /** The command exactly as written, placeholders included. */
  text: string;
  /** Where it was first seen, `file:line`. */
  where: string;
  /** The arguments after the script path, split on spaces (for choosing a scenario only). */
  words: string[];
}

/** Extracts every distinct helper command from the given docs. */
export function docCommands(files: string[]): DocCommand[] {
  const seen = new Map<string, DocCommand>();
  const re = new RegExp(`${INVOCATION.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^\`\\n]*`, "g");
  for (const file of files) {
    readDoc(file)
      .split("\n")
      .forEach((line, i) => {
        for (const m of line.matchAll(re)) {
          // A heredoc's body is the document on stdin, which the tests supply themselves.
          const text = m[0].trimEnd().replace(/\s*<<-?\s*'?[A-Za-z_]+'?$/, "");
          if (seen.has(text)) continue;
          const words = text.slice(INVOCATION.length).trim().split(/\s+/).filter((w) => w !== "");
          seen.set(text, { text, where: `${file}:${i + 1}`, words });
        }
      });
  }
  return [...seen.values()];
}
