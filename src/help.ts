// Rendering of `--help` text: wrapping at 80 columns and the "did you mean" of an unknown verb.
import { editDistance } from "./schema/validate-common.ts";

/** Columns every line of `--help` output fits in (a terminal's default). */
export const HELP_WIDTH = 80;

// Labels whose continuation lines hang after the label ("exit:   0 saved; …" continues under "0").
const LABEL = /^(\s*)(usage|exit|exit codes|stdin|stdout|stderr|example|examples|options|verbs|kill switch):( +)(?=\S)/;
// A column layout: "  --json   print …", "  brief   the six-line …": text, 2+ spaces, text.
const COLUMN = /^(\s*)(\S(?:.*?\S)?)( {2,})(?=\S)/;
// A list item: "- x", "1. x", an indented exit code ("2 refused …"); at the margin a number is prose.
const BULLET = /^(\s*)([-*] |\d+\. )|^(\s+)(\d+ )/;

const indentOf = (line: string): number => line.length - line.trimStart().length;

// Where a line's own continuation lines start (its hanging indent), in columns.
function hangOf(line: string): number {
  const label = LABEL.exec(line);
  if (label) return label[0].length;
  const column = COLUMN.exec(line);
  // Only a gap in the first half is a column; two spaces late in prose are not.
  if (column && column[0].length <= HELP_WIDTH / 2) return column[0].length;
  const bullet = BULLET.exec(line);
  if (bullet) return bullet[0].length;
  return indentOf(line);
}

// The word a printed line starts with (`checkpoint:`): lines that share it stay apart, however long.
const PREFIX = /^\s*([\w.-]+:)\s/;

// True when `next` continues `line`'s paragraph; a line starting with `item`, the prefix of the
// list item being wrapped, starts the next item.
function continues(line: string, next: string | undefined, item: string | undefined): next is string {
  if (next === undefined || next.trim() === "") return false;
  if (item !== undefined && item === PREFIX.exec(next)?.[1]) return false;
  const base = indentOf(line);
  const at = indentOf(next);
  // Deeper: the line's own continuation, unless the line introduces an indented list.
  if (at > base) return !line.trimEnd().endsWith(":");
  // Same indent: a plain paragraph goes on, unless the next line starts an item of its own.
  return at === base && hangOf(line) === base && hangOf(next) === at && !BULLET.test(next);
}

/** Wraps help text: a long line's overflow joins the next line of its paragraph, else hangs under its label. */
export function wrapHelp(text: string, width: number = HELP_WIDTH): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let item: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const own = PREFIX.exec(line)?.[1];
    if (own !== undefined) item = own;
    else if (line.trim() === "" || indentOf(line) === 0) item = undefined;
    if (line.length <= width) {
      out.push(line);
      continue;
    }
    const hang = hangOf(line);
    let cut = line.lastIndexOf(" ", width);
    let keep = 0;
    // Never cut inside the label or the indent; a word longer than the room left (a JSON object,
    // a path) breaks after its last `,` `;` `/` that fits, else stays whole.
    if (cut < hang) {
      const punct = Math.max(...[",", ";", "/"].map((c) => line.lastIndexOf(c, width - 1)));
      if (punct >= hang) {
        cut = punct;
        keep = 1;
      } else {
        cut = line.indexOf(" ", Math.max(hang, width));
      }
    }
    if (cut < 0) {
      out.push(line);
      continue;
    }
    out.push(line.slice(0, cut + keep).trimEnd());
    const overflow = line.slice(cut + keep).trim();
    const next = lines[i + 1];
    if (continues(line, next, item)) {
      // A path the author broke after a `/` (`…/session-handoff/` + `installs/`) rejoins whole.
      const glue = overflow.endsWith("/") && /^[\w.-]+\//.test(next.trimStart()) ? "" : " ";
      lines[i + 1] = `${" ".repeat(indentOf(next))}${overflow}${glue}${next.trimStart()}`;
    } else {
      // An indented item of a prefixed list hangs two columns in, so the next item stands out.
      const under = own !== undefined && hang === indentOf(line) && hang > 0 ? hang + 2 : hang;
      lines.splice(i + 1, 0, `${" ".repeat(under)}${overflow}`);
    }
  }
  return out.join("\n");
}

/**
 * The known name nearest to `word` (case-insensitive), or null when none is near enough:
 * within a third of the word's length (at least 1, at most 3 edits), or a name that starts
 * with the word (`arch` → `archives`). Ties go to the first name in `names`.
 */
export function nearest(word: string, names: readonly string[]): string | null {
  const w = word.toLowerCase();
  if (w === "") return null;
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const name of names) {
    const distance = editDistance(w, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  if (best !== null && bestDistance <= limit) return best;
  if (w.length >= 3) return names.find((n) => n.toLowerCase().startsWith(w)) ?? null;
  return null;
}
