// The grammar of the `## Environment anchors` lines (docs/design.md#files-on-disk): exactly every
// line `anchors` can print, and nothing else. Pure; used by `validate` and by `write`.
import { quotedValue } from "../guard/quote.ts";
import { parseDirtyHashes, parsePathList } from "./anchor-lines.ts";
import { asObjectId, isNullObjectId } from "./values.ts";

/** Anchor labels, as `anchors` prints them. */
export type AnchorLabel = "Branch" | "HEAD" | "Dirty files" | "Dirty hashes" | "In progress" | "Date" | "Key file mtimes";

/** One anchor line read: its label and value, or why it is malformed. */
export type AnchorLine = { label: AnchorLabel; value: string } | { error: string; unknownLabel?: string };

const LINE = /^- (Branch|HEAD|Dirty files|Dirty hashes|In progress|Date|Key file mtimes): (.*)$/;
// A label of a later version (`- Something new: …`): a finding, not an error, so that older
// helpers' readers and newer writers keep working together (docs/design.md#verdicts-and-the-brief).
const OTHER_LABEL = /^- ([A-Z][A-Za-z ]{0,40}): \S/;
const ISO_SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const OPERATION = /^(rebase|merge|cherry-pick|revert|bisect|am)(?: of (\S.*?))? \((\d+) conflicted files?\)$/;

/**
 * True for an ISO-8601 date-time with a zone that names a real calendar instant (the shape
 * only: a time in the future is the caller's finding, not a malformed line).
 */
export function isIsoWithZone(value: string): boolean {
  const m = ISO_SHAPE.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const s = m[6] === undefined ? 0 : Number(m[6]);
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59 || y < 1970) return false;
  return d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

function unticked(value: string): string {
  const m = /^`([^`]*)`$/.exec(value);
  return m ? m[1]! : value;
}

// `<path> @ <ISO|missing>, …`: a path is bare (no comma, no quote) or double-quoted with C escapes.
const MTIME_ITEM = /^(?:"(?:[^"\\]|\\.)*"|[^",\s][^",]*?) @ (missing|\S+?)(?:, |$)/;

function keyFileMtimesError(value: string): string | null {
  let rest = value;
  if (rest === "") return "no `<path> @ <time>` item";
  while (rest !== "") {
    const m = MTIME_ITEM.exec(rest);
    if (!m) return `${quotedValue(rest.slice(0, 60))} is not \`<path> @ <ISO-8601 time, or missing>\``;
    if (m[1] !== "missing" && !isIsoWithZone(m[1]!)) return `${quotedValue(m[1]!)} is not an ISO-8601 time with a zone (or \`missing\`)`;
    rest = rest.slice(m[0].length);
  }
  return null;
}

/**
 * Reads one line of the anchors section (docs/design.md#files-on-disk): `- Branch: <name>`,
 * `- HEAD: <40 or 64 hex | none (no commits yet)>`, `- Dirty files: <list | none>` (a final
 * `… and N more` allowed), `- In progress: <operation>[ of <branch>] (<n> conflicted files)`,
 * `- Date: <ISO-8601 with zone>`, `- Key file mtimes: <path> @ <ISO | missing>, …`.
 * A HEAD or Date value in backticks is accepted (older handoffs). Never throws.
 */
export function readAnchorLine(line: string): AnchorLine {
  const m = LINE.exec(line);
  if (!m) {
    const other = OTHER_LABEL.exec(line);
    if (other) return { error: `\`- ${other[1]}:\` is not an anchor label this helper knows (a newer helper's line?); nothing reads it`, unknownLabel: other[1]! };
    const label = /^[-*+]\s*([A-Za-z ]+):/.exec(line)?.[1];
    return {
      error: label
        ? `${quotedValue(line.slice(0, 60))} is not an anchor line (labels are exactly Branch, HEAD, Dirty files, Dirty hashes, In progress, Date, Key file mtimes, after "- ")`
        : `${quotedValue(line.slice(0, 60))} is not an anchor line; paste what \`anchors\` prints, or leave the section empty for write to fill`,
    };
  }
  const label = m[1] as AnchorLabel;
  const value = m[2]!;
  switch (label) {
    case "Branch":
      if (!/^\S+$/.test(value) || value.length > 255) return { error: `branch ${quotedValue(value.slice(0, 60))} is not a branch name or (detached)` };
      break;
    case "HEAD": {
      const v = unticked(value);
      if (isNullObjectId(v)) return { error: `HEAD ${quotedValue(v.slice(0, 70))} is the null object id (all zeros), which names no commit` };
      if (v !== "none (no commits yet)" && asObjectId(v) === null) {
        const hex = /^[0-9a-fA-F]+$/.test(v) ? ` (${v.length} hex digits)` : "";
        return { error: `HEAD ${quotedValue(v.slice(0, 70))}${hex} is not a full 40- or 64-hex commit id` };
      }
      break;
    }
    case "Dirty files":
      if (parsePathList(value) === null) return { error: `dirty files ${quotedValue(value.slice(0, 60))} are not a comma-separated path list (or none)` };
      break;
    case "Dirty hashes":
      if (parseDirtyHashes(value) === null) return { error: `dirty hashes ${quotedValue(value.slice(0, 60))} are not \`<path> <blob id | deleted | over 8 MB>, …\`` };
      break;
    case "In progress":
      if (!OPERATION.test(value)) return { error: `in progress ${quotedValue(value.slice(0, 60))} is not \`<operation>[ of <branch>] (<n> conflicted files)\`` };
      break;
    case "Date": {
      const v = unticked(value);
      if (!isIsoWithZone(v)) {
        const zoneless = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(v) ? " (it has no zone: add Z or an offset)" : "";
        return { error: `date ${quotedValue(v.slice(0, 60))} is not an ISO-8601 time with a zone${zoneless}` };
      }
      break;
    }
    case "Key file mtimes": {
      const err = keyFileMtimesError(value);
      if (err !== null) return { error: `key file mtimes: ${err}` };
      break;
    }
  }
  return { label, value };
}

/**
 * True when an anchors section body is "empty" (docs/design.md#files-on-disk): only blank lines, `- none`
 * or template placeholders (`<…>`, HTML comments included). `write` fills such a section.
 */
export function isEmptyAnchorsBody(lines: readonly string[]): boolean {
  return lines.every((raw) => {
    const line = raw.trim();
    if (line === "" || /^(?:[-*+] )?none$/i.test(line)) return true;
    if (/^(?:[-*+] )?<[^<>]*>$/.test(line) || /^<!--.*-->$/.test(line)) return true;
    const m = /^[-*+] [A-Za-z ]+: (.*)$/.exec(line);
    return m !== null && /^<[^<>]*>$/.test(m[1]!.trim());
  });
}
