// Differential run of the old validateHandoff (legacy copy) against the table-driven one, over
// every handoff fixture and seeded mutations of each. Prints each kind of difference with
// examples. Run: npx tsx test/schema/legacy/differential.ts [mutants-per-doc]
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { validateHandoff } from "../../../src/schema/validate.ts";
import { anchorsRange, handoffLayout, keyFilePath, validateHandoff as legacy, type HandoffValidateOptions } from "./validate-legacy.ts";
import { parseHandoff } from "../../../src/schema/handoff.ts";
import { readAnchorLine } from "../../../src/schema/validate-anchors.ts";
import { lineStartsOf, lineAt } from "../../../src/schema/validate-common.ts";
import { splitTemplate } from "../../docs/support.ts";
import { handoff } from "../../helpers.ts";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const docs: [string, string][] = [];
const add = (name: string, text: string) => docs.push([name, text]);
const corpus = path.join(REPO, "test/schema/corpus");
for (const n of readdirSync(corpus).filter((n) => n.endsWith(".md")).sort()) add(`corpus/${n}`, readFileSync(path.join(corpus, n), "utf8"));
const { skeleton, example } = splitTemplate(readFileSync(path.join(REPO, "templates/handoff.md"), "utf8"));
add("template-skeleton", skeleton);
add("template-example", example);
add("helpers.handoff", handoff("Fix the thing in src/a.ts."));
const extra = process.env.EXTRA ?? "/tmp/vd/real";
if (existsSync(extra)) for (const n of readdirSync(extra).sort()) add(`real/${n}`, readFileSync(path.join(extra, n), "utf8"));

let seed = 42;
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const POOL = [
  "## Plan", "## plan", "## Plan ##", "# Plan", "### Plan", "## Failed approachs", "## Notes", "# Notes", "### Details", "## Verification", "## Scope",
  "## Environment anchors", "## Key files", "## Next steps", "## Decisions", "Plan", "---", "===", "```", "~~~", "<!--", "-->", "<!-- c -->",
  "- [x] done step", "- [-] dropped step", "- [-] step — dropped: obsolete", "- step without box", "- [ ] todo src/a.ts — done when tests pass",
  "- Branch: main", "- branch: main", "- HEAD: 29f1aece6c77b1ed4ebc70f1daee560f924fdf58", "- HEAD: none (no commits yet)", "- HEAD: abc",
  "- Dirty files: none", "- Date: 2099-01-01T00:00:00Z", "- Date: 2026-11-30T11:00:00Z", "- Date: 2026-11-30T11:00", "- Key file mtimes: a.ts @ missing",
  "- In progress: merge (0 conflicted files)", "- Dirty hashes: a.ts deleted", "- Newthing: x", "* Branch: main", "Saved: 2026-11-30T11:00:00Z",
  "Saved: 2099-01-01T00:00:00Z", "Saved: yesterday", "Saved: `2026-11-30T11:00:00+01:00`", "Saved: 2026-11-30T11:00:00+24:00", "none", "- none", "- none recorded",
  "- src/a b.ts — spaced", "- `src/app.ts` — entry", "- /etc/passwd — outside", "- src/app.ts: the entry", "- Accepted: alice, v1", "- tests: npm test -> pass @ abc",
  "- lint: not run, no time", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "<<<<<<< ours", "=======", ">>>>>>> theirs", "", "   ", "1. Read src/x.ts",
  "- Use fetch [agent-proposed]", "- Retried: the server was down", "> quoted", "    indented code", "# Session Handoff", "<!-- memory-schema: v1 -->",
];
function mutate(text: string): string {
  let lines = text.split("\n");
  const ops = 1 + rnd(3);
  for (let k = 0; k < ops; k++) {
    const i = rnd(Math.max(1, lines.length));
    switch (rnd(7)) {
      case 0: lines.splice(i, 1); break;
      case 1: lines.splice(i, 0, lines[i] ?? ""); break;
      case 2: if (i + 1 < lines.length) [lines[i], lines[i + 1]] = [lines[i + 1]!, lines[i]!]; break;
      case 3: case 4: lines.splice(i, 0, POOL[rnd(POOL.length)]!); break;
      case 5: lines[i] = (lines[i] ?? "").toUpperCase(); break;
      case 6: lines[i] = `${lines[i] ?? ""}${[" #", "#", " ", "`", ":"][rnd(5)]}`; break;
    }
  }
  let out = lines.join("\n");
  const tail = rnd(20);
  if (tail === 0) out = out.replace(/\n$/, "");
  if (tail === 1) out = out.replace(/\n/g, "\r\n");
  if (tail === 2) out = `\uFEFF${out}`;
  return out;
}

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const keyish = ["src/auth/redirect.ts", "src/app.ts", "src/import/csv.ts", "src/a b.ts", "src/a", "src/x.ts"];
function optsFor(i: number, prior: string): HandoffValidateOptions {
  switch (i % 5) {
    case 0: return { mode: "root", nowMs: NOW };
    case 1: return { mode: "stdin", nowMs: NOW };
    case 2: return { mode: "root", nowMs: NOW, prior, existingKeyFiles: new Set(keyish.slice(0, 1 + (i % 5))) };
    case 3: return { mode: "stdin", nowMs: Date.now(), secrets: [], existingKeyFiles: null };
    default: return { mode: "root", nowMs: Date.now(), prior: null, existingKeyFiles: new Set() };
  }
}

// Where the old layout reading and the model read the same values, the outputs must be equal;
// elsewhere the new validate follows the model (docs/design.md#verdicts-and-the-brief) and the
// difference is reported as "model:<what>".
function disagreement(input: string): string | null {
  const text = input.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const layout = handoffLayout(text);
  const h = parseHandoff(text);
  const why: string[] = [];
  if ((layout.savedIndex < 0 ? null : layout.savedIndex + 1) !== h.savedLine) why.push("saved");
  const oldHeads = layout.headings.map((x) => `${x.depth}:${x.line}:${x.title}`).join("|");
  const newHeads = h.headings.map((x) => `${x.depth}:${x.line}:${x.title}`).join("|");
  if (oldHeads !== newHeads) why.push("headings");
  // The state time's parse (values.ts) is stricter than the old form check (an offset past 23:59).
  const strict = (v: string | null | undefined) => v != null && /[+-](2[4-9]|[3-9]\d):?\d\d`?\s*$|[+-]\d\d:?[6-9]\d`?\s*$/.test(v);
  if (strict(h.saved) || strict(h.anchors.date)) why.push("offset");
  // A level-1 heading other than the title ends a section for the old layout, not for the model.
  if (layout.sections.some((s) => s.depth === 1)) why.push("level-1");
  const range = anchorsRange(layout);
  if (range) {
    const seen = new Map<string, string>();
    for (const l of layout.lines.slice(range.start, range.end)) {
      const got = readAnchorLine(l);
      if (!("error" in got) && !seen.has(got.label)) seen.set(got.label, got.value);
    }
    const pairs: [string, string | null | undefined][] = [["Branch", h.anchors.branch], ["HEAD", h.anchors.head], ["Dirty files", h.anchors.dirty], ["Date", h.anchors.date], ["Key file mtimes", h.anchors.keyFileMtimes], ["In progress", h.anchors.inProgress ?? null]];
    for (const [label, v] of pairs) if ((seen.get(label) ?? null) !== (v ?? null)) why.push(`anchor ${label}`);
  }
  const oldKeys = layout.sections.find((s) => s.depth === 2 && s.key === "key files");
  const starts = lineStartsOf(text);
  if (oldKeys) {
    const items = oldKeys.blocks.filter((b) => b.type === "list").flatMap((b) => b.children.map((i) => ({ line: lineAt(starts, i.start), text: (i.children[0] && i.children[i.children.length - 1] ? text.slice(i.children[0].start, i.children[i.children.length - 1]!.end) : "").trim() })));
    const kept = items.filter((i) => !/^(none|none recorded|n\/a)\.?$/i.test(i.text));
    const model = h.keyFiles.filter((k) => !/^(none|none recorded|n\/a)\.?$/i.test(k.raw));
    if (kept.map((i) => keyFilePath(i.text)).join("|") !== model.map((k) => k.path).join("|")) why.push("key files");
  }
  return why.length === 0 ? null : why.join(",");
}

const per = Number(process.argv[2] ?? 100);
const kinds = new Map<string, { count: number; examples: string[] }>();
let runs = 0;
let diffs = 0;
const diffRules = (a: ReturnType<typeof legacy>, b: ReturnType<typeof legacy>): string => {
  const key = (l: { rule: string; line: number; message: string }[]) => new Set(l.map((x) => JSON.stringify(x)));
  const out = new Set<string>();
  for (const [x, y] of [[a.errors, b.errors], [a.findings, b.findings]] as const) {
    const kx = key(x), ky = key(y);
    for (const i of x) if (!ky.has(JSON.stringify(i))) out.add(`-${i.rule}`);
    for (const i of y) if (!kx.has(JSON.stringify(i))) out.add(`+${i.rule}`);
    if ([...kx].join() !== [...ky].join() && out.size === 0) out.add("order");
  }
  for (const p of new Set([...Object.keys(a.parts), ...Object.keys(b.parts)])) if (JSON.stringify(a.parts[p]) !== JSON.stringify(b.parts[p])) out.add(`part:${p}`);
  if (a.score !== b.score && out.size === 0) out.add("score");
  if (JSON.stringify(a.dropped) !== JSON.stringify(b.dropped)) out.add("dropped-list");
  return [...out].sort().join(" ");
};
for (const [d, [name, base]] of docs.entries()) {
  const prior = docs[(d + 1) % docs.length]![1];
  for (let m = 0; m <= per; m++) {
    const text = m === 0 ? base : mutate(base);
    const o = optsFor(m + d, prior);
    const a = legacy(text, o);
    const b = validateHandoff(text, o);
    runs++;
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    diffs++;
    const model = disagreement(text);
    const kind = `${m === 0 ? "FIXTURE " : ""}${model ? `model:${model} ` : "BUG "}${diffRules(a, b)}`;
    const k = kinds.get(kind) ?? { count: 0, examples: [] };
    k.count++;
    if (m === 0) console.log("fixture differs:", name, kind);
    if (k.examples.length < 2) k.examples.push(`${name} #${m}\n--- text\n${text}\n--- old\n${JSON.stringify({ e: a.errors, f: a.findings, p: a.parts })}\n--- new\n${JSON.stringify({ e: b.errors, f: b.findings, p: b.parts })}`);
    kinds.set(kind, k);
  }
}
console.log(`${docs.length} documents, ${runs} runs, ${diffs} differ, ${[...kinds].filter(([k]) => k.includes("BUG")).reduce((n, [, v]) => n + v.count, 0)} where old and model read alike`);
for (const [k, v] of [...kinds].sort((x, y) => y[1].count - x[1].count)) console.log(`${v.count}\t${k}`);
if (process.env.SHOW) for (const [k, v] of kinds) if (k.includes(process.env.SHOW)) console.log(`\n===== ${k}\n${v.examples.join("\n\n")}`);
process.exitCode = diffs === 0 ? 0 : 1;
