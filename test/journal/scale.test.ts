// The journal at scale (docs/decisions/journal.md): 100,000 entries across continuation files
// are searched whole; a year file past 1,000,000 bytes summarises its oldest months by count.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { boundYear, foldSection } from "../../src/journal/store.ts";
import { parseJournal } from "../../src/journal/entry.ts";
import { gitRepo, helper, MARKER } from "../helpers.ts";

describe("the journal at scale", () => {
  it("100,000 entries in months split into continuation files: search finds one entry of any part", () => {
    const root = gitRepo();
    const dir = path.join(root, ".ai", "memory", "journal");
    mkdirSync(dir, { recursive: true });
    let n = 0;
    for (let m = 1; m <= 10; m++) {
      const period = `2026-${String(m).padStart(2, "0")}`;
      for (let part = 1; part <= 2; part++) {
        let text = `${MARKER}\n# Journal ${period}${part > 1 ? ` (part ${part})` : ""}\n\n`;
        for (let i = 0; i < 5000; i++, n++) text += `## ${period}-10T10:00:00Z save ${n.toString(16).padStart(16, "0")}\n- Goal: round ${n} of the importer\n- Decision: [agent-proposed] codec c${n}x for batch ${n}\n\n`;
        expect(Buffer.byteLength(text)).toBeLessThan(1_000_000);
        writeFileSync(path.join(dir, part === 1 ? `${period}.md` : `${period}-${part}.md`), text);
      }
    }
    expect(n).toBe(100_000);
    const r = helper(["search", "c99999x", "--root", root, "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.results).toHaveLength(1);
    expect(out.results[0]).toMatchObject({ file: "journal/2026-10-2.md", section: "Decision", text: "[agent-proposed] codec c99999x for batch 99999" });
    expect(out.searched.journal).toBe(20);
    const early = JSON.parse(helper(["search", "c7x", "--root", root, "--json"]).stdout);
    expect(early.results[0].file).toBe("journal/2026-01.md");
  });

  it("a year file past 1,000,000 bytes keeps only counts for its oldest months, and stays a valid year file", () => {
    let text = `${MARKER}\n# Journal 2025\n\n`;
    for (let m = 1; m <= 12; m++) {
      const period = `2025-${String(m).padStart(2, "0")}`;
      const entries = Array.from({ length: 1200 }, (_, i) => ({ time: `${period}-10T10:00:00Z`, kind: "save" as const, id: i.toString(16).padStart(16, "0"), items: [{ label: "Decision" as const, text: `decision ${i} of ${period} `.padEnd(60, "x") }] }));
      text += foldSection(period, entries);
    }
    expect(Buffer.byteLength(text)).toBeGreaterThan(1_000_000);
    const bounded = boundYear(text);
    expect(Buffer.byteLength(bounded)).toBeLessThanOrEqual(1_000_000);
    expect(bounded).toContain("## 2025-01\n- (1200 save(s), 0 resume(s)");
    expect(bounded).toMatch(/## 2025-01\n.*\n- \(1200 session line\(s\) summarised to keep this file within 1000000 bytes\)\n/);
    expect(bounded).toContain("decision 5 of 2025-12");
    expect(parseJournal(bounded, "year").problems).toEqual([]);
  });
});
