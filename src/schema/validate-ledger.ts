// `validate lessons|solutions`: errors are only the file format's, so ledgers the reference helper wrote keep working.
import { redactText, type Redacted, type RedactionFinding } from "../guard/redact.ts";
import { quoted } from "../guard/sanitize.ts";
import { parseBlocks } from "./grammar.ts";
import { itemText, normaliseText } from "./handoff.ts";
import { at, BEGIN, lineCount, QUOTE_CUT, ruleOf, runRules, TEXT_RULES, titleMissing, type Part, type Rule,
  type Validation } from "./validate-common.ts";
import { MARKER } from "./values.ts";

export type LedgerKind = "lessons" | "solutions";

// `cap`: lines past which the ledger is too long to consult (about 200 lessons or 250 solutions).
const SCHEMAS = {
  lessons: { title: "# Lessons", prefix: "L", fields: ["When", "Lesson", "Why", "Source", "Status"], cap: 200 },
  solutions: {
    title: "# Solutions", prefix: "S", fields: ["Symptoms", "Context", "Fix", "Evidence", "Recorded"], cap: 250,
  },
};

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

type LedgerContext = ReturnType<typeof ledgerContext>;

type Check = (c: LedgerContext, e: LedgerEntry) => boolean;

const name = (c: LedgerContext, e: LedgerEntry) => `${c.schema.prefix}-${e.number}`;
const lacking = (c: LedgerContext, e: LedgerEntry) => c.schema.fields.filter((f) => !(e.fields.get(f) ?? ""));
// A field that is there but malformed: a lesson's Source label and Status, a solution's Status and Recorded date.
const bad = (kind: LedgerKind, field: string, form: RegExp): Check => (c, e) =>
  c.kind === kind && e.fields.has(field) && !form.test(e.fields.get(field)!);
const badSource = bad("lessons", "Source", LABEL);
const badLessonStatus = bad("lessons", "Status", LESSON_STATUS);
const badSolutionStatus = bad("solutions", "Status", SOLUTION_STATUS);
const badDate = bad("solutions", "Recorded", /^\d{4}-\d{2}-\d{2}\b/);
const badStatus: Check = (c, e) => badLessonStatus(c, e) || badSolutionStatus(c, e);
// One finding on each entry `test` picks, its message after the entry's name.
const each = (c: LedgerContext, test: Check, says: string) =>
  c.entries.filter((e) => test(c, e)).map((e) => at(e.line, `${name(c, e)}${says}`));
const rule = ruleOf<LedgerContext>();

/** The ledgers' rules, in the order their issues are listed when two fall on one line. */
export const LEDGER_RULES: readonly Rule<LedgerContext>[] = [
  TEXT_RULES.bom,
  TEXT_RULES.crlf,
  rule("marker", "error", null, (c) => (c.lines[0] === MARKER ? [] : [at(1, BEGIN)])),
  rule("heading", "error", null, (c) =>
    c.lines.slice(0, 4).includes(c.schema.title) ? [] : [at(1, titleMissing(c.schema.title))]),
  TEXT_RULES.newline,
  TEXT_RULES.conflicted,
  TEXT_RULES.markdown,
  rule("entry-heading", "error", null, (c) => {
    const form = `## ${c.schema.prefix}-<4 digits>: <${c.kind === "lessons" ? "title" : "problem"}>`;
    const says = (h: { title: string }) => `${quoted(`## ${h.title}`, QUOTE_CUT)} is not an entry heading`;
    return c.badHeadings.map((h) => at(h.line, `${says(h)}: write \`${form}\``));
  }),
  rule("entry-field", "finding", "fields", (c) =>
    c.entries.flatMap((e) => {
      const missing = lacking(c, e).map((f) => `\`- ${f}:\``);
      return missing.length === 0 ? [] : [at(e.line, `${name(c, e)} lacks ${missing.join(", ")}`)];
    })),
  rule("entry-number", "finding", "numbering", (c) =>
    c.entries.flatMap((e) => {
      const again = `${name(c, e)} is used again (first at line ${e.reuses}); numbers are never reused`;
      return e.reuses === null ? [] : [at(e.line, again)];
    })),
  rule("entry-source", "finding", "status", (c) =>
    each(c, badSource, ": Source has no [user-directed], [user-approved] or [agent-proposed] label")),
  rule("entry-status", "finding", "status", (c) => {
    const lesson = "is not active, superseded by L-<n>, or retired: <why>";
    return each(c, badStatus, `: Status ${c.kind === "lessons" ? lesson : "is only ever `obsolete: <why>`"}`);
  }),
  rule("entry-date", "finding", "status", (c) => each(c, badDate, ": Recorded is not a date (YYYY-MM-DD)")),
  rule("line-cap", "finding", "size", (c) => {
    const message = `${lineCount(c)} lines, over the ~${c.schema.cap}-line cap: retire or merge old entries`;
    return lineCount(c) > c.schema.cap ? [at(c.schema.cap + 1, message)] : [];
  }),
  rule("secret", "finding", "secrets", (c) =>
    c.secrets.map((s) => at(s.line, `a secret (${s.kind}); write redacts it`))),
];

const entries = (c: LedgerContext) => Math.max(1, c.entries.length);
/** The ledgers' score parts, in the order the result lists them: each hit of a rule lowering a part takes one share. */
export const LEDGER_PARTS: readonly Part<LedgerContext>[] = [
  { part: "fields", weight: 50, of: entries },
  { part: "status", weight: 20, of: entries },
  { part: "numbering", weight: 10 },
  { part: "size", weight: 10 },
  { part: "secrets", weight: 10 },
];

// Entries from the blocks: a heading in a fence or a comment is none.
function ledgerContext(input: string, kind: LedgerKind) {
  const schema = SCHEMAS[kind];
  const text = normaliseText(input);
  const entry = new RegExp(`^${schema.prefix}-(\\d{4}): \\S`);
  const entries: LedgerEntry[] = [];
  const badHeadings: { line: number; title: string }[] = [];
  const first = new Map<string, number>();
  let current: LedgerEntry | null = null;
  const tree = parseBlocks(text);
  for (const block of tree.children) {
    if (block.type === "heading" && block.depth === 2) {
      const title = text.slice(block.start, block.end).replace(/^##\s*/, "").replace(/\s+#+\s*$/, "").trim();
      const m = entry.exec(title);
      if (!m) badHeadings.push({ line: block.line, title });
      current = m ? { number: m[1]!, line: block.line, fields: new Map(), reuses: first.get(m[1]!) ?? null } : null;
      if (m && !first.has(m[1]!)) first.set(m[1]!, block.line);
      if (current) entries.push(current);
      continue;
    }
    if (current === null || block.type !== "list") continue;
    for (const item of block.children) {
      const f = /^([A-Za-z][A-Za-z ]*?):\s*(.*)$/s.exec(itemText(text, item).trim());
      if (f && !current.fields.has(f[1]!)) current.fields.set(f[1]!, f[2]!.trim());
    }
  }
  const secrets: readonly RedactionFinding[] = [];
  return { input, text, lines: text.split("\n"), flags: tree.flags, secrets, kind, schema, badHeadings, entries };
}

export function validateLedger(input: string, kind: LedgerKind, redacted?: Redacted): Validation {
  const pass = redacted ?? redactText(input);
  return runRules(LEDGER_RULES, LEDGER_PARTS, pass, ledgerContext(pass.text, kind));
}
