// What the merge driver does with two versions of a memory file (docs/decisions/merge-driver.md):
// two handoffs -> the later one current, the other archived; two ledgers -> entries by id, both
// sides kept. Pure functions here; the verb (src/verbs/merge-driver.ts) does the I/O.
import { stateTimeOfText } from "../schema/handoff.ts";

/** The line the driver adds after `Saved:` naming the other handoff's archive. */
export const MERGED_LINE = /^Merged-with: archive\/(HANDOFF-[A-Za-z0-9._-]+\.md)\s*$/m;

/** The brief's sentence for a handoff the driver chose (`brief` prints it). */
export function mergedSentence(name: string): string {
  return `two handoffs met in a merge; the other is archive/${name}`;
}

/**
 * Which handoff stays current: theirs only when both state times are known (not future) and
 * theirs is strictly later; ours on equal, unknown or future times. Pure.
 */
export function laterHandoff(ours: string, theirs: string, nowMs: number): "ours" | "theirs" {
  const ta = stateTimeOfText(ours, nowMs);
  const tb = stateTimeOfText(theirs, nowMs);
  if (!ta.known || !tb.known) return "ours";
  return tb.time.ms > ta.time.ms ? "theirs" : "ours";
}

/**
 * The chosen handoff with a `Merged-with: archive/<name>` line after its `Saved:` line (or
 * after its title when it has none), an earlier such line replaced. Pure.
 */
export function markMerged(text: string, archiveName: string): string {
  const line = `Merged-with: archive/${archiveName}`;
  const lines = text.split("\n").filter((l) => !MERGED_LINE.test(l));
  const saved = lines.findIndex((l) => /^Saved:/.test(l));
  const title = lines.findIndex((l) => l === "# Session Handoff");
  const at = saved !== -1 ? saved + 1 : title !== -1 ? title + 1 : Math.min(1, lines.length);
  lines.splice(at, 0, line);
  return lines.join("\n");
}

interface LedgerParts {
  head: string[];
  entries: { id: number; heading: string; body: string[] }[];
}

function splitLedger(text: string, prefix: string): LedgerParts {
  const re = new RegExp(`^## ${prefix}-(\\d{4}): `);
  const out: LedgerParts = { head: [], entries: [] };
  let fence = false;
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (/^ {0,3}(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : re.exec(line);
    if (m) out.entries.push({ id: Number(m[1]), heading: line, body: [] });
    else if (out.entries.length === 0) out.head.push(line);
    else out.entries[out.entries.length - 1]!.body.push(line);
  }
  return out;
}

function entryText(e: { heading: string; body: string[] }): string {
  return [e.heading.replace(/^## [A-Z]-\d{4}: /, ""), ...e.body].join("\n").trim();
}

/**
 * Merges two ledgers by entry id: ours in its order, then each of theirs not already there
 * (same id, same text: one entry); a clashing id (same id, other text) keeps ours and
 * renumbers theirs to the next free id, noting the old one. Ours' preamble. Pure.
 * @param prefix `L` (lessons) or `S` (solutions).
 */
export function mergeLedgers(ours: string, theirs: string, prefix: string): string {
  const a = splitLedger(ours, prefix);
  const b = splitLedger(theirs, prefix);
  const used = new Set([...a.entries, ...b.entries].map((e) => e.id));
  const byId = new Map(a.entries.map((e) => [e.id, e]));
  let next = Math.max(0, ...used) + 1;
  const added: LedgerParts["entries"] = [];
  for (const e of b.entries) {
    const mine = byId.get(e.id);
    if (mine === undefined) {
      byId.set(e.id, e);
      added.push(e);
      continue;
    }
    if (entryText(mine) === entryText(e)) continue;
    const id = next++;
    const old = `${prefix}-${String(e.id).padStart(4, "0")}`;
    const heading = e.heading.replace(/^## [A-Z]-\d{4}: /, `## ${prefix}-${String(id).padStart(4, "0")}: `);
    // The note goes right under the heading, where a reader of the entry sees it first.
    added.push({ id, heading, body: [`- Renumbered: was ${old} on the other side of a merge`, ...e.body] });
  }
  const all = [...a.entries, ...added];
  // Each entry ends with one blank line before the next heading.
  const blocks = all.map((e) => {
    const body = [...e.body];
    while (body.length > 0 && body[body.length - 1] === "") body.pop();
    return [e.heading, ...body].join("\n");
  });
  const head = [...a.head];
  while (head.length > 0 && head[head.length - 1] === "") head.pop();
  return `${[head.join("\n"), ...blocks].join("\n\n")}\n`;
}
