// `validate lessons|solutions` (ruling 9, docs/design.md#files-on-disk): a ledger's errors are exactly §1's
// (marker, heading, final newline) plus a malformed entry heading, per
// references/lessons-schema.md and references/solutions-schema.md; everything else is a
// finding, so ledgers the reference helper wrote keep working. Pure.
import { redactText } from "../cold/redaction.ts";
import { parseBlocks } from "./blocks.ts";
import { conflictIssue } from "./conflicted.ts";
import { bounded, lineAt, lineStartsOf, proportion, quoted, totalScore, type Issue, type ScorePart, type Validation } from "./validate-common.ts";

/** The two ledger kinds. */
export type LedgerKind = "lessons" | "solutions";

interface LedgerSchema {
  title: string;
  prefix: "L" | "S";
  fields: string[];
  /** Lines past which the ledger is flagged (brief of issue 12: ~200 lessons, ~250 solutions; docs/design.md#files-on-disk). */
  cap: number;
}

/** Each ledger's shape, from its schema reference. */
export const LEDGER_SCHEMAS: Record<LedgerKind, LedgerSchema> = {
  lessons: { title: "# Lessons", prefix: "L", fields: ["When", "Lesson", "Why", "Source", "Status"], cap: 200 },
  solutions: { title: "# Solutions", prefix: "S", fields: ["Symptoms", "Context", "Fix", "Evidence", "Recorded"], cap: 250 },
};

const MARKER = "<!-- memory-schema: v1 -->";
const LABEL = /\[(user-directed|user-approved|agent-proposed)\]/;
const LESSON_STATUS = /^(active|superseded by L-\d{4}\b.*|retired: \S.*)$/;
const SOLUTION_STATUS = /^obsolete: \S/;

/** Validates a ledger (ruling 9, docs/design.md#files-on-disk); the score's parts: fields, status, numbering, size, secrets. */
export function validateLedger(input: string, kind: LedgerKind): Validation {
  const schema = LEDGER_SCHEMAS[kind];
  const errors: Issue[] = [];
  const findings: Issue[] = [];
  if (input.startsWith("\uFEFF")) findings.push({ rule: "bom", line: 1, message: "a UTF-8 byte order mark starts the text; write drops it" });
  if (/\r/.test(input)) findings.push({ rule: "crlf", line: 1, message: "CR or CRLF line ends; write turns them into LF" });
  const text = input.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  if (lines[0] !== MARKER) errors.push({ rule: "marker", line: 1, message: `the document must begin with the line ${MARKER}` });
  if (!lines.slice(0, 4).includes(schema.title)) errors.push({ rule: "heading", line: 1, message: `the document must have the heading "${schema.title}" in its first four lines` });
  if (!text.endsWith("\n")) errors.push({ rule: "newline", line: lines.length, message: "the document must end with a newline" });
  const conflict = conflictIssue(text);
  if (conflict !== null) errors.push(conflict);

  const starts = lineStartsOf(text);
  const entry = new RegExp(`^${schema.prefix}-(\\d{4}): \\S`);
  const entries: { number: string; line: number; fields: Map<string, string> }[] = [];
  let current: (typeof entries)[number] | null = null;
  for (const block of parseBlocks(text).children) {
    const line = lineAt(starts, block.start);
    if (block.type === "heading" && block.depth === 2) {
      const title = text.slice(block.start, block.end).split("\n")[0]!.replace(/^##\s*/, "").replace(/\s+#+\s*$/, "").trim();
      const m = entry.exec(title);
      if (!m) {
        errors.push({ rule: "entry-heading", line, message: `${quoted(`## ${title}`)} is not an entry heading: write \`## ${schema.prefix}-<4 digits>: <${kind === "lessons" ? "title" : "problem"}>\`` });
        current = null;
        continue;
      }
      current = { number: m[1]!, line, fields: new Map() };
      entries.push(current);
      continue;
    }
    if (current === null || block.type !== "list") continue;
    for (const item of block.children) {
      const body = text.slice(item.children[0]?.start ?? item.start, item.children[item.children.length - 1]?.end ?? item.end).trim();
      const f = /^([A-Za-z][A-Za-z ]*?):\s*(.*)$/s.exec(body);
      if (f && !current.fields.has(f[1]!)) current.fields.set(f[1]!, f[2]!.trim());
    }
  }

  let complete = 0;
  let statusOk = 0;
  const seen = new Map<string, number>();
  for (const e of entries) {
    const lacking = schema.fields.filter((f) => !(e.fields.get(f) ?? ""));
    if (lacking.length === 0) complete++;
    else findings.push({ rule: "entry-field", line: e.line, message: `${schema.prefix}-${e.number} lacks ${lacking.map((f) => `\`- ${f}:\``).join(", ")}` });
    if (seen.has(e.number)) findings.push({ rule: "entry-number", line: e.line, message: `${schema.prefix}-${e.number} is used again (first at line ${seen.get(e.number)}); numbers are never reused` });
    else seen.set(e.number, e.line);
    let ok = true;
    if (kind === "lessons") {
      const source = e.fields.get("Source");
      const status = e.fields.get("Status");
      if (source !== undefined && !LABEL.test(source)) {
        ok = false;
        findings.push({ rule: "entry-source", line: e.line, message: `${schema.prefix}-${e.number}: Source has no [user-directed], [user-approved] or [agent-proposed] label` });
      }
      if (status !== undefined && !LESSON_STATUS.test(status)) {
        ok = false;
        findings.push({ rule: "entry-status", line: e.line, message: `${schema.prefix}-${e.number}: Status is not active, superseded by L-<n>, or retired: <why>` });
      }
    } else {
      const status = e.fields.get("Status");
      if (status !== undefined && !SOLUTION_STATUS.test(status)) {
        ok = false;
        findings.push({ rule: "entry-status", line: e.line, message: `${schema.prefix}-${e.number}: Status is only ever \`obsolete: <why>\`` });
      }
      const recorded = e.fields.get("Recorded");
      if (recorded !== undefined && !/^\d{4}-\d{2}-\d{2}\b/.test(recorded)) {
        ok = false;
        findings.push({ rule: "entry-date", line: e.line, message: `${schema.prefix}-${e.number}: Recorded is not a date (YYYY-MM-DD)` });
      }
    }
    if (ok) statusOk++;
  }

  const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
  if (count > schema.cap) findings.push({ rule: "line-cap", line: schema.cap + 1, message: `${count} lines, over the ~${schema.cap}-line cap: retire or merge old entries` });
  const secrets = redactText(text).findings;
  for (const s of secrets) findings.push({ rule: "secret", line: s.line, message: `a secret (${s.kind}); write redacts it` });

  const parts: Record<string, ScorePart> = {
    fields: proportion(complete, entries.length, 50),
    status: proportion(statusOk, entries.length, 20),
    numbering: { score: seen.size === entries.length ? 10 : 0, max: 10 },
    size: { score: count > schema.cap ? 0 : 10, max: 10 },
    secrets: { score: secrets.length === 0 ? 10 : 0, max: 10 },
  };
  errors.sort((a, b) => a.line - b.line);
  findings.sort((a, b) => a.line - b.line);
  return { valid: errors.length === 0, errors: bounded(errors, "error(s)"), score: totalScore(parts), parts, findings: bounded(findings, "finding(s)"), dropped: [] };
}
