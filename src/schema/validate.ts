// `validate handoff` (docs/design.md#files-on-disk): the schema's errors, the quality score
// with its parts, the findings, and the open items dropped since the previous handoff, as two
// tables: HANDOFF_RULES (id, severity, the part it lowers, the check and its messages) and
// HANDOFF_PARTS (each part's weight and its score). Pure: text in, a plain result out; never
// throws on content. What the handoff says (its `Saved:`, sections, items and anchors) comes
// from the one parsed model, `readHandoff` (docs/design.md#verdicts-and-the-brief), so validate
// never reads a value differently from hook, drift or brief; the layout (the title's line, the
// anchors section's lines, headings as written) only places and words the messages.
import { stateTime } from "./state-time.ts";
import { redactText } from "../guard/redaction.ts";
import type { RedactionFinding } from "../guard/redact.ts";
import { parseBlocks, type Block } from "./grammar.ts";
import { normaliseText, readHandoff, type HandoffHeading, type KeyFile, type ParsedHandoff } from "./handoff.ts";
import { droppedItems, type OpenItem } from "./open-items.ts";
import { isEmptyAnchorsBody, readAnchorLine, type AnchorLabel, type AnchorLine } from "./validate-anchors.ts";
import {
  editDistance,
  lineAt,
  lineStartsOf,
  proportion,
  QUOTE_CUT,
  runRules,
  TEXT_RULES,
  lineMaps,
  onOriginalLines,
  type DocumentText,
  type Hit,
  type PartRule,
  type Rule,
  type Validation,
} from "./validate-common.ts";
import { quoted } from "../guard/sanitize.ts";
import { quotedPath } from "./anchor-lines.ts";
import { isNullObjectId } from "./values.ts";

/** The handoff's sections (docs/design.md#files-on-disk) in order; `optional` ones may be left out. */
export const HANDOFF_SECTIONS: readonly { name: string; optional: boolean }[] = [
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

/** Most lines a handoff should have (more is a finding; docs/design.md#files-on-disk). */
export const HANDOFF_LINE_CAP = 150;

const MARKER = "<!-- memory-schema: v1 -->";
const TITLE = "# Session Handoff";
const LABELS = ["[user-directed]", "[user-approved]", "[agent-proposed]"];

/** How `validate` was asked: a missing or malformed `Saved:` is a finding on stdin, an error on disk. */
export interface HandoffValidateOptions {
  mode: "stdin" | "root";
  /** Now, in ms since the epoch (a `Saved:` or `- Date:` more than 5 minutes ahead is a finding). */
  nowMs: number;
  /** The previous handoff's text, for the dropped items (none when null or absent). */
  prior?: string | null;
  /** Key file paths (root-relative, normalised) that exist; null or absent: not checked. */
  existingKeyFiles?: ReadonlySet<string> | null;
  /** Secrets already found (by `write`'s redaction); absent: found here with `redactText`. */
  secrets?: readonly RedactionFinding[];
  /** The text `secrets` redact to; with it no second pass is made. */
  redactedText?: string;
}

/** A level-1/2 section of the handoff's layout: its heading and the lines of its body (1-based, end exclusive). */
interface Section {
  title: string;
  key: string;
  depth: number;
  line: number;
  bodyStart: number;
  bodyEnd: number;
  blocks: Block[];
}

/** A handoff read into lines, its preamble and its sections: where things are, for messages and for `write`'s edits. */
export interface HandoffLayout {
  text: string;
  lines: string[];
  /** Index (0-based) of the `# Session Handoff` line among the first four, or -1. */
  titleIndex: number;
  /** Index (0-based) of the first `Saved:` line of the preamble, outside code, or -1. */
  savedIndex: number;
  sections: Section[];
  /** Every heading of any depth outside code, with its 1-based line. */
  headings: { depth: number; title: string; line: number; raw: string }[];
}

function headingTitle(raw: string): string {
  return raw.replace(/^#+\s*/, "").replace(/\s+#+\s*$/, "").replace(/^#+$/, "").trim();
}

/**
 * Reads the layout of LF-normalised handoff text: the title line, the preamble's `Saved:`
 * line and the level-1/2 sections (a level-3+ heading stays inside its section). Headings
 * inside code blocks, HTML comments or list items are not section headings.
 * @param tree `parseBlocks(text)` when the caller has it (scanned once).
 */
export function handoffLayout(text: string, tree: Block = parseBlocks(text)): HandoffLayout {
  const lines = text.split("\n");
  const starts = lineStartsOf(text);
  const titleIndex = lines.slice(0, 4).indexOf(TITLE);
  const sections: Section[] = [];
  const headings: HandoffLayout["headings"] = [];
  let savedIndex = -1;
  let current: Section | null = null;
  const endLine = lines.length + 1;
  for (const block of tree.children) {
    const line = lineAt(starts, block.start);
    if (block.type === "heading") {
      const raw = text.slice(block.start, block.end);
      const title = headingTitle(raw);
      headings.push({ depth: block.depth ?? 1, title, line, raw });
      const isTitle = block.depth === 1 && line - 1 === titleIndex;
      if (!isTitle && (block.depth ?? 1) <= 2) {
        if (current) current.bodyEnd = line;
        current = { title, key: title.toLowerCase(), depth: block.depth ?? 1, line, bodyStart: line + 1, bodyEnd: endLine, blocks: [] };
        sections.push(current);
        continue;
      }
    }
    if (current) {
      current.blocks.push(block);
      continue;
    }
    if (savedIndex < 0 && block.type === "paragraph") {
      const para = text.slice(block.start, block.end).split("\n");
      const at = para.findIndex((l) => /^Saved:/.test(l.trim()));
      if (at >= 0) savedIndex = line - 1 + at;
    }
  }
  return { text, lines, titleIndex, savedIndex, sections, headings };
}

/** The body lines (0-based [start, end)) of the first `## Environment anchors` section, or null. */
export function anchorsRange(layout: HandoffLayout): { start: number; end: number } | null {
  const s = layout.sections.find((x) => x.depth === 2 && x.key === "environment anchors");
  if (!s) return null;
  // A trailing blank line belongs to the file, not to the section.
  let end = Math.min(s.bodyEnd - 1, layout.lines.length);
  while (end > s.bodyStart - 1 && (layout.lines[end - 1] ?? "").trim() === "") end--;
  return { start: s.bodyStart - 1, end };
}

const NONE = /^(none|none recorded|n\/a)\.?$/i;
const CAUSE = /:\s+\S|\s[—–-]\s+\S|\bbecause\b|\bso\b.+\bfailed\b/i;
const CONCRETE = /`[^`]+`|[\w.-]*\/[\w./-]+|\b[\w-]+\.[A-Za-z]{1,6}\b|\b(tests?|check|lint|build|typecheck|benchmark|bench|CI|npm|git|make|run)\b/i;
const ACCEPTANCE = /\b(done when|accepted? when|acceptance( criteria)?:|passes when)\b/i;
const VERIFIED = /^[^:]+:\s*\S.*\s(?:->|→)\s*\S.*\s@\s*\S+/;
const NOT_RUN = /^[^:]+:\s*not run\b\s*[,:;—–-]?\s*\S/i;
const ACCEPTED = /^Accepted:\s*\S/i;
const PLAN_BOX = /^\[([ xX~-])\]\s+\S/;
const FULL_HEAD = /^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;

function suggestFor(title: string, names: readonly string[]): string | null {
  const t = title.toLowerCase();
  let best: string | null = null;
  let bestD = Infinity;
  for (const n of names) {
    const d = editDistance(t, n.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = n;
    }
  }
  if (best === null) return null;
  return bestD <= Math.max(2, Math.floor(best.length / 4)) ? best : null;
}

function unticked(value: string): string {
  return value.trim().replace(/^`(.*)`$/, "$1");
}

/** An item of a section, its text trimmed; `none`-style items left out. */
interface Entry {
  text: string;
  line: number;
}

/** A heading that is not a section of schema v1: a look-alike of a missing section, or of any. */
interface Candidate {
  title: string;
  line: number;
  raw: string;
  depth: number;
}

/** A level-2 heading of a schema v1 section: its index in `HANDOFF_SECTIONS`, its name, its lower-case key. */
interface SectionHeading {
  heading: HandoffHeading;
  index: number;
  name: string;
  key: string;
}

/** One anchors-section line checked against the grammar of `anchors` (docs/design.md#files-on-disk). */
interface AnchorGrammar {
  line: number;
  got: AnchorLine;
  /** True when its label came before (an error). */
  repeated: boolean;
}

/**
 * Everything the rules read, built once per document: the options, the normalised text, its
 * layout (positions only) and the model (values), and the facts more than one rule needs.
 */
export interface HandoffContext extends DocumentText {
  opts: HandoffValidateOptions;
  layout: HandoffLayout;
  model: ParsedHandoff;
  /** The marker and the title are there: a text that is no v1 handoff gets its shape errors only. */
  shaped: boolean;
  /** The level-2 headings that name a section of schema v1, in document order. */
  sections: SectionHeading[];
  /** The first level-2 heading of each section of schema v1, by lower-case name. */
  first: Map<string, HandoffHeading>;
  /** Repeated required sections, sections out of order, and (when shaped) missing ones. */
  sectionErrors: number;
  /** Each missing required section (when shaped) with the heading that looks like it, if one does. */
  missing: { name: string; look: Candidate | null }[];
  /** Headings that are not sections of schema v1 and name no missing one. */
  strays: Candidate[];
  /** The section's items (their texts are the model's), `none` left out. */
  items(name: string): Entry[];
  /** The anchors section's lines as `anchors`' grammar reads them; null when absent, or empty on stdin. */
  anchorLines: AnchorGrammar[] | null;
  /** On stdin, the anchors section is empty (docs/design.md#files-on-disk): write fills it. */
  anchorsEmpty: boolean;
  /** The anchors section's heading. */
  anchorsAt: HandoffHeading | undefined;
  /** With a git anchor line (Branch, HEAD, Dirty files, In progress): the git form of the anchors. */
  gitForm: boolean;
  /** Anchor labels the form needs that the model lacks. */
  lackingAnchors: AnchorLabel[];
  /** The `Saved:` value fits its form and is not in the future. */
  savedOk: boolean;
  /** The key files (the model's), each with its line. */
  keyFiles: (KeyFile & { line: number })[];
  secrets: readonly RedactionFinding[];
  /** Open items of `opts.prior` this one neither carries over nor closes; null without a prior. */
  dropped: OpenItem[] | null;
}

/** A rule of the handoff's table. */
export type HandoffRule = Rule<HandoffContext, HandoffPart>;

/** A part of the handoff's score. */
export type HandoffPartRule = PartRule<HandoffContext, HandoffPart>;

/** The score's parts, in the order the result lists them. */
export type HandoffPart = "sections" | "saved" | "anchors" | "failed" | "decisions" | "nextSteps" | "nextAction" | "keyFiles" | "verification" | "size" | "secrets" | "dropped";

const at = (line: number, message: string, severity?: "error" | "finding"): Hit => (severity === undefined ? { line, message } : { line, message, severity });
const SECTION_ORDER = HANDOFF_SECTIONS.map((s) => `## ${s.name}`).join(", ");

/**
 * The rules, in the order their issues are listed when two fall on one line. Errors are
 * exactly: marker, heading, newline, conflicted, saved (on disk), section-repeated (a required
 * section), section-order, section-missing and anchor-line; everything else is a finding.
 */
export const HANDOFF_RULES: readonly HandoffRule[] = [
  TEXT_RULES.bom,
  TEXT_RULES.crlf,
  {
    id: "marker",
    severity: "error",
    part: "sections",
    checks: `the first line is ${MARKER}`,
    check: (c) => {
      if (c.lines[0] === MARKER) return [];
      const seen = /^<!--\s*memory-schema:\s*(\S+)\s*-->$/.exec(c.lines[0]?.trim() ?? "");
      return [
        at(
          1,
          seen
            ? `the marker says schema ${quoted(seen[1]!, QUOTE_CUT)}; this helper reads v1 only: the document must begin with the line ${MARKER}`
            : `the document must begin with the line ${MARKER}; start from templates/handoff.md`,
        ),
      ];
    },
  },
  {
    id: "heading",
    severity: "error",
    part: "sections",
    checks: `"${TITLE}" is one of the first four lines`,
    check: (c) => (c.layout.titleIndex < 0 ? [at(1, `the document must have the heading "${TITLE}" in its first four lines`)] : []),
  },
  TEXT_RULES.newline,
  TEXT_RULES.conflicted,
  TEXT_RULES.markdown,
  {
    // docs/design.md#files-on-disk: an error on disk, a finding on stdin (write stamps it).
    id: "saved",
    severity: "error or finding",
    part: "saved",
    checks: "`Saved:` after the title, an ISO-8601 time with a zone, not in the future",
    check: (c) => {
      const { saved, savedLine } = c.model;
      const form = c.opts.mode === "root" && c.shaped ? "error" : "finding";
      if (saved === null || savedLine === null) return [at(Math.max(1, c.layout.titleIndex + 2), "no `Saved: <ISO-8601 with Z or offset>` line after the title (write stamps it)", form)];
      const st = stateTime(null, saved, c.opts.nowMs);
      if (st.known) return [];
      const value = unticked(saved);
      if (st.reason === "future") return [at(savedLine, `Saved: ${quoted(value, QUOTE_CUT)} is in the future`, "finding")];
      return [at(savedLine, `Saved: ${quoted(value, QUOTE_CUT)} is not an ISO-8601 time with a zone (write stamps it)`, form)];
    },
  },
  {
    id: "heading-case",
    severity: "finding",
    part: null,
    checks: "a section heading written as the schema writes it",
    check: (c) => {
      const out: Hit[] = [];
      for (const h of c.model.headings) {
        const name = h.depth === 2 ? sectionName(h.title) : undefined;
        if (name !== undefined && h.title !== name) out.push(at(h.line, `write the heading as \`## ${name}\``));
      }
      return out;
    },
  },
  {
    // docs/design.md#files-on-disk: a required section appears once; an optional one repeated is a finding.
    id: "section-repeated",
    severity: "error or finding",
    part: "sections",
    checks: "a section appears once",
    check: (c) =>
      c.sections
        .filter((h) => c.first.get(h.key) !== h.heading)
        .map(({ heading, index, name }) =>
          at(heading.line, `\`## ${name}\` appears again (first at line ${c.first.get(heading.title.toLowerCase())!.line}); merge the two`, HANDOFF_SECTIONS[index]!.optional ? "finding" : "error"),
        ),
  },
  {
    id: "section-order",
    severity: "error",
    part: "sections",
    checks: "sections come in the schema's order",
    check: (c) => {
      const out: Hit[] = [];
      let highest = -1;
      let highestName = "";
      for (const { heading, index, name, key } of c.sections) {
        if (c.first.get(key) !== heading) continue;
        if (index < highest) out.push(at(heading.line, `\`## ${name}\` comes after \`## ${highestName}\`; the order is ${SECTION_ORDER}`));
        else {
          highest = index;
          highestName = name;
        }
      }
      return out;
    },
  },
  {
    id: "section-missing",
    severity: "error",
    part: "sections",
    checks: "every required section is there (a heading like a missing one names it)",
    check: (c) =>
      c.missing.map(({ name, look }) => {
        if (look) return at(look.line, `${quoted(look.raw.trim(), QUOTE_CUT)} is not a section heading of schema v1 and \`## ${name}\` is missing: did you mean \`## ${name}\`?`);
        const index = sectionIndex(name)!;
        const next = c.model.headings.find((h) => h.depth === 2 && (sectionIndex(h.title) ?? -1) > index);
        return at(next ? next.line : c.lines.length, `required section \`## ${name}\` is missing; keep its heading, with \`- none\` when there is nothing to say`);
      }),
  },
  {
    id: "unknown-section",
    severity: "finding",
    part: null,
    checks: "a level-1 or level-2 heading that is no section of schema v1, or any heading that resembles one",
    check: (c) =>
      c.strays.map((s) => {
        const near = suggestFor(s.title, SECTION_NAMES);
        return at(s.line, near ? `${quoted(s.raw.trim(), QUOTE_CUT)} is not a section of schema v1: did you mean \`## ${near}\`?` : `${quoted(s.raw.trim(), QUOTE_CUT)} is not a section of schema v1; nothing reads it`);
      }),
  },
  {
    id: "anchors-empty",
    severity: "finding",
    part: null,
    checks: "on stdin, an empty anchors section (write fills it)",
    check: (c) => (c.anchorsEmpty ? [at(c.anchorsAt!.line, "the anchors section is empty; write fills it with what `anchors` prints")] : []),
  },
  {
    // docs/design.md#files-on-disk: every line `anchors` prints, and nothing else; once each.
    id: "anchor-line",
    severity: "error",
    part: "anchors",
    checks: "each anchors line is one `anchors` prints, each label once",
    check: (c) =>
      (c.anchorLines ?? []).flatMap((a) => {
        if (a.repeated && !("error" in a.got)) return [at(a.line, `\`- ${a.got.label}:\` appears twice`)];
        return "error" in a.got && a.got.unknownLabel === undefined ? [at(a.line, a.got.error)] : [];
      }),
  },
  {
    // A newer helper's label (docs/design.md#verdicts-and-the-brief): a finding, not an error.
    id: "anchor-unknown",
    severity: "finding",
    part: null,
    checks: "an anchors line with a label this helper does not know",
    check: (c) => (c.anchorLines ?? []).flatMap((a) => ("error" in a.got && a.got.unknownLabel !== undefined ? [at(a.line, a.got.error)] : [])),
  },
  {
    id: "anchor-missing",
    severity: "finding",
    part: "anchors",
    checks: "Branch, HEAD, Dirty files and Date (in git), or Date (outside git)",
    check: (c) => (c.anchorLines === null ? [] : c.lackingAnchors.map((l) => at(c.anchorsAt!.line, `no \`- ${l}:\` anchor line`))),
  },
  {
    id: "anchor-mixed",
    severity: "finding",
    part: null,
    checks: "`- Key file mtimes:` only outside git",
    check: (c) => (c.anchorLines !== null && c.gitForm && c.model.anchors.keyFileMtimes !== null ? [at(c.anchorsAt!.line, "`- Key file mtimes:` is for handoffs saved outside git")] : []),
  },
  {
    // The state time's own reading (docs/design.md#verdicts-and-the-brief): a future `- Date:` makes the age unknown.
    id: "anchor-date",
    severity: "finding",
    part: null,
    checks: "`- Date:` not more than 5 minutes ahead",
    check: (c) => {
      const date = c.model.anchors.date;
      if (c.anchorLines === null || date === null) return [];
      const st = stateTime(date, null, c.opts.nowMs);
      return !st.known && st.reason === "future" ? [at(c.anchorsAt!.line, `the - Date: anchor ${quoted(unticked(date), QUOTE_CUT)} is in the future (more than 5 minutes ahead): age unknown`)] : [];
    },
  },
  {
    id: "anchor-head",
    severity: "finding",
    part: "anchors",
    checks: "a HEAD drift can check against history",
    check: (c) =>
      c.anchorLines !== null && c.gitForm && c.model.anchors.head !== null && unticked(c.model.anchors.head) === "none (no commits yet)"
        ? [at(c.anchorsAt!.line, "HEAD is `none (no commits yet)`: drift cannot check this handoff against history")]
        : [],
  },
  {
    // A dropped step says why (docs/design.md#files-on-disk).
    id: "plan-step",
    severity: "finding",
    part: null,
    checks: "each plan step with a status box; a `[-]` one with its reason",
    check: (c) =>
      c.items("Plan").flatMap((step) => {
        const m = PLAN_BOX.exec(step.text);
        if (!m) return [at(step.line, "a plan step without `[x]`, `[~]`, `[ ]` or `[-] … — dropped: <why>`")];
        if (m[1] === "-" && !/\bdropped:\s*\S/i.test(step.text)) return [at(step.line, "a `[-]` step without `— dropped: <why>`")];
        return [];
      }),
  },
  {
    id: "decision-label",
    severity: "finding",
    part: "decisions",
    checks: "each decision labelled [user-directed], [user-approved] or [agent-proposed]",
    check: (c) => unlabelled(c).map((d) => at(d.line, "a decision without [user-directed], [user-approved] or [agent-proposed]")),
  },
  {
    id: "failed-cause",
    severity: "finding",
    part: "failed",
    checks: "each failed approach with its cause",
    check: (c) => causeless(c).map((f) => at(f.line, "a failed approach without its cause (`<what was tried>: <why it failed>`): it invites a retry")),
  },
  {
    id: "next-step",
    severity: "finding",
    part: "nextSteps",
    checks: "a next step at all; each naming a path, a command or a check",
    check: (c) => {
      const out = vague(c).map((n) => at(n.line, "a next step naming no path, command or check: too vague to start cold"));
      const heading = c.first.get("next steps");
      if (c.items("Next steps").length === 0 && heading) out.push(at(heading.line, "no next step"));
      return out;
    },
  },
  {
    // Seed 003 (docs/design.md#files-on-disk): the first next step is bounded.
    id: "next-action",
    severity: "finding",
    part: "nextAction",
    checks: "the first next step says when it is done",
    check: (c) => {
      const first = c.items("Next steps")[0];
      return first && !ACCEPTANCE.test(first.text) ? [at(first.line, "the first next step has no acceptance criteria (`— done when <check passes>`)")] : [];
    },
  },
  {
    // Seed 003 (docs/design.md#files-on-disk): implemented, verified and accepted kept apart. Listed before
    // `verification`: on the section's own line, the missing acceptance comes first.
    id: "accepted",
    severity: "finding",
    part: "verification",
    checks: "`## Verification` has an `- Accepted:` line",
    check: (c) => {
      const heading = c.first.get("verification");
      return heading && accepted(c).length === 0 ? [at(heading.line, "no `- Accepted: <who, what, revision>` (or `- Accepted: not yet, <what awaits review>`)")] : [];
    },
  },
  {
    id: "verification",
    severity: "finding",
    part: "verification",
    checks: "`## Verification`, when there, with checks as `<check>: <command> -> <result> @ <revision>` or `<check>: not run, <why>`",
    check: (c) => {
      // Optional, as the template says: a handoff without the section is not judged on it.
      const heading = c.first.get("verification");
      if (!heading) return [];
      const out = looseChecks(c).map((v) => at(v.line, "a verification line that is not `<check>: <command> -> <result> @ <revision>` or `<check>: not run, <why>`"));
      if (checksOf(c).length === 0) out.push(at(heading.line, "no check recorded"));
      return out;
    },
  },
  {
    id: "key-file",
    severity: "finding",
    part: "keyFiles",
    checks: "each key file `- <relative path> — <why>` inside the root",
    check: (c) => c.keyFiles.filter((k) => k.path === null).map((k) => at(k.line, "a key file that is not `- <relative path> — <why>` inside the root")),
  },
  {
    id: "key-file-missing",
    severity: "finding",
    part: "keyFiles",
    checks: "each key file exists (when the caller could look)",
    check: (c) => {
      const existing = c.opts.existingKeyFiles;
      if (!existing) return [];
      return c.keyFiles.filter((k) => k.path !== null && !existing.has(k.path)).map((k) => at(k.line, `key file ${quotedPath(k.path!)} does not exist`));
    },
  },
  {
    // more than 150 lines is a finding.
    id: "line-cap",
    severity: "finding",
    part: "size",
    checks: `at most ${HANDOFF_LINE_CAP} lines`,
    check: (c) => {
      const count = lineCount(c);
      return count > HANDOFF_LINE_CAP ? [at(HANDOFF_LINE_CAP + 1, `${count} lines, over the ${HANDOFF_LINE_CAP}-line cap: compress decision prose first; never drop failed approaches or anchors`)] : [];
    },
  },
  {
    // docs/design.md#redaction: write redacts them; a document holding one scores lower.
    id: "secret",
    severity: "finding",
    part: "secrets",
    checks: "no secret (redaction's rules)",
    check: (c) => c.secrets.map((s) => at(s.line, `a secret (${s.kind})${c.opts.secrets ? ", redacted by write" : "; write redacts it"}`)),
  },
  {
    // An abandoned step is closed (docs/design.md#files-on-disk).
    id: "dropped",
    severity: "finding",
    part: "dropped",
    checks: "open items of the previous handoff carried over or closed",
    check: (c) => (c.dropped ?? []).map((i) => at(0, `[${i.section}] ${quoted(i.text, QUOTE_CUT)} of the previous handoff is neither carried over nor closed`)),
  },
];

/**
 * The score's parts with their weights (points possible), in the order the result lists them; the score is their
 * points over their weights, 0–100.
 */
export const HANDOFF_PARTS: readonly HandoffPartRule[] = [
  { part: "sections", weight: 15, score: (c) => (c.shaped ? Math.max(0, 15 - 5 * c.sectionErrors) : 0) },
  { part: "saved", weight: 5, score: (c) => (c.savedOk ? 5 : 0) },
  {
    part: "anchors",
    weight: 10,
    score: (c) => {
      if (!c.anchorsAt) return 0;
      if (c.anchorLines === null) return null;
      const head = c.model.anchors.head === null ? undefined : unticked(c.model.anchors.head);
      const headOk = c.gitForm ? head !== undefined && FULL_HEAD.test(head) && !isNullObjectId(head.toLowerCase()) : true;
      const complete = c.lackingAnchors.length === 0 && !c.anchorLines.some((a) => a.repeated || ("error" in a.got && a.got.unknownLabel === undefined));
      return (headOk ? 5 : 0) + (complete ? 5 : 0);
    },
  },
  { part: "failed", weight: 10, score: (c) => share(c.items("Failed approaches").length, causeless(c).length, 10) },
  { part: "decisions", weight: 10, score: (c) => share(c.items("Decisions").length, unlabelled(c).length, 10) },
  { part: "nextSteps", weight: 10, score: (c) => (c.items("Next steps").length === 0 ? 0 : share(c.items("Next steps").length, vague(c).length, 10)) },
  {
    part: "nextAction",
    weight: 5,
    score: (c) => {
      const first = c.items("Next steps")[0];
      return first !== undefined && ACCEPTANCE.test(first.text) ? 5 : 0;
    },
  },
  {
    part: "keyFiles",
    weight: 10,
    score: (c) => {
      const existing = c.opts.existingKeyFiles;
      return existing ? proportion(c.keyFiles.filter((k) => k.path !== null && existing.has(k.path)).length, c.keyFiles.length, 10).score : null;
    },
  },
  {
    part: "verification",
    weight: 10,
    score: (c) => {
      if (!c.first.get("verification")) return null;
      const checks = checksOf(c).length;
      return (checks > 0 ? 3 + share(checks, looseChecks(c).length, 4) : 0) + (accepted(c).length > 0 ? 3 : 0);
    },
  },
  { part: "size", weight: 5, score: (c) => (lineCount(c) > HANDOFF_LINE_CAP ? 0 : 5) },
  { part: "secrets", weight: 5, score: (c) => (c.secrets.length === 0 ? 5 : 0) },
  { part: "dropped", weight: 5, score: (c) => (c.dropped === null ? null : c.dropped.length === 0 ? 5 : 0) },
];

const SECTION_NAMES = HANDOFF_SECTIONS.map((s) => s.name);
const SECTION_INDEX = new Map(SECTION_NAMES.map((n, i) => [n.toLowerCase(), i]));

function sectionIndex(title: string): number | undefined {
  return SECTION_INDEX.get(title.toLowerCase());
}

function sectionName(title: string): string | undefined {
  const i = sectionIndex(title);
  return i === undefined ? undefined : SECTION_NAMES[i];
}


// `good` of `total` items in proportion, from the count of bad ones.
function share(total: number, bad: number, max: number): number {
  return proportion(total - bad, total, max).score;
}

const unlabelled = (c: HandoffContext) => c.items("Decisions").filter((d) => !LABELS.some((l) => d.text.includes(l)));
const causeless = (c: HandoffContext) => c.items("Failed approaches").filter((f) => !CAUSE.test(f.text));
const vague = (c: HandoffContext) => c.items("Next steps").filter((n) => !CONCRETE.test(n.text));
const accepted = (c: HandoffContext) => c.items("Verification").filter((v) => ACCEPTED.test(v.text));
const checksOf = (c: HandoffContext) => c.items("Verification").filter((v) => !ACCEPTED.test(v.text));
const looseChecks = (c: HandoffContext) => checksOf(c).filter((v) => !VERIFIED.test(v.text) && !NOT_RUN.test(v.text));
const lineCount = (c: HandoffContext) => (c.text.endsWith("\n") ? c.lines.length - 1 : c.lines.length);

/**
 * Builds the context the rules read (docs/design.md#files-on-disk): the text normalised and
 * scanned once into its block tree, the model read from it (`readHandoff`: the values), the
 * layout (positions), and the facts several rules share. Pure; never throws on content.
 */
export function handoffContext(input: string, opts: HandoffValidateOptions): HandoffContext {
  const text = normaliseText(input);
  const tree = parseBlocks(text);
  const layout = handoffLayout(text, tree);
  const model = readHandoff(text, tree);
  const { lines } = layout;
  const shaped = lines[0] === MARKER && layout.titleIndex >= 0;

  // Sections: the first level-2 heading of each name; look-alikes among the other headings.
  const first = new Map<string, HandoffHeading>();
  const sections: SectionHeading[] = [];
  let sectionErrors = 0;
  let highest = -1;
  const candidates: Candidate[] = [];
  for (const h of model.headings) {
    const index = h.depth === 2 ? sectionIndex(h.title) : undefined;
    if (index === undefined) {
      const isTitle = h.depth === 1 && h.line - 1 === layout.titleIndex;
      if (!isTitle) candidates.push({ title: h.title, line: h.line, raw: lines[h.line - 1]!, depth: h.depth });
      continue;
    }
    const key = h.title.toLowerCase();
    sections.push({ heading: h, index, name: SECTION_NAMES[index]!, key });
    if (first.has(key)) {
      if (!HANDOFF_SECTIONS[index]!.optional) sectionErrors++;
      continue;
    }
    first.set(key, h);
    if (index < highest) sectionErrors++;
    else highest = index;
  }
  const used = new Set<number>();
  const missing: HandoffContext["missing"] = [];
  for (const s of shaped ? HANDOFF_SECTIONS : []) {
    if (s.optional || first.has(s.name.toLowerCase())) continue;
    const look = candidates.find((c) => !used.has(c.line) && suggestFor(c.title, [s.name]) === s.name) ?? null;
    if (look) used.add(look.line);
    missing.push({ name: s.name, look });
    sectionErrors++;
  }
  // A level-3+ heading that resembles no section is an ordinary sub-heading.
  const strays = candidates.filter((s) => !used.has(s.line) && (s.depth <= 2 || suggestFor(s.title, SECTION_NAMES) !== null));

  const byKey = new Map<string, Entry[]>();
  for (const item of model.items) {
    const text = item.text.trim();
    if (NONE.test(text)) continue;
    const list = byKey.get(item.section) ?? [];
    list.push({ text, line: item.line });
    byKey.set(item.section, list);
  }
  const items = (name: string) => byKey.get(name.toLowerCase()) ?? [];

  // Anchors: the grammar of each line of the section (up to the next level-1/2 heading but the
  // title); what they say, from the model.
  const anchorsAt = first.get("environment anchors");
  let anchorLines: AnchorGrammar[] | null = null;
  let anchorsEmpty = false;
  if (anchorsAt) {
    const next = model.headings.find((h) => h.line > anchorsAt.line && h.depth <= 2 && !(h.depth === 1 && h.line - 1 === layout.titleIndex));
    let end = Math.min(next ? next.line - 1 : lines.length, lines.length);
    // A trailing blank line belongs to the file, not to the section.
    while (end > anchorsAt.line && (lines[end - 1] ?? "").trim() === "") end--;
    const body = lines.slice(anchorsAt.line, end);
    anchorsEmpty = opts.mode === "stdin" && isEmptyAnchorsBody(body);
    if (!anchorsEmpty) anchorLines = anchorGrammar(body, anchorsAt.line);
  }
  const a = model.anchors;
  const gitForm = a.branch !== null || a.head !== null || a.dirty !== null || a.inProgress != null;
  const want: AnchorLabel[] = gitForm ? ["Branch", "HEAD", "Dirty files", "Date"] : ["Date"];
  const value: Record<string, string | null> = { Branch: a.branch, HEAD: a.head, "Dirty files": a.dirty, Date: a.date };
  const lackingAnchors = want.filter((l) => value[l] === null);

  const keyItems = model.items.filter((i) => i.section === "key files" && !/^none\.?$/i.test(i.text.trim()));
  const keyFiles = model.keyFiles.map((k, i) => ({ ...k, line: keyItems[i]!.line, item: keyItems[i]!.text.trim() })).filter((k) => !NONE.test(k.item));

  const prior = opts.prior;
  return {
    opts,
    input,
    text,
    lines,
    flags: tree.flags,
    layout,
    model,
    shaped,
    sections,
    first,
    sectionErrors,
    missing,
    strays,
    items,
    anchorLines,
    anchorsEmpty,
    anchorsAt,
    gitForm,
    lackingAnchors,
    savedOk: model.saved !== null && stateTime(null, model.saved, opts.nowMs).known,
    keyFiles,
    secrets: [],
    dropped: prior === null || prior === undefined ? null : droppedItems(prior, text),
  };
}

function anchorGrammar(body: readonly string[], start: number): AnchorGrammar[] {
  const out: AnchorGrammar[] = [];
  const seen = new Set<AnchorLabel>();
  let inComment = false;
  body.forEach((line, i) => {
    const trimmed = line.trim();
    if (inComment || trimmed.startsWith("<!--")) {
      inComment = !trimmed.includes("-->");
      return;
    }
    if (trimmed === "") return;
    const got = readAnchorLine(line);
    const repeated = !("error" in got) && seen.has(got.label);
    if (!("error" in got)) seen.add(got.label);
    out.push({ line: start + i + 1, got, repeated });
  });
  return out;
}

/**
 * Validates a handoff (docs/design.md#files-on-disk): builds its context once, runs every rule of
 * `HANDOFF_RULES` and scores every part of `HANDOFF_PARTS`. `valid` is false exactly when an
 * error was found. Errors are listed by line, findings by line with whole-document ones (line
 * 0) last; two on one line keep the table's order. Never throws on content.
 */
export function validateHandoff(input: string, opts: HandoffValidateOptions): Validation {
  // The rules read the redacted text, so no message can quote a secret; lines are the author's.
  const given = opts.secrets !== undefined && opts.redactedText !== undefined;
  let pass = given ? { text: opts.redactedText!, findings: opts.secrets! } : redactText(input);
  // Anchor lines are judged as written (a branch may look like an assignment); only a vendor's
  // token shape is redacted there, as `anchors` does, and output redaction covers the rest.
  const range = pass.findings.length > 0 ? anchorsRange(handoffLayout(input)) : null;
  if (range !== null && pass.findings.some((f) => f.line > range.start && f.line <= range.end)) {
    const exemptLines = new Set<number>();
    for (let l = range.start + 1; l <= range.end; l++) exemptLines.add(l);
    pass = redactText(input, { exemptLines });
  }
  const maps = lineMaps(pass);
  const secrets = pass.findings.map((f) => ({ ...f, line: maps.toRedacted(f.line) }));
  const c = handoffContext(pass.text, opts);
  c.secrets = secrets;
  return onOriginalLines(runRules(HANDOFF_RULES, HANDOFF_PARTS, c, (c.dropped ?? []).map((i) => i.text)), pass);
}

/**
 * The key file paths of a handoff that are usable (root-relative, inside the root), as the model reads them: for the
 * caller to look up before `validateHandoff`.
 */
export function handoffKeyFiles(text: string): string[] {
  const t = normaliseText(text);
  return readHandoff(t, parseBlocks(t))
    .keyFiles.map((k) => k.path)
    .filter((p): p is string => p !== null);
}
