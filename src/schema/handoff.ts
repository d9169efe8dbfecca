// Reads a handoff into the one model every verb reads (docs/design.md#files-on-disk); never throws on content.
import * as anchor from "./anchor-lines.ts";
import { parseBlocks, type Block } from "./grammar.ts";
import { stateTime, type StateTime } from "./state-time.ts";
import { nearest } from "./validate-common.ts";
import { asObjectId, isPlausibleBranch, MARKER, parseStrictTime, safeRelativePath, unticked } from "./values.ts";

/** A plan step: `- [x]` done, `- [~]` in progress, `- [ ]` todo, `- [-] <step> — dropped: <why>` abandoned. */
export interface PlanStep {
  status: "done" | "in-progress" | "todo" | "abandoned" | "unmarked";
  text: string;
  depth?: number;
}

/** A `## Key files` entry `- <path> — <why>`: its path normalised (null outside the root). */
interface KeyFile {
  path: string | null;
}

/** The raw text of each anchor line after its label (null when absent; the last two absent when never written). */
interface RawAnchors {
  present: boolean;
  branch: string | null;
  head: string | null;
  dirty: string | null;
  date: string | null;
  keyFileMtimes: string | null;
  inProgress?: string | null;
  dirtyHashes?: string | null;
  dirtyModes?: string | null;
}

/** A heading outside code, comments and lists. */
export interface HandoffHeading {
  depth: number;
  title: string;
  line: number;
}

/** A handoff as plain data; text fields keep the file's own words (data, not instructions). */
export interface ParsedHandoff {
  marker: boolean;
  heading: boolean;
  saved: string | null;
  savedLine: number | null;
  goal: string;
  /** The `## Plan` list's top-level items, each with its whole text (nested items included). */
  plan: PlanStep[];
  /** Every checkbox of `## Plan` at any depth with its own text (an open sub-step is open), and top-level items. */
  steps: PlanStep[];
  decisions: string[];
  failedApproaches: string[];
  openQuestions: string[];
  nextSteps: string[];
  keyFiles: KeyFile[];
  anchors: RawAnchors;
  headings: HandoffHeading[];
  /** Each section's top-level items without the bullet (the first of a repeated title; not the goal), for validate. */
  items: { section: string; text: string; line: number }[];
  /** Level-2 sections schema v1 does not know, with the nearest known title: never silently dropped. */
  strays: { title: string; near: string | null; line: number }[];
}

export const SECTION_TITLES = [
  "Current goal", "Scope", "Plan", "Verification", "Decisions",
  "Failed approaches", "Open questions", "Next steps", "Key files", "Environment anchors",
] as const;
const KNOWN_SECTIONS = new Set(SECTION_TITLES.map((t) => t.toLowerCase()));
// Sections a misspelled heading may lend its items to (anchors never: they are checked against git).
const LENDABLE = new Set(["current goal", "plan", "decisions", "failed approaches", "open questions", "next steps"]);

/** The sentence brief, check and the hook share for unknown sections, naming only known titles. */
export function straySentence(strays: ParsedHandoff["strays"]): string | null {
  if (strays.length === 0) return null;
  const near = [...new Set(strays.flatMap((s) => (s.near === null ? [] : [s.near])))];
  const names = near.map((n) => `\`## ${n}\``).join(", ");
  const lent = near.length > 0 ? ` (did you mean ${names}? its items are read as that section's)` : "";
  const lost = strays.some((s) => s.near === null) ? "; nothing reads a section with no near name" : "";
  const what = strays.length === 1 ? "a section" : `${strays.length} sections`;
  return `the handoff has ${what} schema v1 does not know${lent}${lost}: run \`validate handoff\` and fix the heading`;
}

/** Strips a leading BOM and turns CRLF / CR line ends into LF (pasted handoffs). */
export function normaliseText(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
}

const STEP = /^\[([ xX~-])\]\s*/;
const KEY_SEPARATOR = /\s+[\u2014\u2013-]\s+/;
// Anchor labels as the format writes them; only the label's case may differ.
const ANCHOR = new RegExp(`^(${anchor.ANCHOR_LABELS.join("|")}):[ \t]*(.*)$`, "is");
const ANCHOR_KEY: Record<string, Exclude<keyof RawAnchors, "present">> = {
  branch: "branch", head: "head", "dirty files": "dirty", date: "date", "key file mtimes": "keyFileMtimes",
  "in progress": "inProgress", "dirty hashes": "dirtyHashes", "dirty modes": "dirtyModes",
};

/** A list item's source without its bullet. */
export function itemText(text: string, item: Block): string {
  const first = item.children[0];
  const last = item.children[item.children.length - 1];
  return first && last ? text.slice(first.start, last.end) : "";
}

function planStep(raw: string): PlanStep {
  const m = STEP.exec(raw);
  if (!m) return { status: "unmarked", text: raw };
  const status = m[1] === "~" ? "in-progress" : m[1] === " " ? "todo" : m[1] === "-" ? "abandoned" : "done";
  return { status, text: raw.slice(m[0].length) };
}

// Every checkbox of a plan list, depth first; index loops, as the session-start hook runs this before V8 compiles it.
function allSteps(text: string, list: Block, depth: number, out: PlanStep[]): void {
  const items = list.children;
  for (let i = 0; i < items.length; i++) {
    const children = items[i]!.children;
    let own = 0;
    while (own < children.length && children[own]!.type !== "list") own++;
    const step = planStep(own > 0 ? text.slice(children[0]!.start, children[own - 1]!.end) : "");
    if (step.status !== "unmarked" || depth === 0) out.push({ status: step.status, text: step.text, depth });
    for (let j = own; j < children.length; j++) {
      if (children[j]!.type === "list") allSteps(text, children[j]!, depth + 1, out);
    }
  }
}

// A path in backticks may be followed by its why directly; a bare one ends at a dash between spaces.
function keyFile(raw: string): KeyFile {
  const tick = /^`([^`]+)`/.exec(raw);
  const sep = tick ? null : KEY_SEPARATOR.exec(raw);
  const pathText = tick ? tick[1]!.trim() : (sep ? raw.slice(0, sep.index) : raw).trim();
  return { path: safeRelativePath(pathText) };
}

/** Parses handoff text (CRLF and a BOM tolerated) into the model. Never throws on content. */
export function parseHandoff(input: string): ParsedHandoff {
  const text = normaliseText(input);
  return readHandoff(text, parseBlocks(text));
}

// The one reading of a handoff; with `lists` false it skips what the session-start hook never needs.
export function readHandoff(text: string, tree: Block, lists = true): ParsedHandoff {
  const out: ParsedHandoff = {
    marker: text.startsWith(`${MARKER}\n`) || text === MARKER,
    heading: false, saved: null, savedLine: null, goal: "", plan: [], steps: [],
    decisions: [], failedApproaches: [], openQuestions: [], nextSteps: [], keyFiles: [],
    anchors: { present: false, branch: null, head: null, dirty: null, date: null, keyFileMtimes: null },
    headings: [], items: [], strays: [],
  };
  const listOf: Record<string, string[]> = {
    decisions: out.decisions, "failed approaches": out.failedApproaches,
    "open questions": out.openQuestions, "next steps": out.nextSteps,
  };
  let section: string | null = null;
  let stray = false;
  const seen = new Set<string>();
  const goalParts: string[] = [];
  const nodes = tree.children;
  for (let n = 0; n < nodes.length; n++) {
    const node = nodes[n]!;
    if (node.type === "heading") {
      const title = text.slice(node.start, node.end).replace(/^#+\s*/, "").replace(/\s*#*\s*$/, "").trim();
      out.headings.push({ depth: node.depth ?? 1, title, line: node.line });
      if (node.depth === 1 && title === "Session Handoff" && section === null) out.heading = true;
      if (node.depth !== 2) continue;
      const key = title.toLowerCase();
      stray = !KNOWN_SECTIONS.has(key);
      if (stray) {
        // An unknown section lends its items to the nearest known one; validate names it.
        const near = nearest(title, SECTION_TITLES);
        out.strays.push({ title, near, line: node.line });
        section = near !== null && LENDABLE.has(near.toLowerCase()) ? near.toLowerCase() : "(unknown)";
        continue;
      }
      // A repeated section is not read twice: the first one is the document's.
      section = seen.has(key) ? "(repeated)" : key;
      seen.add(key);
      continue;
    }
    if (section === null) {
      if (node.type !== "paragraph" || out.saved !== null) continue;
      const lines = text.slice(node.start, node.end).split("\n");
      const i = lines.findIndex((l) => /^Saved:/.test(l.trim()));
      if (i >= 0) {
        out.saved = lines[i]!.trim().slice("Saved:".length).trim();
        out.savedLine = node.line + i;
      }
      continue;
    }
    if (section === "current goal") {
      goalParts.push(text.slice(node.start, node.end));
      continue;
    }
    if (node.type !== "list" || (!lists && section !== "environment anchors")) continue;
    const listed = node.children;
    const items: string[] = [];
    for (let i = 0; i < listed.length; i++) items.push(itemText(text, listed[i]!));
    if (section !== "(repeated)" && !stray && lists) {
      for (let i = 0; i < listed.length; i++) out.items.push({ section, text: items[i]!, line: listed[i]!.line });
    }
    const into = listOf[section];
    if (into !== undefined) for (let i = 0; i < items.length; i++) into.push(items[i]!);
    if (section === "plan") {
      for (let i = 0; i < items.length; i++) out.plan.push(planStep(items[i]!));
      allSteps(text, node, 0, out.steps);
    } else if (section === "key files") {
      // `- none` keeps an empty section's heading: no file.
      for (const item of items) if (!/^none\.?$/i.test(item.trim())) out.keyFiles.push(keyFile(item));
    } else if (section === "environment anchors" && !out.anchors.present) {
      out.anchors.present = true;
      for (const item of items) {
        const m = ANCHOR.exec(item);
        const key = m ? ANCHOR_KEY[m[1]!.toLowerCase()]! : null;
        // The first line of each label counts; the two newer labels are set only when written.
        if (key !== null && (out.anchors[key] ?? null) === null) out.anchors[key] = m![2]!;
      }
    }
  }
  if (seen.has("environment anchors")) out.anchors.present = true;
  out.goal = goalParts.join("\n\n").trim();
  return out;
}

/** The state time of a parsed handoff (its `- Date:` anchor, else `Saved:`): every verb's age comes from here. */
export function handoffStateTime(h: ParsedHandoff, nowMs: number): StateTime {
  return stateTime(h.anchors.date, h.saved, nowMs);
}

export function stateTimeOfText(text: string, nowMs: number): StateTime {
  return glanceAtHandoff(text, nowMs).stateTime;
}

/** The state time and the unknown sections of handoff text, from one scan (what the session-start hook needs). */
export function glanceAtHandoff(text: string, nowMs: number): Pick<ParsedHandoff, "strays"> & { stateTime: StateTime } {
  const normalised = normaliseText(text);
  const h = readHandoff(normalised, parseBlocks(normalised), false);
  return { stateTime: handoffStateTime(h, nowMs), strays: h.strays };
}

/** The step `brief` proposes: the first next step, else the plan's step in progress, else its next todo. */
export function proposedStep(h: ParsedHandoff): string | null {
  const current = h.steps.find((s) => s.status === "in-progress") ?? h.steps.find((s) => s.status === "todo");
  return h.nextSteps[0] ?? current?.text ?? null;
}

/** The first non-blank line of the model's `## Current goal` (for `archives list`), or null. */
export function goalLineOf(h: ParsedHandoff): string | null {
  const line = h.goal.split("\n").find((l) => l.trim() !== "");
  return line === undefined ? null : line.trim();
}

/** The anchors after validation: only these values may reach git. */
export type CheckedAnchors = ReturnType<typeof checkAnchors>;

/** Checks a parsed handoff's anchor values; a bad or missing one is null and named in `unverifiable`. */
export function checkAnchors(h: ParsedHandoff, nowMs: number) {
  const unverifiable: string[] = [];
  const fail = (field: string, bad: boolean) => bad && unverifiable.push(field);
  const a = h.anchors;
  fail("anchors", !a.present);
  const head = a.head === null ? null : asObjectId(unticked(a.head));
  // Saved before the branch's first commit: every commit on HEAD now came after the save.
  const headNone = a.head !== null && unticked(a.head) === "none (no commits yet)";
  fail("head", head === null && !headNone);
  // No backtick stripping for the branch: backticks in a branch line are treated as hostile.
  const branchText = a.branch === null ? null : anchor.unquoteBranch(a.branch.trim());
  const branch = branchText !== null && isPlausibleBranch(branchText) ? branchText : null;
  fail("branch", branch === null);
  const dirtyList = a.dirty === null ? null : anchor.parsePathList(a.dirty);
  fail("dirty", dirtyList === null);
  const bad = (value: string | null) => value === null || "error" in parseStrictTime(unticked(value), nowMs);
  fail("date", bad(a.date));
  fail("saved", bad(h.saved));
  const st = handoffStateTime(h, nowMs);
  const progress = a.inProgress == null ? null : anchor.parseInProgress(a.inProgress);
  fail("inProgress", a.inProgress != null && progress === null);
  const mtimes = a.keyFileMtimes === null ? [] : anchor.parseKeyFileMtimes(a.keyFileMtimes);
  fail("keyFileMtimes", mtimes === null);
  const keyFileMtimes = (mtimes ?? []).flatMap((m) => {
    const p = safeRelativePath(m.path);
    return p === null ? [] : [{ path: p, mtime: m.mtime }];
  });
  const keyFiles = h.keyFiles.flatMap((k) => (k.path === null ? [] : [k.path]));
  fail("keyFiles", keyFiles.length < h.keyFiles.length);
  // Names kept as git spells them (a backslash, a tab): a hash is only looked up by a path git reports dirty now.
  const hashes = a.dirtyHashes == null ? [] : anchor.parseDirtyHashes(a.dirtyHashes);
  fail("dirtyHashes", hashes === null);
  const modes = a.dirtyModes == null ? [] : anchor.parseDirtyModes(a.dirtyModes);
  fail("dirtyModes", modes === null);
  return {
    head, headNone, branch, date: st.known ? st.time : null, stateTime: st, inProgress: progress?.words ?? null,
    keyFileMtimes, dirty: dirtyList?.paths ?? null, dirtyMore: dirtyList?.more ?? 0, keyFiles,
    dirtyHashes: hashes ?? [], dirtyModes: new Map((modes ?? []).map((m) => [m.path, m.id])), unverifiable,
  };
}
