// `impact`: what the journal's resume entries say about whether handoffs helped
// (docs/decisions/journal.md). Reads only.
import path from "node:path";
import { readStable } from "../store/files.ts";
import { parseJournal } from "./entry.ts";
import { journalDir, listJournal } from "./store.ts";

/** One resume as the journal records it (a month entry or a folded line). */
export interface ResumeRecord {
  date: string;
  score: number | null;
  followed: "yes" | "no" | "unknown";
  retried: number;
  callsToFirstEdit: number | null;
}

/** The figures of a group of resumes. */
export interface ImpactGroup {
  resumes: number;
  /** Resumes whose next step was followed, of those where it could be told (`yes` or `no`). */
  followed: number;
  judged: number;
  /** Failed approaches retried, and in how many resumes. */
  retried: number;
  resumesWithRetry: number;
  /** Median tool calls to the first edit, over resumes with an edit; null with none. */
  medianCallsToFirstEdit: number | null;
}

/** The fewest resumes each group needs before the score comparison is shown. */
export const MIN_GROUP = 5;
/** The score from which a handoff counts as good. */
export const GOOD_SCORE = 80;

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Sums a list of resumes into one group's figures. */
export function group(list: readonly ResumeRecord[]): ImpactGroup {
  const judged = list.filter((r) => r.followed !== "unknown");
  return {
    resumes: list.length,
    followed: judged.filter((r) => r.followed === "yes").length,
    judged: judged.length,
    retried: list.reduce((n, r) => n + r.retried, 0),
    resumesWithRetry: list.filter((r) => r.retried > 0).length,
    medianCallsToFirstEdit: median(list.flatMap((r) => (r.callsToFirstEdit === null ? [] : [r.callsToFirstEdit]))),
  };
}

function record(date: string, items: { label: string; text: string }[]): ResumeRecord {
  const get = (label: string) => items.find((i) => i.label === label)?.text;
  const score = Number(get("Handoff score"));
  const followed = get("Next step followed");
  const calls = Number(get("Calls to first edit"));
  return {
    date,
    score: Number.isInteger(score) ? score : null,
    followed: followed === "yes" || followed === "no" ? followed : "unknown",
    retried: items.filter((i) => i.label === "Failed approach retried").length,
    callsToFirstEdit: Number.isInteger(calls) ? calls : null,
  };
}

/** Every resume the journal records, oldest file first; files that cannot be read are skipped. */
export async function readResumes(root: string): Promise<{ resumes: ResumeRecord[]; files: number }> {
  const resumes: ResumeRecord[] = [];
  let files = 0;
  for (const f of listJournal(root)) {
    let text: string;
    try {
      const r = await readStable(path.join(journalDir(root), f.name));
      if (r === null) continue;
      text = r.bytes.toString("utf8");
    } catch {
      continue;
    }
    files++;
    for (const e of parseJournal(text, f.kind).entries) if (e.kind === "resume") resumes.push(record(e.time.slice(0, 10), e.items));
    if (f.kind === "year") {
      for (const m of text.matchAll(/^- (\d{4}-\d{2}-\d{2}) resume [0-9a-f]{16}: (.*)$/gm)) {
        const items = m[2]!.split("; ").map((part) => {
          const c = part.indexOf(": ");
          return { label: part.slice(0, c), text: part.slice(c + 2) };
        });
        resumes.push(record(m[1]!, items));
      }
    }
  }
  return { resumes, files };
}
