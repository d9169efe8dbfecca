// `validate handoff`: reads the one parsed model so it never reads a value differently from hook, drift or brief.
import TEMPLATE from "../../templates/handoff.md?raw" with { type: "text" };
import { redactText, type Redacted, type RedactionFinding } from "../guard/redact.ts";
import { quoted } from "../guard/sanitize.ts";
import { quotedPath } from "../guard/quote.ts";
import { isEmptyAnchorsBody, readAnchorLine } from "./anchor-lines.ts";
import { parseBlocks } from "./grammar.ts";
import { normaliseText, parseHandoff, readHandoff, SECTION_TITLES, type HandoffHeading,
  type ParsedHandoff } from "./handoff.ts";
import { droppedItems } from "./open-items.ts";
import { stateTime } from "./state-time.ts";
import { at, BEGIN, lineCount, nearest, QUOTE_CUT, ruleOf, runRules, TEXT_RULES, titleMissing, type Hit, type Part,
  type Rule, type Validation } from "./validate-common.ts";
import { MARKER, unticked } from "./values.ts";

export const OPTIONAL_SECTIONS: ReadonlySet<string> = new Set(["Scope", "Verification"]);

// The template's placeholder lines, each an error when left verbatim; write fills the anchors' own.
const SKELETON = TEMPLATE.slice(0, TEMPLATE.indexOf("## Environment anchors")).split("\n");
const TEMPLATE_PLACEHOLDERS = new Set(SKELETON.filter((l) => /<[^<>\n]+>/.test(l) && !l.startsWith("<!--")));

const PLACEHOLDER = "the template's placeholder text, unfilled: write this session's own words or delete the line";
const LINE_CAP = 150;
const TITLE = "# Session Handoff";
const LABELS = ["[user-directed]", "[user-approved]", "[agent-proposed]"];

/** How `validate` was asked: a missing or malformed `Saved:` is a finding on stdin, an error on disk. */
export interface HandoffValidateOptions {
  mode: "stdin" | "root";
  nowMs: number;
  prior?: string | null;
  /** Key file paths (root-relative, normalised) that exist; null or absent: not checked. */
  existingKeyFiles?: ReadonlySet<string> | null;
  /** `write`'s redaction pass, so there is no second one. */
  redacted?: Redacted;
}

/** 0-based lines of the title, the first `Saved:` and the anchors' body ([start, end)); -1 or null when absent. */
export function handoffLayout(text: string, model = readHandoff(text, parseBlocks(text))) {
  const lines = text.split("\n");
  const titleIndex = lines.slice(0, 4).indexOf(TITLE);
  const heading = model.headings.find((h) => h.depth === 2 && h.title.toLowerCase() === "environment anchors");
  let anchors: { start: number; end: number } | null = null;
  if (heading) {
    const isTitle = (h: HandoffHeading) => h.depth === 1 && h.line - 1 === titleIndex;
    const next = model.headings.find((h) => h.line > heading.line && h.depth <= 2 && !isTitle(h));
    let end = Math.min(next ? next.line - 1 : lines.length, lines.length);
    // A trailing blank line belongs to the file, not to the section.
    while (end > heading.line && (lines[end - 1] ?? "").trim() === "") end--;
    anchors = { start: heading.line, end };
  }
  return { lines, titleIndex, savedIndex: (model.savedLine ?? 0) - 1, anchors };
}

const NONE = /^(none|none recorded|n\/a)\.?$/i;
const CAUSE = /:\s+\S|\s[—–-]\s+\S|\bbecause\b|\bso\b.+\bfailed\b/i;
const TOOLS = "tests?|check|lint|build|typecheck|benchmark|bench|CI|npm|git|make|run";
const PATH = String.raw`\x60[^\x60]+\x60|[\w.-]*\/[\w./-]+|\b[\w-]+\.[A-Za-z]{1,6}\b`;
const CONCRETE = new RegExp(String.raw`${PATH}|\b(${TOOLS})\b`, "i");
const ACCEPTANCE = /\b(done when|accepted? when|acceptance( criteria)?:|passes when)\b/i;
const VERIFIED = /^[^:]+:\s*\S.*\s(?:->|→)\s*\S.*\s@\s*\S+/;
const NOT_RUN = /^[^:]+:\s*not run\b\s*[,:;—–-]?\s*\S/i;
const ACCEPTED = /^Accepted:\s*\S/i;
const PLAN_BOX = /^\[([ xX~-])\]\s+\S/;

type HandoffContext = ReturnType<typeof handoffContext>;
type Layout = ReturnType<typeof handoffLayout>;
type Candidate = HandoffHeading & { raw: string };

const SECTION_INDEX = new Map(SECTION_TITLES.map((n, i) => [n.toLowerCase(), i]));
const SECTION_ORDER = SECTION_TITLES.map((n) => `## ${n}`).join(", ");
const sectionIndex = (title: string): number | undefined => SECTION_INDEX.get(title.toLowerCase());
const rule = ruleOf<HandoffContext>();
// An anchors rule's one hit on the section's heading, when the section is read.
const onAnchors = (c: HandoffContext, when: boolean, message: string): Hit[] =>
  c.anchorLines !== null && when ? [at(c.anchorsAt!.line, message)] : [];

/** The rules, in the order their issues are listed when two fall on one line. */
export const HANDOFF_RULES: readonly Rule<HandoffContext>[] = [
  TEXT_RULES.bom,
  TEXT_RULES.crlf,
  rule("marker", "error", "sections", (c) => {
    if (c.lines[0] === MARKER) return [];
    const seen = /^<!--\s*memory-schema:\s*(\S+)\s*-->$/.exec(c.lines[0]?.trim() ?? "");
    const version = seen && `the marker says schema ${quoted(seen[1]!, QUOTE_CUT)}; this helper reads v1 only: `;
    return [at(1, version ? `${version}${BEGIN}` : `${BEGIN}; start from templates/handoff.md`)];
  }),
  rule("heading", "error", "sections", (c) => (c.layout.titleIndex < 0 ? [at(1, titleMissing(TITLE))] : [])),
  TEXT_RULES.newline,
  TEXT_RULES.conflicted,
  rule("placeholder", "error", null, (c) =>
    c.lines.flatMap((line, i) => (TEMPLATE_PLACEHOLDERS.has(line) ? [at(i + 1, PLACEHOLDER)] : []))),
  TEXT_RULES.markdown,
  rule("saved", "error or finding", "saved", (c) => {
    const { saved, savedLine } = c.model;
    const form = c.opts.mode === "root" && c.shaped ? "error" : "finding";
    if (saved === null || savedLine === null) {
      const line = Math.max(1, c.layout.titleIndex + 2);
      return [at(line, "no `Saved: <ISO-8601 with Z or offset>` line after the title (write stamps it)", form)];
    }
    const st = stateTime(null, saved, c.opts.nowMs);
    if (st.known) return [];
    const value = quoted(unticked(saved), QUOTE_CUT);
    if (st.reason === "future") return [at(savedLine, `Saved: ${value} is in the future`, "finding")];
    return [at(savedLine, `Saved: ${value} is not an ISO-8601 time with a zone (write stamps it)`, form)];
  }),
  rule("heading-case", "finding", null, (c) => {
    const misspelt = c.sections.filter((s) => s.heading.title !== s.name);
    return misspelt.map((s) => at(s.heading.line, `write the heading as \`## ${s.name}\``));
  }),
  rule("section-repeated", "error or finding", "sections", (c) =>
    c.sections.filter((h) => c.first.get(h.key) !== h.heading).map(({ heading, name, key }) => {
      const message = `\`## ${name}\` appears again (first at line ${c.first.get(key)!.line}); merge the two`;
      return at(heading.line, message, OPTIONAL_SECTIONS.has(name) ? "finding" : "error");
    })),
  rule("section-order", "error", "sections", (c) => {
    const out: Hit[] = [];
    let highest = -1;
    for (const { heading, index, name, key } of c.sections) {
      if (c.first.get(key) !== heading) continue;
      const message = `\`## ${name}\` comes after \`## ${SECTION_TITLES[highest]}\`; the order is ${SECTION_ORDER}`;
      if (index < highest) out.push(at(heading.line, message));
      else highest = index;
    }
    return out;
  }),
  rule("section-missing", "error", "sections", (c) =>
    c.missing.map(({ name, look }) => {
      if (look) {
        const raw = `${quoted(look.raw.trim(), QUOTE_CUT)} is not a section heading of schema v1`;
        return at(look.line, `${raw} and \`## ${name}\` is missing: did you mean \`## ${name}\`?`);
      }
      const index = sectionIndex(name)!;
      const next = c.model.headings.find((h) => h.depth === 2 && (sectionIndex(h.title) ?? -1) > index);
      const keep = "keep its heading, with `- none` when there is nothing to say";
      return at(next ? next.line : c.lines.length, `required section \`## ${name}\` is missing; ${keep}`);
    })),
  rule("unknown-section", "finding", null, (c) =>
    c.strays.map((s) => {
      const near = nearest(s.title, SECTION_TITLES);
      const raw = `${quoted(s.raw.trim(), QUOTE_CUT)} is not a section of schema v1`;
      return at(s.line, near ? `${raw}: did you mean \`## ${near}\`?` : `${raw}; nothing reads it`);
    })),
  rule("anchors-empty", "finding", null, (c) => {
    const message = "the anchors section is empty; write fills it with what `anchors` prints";
    return c.anchorsEmpty ? [at(c.anchorsAt!.line, message)] : [];
  }),
  rule("anchor-line", "error", "anchors", (c) =>
    (c.anchorLines ?? []).filter((a) => a.error !== null && !a.unknown).map((a) => at(a.line, a.error!))),
  rule("anchor-unknown", "finding", null, (c) =>
    (c.anchorLines ?? []).filter((a) => a.unknown).map((a) => at(a.line, a.error!))),
  rule("anchor-missing", "finding", "anchors", (c) =>
    c.anchorLines === null ? [] : c.lackingAnchors.map((l) => at(c.anchorsAt!.line, `no \`- ${l}:\` anchor line`))),
  rule("anchor-mixed", "finding", null, (c) => {
    const mixed = c.gitForm && c.model.anchors.keyFileMtimes !== null;
    return onAnchors(c, mixed, "`- Key file mtimes:` is for handoffs saved outside git");
  }),
  // A future `- Date:` makes the age unknown.
  rule("anchor-date", "finding", null, (c) => {
    const date = c.model.anchors.date;
    const st = date === null ? null : stateTime(date, null, c.opts.nowMs);
    if (c.anchorLines === null || st === null || st.known || st.reason !== "future") return [];
    const shown = quoted(unticked(date!), QUOTE_CUT);
    return onAnchors(c, true, `the - Date: anchor ${shown} is in the future (more than 5 minutes ahead): age unknown`);
  }),
  rule("plan-step", "finding", null, (c) =>
    c.items("Plan").flatMap((step) => {
      const m = PLAN_BOX.exec(step.text);
      if (!m) return [at(step.line, "a plan step without `[x]`, `[~]`, `[ ]` or `[-] … — dropped: <why>`")];
      const reasonless = m[1] === "-" && !/\bdropped:\s*\S/i.test(step.text);
      return reasonless ? [at(step.line, "a `[-]` step without `— dropped: <why>`")] : [];
    })),
  rule("decision-label", "finding", "decisions", (c) => {
    const message = "a decision without [user-directed], [user-approved] or [agent-proposed]";
    return c.items("Decisions").flatMap((d) => (LABELS.some((l) => d.text.includes(l)) ? [] : [at(d.line, message)]));
  }),
  rule("failed-cause", "finding", "failed", (c) => {
    const message = "a failed approach without its cause (`<what was tried>: <why it failed>`): it invites a retry";
    return c.items("Failed approaches").flatMap((f) => (CAUSE.test(f.text) ? [] : [at(f.line, message)]));
  }),
  rule("next-step", "finding", "nextSteps", (c) => {
    const message = "a next step naming no path, command or check: too vague to start cold";
    const out = steps(c).flatMap((n) => (CONCRETE.test(n.text) ? [] : [at(n.line, message)]));
    const heading = c.first.get("next steps");
    if (steps(c).length === 0 && heading) out.push(at(heading.line, "no next step"));
    return out;
  }),
  rule("next-action", "finding", "nextAction", (c) => {
    const first = steps(c)[0];
    const message = "the first next step has no acceptance criteria (`— done when <check passes>`)";
    return first && !ACCEPTANCE.test(first.text) ? [at(first.line, message)] : [];
  }),
  // Implemented, verified and accepted kept apart; on the section's own line the missing acceptance comes first.
  rule("accepted", "finding", "verification", (c) => {
    const heading = c.first.get("verification");
    const message = "no `- Accepted: <who, what, revision>` (or `- Accepted: not yet, <what awaits review>`)";
    const accepted = c.items("Verification").some((v) => ACCEPTED.test(v.text));
    return heading && !accepted ? [at(heading.line, message)] : [];
  }),
  // Optional, as the template says: a handoff without the section is not judged on it.
  rule("verification", "finding", "verification", (c) => {
    const heading = c.first.get("verification");
    if (!heading) return [];
    const form = "`<check>: <command> -> <result> @ <revision>` or `<check>: not run, <why>`";
    const checks = c.items("Verification").filter((v) => !ACCEPTED.test(v.text));
    const loose = checks.filter((v) => !VERIFIED.test(v.text) && !NOT_RUN.test(v.text));
    const out = loose.map((v) => at(v.line, `a verification line that is not ${form}`));
    if (checks.length === 0) out.push(at(heading.line, "no check recorded"));
    return out;
  }),
  rule("key-file", "finding", "keyFiles", (c) => {
    const message = "a key file that is not `- <relative path> — <why>` inside the root";
    return c.keyFiles.filter((k) => k.path === null).map((k) => at(k.line, message));
  }),
  rule("key-file-missing", "finding", "keyFiles", (c) => {
    const existing = c.opts.existingKeyFiles;
    const gone = existing ? c.keyFiles.filter((k) => k.path !== null && !existing.has(k.path)) : [];
    return gone.map((k) => at(k.line, `key file ${quotedPath(k.path!)} does not exist`));
  }),
  rule("line-cap", "finding", "size", (c) => {
    const over = `${lineCount(c)} lines, over the ${LINE_CAP}-line cap`;
    const message = `${over}: compress decision prose first; never drop failed approaches or anchors`;
    return lineCount(c) > LINE_CAP ? [at(LINE_CAP + 1, message)] : [];
  }),
  rule("secret", "finding", "secrets", (c) => {
    const done = c.opts.redacted ? ", redacted by write" : "; write redacts it";
    return c.secrets.map((s) => at(s.line, `a secret (${s.kind})${done}`));
  }),
  rule("dropped", "finding", "dropped", (c) =>
    (c.dropped ?? []).map((i) => {
      const item = `[${i.section}] ${quoted(i.text, QUOTE_CUT)}`;
      const lost = i.section === "Failed approaches" ? "is not carried over" : "is neither carried over nor closed";
      return at(0, `${item} of the previous handoff ${lost}`);
    })),
];

const items = (c: HandoffContext, name: string) => Math.max(1, c.items(name).length);
/** The score's parts in the order the result lists them: each hit of a rule lowering a part takes one share. */
export const HANDOFF_PARTS: readonly Part<HandoffContext>[] = [
  { part: "sections", weight: 15, of: () => 3 },
  { part: "saved", weight: 5 },
  { part: "anchors", weight: 10, of: (c) => (c.anchorsAt && c.anchorLines === null ? null : 2) },
  { part: "failed", weight: 10, of: (c) => items(c, "Failed approaches") },
  { part: "decisions", weight: 10, of: (c) => items(c, "Decisions") },
  { part: "nextSteps", weight: 10, of: (c) => items(c, "Next steps") },
  { part: "nextAction", weight: 5 },
  { part: "keyFiles", weight: 10, of: (c) => (c.opts.existingKeyFiles ? Math.max(1, c.keyFiles.length) : null) },
  { part: "verification", weight: 10, of: (c) => (c.first.get("verification") ? 1 + items(c, "Verification") : null) },
  { part: "size", weight: 5 },
  { part: "secrets", weight: 5 },
  { part: "dropped", weight: 5, of: (c) => (c.dropped === null ? null : 1) },
];

const steps = (c: HandoffContext) => c.items("Next steps");

// The anchors section's lines checked against what `anchors` prints (comments skipped), and what the model lacks.
function readAnchors(model: ParsedHandoff, layout: Layout, heading: HandoffHeading | undefined, mode: string) {
  const body = heading && layout.anchors ? layout.lines.slice(layout.anchors.start, layout.anchors.end) : null;
  const anchorsEmpty = body !== null && mode === "stdin" && isEmptyAnchorsBody(body);
  // Each line's error (a repeated label's included), and whether that is only a label it does not know.
  let anchorLines: { line: number; error: string | null; unknown: boolean }[] | null = null;
  if (body !== null && !anchorsEmpty) {
    anchorLines = [];
    const seen = new Set<string>();
    let inComment = false;
    for (const [i, line] of body.entries()) {
      const trimmed = line.trim();
      if (inComment || trimmed.startsWith("<!--")) {
        inComment = !trimmed.includes("-->");
        continue;
      }
      if (trimmed === "") continue;
      const got = readAnchorLine(line);
      const twice = "label" in got && seen.has(got.label) ? `\`- ${got.label}:\` appears twice` : null;
      if ("label" in got) seen.add(got.label);
      const error = "error" in got ? got.error : twice;
      anchorLines.push({ line: heading!.line + i + 1, error, unknown: "unknown" in got });
    }
  }
  const a = model.anchors;
  const gitForm = a.branch !== null || a.head !== null || a.dirty !== null || a.inProgress != null;
  const value: Record<string, string | null> = { Branch: a.branch, HEAD: a.head, "Dirty files": a.dirty, Date: a.date };
  const want = gitForm ? ["Branch", "HEAD", "Dirty files", "Date"] : ["Date"];
  const lackingAnchors = want.filter((l) => value[l] === null);
  return { anchorLines, anchorsEmpty, anchorsAt: heading, gitForm, lackingAnchors };
}

function handoffContext(input: string, opts: HandoffValidateOptions) {
  const text = normaliseText(input);
  const tree = parseBlocks(text);
  const model = readHandoff(text, tree);
  const layout = handoffLayout(text, model);
  const { lines } = layout;
  const shaped = lines[0] === MARKER && layout.titleIndex >= 0;

  // Sections: the first level-2 heading of each name; look-alikes among the other headings.
  const first = new Map<string, HandoffHeading>();
  const sections: { heading: HandoffHeading; index: number; name: string; key: string }[] = [];
  const candidates: Candidate[] = [];
  for (const h of model.headings) {
    const index = h.depth === 2 ? sectionIndex(h.title) : undefined;
    if (index === undefined) {
      if (h.depth !== 1 || h.line - 1 !== layout.titleIndex) candidates.push({ ...h, raw: lines[h.line - 1]! });
      continue;
    }
    const key = h.title.toLowerCase();
    sections.push({ heading: h, index, name: SECTION_TITLES[index]!, key });
    if (!first.has(key)) first.set(key, h);
  }
  const used = new Set<number>();
  // Each missing required section (when shaped) with the heading that looks like it.
  const missing: { name: string; look: Candidate | null }[] = [];
  for (const name of shaped ? SECTION_TITLES : []) {
    if (OPTIONAL_SECTIONS.has(name) || first.has(name.toLowerCase())) continue;
    const look = candidates.find((c) => !used.has(c.line) && nearest(c.title, [name]) === name) ?? null;
    if (look) used.add(look.line);
    missing.push({ name, look });
  }
  // A level-3+ heading that resembles no section is an ordinary sub-heading.
  const resembles = (s: Candidate) => s.depth <= 2 || nearest(s.title, SECTION_TITLES) !== null;
  const strays = candidates.filter((s) => !used.has(s.line) && resembles(s));

  const keyItems = model.items.filter((i) => i.section === "key files" && !/^none\.?$/i.test(i.text.trim()));
  const keyFiles = model.keyFiles
    .map((k, i) => ({ ...k, line: keyItems[i]!.line, item: keyItems[i]!.text.trim() }))
    .filter((k) => !NONE.test(k.item));
  const anchors = readAnchors(model, layout, first.get("environment anchors"), opts.mode);
  const items = (name: string) => model.items.flatMap((i) => {
    const text = i.text.trim();
    return i.section === name.toLowerCase() && !NONE.test(text) ? [{ text, line: i.line }] : [];
  });
  const dropped = opts.prior == null ? null : droppedItems(opts.prior, text);
  const secrets: readonly RedactionFinding[] = [];
  return { opts, input, text, lines, flags: tree.flags, secrets, layout, model, shaped, sections, first,
    missing, strays, items, keyFiles, dropped, ...anchors };
}

/** Validates a handoff: `valid` is false exactly when an error was found; never throws on content. */
export function validateHandoff(input: string, opts: HandoffValidateOptions): Validation {
  let pass = opts.redacted ?? redactText(input);
  // Anchor lines are judged as written (a branch may look like an assignment), as `anchors` does.
  const range = pass.findings.length > 0 ? handoffLayout(input).anchors : null;
  if (range !== null && pass.findings.some((f) => f.line > range.start && f.line <= range.end)) {
    const exemptLines = new Set<number>();
    for (let l = range.start + 1; l <= range.end; l++) exemptLines.add(l);
    pass = redactText(input, { exemptLines });
  }
  const c = handoffContext(pass.text, opts);
  return runRules(HANDOFF_RULES, HANDOFF_PARTS, pass, c, (c.dropped ?? []).map((i) => i.text));
}

/** The usable key file paths of a handoff (root-relative, inside the root), for the caller to look up. */
export function handoffKeyFiles(text: string): string[] {
  return parseHandoff(text).keyFiles.flatMap((k) => (k.path === null ? [] : [k.path]));
}
