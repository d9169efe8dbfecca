// Size limits, context budgets, forbidden variables, and the template as a valid v1 handoff.
import { statSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { describe, expect, it } from "vitest";
import { AGENT_FLOW_TARGETS } from "../../bench/agent-flow.mjs";
import {
  bundleMarkdown,
  fencedBlocks,
  handoffProblems,
  MARKER,
  readDoc,
  REPO,
  RESUME_FLOW,
  SAVE_FLOW,
  SECTIONS,
  templateParts,
} from "./support.ts";

const bytes = (files: string[]): number => files.reduce((n, f) => n + statSync(path.join(REPO, f)).size, 0);

describe("size", () => {
  const body = matter(readDoc("SKILL.md")).content;

  it("keeps the SKILL.md body under 500 lines", () => {
    expect(body.split("\n").length).toBeLessThan(500);
  });

  it("keeps the SKILL.md body under 5,000 tokens (upper bound: one token per 3 bytes)", () => {
    // No tokenizer ships with the project; English prose and Markdown average near 4 bytes a
    // token, so bytes / 3 over-counts and the bound is conservative.
    expect(Buffer.byteLength(body) / 3).toBeLessThan(5000);
  });

  it("keeps references/memory-contract.md at most 70 lines", () => {
    expect(readDoc("references/memory-contract.md").replace(/\n$/, "").split("\n").length).toBeLessThanOrEqual(70);
  });

  // Every byte an agent loads costs context on each save and resume (docs/decisions/skill-flows.md).
  it("keeps SKILL.md within 5,500 bytes, frontmatter included", () => {
    expect(Buffer.byteLength(readDoc("SKILL.md"))).toBeLessThanOrEqual(5_500);
  });

  it("keeps what the save flow loads within 7,500 bytes, SKILL.md included", () => {
    expect(SAVE_FLOW[0]).toBe("SKILL.md");
    expect(bytes(SAVE_FLOW)).toBeLessThanOrEqual(AGENT_FLOW_TARGETS.save.bytes);
  });

  it("keeps what the resume flow loads within 9,000 bytes, SKILL.md included", () => {
    expect(RESUME_FLOW[0]).toBe("SKILL.md");
    expect(bytes(RESUME_FLOW)).toBeLessThanOrEqual(AGENT_FLOW_TARGETS.resume.bytes);
  });
});

describe("portability", () => {
  it.each(bundleMarkdown())("%s uses no agent-specific variables", (file) => {
    const text = readDoc(file);
    expect(text).not.toMatch(/\$\{[A-Za-z_]/);
    expect(text).not.toMatch(/\$(CLAUDE|CODEX|GEMINI|CURSOR|CLINE|OPENCODE)_[A-Z_]+/);
  });

  it("calls the helper only as node \"<skill-dir>/scripts/memory_io.mjs\"", () => {
    for (const file of ["SKILL.md", ...bundleMarkdown().filter((f) => f.startsWith("references/"))]) {
      for (const m of readDoc(file).matchAll(/[^\n]*memory_io\.(mjs|py)[^\n]*/g)) {
        const line = m[0];
        if (/python3|memory_io\.py/.test(line)) throw new Error(`${file}: the reference helper's command: ${line}`);
        const calls = line.match(/node \\?"[^"\\]*\/scripts\/memory_io\.mjs\\?"/g) ?? [];
        for (const call of calls) expect(call.replace(/\\"/g, '"'), file).toBe('node "<skill-dir>/scripts/memory_io.mjs"');
      }
    }
  });
});

describe("the resume brief", () => {
  it("shows the six labels in order, one per line", () => {
    const labels = ["Goal:", "Plan status:", "Decisions in force:", "Do-not-retry:", "Drift & lessons:", "Proposed next step:"];
    const lines = readDoc("SKILL.md")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => labels.some((label) => l.startsWith(`${label} `)));
    expect(lines.map((l) => labels.find((label) => l.startsWith(label)))).toEqual(labels);
    expect(lines[5]).toMatch(/Confirm\?$/);
  });
});

describe("templates/handoff.md", () => {
  const { skeleton, example } = templateParts();

  it("is a fill-in-ready v1 skeleton with every section, the optional ones included", () => {
    expect(handoffProblems(skeleton, { placeholders: true, helperFills: true })).toEqual([]);
    for (const { name } of SECTIONS) expect(skeleton).toContain(`\n## ${name}\n`);
    // Read on every save: the worked example lives in references/handoff-example.md instead.
    expect(skeleton).not.toMatch(/```|Worked example/);
  });

  it("leaves Saved: and the anchors to the helper, and shows an abandoned step", () => {
    expect(skeleton).not.toMatch(/^Saved:/m);
    const anchors = skeleton.slice(skeleton.indexOf("## Environment anchors\n") + "## Environment anchors\n".length).trim();
    expect(anchors).toMatch(/^<[^<>\n]+>$/);
    for (const text of [skeleton, example]) expect(text).toMatch(/^- \[-\] .+ — dropped: \S/m);
  });

  it("has a worked example that is itself a valid v1 handoff", () => {
    expect(handoffProblems(example, { placeholders: false })).toEqual([]);
    expect(example.split("\n").slice(1).join("\n"), "placeholders left in the example").not.toMatch(/<[^<>\n]+>/);
    expect(example).toMatch(/^- HEAD: [0-9a-f]{40}$/m);
    expect(example).toMatch(/^- Date: \S+Z$/m);
    expect(example).toMatch(/^Saved: \S+Z$/m);
  });

  it("keeps implemented, verified and accepted apart in the example", () => {
    expect(example).toMatch(/^- \[x\] /m);
    expect(example).toMatch(/^- .+: .+ -> .+ @ [0-9a-f]{40}$/m);
    expect(example).toMatch(/^- Accepted: /m);
  });
});

describe("references/handoff-schema.md", () => {
  const schema = readDoc("references/handoff-schema.md");

  it("lists the handoff's sections in order", () => {
    const listed = [...schema.matchAll(/^\d+\. `## ([^`]+)`/gm)].map((m) => m[1]);
    expect(listed).toEqual(SECTIONS.map((s) => s.name));
  });

  it("gives the anchor lines exactly", () => {
    const block = fencedBlocks(schema, "").find((b) => b.includes("- HEAD:")) ?? "";
    expect(block.split("\n").filter((l) => l !== "").map((l) => l.split(": ")[0])).toEqual([
      "- Branch",
      "- HEAD",
      "- Dirty files",
      "- Date",
    ]);
  });
});

describe("ledger schemas", () => {
  it.each([
    ["references/lessons-schema.md", "# Lessons", /^## L-\d{4}: /m, ["When", "Lesson", "Why", "Source", "Status"]],
    ["references/solutions-schema.md", "# Solutions", /^## S-\d{4}: /m, ["Symptoms", "Context", "Fix", "Evidence", "Recorded"]],
  ] as const)("%s shows a ledger with the marker and %s", (file, heading, entry, fields) => {
    const example = fencedBlocks(readDoc(file), "markdown")[0] ?? "";
    const lines = example.split("\n");
    expect(lines[0]).toBe(MARKER);
    expect(lines.slice(0, 4)).toContain(heading);
    expect(example).toMatch(entry);
    for (const field of fields) expect(example).toMatch(new RegExp(`^- ${field}: \\S`, "m"));
  });
});
