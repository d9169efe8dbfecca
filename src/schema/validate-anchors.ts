// The anchors section as `validate` judges it: exactly the lines `anchors` can print, and nothing else.
import { quotedValue } from "../guard/quote.ts";
import { quoted } from "../guard/sanitize.ts";
import { parseDirtyHashes, parsePathList } from "./anchor-lines.ts";
import type { HandoffHeading, ParsedHandoff } from "./handoff.ts";
import { stateTime } from "./state-time.ts";
import type { HandoffContext, HandoffLayout } from "./validate.ts";
import { QUOTE_CUT, type Hit, type Rule } from "./validate-common.ts";
import { asObjectId, isNullObjectId, parseStrictTime, unticked } from "./values.ts";

/** Anchor labels, as `anchors` prints them. */
export type AnchorLabel =
  | "Branch" | "HEAD" | "Dirty files" | "Dirty hashes" | "In progress" | "Date" | "Key file mtimes";

/** One anchor line read: its label and value, or why it is malformed. */
export type AnchorLine = { label: AnchorLabel; value: string } | { error: string; unknownLabel?: string };

const LINE = /^- (Branch|HEAD|Dirty files|Dirty hashes|In progress|Date|Key file mtimes): (.*)$/;
// A later version's label (`- Something new: …`) is a finding, not an error, so that older
// readers and newer writers keep working together.
const OTHER_LABEL = /^- ([A-Z][A-Za-z ]{0,40}): \S/;
const OPERATION = /^(rebase|merge|cherry-pick|revert|bisect|am)(?: of (\S.*?))? \((\d+) conflicted files?\)$/;
// `<path> @ <ISO|missing>, …`: a path is bare (no comma, no quote) or double-quoted with C escapes.
const MTIME_ITEM = /^(?:"(?:[^"\\]|\\.)*"|[^",\s][^",]*?) @ (missing|\S+?)(?:, |$)/;
const FULL_HEAD = /^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;

// A time of the right shape, in the future or not: the future is a finding, not a malformed line.
const isIsoWithZone = (value: string): boolean => !("error" in parseStrictTime(value, Number.MAX_SAFE_INTEGER));

function keyFileMtimesError(value: string): string | null {
  let rest = value;
  if (rest === "") return "no `<path> @ <time>` item";
  while (rest !== "") {
    const m = MTIME_ITEM.exec(rest);
    if (!m) return `${quotedValue(rest.slice(0, 60))} is not \`<path> @ <ISO-8601 time, or missing>\``;
    const time = m[1]!;
    const zone = "is not an ISO-8601 time with a zone (or `missing`)";
    if (time !== "missing" && !isIsoWithZone(time)) return `${quotedValue(time)} ${zone}`;
    rest = rest.slice(m[0].length);
  }
  return null;
}

// A value's problem, or null; HEAD and Date are accepted in backticks (older handoffs).
function valueError(label: AnchorLabel, value: string): string | null {
  const v = /^`([^`]*)`$/.exec(value)?.[1] ?? value;
  const shown = quotedValue(value.slice(0, 60));
  switch (label) {
    case "Branch":
      return /^\S+$/.test(value) && value.length <= 255 ? null : `branch ${shown} is not a branch name or (detached)`;
    case "HEAD": {
      const head = quotedValue(v.slice(0, 70));
      if (isNullObjectId(v)) return `HEAD ${head} is the null object id (all zeros), which names no commit`;
      if (v === "none (no commits yet)" || asObjectId(v) !== null) return null;
      const hex = /^[0-9a-fA-F]+$/.test(v) ? ` (${v.length} hex digits)` : "";
      return `HEAD ${head}${hex} is not a full 40- or 64-hex commit id`;
    }
    case "Dirty files":
      if (parsePathList(value) !== null) return null;
      return `dirty files ${shown} are not a comma-separated path list (or none)`;
    case "Dirty hashes":
      if (parseDirtyHashes(value) !== null) return null;
      return `dirty hashes ${shown} are not \`<path> <blob id | deleted | over 8 MB>, …\``;
    case "In progress":
      if (OPERATION.test(value)) return null;
      return `in progress ${shown} is not \`<operation>[ of <branch>] (<n> conflicted files)\``;
    case "Date": {
      if (isIsoWithZone(v)) return null;
      const zoneless = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(v) ? " (it has no zone: add Z or an offset)" : "";
      return `date ${quotedValue(v.slice(0, 60))} is not an ISO-8601 time with a zone${zoneless}`;
    }
    case "Key file mtimes": {
      const err = keyFileMtimesError(value);
      return err === null ? null : `key file mtimes: ${err}`;
    }
  }
}

/** Reads one line of the anchors section against the lines `anchors` prints. Never throws. */
export function readAnchorLine(line: string): AnchorLine {
  const m = LINE.exec(line);
  if (!m) {
    const other = OTHER_LABEL.exec(line);
    if (other) {
      const label = `\`- ${other[1]}:\` is not an anchor label this helper knows`;
      return { error: `${label} (a newer helper's line?); nothing reads it`, unknownLabel: other[1]! };
    }
    const shown = quotedValue(line.slice(0, 60));
    return {
      error: /^[-*+]\s*([A-Za-z ]+):/.test(line)
        ? `${shown} is not an anchor line (labels are exactly Branch, HEAD, Dirty files, Dirty hashes, In progress, `
          + `Date, Key file mtimes, after "- ")`
        : `${shown} is not an anchor line; paste what \`anchors\` prints, or leave the section empty for write to fill`,
    };
  }
  const error = valueError(m[1] as AnchorLabel, m[2]!);
  return error === null ? { label: m[1] as AnchorLabel, value: m[2]! } : { error };
}

/** True when an anchors section body is empty: blank lines, `- none` or template placeholders only. */
export function isEmptyAnchorsBody(lines: readonly string[]): boolean {
  return lines.every((raw) => {
    const line = raw.trim();
    if (line === "" || /^(?:[-*+] )?none$/i.test(line)) return true;
    if (/^(?:[-*+] )?<[^<>]*>$/.test(line) || /^<!--.*-->$/.test(line)) return true;
    const m = /^[-*+] [A-Za-z ]+: (.*)$/.exec(line);
    return m !== null && /^<[^<>]*>$/.test(m[1]!.trim());
  });
}

/** One anchors-section line checked against the grammar, and whether its label came before. */
interface AnchorGrammar {
  line: number;
  got: AnchorLine;
  repeated: boolean;
}

/** What the anchor rules read of a handoff. */
export interface AnchorsRead {
  /** The section's lines as the grammar reads them; null when absent, or empty on stdin. */
  anchorLines: AnchorGrammar[] | null;
  /** On stdin, the anchors section is empty: write fills it. */
  anchorsEmpty: boolean;
  anchorsAt: HandoffHeading | undefined;
  /** With a git anchor line (Branch, HEAD, Dirty files, In progress): the git form of the anchors. */
  gitForm: boolean;
  /** Anchor labels the form needs that the model lacks. */
  lackingAnchors: AnchorLabel[];
}

/** Reads the anchors section: each line's grammar (comments skipped) and what the model lacks. */
export function readAnchors(
  model: ParsedHandoff,
  layout: HandoffLayout,
  at: HandoffHeading | undefined,
  mode: string,
): AnchorsRead {
  let anchorLines: AnchorGrammar[] | null = null;
  const body = at && layout.anchors ? layout.lines.slice(layout.anchors.start, layout.anchors.end) : null;
  const anchorsEmpty = body !== null && mode === "stdin" && isEmptyAnchorsBody(body);
  if (body !== null && !anchorsEmpty) {
    anchorLines = [];
    const seen = new Set<AnchorLabel>();
    let inComment = false;
    for (const [i, line] of body.entries()) {
      const trimmed = line.trim();
      if (inComment || trimmed.startsWith("<!--")) {
        inComment = !trimmed.includes("-->");
        continue;
      }
      if (trimmed === "") continue;
      const got = readAnchorLine(line);
      const repeated = !("error" in got) && seen.has(got.label);
      if (!("error" in got)) seen.add(got.label);
      anchorLines.push({ line: at!.line + i + 1, got, repeated });
    }
  }
  const a = model.anchors;
  const gitForm = a.branch !== null || a.head !== null || a.dirty !== null || a.inProgress != null;
  const value: Record<string, string | null> = { Branch: a.branch, HEAD: a.head, "Dirty files": a.dirty, Date: a.date };
  const want: AnchorLabel[] = gitForm ? ["Branch", "HEAD", "Dirty files", "Date"] : ["Date"];
  return { anchorLines, anchorsEmpty, anchorsAt: at, gitForm, lackingAnchors: want.filter((l) => value[l] === null) };
}

const at = (line: number, message: string): Hit => ({ line, message });

/** The anchors' rules, in `HANDOFF_RULES`' order. */
export const ANCHOR_RULES: readonly Rule<HandoffContext, "anchors">[] = [
  {
    id: "anchors-empty",
    severity: "finding",
    part: null,
    checks: "on stdin, an empty anchors section (write fills it)",
    check: (c) => {
      const message = "the anchors section is empty; write fills it with what `anchors` prints";
      return c.anchorsEmpty ? [at(c.anchorsAt!.line, message)] : [];
    },
  },
  {
    // Every line `anchors` prints, and nothing else; once each.
    id: "anchor-line",
    severity: "error",
    part: "anchors",
    checks: "each anchors line is one `anchors` prints, each label once",
    check: (c) =>
      (c.anchorLines ?? []).flatMap((a) => {
        if (a.repeated && !("error" in a.got)) return [at(a.line, `\`- ${a.got.label}:\` appears twice`)];
        return "error" in a.got && a.got.unknownLabel === undefined ? [at(a.line, a.got.error)] : [];
      }),
  },
  {
    id: "anchor-unknown",
    severity: "finding",
    part: null,
    checks: "an anchors line with a label this helper does not know",
    check: (c) => {
      const unknown = (c.anchorLines ?? []).filter((a) => "error" in a.got && a.got.unknownLabel !== undefined);
      return unknown.map((a) => at(a.line, (a.got as { error: string }).error));
    },
  },
  {
    id: "anchor-missing",
    severity: "finding",
    part: "anchors",
    checks: "Branch, HEAD, Dirty files and Date (in git), or Date (outside git)",
    check: (c) => {
      if (c.anchorLines === null) return [];
      return c.lackingAnchors.map((l) => at(c.anchorsAt!.line, `no \`- ${l}:\` anchor line`));
    },
  },
  {
    id: "anchor-mixed",
    severity: "finding",
    part: null,
    checks: "`- Key file mtimes:` only outside git",
    check: (c) => {
      const mixed = c.anchorLines !== null && c.gitForm && c.model.anchors.keyFileMtimes !== null;
      return mixed ? [at(c.anchorsAt!.line, "`- Key file mtimes:` is for handoffs saved outside git")] : [];
    },
  },
  {
    // A future `- Date:` makes the age unknown.
    id: "anchor-date",
    severity: "finding",
    part: null,
    checks: "`- Date:` not more than 5 minutes ahead",
    check: (c) => {
      const date = c.model.anchors.date;
      if (c.anchorLines === null || date === null) return [];
      const st = stateTime(date, null, c.opts.nowMs);
      if (st.known || st.reason !== "future") return [];
      const shown = quoted(unticked(date), QUOTE_CUT);
      const message = `the - Date: anchor ${shown} is in the future (more than 5 minutes ahead): age unknown`;
      return [at(c.anchorsAt!.line, message)];
    },
  },
  {
    id: "anchor-head",
    severity: "finding",
    part: "anchors",
    checks: "a HEAD drift can check against history",
    check: (c) => {
      const head = c.model.anchors.head;
      const none = c.anchorLines !== null && c.gitForm && head !== null && unticked(head) === "none (no commits yet)";
      const message = "HEAD is `none (no commits yet)`: drift cannot check this handoff against history";
      return none ? [at(c.anchorsAt!.line, message)] : [];
    },
  },
];

/** The anchors' part of the score: 5 for a full HEAD (in git), 5 for every needed line and no malformed one. */
export function anchorsPart(c: HandoffContext): number | null {
  if (!c.anchorsAt) return 0;
  if (c.anchorLines === null) return null;
  const head = c.model.anchors.head === null ? undefined : unticked(c.model.anchors.head);
  const headOk = !c.gitForm || (head !== undefined && FULL_HEAD.test(head) && !isNullObjectId(head.toLowerCase()));
  const malformed = c.anchorLines.some((a) => a.repeated || ("error" in a.got && a.got.unknownLabel === undefined));
  return (headOk ? 5 : 0) + (c.lackingAnchors.length === 0 && !malformed ? 5 : 0);
}
