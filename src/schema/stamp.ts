// What `write handoff` changes before saving: the `Saved:` stamp, empty anchors filled, and the `unchanged` test.
import { handoffLayout } from "./validate.ts";

// `inserted`: the lines put in before the document's line `insertedAt` (1-based), which move every later line down.
type Stamped = { text: string; replaced: string | null; insertedAt: number | null; inserted: number };

/** Stamps `Saved: <iso>`: replaces the preamble's `Saved:` line, or inserts one after `# Session Handoff`. */
export function stampSaved(text: string, iso: string): Stamped {
  const layout = handoffLayout(text);
  const lines = [...layout.lines];
  if (layout.savedIndex >= 0) {
    const old = lines[layout.savedIndex]!.trim().replace(/^Saved:\s*/, "");
    lines[layout.savedIndex] = `Saved: ${iso}`;
    return { text: lines.join("\n"), replaced: old, insertedAt: null, inserted: 0 };
  }
  let at = Math.max(0, layout.titleIndex) + 1;
  while (at < lines.length - 1 && lines[at]!.trim() === "") at++;
  // A blank line keeps `Saved:` its own paragraph when a heading follows at once.
  const next = lines[at];
  const added = next !== undefined && next.trim() !== "" ? [`Saved: ${iso}`, ""] : [`Saved: ${iso}`];
  lines.splice(at, 0, ...added);
  return { text: lines.join("\n"), replaced: null, insertedAt: at + 1, inserted: added.length };
}

/** The body lines of the anchors section as written, or null when there is no such section. */
export function anchorsBody(text: string): string[] | null {
  const { lines, anchors } = handoffLayout(text);
  return anchors ? lines.slice(anchors.start, anchors.end) : null;
}

/** Replaces the anchors section's body with `rendered`: the new text and the 1-based lines put in. */
export function fillAnchors(text: string, rendered: string): { text: string; lines: Set<number> } {
  const layout = handoffLayout(text);
  const range = layout.anchors;
  if (!range) return { text, lines: new Set() };
  const fresh = rendered.replace(/\n$/, "").split("\n");
  const lines = [...layout.lines.slice(0, range.start), ...fresh, ...layout.lines.slice(range.end)];
  // The section was the last thing in the file: keep the final newline.
  const out = lines.join("\n");
  const filled = new Set(fresh.map((_, i) => range.start + i + 1));
  return { text: out.endsWith("\n") ? out : `${out}\n`, lines: filled };
}

/** The text as `unchanged` compares it: without `Saved:` and, when `dropDate`, the anchors' `- Date:` line. */
export function comparable(text: string, dropDate: boolean): string {
  const { lines, savedIndex, anchors: range } = handoffLayout(text);
  const date = (line: string, i: number) => range && i >= range.start && i < range.end && line.startsWith("- Date: ");
  return lines.filter((line, i) => i !== savedIndex && !(dropDate && date(line, i))).join("\n");
}
