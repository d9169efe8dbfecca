// Differential run of the old validateLedger (legacy copy) against the table-driven one over the
// schemas' examples and seeded mutations of them. Run: npx tsx test/schema/legacy/differential-ledger.ts [n]
import { readFileSync } from "node:fs";
import path from "node:path";
import { validateLedger } from "../../../src/schema/validate-ledger.ts";
import { validateLedger as legacy } from "./validate-ledger-legacy.ts";
import { fencedBlocks } from "../../docs/support.ts";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const ex = (f: string) => fencedBlocks(readFileSync(path.join(REPO, "references", f), "utf8"), "markdown")[0]!;
const bases: ["lessons" | "solutions", string][] = [["lessons", ex("lessons-schema.md")], ["solutions", ex("solutions-schema.md")]];
let seed = 7;
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
const POOL = ["## L-0001: again", "## S-0001: again", "## L-12: short", "## Notes", "- Status: maybe", "- Status: active", "- Status: obsolete: gone", "- Source: me", "- Source: [user-directed] me",
  "- Recorded: yesterday", "- Recorded: 2026-01-01", "- When: x", "- Fix:", "```", "<!-- c -->", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "<<<<<<< a", "=======", ">>>>>>> b", "", "# Lessons", "# Solutions", "<!-- memory-schema: v2 -->"];
const per = Number(process.argv[2] ?? 2000);
let runs = 0, diffs = 0;
for (const [kind, base] of bases) for (const k of ["lessons", "solutions"] as const) {
  for (let m = 0; m <= per; m++) {
    let lines = base.split("\n");
    for (let o = 0, ops = m === 0 ? 0 : 1 + rnd(4); o < ops; o++) {
      const i = rnd(lines.length);
      const r = rnd(5);
      if (r === 0) lines.splice(i, 1); else if (r === 1) lines.splice(i, 0, lines[i] ?? ""); else if (r === 4) lines.splice(i, 0, ...Array(rnd(260)).fill("x")); else lines.splice(i, 0, POOL[rnd(POOL.length)]!);
    }
    let text = lines.join("\n");
    if (rnd(10) === 0) text = text.replace(/\n/g, "\r\n");
    if (rnd(10) === 0) text = `\uFEFF${text}`;
    if (rnd(10) === 0) text = text.replace(/\n$/, "");
    runs++;
    const a = JSON.stringify(legacy(text, k)), b = JSON.stringify(validateLedger(text, k));
    if (a !== b) { diffs++; if (diffs < 3) console.log(`${kind}->${k} #${m}\n${text}\n${a}\n${b}`); }
  }
  void kind;
}
console.log(`${runs} runs, ${diffs} differ`);
process.exitCode = diffs === 0 ? 0 : 1;
