// Open items of a handoff, read line by line: this runs inside `write`, a hot path that must
// not load the block scanner of `drift` and `brief` (blocks.ts, a cold chunk; performance.md).
// It only feeds a report, never a safety decision, so a line-level reading of items is enough.
import { sanitize } from "../guard/sanitize.ts";

/** A handoff's open items: unfinished plan steps (`[ ]`, `[~]`) and next steps (a `[-]` one is closed). */
export interface OpenItem {
  section: "Plan" | "Next steps";
  text: string;
}

const FENCE = /^\s*(```|~~~)/;
const SECTION = /^##\s+(.+?)\s*#*\s*$/;
// Bullets or numbered items (the template numbers its next steps).
const OPEN_STEP = /^\s*(?:[-*+]|\d+[.)])\s+\[( |~)\]\s+(.+)$/;
const BULLET = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX~]\]\s+)?(.+)$/;
// `- [-] <step> — dropped: <why>`: closed on purpose, never an open item (ruling 8, docs/design.md#files-on-disk).
const DROPPED = /^\s*(?:[-*+]|\d+[.)])\s+\[-\]\s/;
const NONE = /^(none|none recorded|n\/a|-)\.?$/i;

/** Lists the open items of a handoff's `## Plan` and `## Next steps` sections (docs/design.md#files-on-disk). */
export function openItems(text: string): OpenItem[] {
  const items: OpenItem[] = [];
  let section = "";
  let fenced = false;
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (FENCE.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = SECTION.exec(line);
    if (heading) {
      section = heading[1]!.toLowerCase();
      continue;
    }
    if (section === "plan") {
      const m = OPEN_STEP.exec(line);
      if (m) items.push({ section: "Plan", text: m[2]!.trim() });
    } else if (section === "next steps") {
      if (DROPPED.test(line)) continue;
      const m = BULLET.exec(line);
      if (m && !NONE.test(m[1]!.trim())) items.push({ section: "Next steps", text: m[1]!.trim() });
    }
  }
  return items;
}

function normalise(s: string): string {
  return s
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/\s+/g, " ")
    .replace(/[\s.;:,—–-]+$/, "")
    .trim();
}

/**
 * The open items of `prior` that `next` neither carries over nor mentions as done (field
 * report 2): an item counts as carried when its text (case, spacing, Markdown emphasis and
 * trailing punctuation ignored), or its title before a colon or a dash (at least 6
 * characters), appears anywhere in `next`.
 */
export function droppedItems(prior: string, next: string): OpenItem[] {
  const haystack = normalise(next.replace(/\r\n?/g, "\n"));
  return openItems(prior).filter((item) => {
    const needle = normalise(item.text);
    if (needle.length === 0 || haystack.includes(needle)) return false;
    // An item is often carried with its note trimmed ("Add mul: written, no test yet" ->
    // "[x] Add mul"): its title, the part before a colon or a dash, is enough to count.
    const title = normalise(item.text.split(/:\s|\s[—–-]\s|\s\(/)[0] ?? "");
    return !(title.length >= 6 && title.length < needle.length && haystack.includes(title));
  });
}

/** The stderr note for dropped items, bounded in length; null when nothing was dropped. */
export function droppedReport(items: OpenItem[]): string | null {
  if (items.length === 0) return null;
  // The previous handoff's text goes to stderr, outside the envelope: through the sanitiser.
  const shown = items.slice(0, 10).map((i) => `  - [${i.section}] ${sanitize(i.text, { max: 100 })}`);
  const more = items.length > 10 ? [`  … and ${items.length - 10} more`] : [];
  return [
    `note: ${items.length} open item(s) of the previous handoff are neither carried over nor marked done; carry them over, or name each in the plan as done (\`- [x] <item>\`) or dropped (\`- [-] <item> — dropped: <why>\`):`,
    ...shown,
    ...more,
  ].join("\n");
}
