// Parses a handoff (docs/design.md#files-on-disk) into plain data. Pure: text in, object out, never throws on
// content. Markdown block structure comes from a small CommonMark line scanner (blocks.ts),
// so that a `## Environment anchors` inside a code block, an HTML comment or a list item
// spanning lines is read as what it is; small regexes only split the text of one line or
// list item.
import { parseBlocks, type Block } from "./grammar.ts";
import { parseDirtyHashes, parseInProgress, parseKeyFileMtimes, parsePathList, unquoteBranch, type DirtyHash } from "./anchor-lines.ts";
import { stateTime, type StateTime } from "./state-time.ts";
import { editDistance, lineAt, lineStartsOf } from "./validate-common.ts";
import { asObjectId, isPlausibleBranch, parseStrictTime, safeRelativePath, type ObjectId, type ValidTime } from "./values.ts";

/**
 * A plan step and its status (`- [x]` done, `- [~]` in progress, `- [ ]` todo, and
 * `- [-] <step> — dropped: <why>` abandoned, a closed step; docs/design.md#files-on-disk).
 */
export interface PlanStep {
  status: "done" | "in-progress" | "todo" | "abandoned" | "unmarked";
  text: string;
  /** Nesting level in `steps` (0 for a top-level item); absent in `plan`. */
  depth?: number;
}

/** A `## Key files` entry: `- <path> — <why>` (a path in backticks is accepted). */
export interface KeyFile {
  /** The path as written. */
  raw: string;
  /** Normalised root-relative path, or null when it is absolute or leaves the root. */
  path: string | null;
  why: string;
}

/** The raw text of each anchor line, as written after its label (null when absent). */
export interface RawAnchors {
  /** True when the document has a `## Environment anchors` section. */
  present: boolean;
  branch: string | null;
  head: string | null;
  dirty: string | null;
  date: string | null;
  keyFileMtimes: string | null;
  /** `- In progress:` (docs/design.md#files-on-disk); absent when no operation was in progress. */
  inProgress?: string | null;
  /** `- Dirty hashes:` (docs/design.md#verdicts-and-the-brief); absent when the handoff has none. */
  dirtyHashes?: string | null;
}

/** A heading outside code, HTML blocks and lists: its level (1-6), title (as `sections` writes it) and 1-based line. */
export interface HandoffHeading {
  depth: number;
  title: string;
  line: number;
}

/**
 * A top-level list item of a section, as written (without its bullet), with its 1-based line:
 * what `plan`, `decisions`, `failedApproaches`, `nextSteps` and `keyFiles` are read from, so a
 * reader that needs positions (validate, docs/design.md#files-on-disk) reads the same items.
 */
export interface HandoffItem {
  /** The section's title in lower case (`plan`, `verification`, `key files`, …). */
  section: string;
  text: string;
  line: number;
}

/** A handoff as plain data; text fields keep the file's own words (data, not instructions). */
export interface ParsedHandoff {
  /** First line is `<!-- memory-schema: v1 -->`. */
  marker: boolean;
  /** Has the `# Session Handoff` heading. */
  heading: boolean;
  /** Text after `Saved:`, or null. */
  saved: string | null;
  /** The level-2 section titles in document order. */
  sections: string[];
  /** The goal section's text, whitespace as written. */
  goal: string;
  /** The `## Plan` list's top-level items, each with its whole text (nested items included). */
  plan: PlanStep[];
  /**
   * Every checkbox of `## Plan` at any depth, each with its own text only (field report 25:
   * an open sub-step under a done step is open). Items without a checkbox are left out,
   * except top-level ones (`unmarked`). What the brief and every plan count read.
   */
  steps: PlanStep[];
  decisions: string[];
  failedApproaches: string[];
  openQuestions: string[];
  nextSteps: string[];
  keyFiles: KeyFile[];
  anchors: RawAnchors;
  /** 1-based line of the `Saved:` line read as `saved`; null when there is none. */
  savedLine: number | null;
  /** Every heading of the document in order (the level-2 ones are `sections`), with its line. */
  headings: HandoffHeading[];
  /**
   * The list items of every section read (the first of a repeated title; not the goal), in
   * document order, with their lines (docs/design.md#files-on-disk: validate's findings name them).
   */
  items: HandoffItem[];
  /**
   * Level-2 sections schema v1 does not know, with the nearest known title (null when none is
   * near): a `## Failed aproaches` is read as `## Failed approaches`, never silently dropped.
   */
  strays: { title: string; near: string | null; line: number }[];
}

/** The level-2 section titles of schema v1, in order (docs/design.md#files-on-disk). */
export const SECTION_TITLES = [
  "Current goal", "Scope", "Plan", "Verification", "Decisions",
  "Failed approaches", "Open questions", "Next steps", "Key files", "Environment anchors",
] as const;
const KNOWN_SECTIONS = new Set(SECTION_TITLES.map((t) => t.toLowerCase()));
// Sections whose items a misspelled heading may lend its items to (anchors never: they are checked against git).
const LENDABLE = new Set(["current goal", "plan", "decisions", "failed approaches", "open questions", "next steps"]);

/** The known section title nearest to `title` (the validator's "did you mean" distance), or null. */
export function nearestSection(title: string): string | null {
  const t = title.toLowerCase();
  let best: string | null = null;
  let bestD = Infinity;
  for (const n of SECTION_TITLES) {
    const d = editDistance(t, n.toLowerCase());
    if (d < bestD) [bestD, best] = [d, n];
  }
  return best !== null && bestD <= Math.max(2, Math.floor(best.length / 4)) ? best : null;
}

/** The sentence brief, check and the hook share for unknown sections, naming only known titles. */
export function straySentence(strays: ParsedHandoff["strays"]): string | null {
  if (strays.length === 0) return null;
  const near = [...new Set(strays.flatMap((s) => (s.near === null ? [] : [s.near])))];
  const lent = near.length > 0 ? ` (did you mean ${near.map((n) => `\`## ${n}\``).join(", ")}? its items are read as that section's)` : "";
  const lost = strays.some((s) => s.near === null) ? "; nothing reads a section with no near name" : "";
  return `the handoff has ${strays.length === 1 ? "a section" : `${strays.length} sections`} schema v1 does not know${lent}${lost}: run \`validate handoff\` and fix the heading`;
}

/** Strips a leading BOM and turns CRLF / CR line ends into LF (pasted handoffs, field report #16). */
export function normaliseText(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
}

function slice(text: string, node: Block): string {
  return text.slice(node.start, node.end);
}

/** Source of a list item without its bullet: from its first child to its last. */
function itemText(text: string, item: Block): string {
  const first = item.children[0];
  const last = item.children[item.children.length - 1];
  return first && last ? text.slice(first.start, last.end) : "";
}

function headingTitle(text: string, h: Block): string {
  return slice(text, h).replace(/^#+\s*/, "").replace(/\s*#*\s*$/, "").trim();
}

const STEP = /^\[([ xX~-])\]\s*/;

function planStep(raw: string): PlanStep {
  const m = STEP.exec(raw);
  if (!m) return { status: "unmarked", text: raw };
  const status = m[1] === "~" ? "in-progress" : m[1] === " " ? "todo" : m[1] === "-" ? "abandoned" : "done";
  return { status, text: raw.slice(m[0].length) };
}

// Every checkbox of a plan list, depth first: an item's own text is its blocks before its
// first nested list; nested lists are steps of their own (field report 25).
// (Index loops, no spreads: the session-start hook parses a handoff on every start, in code
// V8 has not compiled yet, where each iterator and copy costs; docs/decisions/plain-bundle.md.)
function allSteps(text: string, list: Block, depth: number, out: PlanStep[]): void {
  const items = list.children;
  for (let i = 0; i < items.length; i++) {
    const children = items[i]!.children;
    let own = 0;
    while (own < children.length && children[own]!.type !== "list") own++;
    const step = planStep(own > 0 ? text.slice(children[0]!.start, children[own - 1]!.end) : "");
    if (step.status !== "unmarked" || depth === 0) out.push({ status: step.status, text: step.text, depth });
    for (let j = own; j < children.length; j++) if (children[j]!.type === "list") allSteps(text, children[j]!, depth + 1, out);
  }
}

const KEY_SEPARATOR = /\s+[\u2014\u2013-]\s+/;

function keyFile(raw: string): KeyFile {
  let pathText: string;
  let why = "";
  const tick = /^`([^`]+)`\s*(.*)$/s.exec(raw);
  if (tick) {
    pathText = tick[1]!.trim();
    why = tick[2]!.replace(/^[\u2014\u2013:-]\s*/, "");
  } else {
    const sep = KEY_SEPARATOR.exec(raw);
    pathText = (sep ? raw.slice(0, sep.index) : raw).trim();
    why = sep ? raw.slice(sep.index + sep[0].length) : "";
  }
  return { raw: pathText, path: safeRelativePath(pathText), why: why.trim() };
}

// Anchor labels as the handoff format writes them (docs/design.md#files-on-disk); matching is exact apart from the label's case.
const ANCHOR = /^(Branch|HEAD|Dirty files|Dirty hashes|Date|Key file mtimes|In progress):[ \t]*(.*)$/is;

function unticked(value: string): string {
  const m = /^`([^`]*)`$/.exec(value.trim());
  return m ? m[1]!.trim() : value.trim();
}

/**
 * Parses handoff text (CRLF and a BOM tolerated). Sections are level-2 headings; list items
 * of the Plan, Decisions, Failed approaches, Open questions, Next steps and Key files
 * sections become entries; the first `## Environment anchors` list gives the anchor lines.
 * Never throws on content.
 *
 * Why a line scanner and not remark: the schema is line-oriented (exact `## ` headings, `- `
 * items, exact anchor lines), but reading it must still get Markdown's block structure right
 * (fenced code, HTML comments, multi-line and nested list items, lazy continuation), so
 * `parseBlocks` follows CommonMark's block algorithm and nothing more. remark-parse did the
 * same with micromark at a start-up cost measured at ~17 ms to parse a 60-line handoff plus
 * ~14 ms to compile its code, which put `drift` at 1.57x raw git against a 1.2x target
 * (BENCHMARKS.md). test/schema/corpus.test.ts holds remark's results on a corpus of tricky
 * documents as fixtures; the scanner must keep matching them.
 */
export function parseHandoff(input: string): ParsedHandoff {
  const text = normaliseText(input);
  return readHandoff(text, parseBlocks(text));
}

/**
 * `parseHandoff` on text already normalised (`normaliseText`) and its block tree
 * (`parseBlocks(text)`), for a caller that needs the tree too (validate): the blocks are
 * scanned once. Never throws on content.
 */
export function readHandoff(text: string, tree: Block): ParsedHandoff {
  return readFields(text, tree, true);
}

// The one reading of a handoff. With `lists` false it skips what only list items give (plan,
// steps, decisions, failed approaches, questions, next steps, key files, items) and reads
// the rest exactly as with true: `stateTimeOfText` needs only `Saved:` and the anchors, and
// the session-start hook calls it on every start (a 150-line handoff's lists cost it more
// than the scan; docs/decisions/plain-bundle.md). Such a partial model never leaves this module.
function readFields(text: string, tree: Block, lists: boolean): ParsedHandoff {
  const starts = lineStartsOf(text);
  const out: ParsedHandoff = {
    marker: text.startsWith("<!-- memory-schema: v1 -->\n") || text === "<!-- memory-schema: v1 -->",
    heading: false,
    saved: null,
    sections: [],
    goal: "",
    plan: [],
    steps: [],
    decisions: [],
    failedApproaches: [],
    openQuestions: [],
    nextSteps: [],
    keyFiles: [],
    anchors: { present: false, branch: null, head: null, dirty: null, date: null, keyFileMtimes: null },
    savedLine: null,
    headings: [],
    items: [],
    strays: [],
  };
  let section: string | null = null;
  let stray = false;
  const seen = new Set<string>();
  const goalParts: string[] = [];
  const nodes = tree.children;
  for (let n = 0; n < nodes.length; n++) {
    const node = nodes[n]!;
    if (node.type === "heading") {
      const title = headingTitle(text, node);
      out.headings.push({ depth: node.depth ?? 1, title, line: lineAt(starts, node.start) });
      if (node.depth === 1 && title === "Session Handoff" && section === null) out.heading = true;
      if (node.depth === 2) {
        out.sections.push(title);
        stray = !KNOWN_SECTIONS.has(title.toLowerCase());
        if (stray) {
          // An unknown section lends its items to the nearest known one; validate names it.
          const near = nearestSection(title);
          out.strays.push({ title, near, line: lineAt(starts, node.start) });
          section = near !== null && LENDABLE.has(near.toLowerCase()) ? near.toLowerCase() : "(unknown)";
          continue;
        }
        // A repeated section is not read twice: the first one is the document's.
        section = seen.has(title.toLowerCase()) ? "(repeated)" : title.toLowerCase();
        seen.add(title.toLowerCase());
      }
      continue;
    }
    if (section === null) {
      if (node.type === "paragraph") {
        const lines = slice(text, node).split("\n");
        for (let i = 0; i < lines.length && out.saved === null; i++) {
          const m = /^Saved:[ \t]*(.*)$/.exec(lines[i]!.trim());
          if (m) {
            out.saved = m[1]!.trim();
            out.savedLine = lineAt(starts, node.start) + i;
          }
        }
      }
      continue;
    }
    if (section === "current goal") {
      goalParts.push(slice(text, node));
      continue;
    }
    if (node.type !== "list" || (!lists && section !== "environment anchors")) continue;
    const listed = node.children;
    const items: string[] = [];
    for (let i = 0; i < listed.length; i++) items.push(itemText(text, listed[i]!));
    if (section !== "(repeated)" && !stray && lists) {
      for (let i = 0; i < listed.length; i++) out.items.push({ section, text: items[i]!, line: lineAt(starts, listed[i]!.start) });
    }
    const into = section === "decisions" ? out.decisions : section === "failed approaches" ? out.failedApproaches : section === "open questions" ? out.openQuestions : section === "next steps" ? out.nextSteps : null;
    if (into !== null) for (let i = 0; i < items.length; i++) into.push(items[i]!);
    switch (section) {
      case "plan":
        for (let i = 0; i < items.length; i++) out.plan.push(planStep(items[i]!));
        allSteps(text, node, 0, out.steps);
        break;
      case "key files":
        // `- none` keeps an empty section's heading (references/handoff-schema.md): no file.
        for (let i = 0; i < items.length; i++) if (!/^none\.?$/i.test(items[i]!.trim())) out.keyFiles.push(keyFile(items[i]!));
        break;
      case "environment anchors":
        if (out.anchors.present) break;
        out.anchors.present = true;
        for (const item of items) {
          const m = ANCHOR.exec(item);
          if (!m) continue;
          const label = m[1]!.toLowerCase();
          const value = m[2]!;
          const key = label === "branch" ? "branch" : label === "head" ? "head" : label === "dirty files" ? "dirty" : label === "date" ? "date" : label === "in progress" ? "inProgress" : label === "dirty hashes" ? "dirtyHashes" : "keyFileMtimes";
          if (key === "inProgress" || key === "dirtyHashes") {
            // Only set when present, so that documents without it parse as before.
            if (out.anchors[key] === undefined) out.anchors[key] = value;
          } else if (out.anchors[key] === null) out.anchors[key] = value;
        }
        break;
    }
  }
  // A section heading with no list still counts as present.
  if (seen.has("environment anchors")) out.anchors.present = true;
  out.goal = goalParts.join("\n\n").trim();
  return out;
}

/**
 * THE state time of a parsed handoff (docs/design.md#one-reading-of-the-handoff): the
 * model's `- Date:` anchor (first `## Environment anchors` section, top-level item), else its
 * `Saved:` line, by `stateTime` (future only beyond 5 minutes). Every verb's age comes from
 * here: hook, check, brief, drift, archives, the merge driver. Pure; never throws.
 * @param nowMs now, in ms since the epoch.
 */
export function handoffStateTime(h: ParsedHandoff, nowMs: number): StateTime {
  return stateTime(h.anchors.date, h.saved, nowMs);
}

/**
 * `handoffStateTime(parseHandoff(text))`, the one call for a verb that needs only the age: the
 * same reading, without the fields only list items give (test/schema/state-time.test.ts holds
 * them equal on the corpus and on generated documents).
 */
export function stateTimeOfText(text: string, nowMs: number): StateTime {
  return glanceAtHandoff(text, nowMs).stateTime;
}

/** The state time and the unknown sections of handoff text, from one scan (what the session-start hook needs). */
export function glanceAtHandoff(text: string, nowMs: number): {
  stateTime: StateTime; strays: ParsedHandoff["strays"];
} {
  const normalised = normaliseText(text);
  const h = readFields(normalised, parseBlocks(normalised), false);
  return { stateTime: handoffStateTime(h, nowMs), strays: h.strays };
}

/** The first non-blank line of the model's `## Current goal` (for `archives list`), or null. */
export function goalLineOf(h: ParsedHandoff): string | null {
  const line = h.goal.split("\n").find((l) => l.trim() !== "");
  return line === undefined ? null : line.trim();
}

/** An open item of a handoff: an unfinished plan step (`[ ]`, `[~]`, any depth) or a next step (a `[-]` one is closed). */
export interface OpenItem {
  section: "Plan" | "Next steps";
  text: string;
}

const NEXT_CHECKBOX = /^\[([ xX~-])\]\s+/;
const NONE_ITEM = /^(none|none recorded|n\/a|-)\.?$/i;

/**
 * The open items of a parsed handoff (docs/design.md#files-on-disk): `## Plan` steps still todo or
 * in progress at any depth, then `## Next steps` items that are not `none` nor dropped on
 * purpose (`- [-] … — dropped: …`, docs/design.md#files-on-disk). Each item's first line, trimmed. Pure.
 */
export function openItemsOf(h: ParsedHandoff): OpenItem[] {
  const first = (t: string) => t.split("\n")[0]!.trim();
  const items: OpenItem[] = [];
  for (const s of h.steps) if (s.status === "todo" || s.status === "in-progress") items.push({ section: "Plan", text: first(s.text) });
  for (const raw of h.nextSteps) {
    const m = NEXT_CHECKBOX.exec(raw);
    if (m?.[1] === "-") continue;
    const text = first(m ? raw.slice(m[0].length) : raw);
    if (text !== "" && !NONE_ITEM.test(text)) items.push({ section: "Next steps", text });
  }
  return items;
}

/** The anchors after validation: only these values may reach git (docs/design.md#tokens-and-the-publication-protocol). */
export interface CheckedAnchors {
  head: ObjectId | null;
  /** The branch as written, when plausible (`(detached)` included). */
  branch: string | null;
  /** The state time (docs/design.md#verdicts-and-the-brief): `- Date:`, else `Saved:`; null when neither parses or it is in the future. */
  date: ValidTime | null;
  /** The state time with the reason it is unknown, when it is (`stateTime`). */
  stateTime: StateTime;
  /** The `- In progress:` anchor's words (`rebase of feature/login`); null when none or malformed. */
  inProgress: string | null;
  /** The `- Key file mtimes:` anchor (outside git), times as written (null: saved as missing). */
  keyFileMtimes: { path: string; mtime: string | null }[];
  /** Dirty paths recorded at the save; null when the line is missing or malformed. */
  dirty: string[] | null;
  /** How many dirty paths the list left off (its `… and N more`); 0 when it names them all. */
  dirtyMore: number;
  /** The `- Dirty hashes:` items (top-relative paths inside the repository); absent or empty when none. */
  dirtyHashes?: DirtyHash[];
  /** Key files whose paths are usable (root-relative, inside the root). */
  keyFiles: string[];
  /**
   * Fields that failed validation or are missing: `anchors` (no section), `head`, `branch`,
   * `dirty`, `date`, `saved`, `keyFiles` (some path absolute or outside the root).
   */
  unverifiable: string[];
}

/**
 * Validates a parsed handoff's anchors (docs/design.md#files-on-disk): a full 40/64-hex HEAD, a plausible
 * branch, a strict ISO-8601 time with a zone not in the future (beyond `CLOCK_SKEW_MS`),
 * relative paths inside the root; the state time by `stateTime` (docs/design.md#verdicts-and-the-brief). Bad values become unverifiable fields; never throws.
 * @param nowMs the current time in ms since the epoch.
 * @param _text unused since the state time comes from the model (`handoffStateTime`); kept so that callers passing it still compile.
 */
export function checkAnchors(h: ParsedHandoff, nowMs: number, _text: string | null = null): CheckedAnchors {
  const unverifiable: string[] = [];
  if (!h.anchors.present) unverifiable.push("anchors");
  const head = h.anchors.head === null ? null : asObjectId(unticked(h.anchors.head));
  if (head === null) unverifiable.push("head");
  // No backtick stripping for the branch: backticks in a branch line are treated as hostile
  // (docs/design.md#files-on-disk); the format writes the name bare.
  const branchText = h.anchors.branch === null ? null : unquoteBranch(h.anchors.branch.trim());
  const branch = branchText !== null && isPlausibleBranch(branchText) ? branchText : null;
  if (branch === null) unverifiable.push("branch");
  const dirtyList = h.anchors.dirty === null ? null : parsePathList(h.anchors.dirty);
  if (dirtyList === null) unverifiable.push("dirty");
  const anchorDate = h.anchors.date === null ? null : parseStrictTime(unticked(h.anchors.date), nowMs);
  const savedDate = h.saved === null ? null : parseStrictTime(unticked(h.saved), nowMs);
  if (anchorDate === null || "error" in anchorDate) unverifiable.push("date");
  if (savedDate === null || "error" in savedDate) unverifiable.push("saved");
  // The one reading of the state time (docs/design.md#one-reading-of-the-handoff): the model's.
  const st = handoffStateTime(h, nowMs);
  const date = st.known ? st.time : null;
  const progress = h.anchors.inProgress == null ? null : parseInProgress(h.anchors.inProgress);
  if (h.anchors.inProgress != null && progress === null) unverifiable.push("inProgress");
  const mtimes = h.anchors.keyFileMtimes === null ? [] : parseKeyFileMtimes(h.anchors.keyFileMtimes);
  if (mtimes === null) unverifiable.push("keyFileMtimes");
  const keyFileMtimes = (mtimes ?? []).flatMap((m) => {
    const p = safeRelativePath(m.path);
    return p === null ? [] : [{ path: p, mtime: m.mtime }];
  });
  const keyFiles: string[] = [];
  for (const k of h.keyFiles) {
    if (k.path !== null) keyFiles.push(k.path);
  }
  if (keyFiles.length < h.keyFiles.length) unverifiable.push("keyFiles");
  const hashes = h.anchors.dirtyHashes == null ? [] : parseDirtyHashes(h.anchors.dirtyHashes);
  if (hashes === null) unverifiable.push("dirtyHashes");
  const dirtyHashes = (hashes ?? []).filter((x) => safeRelativePath(x.path) === x.path);
  return { head, branch, date, stateTime: st, inProgress: progress?.words ?? null, keyFileMtimes, dirty: dirtyList?.paths ?? null, dirtyMore: dirtyList?.more ?? 0, dirtyHashes, keyFiles, unverifiable };
}
