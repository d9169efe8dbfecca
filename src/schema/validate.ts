// `validate handoff` (rulings 1–3, 8, 9, docs/design.md#files-on-disk): the schema's errors, the quality score
// with its parts, the findings, and the open items dropped since the previous handoff. Pure:
// text in, a plain result out; never throws on content. The document's block structure comes
// from the CommonMark line scanner (blocks.ts), so a heading inside a fenced code block or an
// HTML comment is not a heading.
import { stateFields, stateTime as readStateTime } from "./state-time.ts";
import { redactText } from "../cold/redaction.ts";
import type { RedactionFinding } from "../guard/redact.ts";
import { parseBlocks, type Block } from "./blocks.ts";
import { conflictIssue } from "./conflicted.ts";
import { droppedItems } from "./open-items.ts";
import { isEmptyAnchorsBody, isIsoWithZone, readAnchorLine, type AnchorLabel } from "./validate-anchors.ts";
import {
  bounded,
  editDistance,
  lineAt,
  lineStartsOf,
  proportion,
  quoted,
  totalScore,
  type Issue,
  type ScorePart,
  type Validation,
} from "./validate-common.ts";
import { CLOCK_SKEW_MS, parseStrictTime, safeRelativePath } from "./values.ts";

/** The sections of contract §8 (docs/design.md#files-on-disk) in order; `optional` ones may be left out. */
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

/** Most lines a handoff should have (contract §8: more is a finding; docs/design.md#files-on-disk). */
export const HANDOFF_LINE_CAP = 150;

const MARKER = "<!-- memory-schema: v1 -->";
const TITLE = "# Session Handoff";
const LABELS = ["[user-directed]", "[user-approved]", "[agent-proposed]"];

/** How `validate` was asked (ruling 1, docs/design.md#files-on-disk): a missing or malformed `Saved:` is a finding on stdin, an error on disk. */
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
}

/** A level-1/2 section of the handoff: its heading and the lines of its body (1-based, end exclusive). */
interface Section {
  title: string;
  key: string;
  depth: number;
  line: number;
  bodyStart: number;
  bodyEnd: number;
  blocks: Block[];
}

/** A handoff read into lines, its preamble and its sections. */
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
 */
export function handoffLayout(text: string): HandoffLayout {
  const lines = text.split("\n");
  const starts = lineStartsOf(text);
  const tree = parseBlocks(text);
  const titleIndex = lines.slice(0, 4).indexOf(TITLE);
  const sections: Section[] = [];
  const headings: HandoffLayout["headings"] = [];
  let savedIndex = -1;
  let current: Section | null = null;
  const endLine = lines.length + 1;
  for (const block of tree.children) {
    const line = lineAt(starts, block.start);
    if (block.type === "heading") {
      const src = text.slice(block.start, block.end).split("\n");
      const raw = src[0]!;
      // ATX (`## Plan`) or setext (`Plan` underlined with `---`).
      const title = raw.trimStart().startsWith("#") ? headingTitle(raw) : src.slice(0, -1).join(" ").trim();
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

function itemsOf(text: string, starts: number[], blocks: Block[]): { text: string; line: number; raw: string }[] {
  const out: { text: string; line: number; raw: string }[] = [];
  for (const b of blocks) {
    if (b.type !== "list") continue;
    for (const item of b.children) {
      const first = item.children[0];
      const last = item.children[item.children.length - 1];
      const body = first && last ? text.slice(first.start, last.end) : "";
      out.push({ text: body.trim(), line: lineAt(starts, item.start), raw: text.slice(item.start, item.end) });
    }
  }
  return out;
}

const NONE = /^(none|none recorded|n\/a)\.?$/i;
const CAUSE = /:\s+\S|\s[—–-]\s+\S|\bbecause\b|\bso\b.+\bfailed\b/i;
const CONCRETE = /`[^`]+`|[\w.-]*\/[\w./-]+|\b[\w-]+\.[A-Za-z]{1,6}\b|\b(tests?|check|lint|build|typecheck|benchmark|bench|CI|npm|git|make|run)\b/i;
const ACCEPTANCE = /\b(done when|accepted? when|acceptance( criteria)?:|passes when)\b/i;
const VERIFIED = /^[^:]+:\s*\S.*\s(?:->|→)\s*\S.*\s@\s*\S+/;
const NOT_RUN = /^[^:]+:\s*not run\b\s*[,:;—–-]?\s*\S/i;
const ACCEPTED = /^Accepted:\s*\S/i;
const PLAN_BOX = /^\[([ xX~-])\]\s+\S/;

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

/**
 * Validates a handoff (docs/design.md#files-on-disk). Errors are exactly: the marker, the title or `Saved:`
 * (on disk; ruling 1; docs/design.md#files-on-disk) missing or malformed; a required section missing, out of order or
 * repeated (ruling 9, docs/design.md#files-on-disk); a malformed anchor line (ruling 3). An unknown heading that resembles
 * a missing section names it ("did you mean `## Failed approaches`?"). Everything else is a
 * finding. The score's parts: sections, saved, anchors, failed, decisions, nextSteps,
 * nextAction, keyFiles (only when checked), verification, size, secrets, dropped (only with a
 * prior); `score` is their points over their maxima, 0–100.
 */
export function validateHandoff(input: string, opts: HandoffValidateOptions): Validation {
  const errors: Issue[] = [];
  const findings: Issue[] = [];
  const parts: Record<string, ScorePart> = {};
  if (input.startsWith("\uFEFF")) findings.push({ rule: "bom", line: 1, message: "a UTF-8 byte order mark starts the text; write drops it" });
  if (/\r\n?/.test(input)) findings.push({ rule: "crlf", line: 1, message: "CR or CRLF line ends; write turns them into LF" });
  const text = input.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const layout = handoffLayout(text);
  const { lines, sections } = layout;
  const starts = lineStartsOf(text);

  // Shape (docs/design.md#files-on-disk).
  if (lines[0] !== MARKER) {
    const seen = /^<!--\s*memory-schema:\s*(\S+)\s*-->$/.exec(lines[0]?.trim() ?? "");
    errors.push({
      rule: "marker",
      line: 1,
      message: seen
        ? `the marker says schema ${quoted(seen[1]!)}; this helper reads v1 only: the document must begin with the line ${MARKER}`
        : `the document must begin with the line ${MARKER}; start from templates/handoff.md`,
    });
  }
  if (layout.titleIndex < 0) errors.push({ rule: "heading", line: 1, message: `the document must have the heading "${TITLE}" in its first four lines` });
  // Contract §1 (docs/design.md#files-on-disk) holds for every memory document: write refuses a text without its final newline.
  if (!text.endsWith("\n")) errors.push({ rule: "newline", line: lines.length, message: "the document must end with a newline" });
  const conflict = conflictIssue(text);
  if (conflict !== null) errors.push(conflict);

  // A text that is not a v1 handoff at all gets its shape errors only, not one per section.
  const shaped = errors.length === 0 || errors.every((e) => e.rule === "newline" || e.rule === "conflicted");
  // Saved (ruling 1, docs/design.md#files-on-disk): an error on disk, a finding on stdin (write stamps it).
  let savedOk = false;
  const savedIssue = (message: string, line: number) => (opts.mode === "root" && shaped ? errors : findings).push({ rule: "saved", line, message });
  if (layout.savedIndex < 0) {
    savedIssue("no `Saved: <ISO-8601 with Z or offset>` line after the title (write stamps it)", Math.max(1, layout.titleIndex + 2));
  } else {
    const value = /^Saved:\s*(.*)$/.exec(lines[layout.savedIndex]!.trim())![1]!.replace(/^`(.*)`$/, "$1");
    if (!isIsoWithZone(value)) savedIssue(`Saved: ${quoted(value)} is not an ISO-8601 time with a zone (write stamps it)`, layout.savedIndex + 1);
    else if (Date.parse(value) > opts.nowMs + CLOCK_SKEW_MS) findings.push({ rule: "saved", line: layout.savedIndex + 1, message: `Saved: ${quoted(value)} is in the future` });
    else savedOk = true;
  }
  parts.saved = { score: savedOk ? 5 : 0, max: 5 };

  // Sections: present, in order, once (ruling 9, docs/design.md#files-on-disk).
  const names = HANDOFF_SECTIONS.map((s) => s.name);
  const order = new Map(names.map((n, i) => [n.toLowerCase(), i]));
  const first = new Map<string, Section>();
  let sectionErrors = 0;
  let highest = -1;
  let highestName = "";
  const unknown: Section[] = [];
  for (const s of sections) {
    const idx = s.depth === 2 ? order.get(s.key) : undefined;
    if (idx === undefined) {
      unknown.push(s);
      continue;
    }
    const name = names[idx]!;
    if (s.title !== name) findings.push({ rule: "heading-case", line: s.line, message: `write the heading as \`## ${name}\`` });
    if (first.has(s.key)) {
      const optional = HANDOFF_SECTIONS[idx]!.optional;
      (optional ? findings : errors).push({ rule: "section-repeated", line: s.line, message: `\`## ${name}\` appears again (first at line ${first.get(s.key)!.line}); merge the two` });
      if (!optional) sectionErrors++;
      continue;
    }
    first.set(s.key, s);
    if (idx < highest) {
      errors.push({ rule: "section-order", line: s.line, message: `\`## ${name}\` comes after \`## ${highestName}\`; the order is ${names.map((n) => `## ${n}`).join(", ")}` });
      sectionErrors++;
    } else {
      highest = idx;
      highestName = name;
    }
  }
  // Headings that are not sections: look-alikes of a missing section, or of a present one.
  const candidates = [
    ...unknown.map((s) => ({ title: s.title, line: s.line, raw: lines[s.line - 1]!, depth: s.depth })),
    ...layout.headings.filter((h) => h.depth > 2).map((h) => ({ title: h.title, line: h.line, raw: h.raw, depth: h.depth })),
  ].sort((a, b) => a.line - b.line);
  const used = new Set<number>();
  const missing = HANDOFF_SECTIONS.filter((s) => !s.optional && !first.has(s.name.toLowerCase())).map((s) => s.name);
  for (const name of shaped ? missing : []) {
    const look = candidates.find((c) => !used.has(c.line) && suggestFor(c.title, [name]) === name);
    sectionErrors++;
    if (look) {
      used.add(look.line);
      errors.push({
        rule: "section-missing",
        line: look.line,
        message: `${quoted(look.raw.trim())} is not a section heading of schema v1 and \`## ${name}\` is missing: did you mean \`## ${name}\`?`,
      });
      continue;
    }
    const idx = order.get(name.toLowerCase())!;
    const next = sections.find((s) => s.depth === 2 && (order.get(s.key) ?? -1) > idx);
    errors.push({
      rule: "section-missing",
      line: next ? next.line : lines.length,
      message: `required section \`## ${name}\` is missing; keep its heading, with \`- none\` when there is nothing to say`,
    });
  }
  for (const c of candidates) {
    if (used.has(c.line)) continue;
    const near = suggestFor(c.title, names);
    if (c.depth > 2 && near === null) continue; // an ordinary sub-heading
    findings.push({
      rule: "unknown-section",
      line: c.line,
      message: near ? `${quoted(c.raw.trim())} is not a section of schema v1: did you mean \`## ${near}\`?` : `${quoted(c.raw.trim())} is not a section of schema v1; nothing reads it`,
    });
  }
  parts.sections = { score: shaped ? Math.max(0, 15 - 5 * sectionErrors) : 0, max: 15 };

  const items = (name: string) => {
    const s = first.get(name.toLowerCase());
    return s ? itemsOf(text, starts, s.blocks).filter((i) => !NONE.test(i.text)) : [];
  };

  // Anchors (contract §8, rulings 2 and 3; docs/design.md#files-on-disk).
  const range = anchorsRange(layout);
  const anchorSection = first.get("environment anchors");
  if (range && anchorSection) {
    const body = lines.slice(range.start, range.end);
    if (opts.mode === "stdin" && isEmptyAnchorsBody(body)) {
      findings.push({ rule: "anchors-empty", line: anchorSection.line, message: "the anchors section is empty; write fills it with what `anchors` prints" });
    } else {
      const seen = new Map<AnchorLabel, string>();
      let inComment = false;
      body.forEach((line, i) => {
        const trimmed = line.trim();
        if (inComment || trimmed.startsWith("<!--")) {
          inComment = !trimmed.includes("-->");
          return;
        }
        if (trimmed === "") return;
        const got = readAnchorLine(line);
        if ("error" in got) {
          (got.unknownLabel !== undefined ? findings : errors).push({ rule: got.unknownLabel !== undefined ? "anchor-unknown" : "anchor-line", line: range.start + i + 1, message: got.error });
          return;
        }
        if (seen.has(got.label)) {
          errors.push({ rule: "anchor-line", line: range.start + i + 1, message: `\`- ${got.label}:\` appears twice` });
          return;
        }
        seen.set(got.label, got.value);
      });
      const gitForm = seen.has("Branch") || seen.has("HEAD") || seen.has("Dirty files") || seen.has("In progress");
      const want: AnchorLabel[] = gitForm ? ["Branch", "HEAD", "Dirty files", "Date"] : ["Date"];
      const lacking = want.filter((l) => !seen.has(l));
      for (const l of lacking) findings.push({ rule: "anchor-missing", line: anchorSection.line, message: `no \`- ${l}:\` anchor line` });
      if (gitForm && seen.has("Key file mtimes")) findings.push({ rule: "anchor-mixed", line: anchorSection.line, message: "`- Key file mtimes:` is for handoffs saved outside git" });
      const date = seen.get("Date")?.replace(/^`(.*)`$/, "$1");
      if (date !== undefined && isIsoWithZone(date) && Date.parse(date) > opts.nowMs + CLOCK_SKEW_MS) {
        findings.push({ rule: "anchor-date", line: anchorSection.line, message: `the - Date: anchor ${quoted(date)} is in the future (more than 5 minutes ahead): age unknown` });
      }
      const head = seen.get("HEAD")?.replace(/^`(.*)`$/, "$1");
      const headOk = gitForm ? head !== undefined && /^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/.test(head) : true;
      if (gitForm && head === "none (no commits yet)") findings.push({ rule: "anchor-head", line: anchorSection.line, message: "HEAD is `none (no commits yet)`: drift cannot check this handoff against history" });
      const complete = lacking.length === 0 && !errors.some((e) => e.rule === "anchor-line");
      parts.anchors = { score: (headOk ? 5 : 0) + (complete ? 5 : 0), max: 10 };
    }
  } else if (!anchorSection) {
    parts.anchors = { score: 0, max: 10 };
  }

  // Plan: each step with a status box; a dropped step with its reason (ruling 8, docs/design.md#files-on-disk).
  for (const step of items("Plan")) {
    const m = PLAN_BOX.exec(step.text);
    if (!m) findings.push({ rule: "plan-step", line: step.line, message: "a plan step without `[x]`, `[~]`, `[ ]` or `[-] … — dropped: <why>`" });
    else if (m[1] === "-" && !/\bdropped:\s*\S/i.test(step.text)) findings.push({ rule: "plan-step", line: step.line, message: "a `[-]` step without `— dropped: <why>`" });
  }

  // Decisions: each labelled.
  const decisions = items("Decisions");
  const unlabelled = decisions.filter((d) => !LABELS.some((l) => d.text.includes(l)));
  for (const d of unlabelled) findings.push({ rule: "decision-label", line: d.line, message: `a decision without [user-directed], [user-approved] or [agent-proposed]` });
  parts.decisions = proportion(decisions.length - unlabelled.length, decisions.length, 10);

  // Failed approaches: each with its cause.
  const failed = items("Failed approaches");
  const causeless = failed.filter((f) => !CAUSE.test(f.text));
  for (const f of causeless) findings.push({ rule: "failed-cause", line: f.line, message: "a failed approach without its cause (`<what was tried>: <why it failed>`): it invites a retry" });
  parts.failed = proportion(failed.length - causeless.length, failed.length, 10);

  // Next steps: concrete; the first one bounded, with acceptance criteria (seed 003).
  const next = items("Next steps");
  const vague = next.filter((n) => !CONCRETE.test(n.text));
  for (const n of vague) findings.push({ rule: "next-step", line: n.line, message: "a next step naming no path, command or check: too vague to start cold" });
  parts.nextSteps = next.length === 0 ? { score: 0, max: 10 } : proportion(next.length - vague.length, next.length, 10);
  if (next.length === 0 && first.has("next steps")) findings.push({ rule: "next-step", line: first.get("next steps")!.line, message: "no next step" });
  const firstNext = next[0];
  const bounded1 = firstNext !== undefined && ACCEPTANCE.test(firstNext.text);
  if (firstNext && !bounded1) findings.push({ rule: "next-action", line: firstNext.line, message: "the first next step has no acceptance criteria (`— done when <check passes>`)" });
  parts.nextAction = { score: bounded1 ? 5 : 0, max: 5 };

  // Verification (seed 003): implemented, verified and accepted kept apart.
  const verification = first.get("verification");
  if (!verification) {
    findings.push({
      rule: "verification",
      line: first.get("plan")?.line ?? 1,
      message: "no `## Verification`: name each check, command, result and revision, the checks not run and why, and what was accepted",
    });
    parts.verification = { score: 0, max: 10 };
  } else {
    const all = items("Verification");
    const accepted = all.filter((v) => ACCEPTED.test(v.text));
    const checks = all.filter((v) => !ACCEPTED.test(v.text));
    const loose = checks.filter((v) => !VERIFIED.test(v.text) && !NOT_RUN.test(v.text));
    for (const v of loose) findings.push({ rule: "verification", line: v.line, message: "a verification line that is not `<check>: <command> -> <result> @ <revision>` or `<check>: not run, <why>`" });
    if (accepted.length === 0) findings.push({ rule: "accepted", line: verification.line, message: "no `- Accepted: <who, what, revision>` (or `- Accepted: not yet, <what awaits review>`)" });
    if (checks.length === 0) findings.push({ rule: "verification", line: verification.line, message: "no check recorded" });
    parts.verification = { score: (checks.length > 0 ? 3 : 0) + (checks.length > 0 ? proportion(checks.length - loose.length, checks.length, 4).score : 0) + (accepted.length > 0 ? 3 : 0), max: 10 };
  }

  // Key files: inside the root, and existing (when the caller could look).
  const keyFiles = items("Key files");
  let existing = 0;
  for (const k of keyFiles) {
    const p = keyFilePath(k.text);
    if (p === null) {
      findings.push({ rule: "key-file", line: k.line, message: "a key file that is not `- <relative path> — <why>` inside the root" });
      continue;
    }
    if (opts.existingKeyFiles) {
      if (opts.existingKeyFiles.has(p)) existing++;
      else findings.push({ rule: "key-file-missing", line: k.line, message: `key file ${quoted(p)} does not exist` });
    }
  }
  if (opts.existingKeyFiles) parts.keyFiles = proportion(existing, keyFiles.length, 10);

  // Size (contract §8: more than 150 lines is a finding; docs/design.md#files-on-disk).
  const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
  if (count > HANDOFF_LINE_CAP) findings.push({ rule: "line-cap", line: HANDOFF_LINE_CAP + 1, message: `${count} lines, over the ${HANDOFF_LINE_CAP}-line cap: compress decision prose first; never drop failed approaches or anchors` });
  parts.size = { score: count > HANDOFF_LINE_CAP ? 0 : 5, max: 5 };

  // Secrets (docs/design.md#redaction): write redacts them; a document holding one scores lower.
  const secrets = opts.secrets ?? redactText(text).findings;
  for (const s of secrets) findings.push({ rule: "secret", line: s.line, message: `a secret (${s.kind})${opts.secrets ? ", redacted by write" : "; write redacts it"}` });
  parts.secrets = { score: secrets.length === 0 ? 5 : 0, max: 5 };

  // Dropped items (field report 2, ruling 8; docs/design.md#files-on-disk).
  let dropped: string[] = [];
  if (opts.prior !== null && opts.prior !== undefined) {
    const lost = droppedItems(opts.prior, text);
    dropped = lost.map((i) => i.text);
    for (const i of lost) findings.push({ rule: "dropped", line: 0, message: `[${i.section}] ${quoted(i.text)} of the previous handoff is neither carried over nor closed` });
    parts.dropped = { score: lost.length === 0 ? 5 : 0, max: 5 };
  }

  const ordered: Record<string, ScorePart> = {};
  for (const k of ["sections", "saved", "anchors", "failed", "decisions", "nextSteps", "nextAction", "keyFiles", "verification", "size", "secrets", "dropped"]) {
    if (parts[k]) ordered[k] = parts[k]!;
  }
  errors.sort((a, b) => a.line - b.line);
  findings.sort((a, b) => (a.line === 0 ? 1 : 0) - (b.line === 0 ? 1 : 0) || a.line - b.line);
  return { valid: errors.length === 0, errors: bounded(errors, "error(s)"), score: totalScore(ordered), parts: ordered, findings: bounded(findings, "finding(s)"), dropped };
}

/** The root-relative path a key file item names (`- <path> — <why>`, backticks allowed), or null. */
export function keyFilePath(item: string): string | null {
  const tick = /^`([^`]+)`/.exec(item);
  const raw = tick ? tick[1]!.trim() : (/^(\S+?)(?:\s+[—–-]\s|\s*$)/.exec(item)?.[1] ?? item.split(/\s/)[0]!);
  return safeRelativePath(raw);
}

/** The key file paths of a handoff (for the caller to look up before `validateHandoff`). */
export function handoffKeyFiles(text: string): string[] {
  const t = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const layout = handoffLayout(t);
  const s = layout.sections.find((x) => x.depth === 2 && x.key === "key files");
  if (!s) return [];
  return itemsOf(t, lineStartsOf(t), s.blocks)
    .filter((i) => !NONE.test(i.text))
    .map((i) => keyFilePath(i.text))
    .filter((p): p is string => p !== null);
}

/** The first non-blank line of `## Current goal` (for `archives list`), or null. */
export function goalLine(text: string): string | null {
  const t = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const layout = handoffLayout(t);
  const s = layout.sections.find((x) => x.key === "current goal");
  if (!s) return null;
  for (let i = s.bodyStart - 1; i < s.bodyEnd - 1 && i < layout.lines.length; i++) {
    const l = layout.lines[i]!.trim();
    if (l !== "") return l;
  }
  return null;
}

/**
 * The state time of a handoff as an ISO string, or null when its age is unknown: read by
 * `stateFields` and `stateTime` (schema/state-time.ts), the one reading every verb uses
 * (docs/design.md#verdicts-and-the-brief), so `archives list` never gives a time that hook,
 * drift and brief call unknown.
 */
export function stateTimeIso(text: string, nowMs: number): string | null {
  const f = stateFields(text);
  const st = readStateTime(f.date, f.saved, nowMs);
  return st.known ? st.time.iso : null;
}
