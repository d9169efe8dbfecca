// Journal entries, from the previous and the new handoff alone (no model, no transcript), and their schema. Pure.
import { redactTranscript } from "../guard/redact.ts";
import { sanitize } from "../guard/sanitize.ts";
import { parseHandoff, type ParsedHandoff } from "../schema/handoff.ts";
import { MARKER } from "../schema/values.ts";
import { NONE_ITEM } from "../schema/open-items.ts";
import type { Outcome } from "./outcome.ts";

/** Most bytes one entry may take, heading included. */
const ENTRY_MAX_BYTES = 4096;

// The labels in the order an entry lists them; the last five are resume outcomes that `checkpoint` records.
const ENTRY_LABELS = [
  "Branch", "HEAD", "Goal", "Finished", "Decision", "Superseded", "Failed approach", "Dropped",
  "Resumed", "Handoff score", "Next step followed", "Failed approach retried", "Calls to first edit",
] as const;
type EntryLabel = (typeof ENTRY_LABELS)[number];

/** One journal entry as read back: `time` is its heading's ISO UTC time, `id` 16 hex. */
export interface JournalEntry {
  time: string;
  kind: "save" | "resume";
  id: string;
  items: { label: EntryLabel; text: string }[];
}

const HEADING = /^## (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) (save|resume) ([0-9a-f]{16})$/;
const ITEM = /^- ([A-Za-z ]+): (.*)$/;
const LABELS = new Set<string>(ENTRY_LABELS);
const ITEM_MAX = 300;

/** The first lines of a new journal file: `# Journal 2026-12`, `… (part 2)`, or a year file's `# Journal 2026`. */
export function journalHeader(period: string, part = 1): string {
  return `${MARKER}\n# Journal ${period}${part > 1 ? ` (part ${part})` : ""}\n`;
}

/** A save entry's labels whose text comes from the new handoff, redacted when it was saved. */
const FROM_NEXT = new Set<EntryLabel>(["Branch", "HEAD", "Goal", "Finished", "Decision", "Failed approach"]);

function norm(s: string): string {
  return s.toLowerCase().replace(/[`*_]/g, "").replace(/\s+/g, " ").trim();
}

// The items of `now` that `was` does not hold, compared as written without Markdown emphasis; `- none` is no item.
function added(now: readonly string[], was: readonly string[] = []): string[] {
  const seen = new Set(was.map(norm));
  return now.filter((x) => !NONE_ITEM.test(x.trim()) && !seen.has(norm(x)));
}

const done = (h: ParsedHandoff | null) => (h?.steps ?? []).filter((s) => s.status === "done").map((s) => s.text);

/** What a save adds: its ISO time, the new token, the previous text (null: first save) and the published text. */
type SaveFacts = { time: string; token: string; prior: string | null; next: string };

/** The entry of one save: what it finished, decided, superseded, found failing and dropped, and its anchors. */
export function renderSaveEntry(facts: SaveFacts, droppedOpen: readonly string[]): string {
  const next = parseHandoff(facts.next);
  const prior = facts.prior === null ? null : parseHandoff(facts.prior);
  const lines: [EntryLabel, string][] = [];
  if (next.anchors.branch) lines.push(["Branch", next.anchors.branch]);
  if (next.anchors.head) lines.push(["HEAD", next.anchors.head]);
  const goal = next.goal.split("\n").find((l) => l.trim() !== "");
  if (goal) lines.push(["Goal", goal]);
  for (const s of added(done(next), done(prior))) lines.push(["Finished", s]);
  for (const d of added(next.decisions, prior?.decisions)) lines.push(["Decision", d]);
  for (const d of added(prior?.decisions ?? [], next.decisions)) lines.push(["Superseded", d]);
  for (const f of added(next.failedApproaches, prior?.failedApproaches)) lines.push(["Failed approach", f]);
  for (const d of droppedOpen) lines.push(["Dropped", d]);
  return fitEntry(`## ${facts.time} save ${facts.token.slice(0, 16)}`, lines, FROM_NEXT);
}

/** The entry of one resume `checkpoint` measured; `key` is 16 hex of the session id's SHA-256. */
export function renderResumeEntry(time: string, key: string, token: string, score: number | null, o: Outcome): string {
  const items: [EntryLabel, string][] = [["Resumed", token.slice(0, 16)]];
  if (score !== null) items.push(["Handoff score", String(score)]);
  items.push(["Next step followed", o.followed]);
  // Commands come from the transcript: its own rules too (keys in prose, variables sent as Bearer).
  for (const r of o.retried) items.push(["Failed approach retried", redactTranscript(r).text]);
  items.push(["Calls to first edit", o.callsToFirstEdit === null ? "no edit" : String(o.callsToFirstEdit)]);
  return fitEntry(`## ${time} resume ${key}`, items);
}

/** Each item one sanitised line; while over ENTRY_MAX_BYTES the busiest label's last item goes, a line counts it. */
function fitEntry(heading: string, items: readonly [EntryLabel, string][], redacted = new Set<EntryLabel>()): string {
  const shown = items
    .map(([label, text]) => ({ label, text: sanitize(text, { max: ITEM_MAX, redact: !redacted.has(label) }) }))
    .filter((x) => x.text !== "")
    .map(({ label, text }) => ({ label, line: `- ${label}: ${text}\n`, kept: true }));
  // Sizes and each label's kept items are kept up to date: a handoff of thousands of items is fitted in one pass.
  const byLabel = new Map<EntryLabel, number[]>();
  shown.forEach(({ label }, i) => (byLabel.get(label) ?? byLabel.set(label, []).get(label)!).push(i));
  const droppedLine = (n: number) => (n > 0 ? `- Dropped: (${n} more items left out)\n` : "");
  let total = Buffer.byteLength(`${heading}\n\n`) + shown.reduce((n, x) => n + Buffer.byteLength(x.line), 0);
  let left = 0;
  while (total + Buffer.byteLength(droppedLine(left)) > ENTRY_MAX_BYTES && left < shown.length) {
    let busiest: number[] = [];
    for (const at of byLabel.values()) if (at.length > busiest.length) busiest = at;
    const at = busiest.pop()!;
    shown[at]!.kept = false;
    total -= Buffer.byteLength(shown[at]!.line);
    left++;
  }
  return `${heading}\n${shown.filter((x) => x.kept).map((x) => x.line).join("")}${droppedLine(left)}\n`;
}

type Problem = { line: number; message: string };
type Parsed = { entries: JournalEntry[]; problems: Problem[] };

/** A journal file's entries, and each line that breaks its schema (references/journal-schema.md). */
export function parseJournal(text: string, kind: "month" | "year" = "month"): Parsed {
  // CRLF too: a clone with `core.autocrlf=true` checked the file out before the attribute fixed its line ends.
  const lines = text.split(/\r?\n/);
  const entries: JournalEntry[] = [];
  const problems: Problem[] = [];
  const title = "the second line must be `# Journal <YYYY-MM>` (or `# Journal <YYYY>`)";
  if (lines[0] !== MARKER) problems.push({ line: 1, message: `the first line must be ${MARKER}` });
  if (!/^# Journal \d{4}(-\d{2})?( \(part \d+\))?$/.test(lines[1] ?? "")) problems.push({ line: 2, message: title });
  let current: JournalEntry | null = null;
  for (let i = 2; i < lines.length; i++) {
    const line = lines[i]!;
    const n = i + 1;
    if (/^(<{7}|={7}|>{7})( |$)/.test(line)) {
      const message = "a merge conflict marker: resolve the conflict (keep both sides' entries, each once)";
      problems.push({ line: n, message });
      continue;
    }
    if (line.trim() === "") {
      current = null;
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      current = { time: h[1]!, kind: h[2] as "save" | "resume", id: h[3]!, items: [] };
      entries.push(current);
      continue;
    }
    if (kind === "year" && (/^## \d{4}-\d{2}$/.test(line) || /^- /.test(line))) continue;
    const m = ITEM.exec(line);
    if (current !== null && m && LABELS.has(m[1]!)) {
      current.items.push({ label: m[1] as EntryLabel, text: m[2]! });
      continue;
    }
    const heading = "`## <YYYY-MM-DDTHH:MM:SSZ> save|resume <16 hex>`";
    const outside = `outside an entry: expected a heading ${heading} or a blank line`;
    const inside = `expected \`- <Label>: <text>\` with a known label (${ENTRY_LABELS.join(", ")})`;
    problems.push({ line: n, message: current === null ? outside : inside });
  }
  return { entries, problems };
}

/** Both sides' entries, each once, in time order under ours' header; null (git's union) when either breaks schema. */
export function mergeJournalMonth(ours: string, theirs: string): string | null {
  if (parseJournal(ours).problems.length > 0 || parseJournal(theirs).problems.length > 0) return null;
  const split = (text: string) => text.split(/^(?=## \d{4}-\d{2}-\d{2}T)/m);
  const [header, ...mine] = split(ours);
  const entries = new Set([...mine, ...split(theirs).slice(1)].map((chunk) => `${chunk.replace(/\n+$/, "")}\n\n`));
  const key = (e: string) => /^## (\S+) (\S+) (\S+)/.exec(e)!.slice(1).join(" ");
  const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const sorted = [...entries].sort((x, y) => order(key(x), key(y)) || order(x, y));
  return `${header!.replace(/\n+$/, "")}\n\n${sorted.join("")}`;
}

/** A year file's folded session lines (`- <date> <kind> <id>: <items>`), each with the month it sits under. */
export function foldedLines(text: string): { period: string; date: string; kind: string; items: string }[] {
  const out: { period: string; date: string; kind: string; items: string }[] = [];
  let period = "";
  for (const line of text.split(/\r?\n/)) {
    period = /^## (\d{4}-\d{2})$/.exec(line)?.[1] ?? period;
    const m = /^- (\d{4}-\d{2}-\d{2}) (save|resume) [0-9a-f]{16}: (.*)$/.exec(line);
    if (m) out.push({ period, date: m[1]!, kind: m[2]!, items: m[3]! });
  }
  return out;
}
