// `search`: literal words over all the memory holds, ranked, with no index on disk (docs/decisions/journal.md).
import path from "node:path";
import { firstNul, memoryText } from "../guard/file-verdict.ts";
import { listDir, readStable, unreadReason } from "../store/files.ts";
import { memoryDir } from "../store/paths.ts";
import { foldedLines, parseJournal } from "./entry.ts";
import { journalDir, listJournal } from "./store.ts";

export type SearchKind = "journal" | "archive" | "handoff" | "ledger" | "checkpoint";
export const SEARCH_KINDS: readonly SearchKind[] = ["journal", "archive", "handoff", "ledger", "checkpoint"];

/** One ranked result; `file` is relative to the memory dir, `alsoIn` counts other files holding the same text. */
interface SearchResult {
  file: string;
  kind: SearchKind;
  date: string | null;
  section: string;
  label: string;
  text: string;
  matched: number;
  alsoIn: number;
}

/** Longest query accepted, in characters. */
export const QUERY_MAX = 1000;

/** The query's words: runs of letters and digits, lowercased; punctuation is never syntax. */
export function queryWords(query: string): string[] {
  return [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 0))];
}

const LABELS: Record<SearchKind, string> = {
  journal: "journal (computed by the helper)", archive: "archived handoff", handoff: "current handoff",
  ledger: "ledger", checkpoint: "automatic checkpoint",
};
const PROVENANCE = /\[(user-directed|user-approved|agent-proposed)\]/;

interface Unit {
  section: string;
  text: string;
  date: string | null;
}

/** Splits a Markdown memory document into searchable units: a list item, or a paragraph, under its `##` section. */
function markdownUnits(text: string, date: string | null): Unit[] {
  const units: Unit[] = [];
  let section = "";
  let fenced = false;
  let cur: Unit | null = null;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const h = fenced ? null : /^##\s+(.+?)\s*$/.exec(line);
    if (h) {
      section = h[1]!;
      cur = null;
      continue;
    }
    if (line.trim() === "" || /^<!--/.test(line) || /^# /.test(line)) {
      cur = null;
      continue;
    }
    const bullet = /^\s{0,3}(?:[-*+]|\d+[.)])\s+/.exec(line);
    if (cur === null || bullet) {
      cur = { section, text: (bullet ? line.slice(bullet[0].length) : line).trim(), date };
      units.push(cur);
    } else cur.text += ` ${line.trim()}`;
  }
  return units;
}

function stateDate(text: string): string | null {
  const m = /^- Date: `?(\d{4}-\d{2}-\d{2})T/m.exec(text) ?? /^Saved: `?(\d{4}-\d{2}-\d{2})T/m.exec(text);
  return m ? m[1]! : null;
}

/** Ledger entries: one unit per `## L-0001: …` block, dated by its `Source:` line. */
function ledgerUnits(text: string): Unit[] {
  const units: Unit[] = [];
  for (const block of text.split(/^(?=## )/m).slice(1)) {
    const heading = /^## (.*)$/m.exec(block)![1]!;
    const date = /^- Source:.*?(\d{4}-\d{2}-\d{2})/m.exec(block)?.[1] ?? null;
    units.push({ section: heading, text: block.replace(/^## .*\n/, "").trim().replace(/\n/g, " "), date });
  }
  return units;
}

/** A file's text as `archives list` reads it (a NUL, a link, a FIFO, over 1 MB: skipped, with a note), or null. */
async function readText(p: string, file: string, notes: string[]): Promise<string | null> {
  const skip = () => notes.push(`warning: ${file} ${unreadReason(p) ?? "is a link"}: not searched`);
  const bytes = (await readStable(p).catch(() => void skip()))?.bytes;
  if (bytes === undefined) return null;
  const nul = firstNul(bytes);
  if (nul >= 0) {
    notes.push(`warning: ${file} holds a NUL byte (at byte ${nul}): unsafe, not searched`);
    return null;
  }
  const loaded = memoryText(file, bytes);
  if (loaded.warning !== null) notes.push(loaded.warning);
  return loaded.text;
}

type SearchOptions = { since?: string | null; kinds?: readonly SearchKind[]; limit?: number };

/** Units matching half the `words` at least, the same text once (the newest), by words found then newest first. */
export async function searchMemory(root: string, words: readonly string[], opts: SearchOptions = {}) {
  const kinds = new Set(opts.kinds ?? SEARCH_KINDS);
  const mem = memoryDir(root);
  const searched: Record<SearchKind, number> = { journal: 0, archive: 0, handoff: 0, ledger: 0, checkpoint: 0 };
  const found: SearchResult[] = [];
  const notes: string[] = [];
  // Half the words at least (one of one or two): a lone short word of a long query is noise.
  const needed = Math.max(1, Math.ceil(words.length / 2));
  // Words are letters and digits only (queryWords), so they need no escaping in a pattern.
  const starts = words.map((w) => new RegExp(`(?<![\\p{L}\\p{N}])${w}`, "u"));
  const consider = (kind: SearchKind, file: string, units: Unit[]): void => {
    searched[kind]++;
    for (const u of units) {
      if (opts.since && (u.date === null || u.date < opts.since)) continue;
      const lower = u.text.toLowerCase();
      let matched = 0;
      for (let i = 0; i < words.length; i++) if (lower.includes(words[i]!) && starts[i]!.test(lower)) matched++;
      if (matched < needed) continue;
      const label = PROVENANCE.exec(u.text)?.[0] ?? LABELS[kind];
      found.push({ file, kind, date: u.date, section: u.section, label, text: u.text, matched, alsoIn: 0 });
    }
  };
  if (kinds.has("journal")) {
    for (const f of listJournal(root)) {
      const text = await readText(path.join(journalDir(root), f.name), `journal/${f.name}`, notes);
      if (text === null) continue;
      const units: Unit[] = [];
      for (const e of parseJournal(text, f.kind).entries) {
        for (const item of e.items) units.push({ section: item.label, text: item.text, date: e.time.slice(0, 10) });
      }
      for (const folded of f.kind === "year" ? foldedLines(text) : []) {
        units.push({ section: `folded ${folded.period}`, text: folded.items, date: folded.date });
      }
      consider("journal", `journal/${f.name}`, units);
    }
  }
  const dated = (text: string) => markdownUnits(text, stateDate(text));
  const docs = async (kind: SearchKind, folder: string, pattern: RegExp, units: (text: string) => Unit[]) => {
    if (!kinds.has(kind)) return;
    for (const name of listDir(path.join(mem, folder)).sort().filter((n) => pattern.test(n))) {
      const file = folder === "" ? name : `${folder}/${name}`;
      const text = await readText(path.join(mem, file), file, notes);
      if (text !== null) consider(kind, file, units(text));
    }
  };
  await docs("handoff", "", /^HANDOFF\.md$/, dated);
  await docs("archive", "archive", /^HANDOFF-.*\.md$/, dated);
  await docs("ledger", "", /^(LESSONS|SOLUTIONS)\.md$/, ledgerUnits);
  await docs("checkpoint", "checkpoints", /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.md$/, dated);
  // The same text across the handoff, its archives and the journal is one result: the newest.
  const byText = new Map<string, { best: SearchResult; files: Set<string> }>();
  for (const r of found) {
    const key = r.text.toLowerCase().replace(/\s+/g, " ").replace(/^(?:\[.\]\s+)?/, "");
    const had = byText.get(key);
    if (had === undefined) byText.set(key, { best: r, files: new Set([r.file]) });
    else {
      had.files.add(r.file);
      if ((r.date ?? "") > (had.best.date ?? "")) had.best = r;
    }
  }
  const unique = [...byText.values()].map(({ best, files }) => ({ ...best, alsoIn: files.size - 1 }));
  const newer = (a: SearchResult, b: SearchResult) => (b.date ?? "").localeCompare(a.date ?? "");
  const ranked = unique.sort(
    (a, b) => b.matched - a.matched || newer(a, b) || a.file.localeCompare(b.file) || a.text.localeCompare(b.text),
  );
  return { results: ranked.slice(0, opts.limit ?? 20), searched, total: ranked.length, notes };
}
