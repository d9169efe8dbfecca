// remark is the oracle of the line grammar (docs/decisions/line-grammar.md): seeded, generated
// documents are read by both, live. Where the grammar flags nothing, its blocks must have remark's
// shape and `readHandoff` must read the same model from both trees (sections, Saved:, goal, plan
// and steps, decisions, key files, anchors, headings and items with their lines); where remark
// reads something else, the grammar must have flagged a line. The vocabulary mixes the handoff's
// own lines (nesting, continuations, fences and comments in items) with hostile Markdown (setext
// underlines, indented code, block quotes, HTML, definitions, tabs, lazy lines); documents come
// from fixed seeds, so a failure names a reproducible document.
import type { Root, RootContent } from "mdast";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { parseBlocks, type Block, type Flag } from "../../src/schema/grammar.ts";
import { readHandoff } from "../../src/schema/handoff.ts";

const remark = unified().use(remarkParse);
const CONTAINERS = new Set(["root", "blockquote", "list", "listItem"]);

/** remark's tree in the grammar's Block shape (offsets from mdast positions). */
function fromRemark(n: Root | RootContent): Block {
  const b: Block = {
    type: (n.type === "root" ? "document" : n.type) as Block["type"],
    start: n.position?.start.offset ?? 0,
    end: n.position?.end.offset ?? 0,
    line: n.position?.start.line ?? 1,
    children: CONTAINERS.has(n.type) ? (n as { children: RootContent[] }).children.map(fromRemark) : [],
  };
  if (n.type === "heading") b.depth = n.depth;
  return b;
}

const shape = (b: Block): string =>
  `${b.type}${b.depth ?? ""}${b.children.length > 0 ? `(${b.children.map(shape).join(" ")})` : ""}`;

// mulberry32: a small PRNG with good low bits.
function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

const SCHEMA = [
  "# Session Handoff", "Saved: 2026-01-02T03:04:05Z", "## Current goal", "## Plan", "## Decisions", "## Failed approaches",
  "## Open questions", "## Next steps", "## Key files", "## Environment anchors", "- Branch: main",
  "- HEAD: 0123456789abcdef0123456789abcdef01234567", "- Dirty files: none", "- Date: 2026-01-02T03:04:05Z",
  "- Key file mtimes: a.ts 2026-01-02T03:04:05Z", "- [x] done step", "- [ ] todo step", "- [~] started",
  "- [-] dropped — dropped: why", "  - [ ] sub step", "    - [x] sub sub step", "- src/a.ts — why", "- `src/b c.ts` — why",
  "- none", "Fix the parser", "  wrapped item text", "    wrapped deeper", "1. first", "2. second", "   third's text",
  "", "", "<!-- a comment -->", "<!--", "-->", "```", "~~~", "  ```", "  ~~~", "---", "### Notes", "  ## in item",
];
const HOSTILE = [
  "", " ", "\t", "- a", "* b", "+ c", "1. x", "2) y", "01. z", "1234567890. n", "-", "- ", "1.", "  - nested",
  "    - deep", "   1. q", "\t- tab", "-\tx", "# H", "### x ###", "#nohash", "```js", "````", "``` a`b", "> q", ">",
  "> - li", "> ## Plan", "<!-- c -->", "<div>", "</div>", "<b>", "</i>", "<script>", "</script>", "<pre>", "<?php",
  "?>", "<![CDATA[", "]]>", "<!DOCTYPE", "text", "===", "---", "- - -", "***", "___", "[a]: /u", "[a]: /u \"t\"",
  "  [b]: <x>", "[c]:", "    code", "        more code", "  continuation", "lazy", "*", "_x_", "= not", "-- x", "1) a",
  "3. b", "- 1. c", "- > q", "> > deep", "x\ty", "\t\tcode", "-   spaced", "-     wide", "0. zero", "10) ten",
  "  >  - q", "~~~~ x", "```\t", "* * *", "+", "<!-- x", "</pre>", "<a href=\"x\">", "<x-y/>", "<to do>",
];

function generate(rnd: (n: number) => number, hostile: number): string {
  const lines: string[] = [];
  if (rnd(3) === 0) lines.push("<!-- memory-schema: v1 -->", "# Session Handoff", "");
  const len = 1 + rnd(16);
  for (let i = 0; i < len; i++) {
    const pool = rnd(hostile) === 0 ? HOSTILE : SCHEMA;
    let l = pool[rnd(pool.length)]!;
    const r = rnd(10);
    if (r === 0) l = " ".repeat(1 + rnd(5)) + l;
    else if (r === 1) l = `${["  ", "   ", "- ", "1. ", "    "][rnd(5)]}${l}`;
    else if (r === 2 && l !== "") l += ["  ", "\t", " #"][rnd(3)];
    lines.push(l);
    // Mostly, a fence or a comment the schema's lines open is closed, as a writer would.
    const closer = /^( *)(```|~~~|<!--)$/.exec(l);
    if (closer && rnd(4) !== 0) lines.push(`${closer[1]}${SCHEMA[rnd(SCHEMA.length)]}`, `${closer[1]}${closer[2] === "<!--" ? "-->" : closer[2]}`);
  }
  return lines.join("\n") + (rnd(5) === 0 ? "" : "\n");
}

interface Outcome {
  /** Documents the grammar accepts (no flag) whose reading differs from remark's: must be none. */
  unflaggedDiffer: string[];
  accepted: number;
  /** Flagged documents whose model differs from remark's: the flags that were needed. */
  flaggedDiffer: number;
  /** Per flag kind (its message's first words): flagged documents where it was the only kind. */
  soleKinds: Map<string, number>;
}

const kind = (f: Flag): string => f.message.split(/[,:]/)[0]!.replace(/`[^`]*`/g, "`…`").slice(0, 40);

function run(seed: number, count: number): Outcome {
  const rnd = prng(seed);
  const out: Outcome = { unflaggedDiffer: [], accepted: 0, flaggedDiffer: 0, soleKinds: new Map() };
  for (let k = 0; k < count; k++) {
    const text = generate(rnd, [2, 6, 30][k % 3]!);
    const tree = parseBlocks(text);
    const flags = tree.flags;
    const theirs = fromRemark(remark.parse(text));
    const mine = JSON.stringify(readHandoff(text, tree));
    const remarks = JSON.stringify(readHandoff(text, theirs));
    const same = mine === remarks && (flags.length > 0 || shape(tree) === shape(theirs));
    if (flags.length === 0) {
      out.accepted++;
      if (!same) out.unflaggedDiffer.push(`seed ${seed} #${k} ${JSON.stringify(text)}\n  grammar ${shape(tree)} ${mine}\n  remark  ${shape(theirs)} ${remarks}`);
      continue;
    }
    if (mine === remarks) continue;
    out.flaggedDiffer++;
    const kinds = new Set(flags.map(kind));
    if (kinds.size === 1) out.soleKinds.set([...kinds][0]!, (out.soleKinds.get([...kinds][0]!) ?? 0) + 1);
  }
  return out;
}

const SEEDS = [1, 2, 3, 4];
const PER_SEED = 600;

describe("the line grammar against remark, live (docs/decisions/line-grammar.md)", () => {
  const outcomes = new Map<number, Outcome>();
  const outcome = (seed: number): Outcome => {
    let o = outcomes.get(seed);
    if (!o) outcomes.set(seed, (o = run(seed, PER_SEED)));
    return o;
  };

  it.each(SEEDS)("seed %i: a document the grammar accepts reads as remark reads it", (seed) => {
    const o = outcome(seed);
    expect({ differ: o.unflaggedDiffer.length, first: o.unflaggedDiffer.slice(0, 3) }).toEqual({ differ: 0, first: [] });
    // The test must say something: a good share of the documents is accepted, and flags were needed.
    expect(o.accepted).toBeGreaterThan(PER_SEED / 8);
    expect(o.flaggedDiffer).toBeGreaterThan(PER_SEED / 10);
  });

  // A grammar that stopped flagging one of these kinds would accept the documents only it flagged,
  // whose reading differs from remark's: the test above would fail on them.
  it("each kind of flag is needed: alone, it stands between a document and a wrong reading", () => {
    const sole = new Map<string, number>();
    for (const seed of SEEDS) for (const [k, v] of outcome(seed).soleKinds) sole.set(k, (sole.get(k) ?? 0) + v);
    expect(sole.size, JSON.stringify([...sole])).toBeGreaterThanOrEqual(6);
  });
});
