// `validate lessons|solutions`: errors are only the file format's, so ledgers the reference helper wrote keep working.
import { redactText } from "../guard/redact.ts";
import type { RedactionFinding } from "../guard/redact.ts";
import { quoted } from "../guard/sanitize.ts";
import { parseBlocks } from "./grammar.ts";
import { normaliseText } from "./handoff.ts";
import {
  lineAt,
  lineStartsOf,
  proportion,
  QUOTE_CUT,
  runRules,
  TEXT_RULES,
  lineMaps,
  onOriginalLines,
  type DocumentText,
  type Hit,
  type RedactedText,
  type PartRule,
  type Rule,
  type Validation,
} from "./validate-common.ts";

/** The two ledger kinds. */
export type LedgerKind = "lessons" | "solutions";

interface LedgerSchema {
  title: string;
  prefix: "L" | "S";
  fields: string[];
  /** Lines past which the ledger is too long to consult (about 200 lessons or 250 solutions). */
  cap: number;
}

const SCHEMAS: Record<LedgerKind, LedgerSchema> = {
  lessons: { title: "# Lessons", prefix: "L", fields: ["When", "Lesson", "Why", "Source", "Status"], cap: 200 },
  solutions: {
    title: "# Solutions",
    prefix: "S",
    fields: ["Symptoms", "Context", "Fix", "Evidence", "Recorded"],
    cap: 250,
  },
};

const MARKER = "<!-- memory-schema: v1 -->";
const LABEL = /\[(user-directed|user-approved|agent-proposed)\]/;
const LESSON_STATUS = /^(active|superseded by L-\d{4}\b.*|retired: \S.*)$/;
const SOLUTION_STATUS = /^obsolete: \S/;

/** An entry: its number, its heading's line, its `- Field: value` items, the line its number was first used. */
interface LedgerEntry {
  number: string;
  line: number;
  fields: Map<string, string>;
  reuses: number | null;
}

interface LedgerContext extends DocumentText {
  kind: LedgerKind;
  schema: LedgerSchema;
  /** `## ` headings that are not entry headings. */
  badHeadings: { line: number; title: string }[];
  entries: LedgerEntry[];
  secrets: readonly RedactionFinding[];
}

type LedgerPart = "fields" | "status" | "numbering" | "size" | "secrets";
type Check = (c: LedgerContext, e: LedgerEntry) => boolean;

const at = (line: number, message: string): Hit => ({ line, message });
const name = (c: LedgerContext, e: LedgerEntry) => `${c.schema.prefix}-${e.number}`;
const lacking = (c: LedgerContext, e: LedgerEntry) => c.schema.fields.filter((f) => !(e.fields.get(f) ?? ""));
const lineCount = (c: LedgerContext) => (c.text.endsWith("\n") ? c.lines.length - 1 : c.lines.length);
// A field that is there but malformed: a lesson's Source label and Status, a solution's Status and Recorded date.
const bad = (kind: LedgerKind, field: string, form: RegExp): Check => (c, e) =>
  c.kind === kind && e.fields.has(field) && !form.test(e.fields.get(field)!);
const badSource = bad("lessons", "Source", LABEL);
const badLessonStatus = bad("lessons", "Status", LESSON_STATUS);
const badSolutionStatus = bad("solutions", "Status", SOLUTION_STATUS);
const badStatus: Check = (c, e) => badLessonStatus(c, e) || badSolutionStatus(c, e);
const badDate = bad("solutions", "Recorded", /^\d{4}-\d{2}-\d{2}\b/);
const count = (c: LedgerContext, good: (e: LedgerEntry) => boolean, max: number) =>
  proportion(c.entries.filter(good).length, c.entries.length, max).score;

/** The ledgers' rules, in the order their issues are listed when two fall on one line. */
export const LEDGER_RULES: readonly Rule<LedgerContext, LedgerPart>[] = [
  TEXT_RULES.bom,
  TEXT_RULES.crlf,
  {
    id: "marker",
    severity: "error",
    part: null,
    checks: `the first line is ${MARKER}`,
    check: (c) => (c.lines[0] === MARKER ? [] : [at(1, `the document must begin with the line ${MARKER}`)]),
  },
  {
    id: "heading",
    severity: "error",
    part: null,
    checks: "the ledger's title (`# Lessons`, `# Solutions`) is one of the first four lines",
    check: (c) => {
      if (c.lines.slice(0, 4).includes(c.schema.title)) return [];
      return [at(1, `the document must have the heading "${c.schema.title}" in its first four lines`)];
    },
  },
  TEXT_RULES.newline,
  TEXT_RULES.conflicted,
  TEXT_RULES.markdown,
  {
    id: "entry-heading",
    severity: "error",
    part: null,
    checks: "each `## ` heading is `## L-<4 digits>: <title>` (lessons) or `## S-<4 digits>: <problem>` (solutions)",
    check: (c) => {
      const form = `## ${c.schema.prefix}-<4 digits>: <${c.kind === "lessons" ? "title" : "problem"}>`;
      return c.badHeadings.map((h) => {
        return at(h.line, `${quoted(`## ${h.title}`, QUOTE_CUT)} is not an entry heading: write \`${form}\``);
      });
    },
  },
  {
    id: "entry-field",
    severity: "finding",
    part: "fields",
    checks: "each entry has every field of its schema, not empty",
    check: (c) =>
      c.entries.flatMap((e) => {
        const missing = lacking(c, e).map((f) => `\`- ${f}:\``);
        return missing.length === 0 ? [] : [at(e.line, `${name(c, e)} lacks ${missing.join(", ")}`)];
      }),
  },
  {
    id: "entry-number",
    severity: "finding",
    part: "numbering",
    checks: "entry numbers are never reused",
    check: (c) =>
      c.entries.flatMap((e) => {
        if (e.reuses === null) return [];
        return [at(e.line, `${name(c, e)} is used again (first at line ${e.reuses}); numbers are never reused`)];
      }),
  },
  {
    id: "entry-source",
    severity: "finding",
    part: "status",
    checks: "a lesson's Source has its label",
    check: (c) => {
      const labels = "[user-directed], [user-approved] or [agent-proposed]";
      const unlabelled = c.entries.filter((e) => badSource(c, e));
      return unlabelled.map((e) => at(e.line, `${name(c, e)}: Source has no ${labels} label`));
    },
  },
  {
    id: "entry-status",
    severity: "finding",
    part: "status",
    checks: "a lesson's Status is active, superseded or retired; a solution's only ever obsolete",
    check: (c) => {
      const lesson = "is not active, superseded by L-<n>, or retired: <why>";
      const form = c.kind === "lessons" ? lesson : "is only ever `obsolete: <why>`";
      return c.entries.filter((e) => badStatus(c, e)).map((e) => at(e.line, `${name(c, e)}: Status ${form}`));
    },
  },
  {
    id: "entry-date",
    severity: "finding",
    part: "status",
    checks: "a solution's Recorded is a date",
    check: (c) => {
      const undated = c.entries.filter((e) => badDate(c, e));
      return undated.map((e) => at(e.line, `${name(c, e)}: Recorded is not a date (YYYY-MM-DD)`));
    },
  },
  {
    id: "line-cap",
    severity: "finding",
    part: "size",
    checks: "about 200 lines (lessons) or 250 (solutions) at most",
    check: (c) => {
      const n = lineCount(c);
      const message = `${n} lines, over the ~${c.schema.cap}-line cap: retire or merge old entries`;
      return n > c.schema.cap ? [at(c.schema.cap + 1, message)] : [];
    },
  },
  {
    id: "secret",
    severity: "finding",
    part: "secrets",
    checks: "no secret (redaction's rules)",
    check: (c) => c.secrets.map((s) => at(s.line, `a secret (${s.kind}); write redacts it`)),
  },
];

/** The ledgers' score parts with their weights, in the order the result lists them. */
export const LEDGER_PARTS: readonly PartRule<LedgerContext, LedgerPart>[] = [
  { part: "fields", weight: 50, score: (c) => count(c, (e) => lacking(c, e).length === 0, 50) },
  {
    part: "status",
    weight: 20,
    score: (c) => count(c, (e) => !badSource(c, e) && !badStatus(c, e) && !badDate(c, e), 20),
  },
  { part: "numbering", weight: 10, score: (c) => (c.entries.some((e) => e.reuses !== null) ? 0 : 10) },
  { part: "size", weight: 10, score: (c) => (lineCount(c) > c.schema.cap ? 0 : 10) },
  { part: "secrets", weight: 10, score: (c) => (c.secrets.length === 0 ? 10 : 0) },
];

// Entries from the blocks: a heading in a fence or a comment is none.
function ledgerContext(input: string, kind: LedgerKind): LedgerContext {
  const schema = SCHEMAS[kind];
  const text = normaliseText(input);
  const starts = lineStartsOf(text);
  const entry = new RegExp(`^${schema.prefix}-(\\d{4}): \\S`);
  const entries: LedgerEntry[] = [];
  const badHeadings: LedgerContext["badHeadings"] = [];
  const first = new Map<string, number>();
  let current: LedgerEntry | null = null;
  const tree = parseBlocks(text);
  for (const block of tree.children) {
    const line = lineAt(starts, block.start);
    if (block.type === "heading" && block.depth === 2) {
      const title = text.slice(block.start, block.end).replace(/^##\s*/, "").replace(/\s+#+\s*$/, "").trim();
      const m = entry.exec(title);
      if (!m) {
        badHeadings.push({ line, title });
        current = null;
        continue;
      }
      current = { number: m[1]!, line, fields: new Map(), reuses: first.get(m[1]!) ?? null };
      if (!first.has(m[1]!)) first.set(m[1]!, line);
      entries.push(current);
      continue;
    }
    if (current === null || block.type !== "list") continue;
    for (const item of block.children) {
      const end = item.children[item.children.length - 1]?.end ?? item.end;
      const body = text.slice(item.children[0]?.start ?? item.start, end).trim();
      const f = /^([A-Za-z][A-Za-z ]*?):\s*(.*)$/s.exec(body);
      if (f && !current.fields.has(f[1]!)) current.fields.set(f[1]!, f[2]!.trim());
    }
  }
  return { input, text, lines: text.split("\n"), flags: tree.flags, kind, schema, badHeadings, entries, secrets: [] };
}

/** Validates a ledger: runs `LEDGER_RULES` and scores `LEDGER_PARTS`. */
export function validateLedger(input: string, kind: LedgerKind, redacted?: RedactedText): Validation {
  // The rules read the redacted text, so no message can quote a secret; lines are the author's.
  const pass = redacted ?? redactText(input);
  const maps = lineMaps(pass);
  const c = ledgerContext(pass.text, kind);
  c.secrets = pass.findings.map((f) => ({ ...f, line: maps.toRedacted(f.line) }));
  return onOriginalLines(runRules(LEDGER_RULES, LEDGER_PARTS, c), pass);
}
