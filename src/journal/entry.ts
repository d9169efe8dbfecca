// The journal's entries: what one save changed, computed from the previous and the new
// handoff (no model, no transcript), and the schema a journal file must keep
// (docs/design.md#files-on-disk, references/journal-schema.md). Pure: text in, text out.
import { redactTranscript } from "../guard/redact.ts";
import { sanitize } from "../guard/sanitize.ts";
import { parseHandoff, type ParsedHandoff } from "../schema/handoff.ts";
import { MARKER } from "../store/paths.ts";

/** Most bytes one entry may take, heading included (references/journal-schema.md). */
export const ENTRY_MAX_BYTES = 4096;

/** The item labels an entry line may carry, in the order an entry lists them. */
export const ENTRY_LABELS = [
  "Branch",
  "HEAD",
  "Goal",
  "Finished",
  "Decision",
  "Superseded",
  "Failed approach",
  "Dropped",
  // Resume outcomes, recorded by `checkpoint` (never the user's words).
  "Resumed",
  "Handoff score",
  "Next step followed",
  "Failed approach retried",
  "Calls to first edit",
] as const;
export type EntryLabel = (typeof ENTRY_LABELS)[number];

/** One journal entry as read back. */
export interface JournalEntry {
  /** ISO 8601 UTC time of the heading, e.g. `2026-12-01T20:51:07Z`. */
  time: string;
  kind: "save" | "resume";
  /** 16 hex: the saved handoff's token prefix (save) or the session's id hash (resume). */
  id: string;
  items: { label: EntryLabel; text: string }[];
  /** 1-based line of the entry's heading in its file. */
  line: number;
}

/** A journal file's problem that breaks the schema, with its 1-based line. */
export interface JournalProblem {
  line: number;
  message: string;
}

const HEADING = /^## (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) (save|resume) ([0-9a-f]{16})$/;
const ITEM = /^- ([A-Za-z ]+): (.*)$/;
const LABELS = new Set<string>(ENTRY_LABELS);
const ITEM_MAX = 300;

/** `# Journal 2026-12`, `# Journal 2026-12 (part 2)`, or a year file's `# Journal 2026`. */
export function journalTitle(period: string, part = 1): string {
  return part > 1 ? `# Journal ${period} (part ${part})` : `# Journal ${period}`;
}

/** The first lines of a new journal file. */
export function journalHeader(period: string, part = 1): string {
  return `${MARKER}\n${journalTitle(period, part)}\n`;
}

function one(text: string, redacted = false): string {
  // Handoff text is data: redacted, folded to one line, refused code points shown, cut. Text
  // taken from what `write` just published was redacted by its one pass (docs/design.md#redaction).
  return sanitize(text, { max: ITEM_MAX, redact: !redacted });
}

/** A save entry's labels whose text comes from the new handoff, redacted when it was saved. */
const FROM_NEXT: ReadonlySet<EntryLabel> = new Set<EntryLabel>(["Branch", "HEAD", "Goal", "Finished", "Decision", "Failed approach"]);

function norm(s: string): string {
  return s.toLowerCase().replace(/[`*_]/g, "").replace(/\s+/g, " ").trim();
}

function doneSteps(h: ParsedHandoff | null): Set<string> {
  return new Set((h?.steps ?? []).filter((s) => s.status === "done").map((s) => norm(s.text)));
}

/** What a save adds to the journal: the facts of one entry, before rendering. */
export interface SaveFacts {
  /** The save's time, ISO 8601 UTC without milliseconds. */
  time: string;
  /** The new handoff's token (64 hex). */
  token: string;
  /** The previous handoff's text, or null for the first save. */
  prior: string | null;
  /** The new handoff's text, as published (redacted: its items are not redacted again). */
  next: string;
}

/**
 * Renders the journal entry of one save: the goal, the plan steps finished since the previous
 * save, decisions and failed approaches added, decisions no longer present (superseded), the
 * open items dropped (`droppedOpen`, from write's own note), the branch and HEAD anchors.
 * Cut to {@link ENTRY_MAX_BYTES}: the longest lists lose their last items first, and a line
 * `- Dropped: (N more items left out)` says so. Pure.
 * @returns the entry, starting with its `## ` heading and ending with a blank line.
 */
export function renderSaveEntry(facts: SaveFacts, droppedOpen: readonly string[]): string {
  const next = parseHandoff(facts.next);
  const prior = facts.prior === null ? null : parseHandoff(facts.prior);
  const before = doneSteps(prior);
  const priorDecisions = new Set((prior?.decisions ?? []).map(norm));
  const priorFailed = new Set((prior?.failedApproaches ?? []).map(norm));
  const nextDecisions = new Set(next.decisions.map(norm));
  const lines: [EntryLabel, string][] = [];
  if (next.anchors.branch) lines.push(["Branch", next.anchors.branch]);
  if (next.anchors.head) lines.push(["HEAD", next.anchors.head]);
  const goal = next.goal.split("\n").find((l) => l.trim() !== "");
  if (goal) lines.push(["Goal", goal]);
  for (const s of next.steps) if (s.status === "done" && !before.has(norm(s.text))) lines.push(["Finished", s.text]);
  for (const d of next.decisions) if (!priorDecisions.has(norm(d))) lines.push(["Decision", d]);
  for (const d of prior?.decisions ?? []) if (!nextDecisions.has(norm(d))) lines.push(["Superseded", d]);
  for (const f of next.failedApproaches) if (!priorFailed.has(norm(f))) lines.push(["Failed approach", f]);
  for (const d of droppedOpen) lines.push(["Dropped", d]);
  return fitEntry(`## ${facts.time} save ${facts.token.slice(0, 16)}`, lines, FROM_NEXT);
}

/**
 * Renders the journal entry of one resume measured by `checkpoint`: the handoff resumed (its
 * token's first 16 hex) and its score, whether the first actions followed its proposed next
 * step, each failed approach retried (redacted commands or paths), the tool calls to the first
 * edit. `sessionKey` is 16 hex of the session id's SHA-256, never the id itself. Pure.
 */
export function renderResumeEntry(time: string, sessionKey: string, handoffToken: string, score: number | null, o: { followed: string; retried: readonly string[]; callsToFirstEdit: number | null }): string {
  const items: [EntryLabel, string][] = [["Resumed", handoffToken.slice(0, 16)]];
  if (score !== null) items.push(["Handoff score", String(score)]);
  items.push(["Next step followed", o.followed]);
  // Commands come from the transcript: its own rules too (keys in prose, variables sent as Bearer).
  for (const r of o.retried) items.push(["Failed approach retried", redactTranscript(r).text]);
  items.push(["Calls to first edit", o.callsToFirstEdit === null ? "no edit" : String(o.callsToFirstEdit)]);
  return fitEntry(`## ${time} resume ${sessionKey}`, items);
}

/**
 * Renders an entry from its heading and items within {@link ENTRY_MAX_BYTES}: each item
 * sanitised to one line of at most 300 characters; while too long, the last item of the most
 * frequent label goes, and one `(N more items left out)` line of that label says so. Items of
 * the labels in `redacted` are redacted already (from a published handoff) and are not again.
 */
export function fitEntry(heading: string, items: readonly [EntryLabel, string][], redacted: ReadonlySet<EntryLabel> = new Set()): string {
  const shown = items.map(([label, text]) => [label, one(text, redacted.has(label))] as [EntryLabel, string]).filter(([, t]) => t !== "");
  let left = 0;
  const render = (): string => {
    const body = shown.map(([l, t]) => `- ${l}: ${t}\n`).join("");
    return `${heading}\n${body}${left > 0 ? `- Dropped: (${left} more items left out)\n` : ""}\n`;
  };
  let out = render();
  while (Buffer.byteLength(out) > ENTRY_MAX_BYTES && shown.length > 0) {
    const counts = new Map<string, number>();
    for (const [l] of shown) counts.set(l, (counts.get(l) ?? 0) + 1);
    const [busiest] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const at = shown.map(([l]) => l).lastIndexOf(busiest as EntryLabel);
    shown.splice(at, 1);
    left++;
    out = render();
  }
  return out;
}

/**
 * Reads a journal file (month, continuation or year file): its entries and the lines that
 * break the schema (references/journal-schema.md). A hand-edited file is fine while every
 * line outside an entry is blank or a Markdown line of the year file's summary, and every
 * line inside one is `- <Label>: <text>` with a known label. Conflict markers are problems.
 */
export function parseJournal(text: string, kind: "month" | "year" = "month"): { entries: JournalEntry[]; problems: JournalProblem[] } {
  const lines = text.split("\n");
  const entries: JournalEntry[] = [];
  const problems: JournalProblem[] = [];
  if (lines[0] !== MARKER) problems.push({ line: 1, message: `the first line must be ${MARKER}` });
  if (!/^# Journal \d{4}(-\d{2})?( \(part \d+\))?$/.test(lines[1] ?? "")) problems.push({ line: 2, message: "the second line must be `# Journal <YYYY-MM>` (or `# Journal <YYYY>`)" });
  let current: JournalEntry | null = null;
  for (let i = 2; i < lines.length; i++) {
    const line = lines[i]!;
    const n = i + 1;
    if (/^(<{7}|={7}|>{7})( |$)/.test(line)) {
      problems.push({ line: n, message: "a merge conflict marker: resolve the conflict (keep both sides' entries, each once)" });
      continue;
    }
    if (line.trim() === "") {
      current = null;
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      current = { time: h[1]!, kind: h[2] as "save" | "resume", id: h[3]!, items: [], line: n };
      entries.push(current);
      continue;
    }
    if (kind === "year" && (/^## \d{4}-\d{2}$/.test(line) || /^- /.test(line))) continue;
    const m = ITEM.exec(line);
    if (current !== null && m && LABELS.has(m[1]!)) {
      current.items.push({ label: m[1] as EntryLabel, text: m[2]! });
      continue;
    }
    problems.push({
      line: n,
      message:
        current === null
          ? "outside an entry: expected a heading `## <YYYY-MM-DDTHH:MM:SSZ> save|resume <16 hex>` or a blank line"
          : `expected \`- <Label>: <text>\` with a known label (${ENTRY_LABELS.join(", ")})`,
    });
  }
  return { entries, problems };
}

/**
 * Merges two versions of one month file (the merge driver's journal rule): both sides' entries,
 * each once (the same entry text on both sides is one), in time order (then kind, then id), under
 * ours' header. Null when either side breaks the schema: the caller falls back to git's union.
 */
export function mergeJournalMonth(ours: string, theirs: string): string | null {
  if (parseJournal(ours).problems.length > 0 || parseJournal(theirs).problems.length > 0) return null;
  const split = (text: string) => text.split(/^(?=## \d{4}-\d{2}-\d{2}T)/m);
  const [header, ...mine] = split(ours);
  const entries = new Map<string, string>();
  for (const chunk of [...mine, ...split(theirs).slice(1)]) {
    const body = `${chunk.replace(/\n+$/, "")}\n\n`;
    entries.set(body, body);
  }
  const key = (e: string) => /^## (\S+) (\S+) (\S+)/.exec(e)!.slice(1).join(" ");
  const sorted = [...entries.values()].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return `${header!.replace(/\n+$/, "")}\n\n${sorted.join("")}`;
}
