// `validate <kind>`, in this process (inProcess); the built helper for the exit codes and one save.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, save } from "../helpers.ts";
import { inProcess, saveIn, tokenIn } from "../in-process.ts";
import { templateParts } from "../docs/support.ts";

const { example } = templateParts();

describe("validate handoff", () => {
  it("the template's worked example scores 100 in a repository where its key files exist", async () => {
    const root = gitRepo();
    mkdirSync(path.join(root, "src", "import"), { recursive: true });
    for (const f of ["csv.ts", "dedupe.ts"]) writeFileSync(path.join(root, "src", "import", f), "export {};\n");
    const r = await inProcess(["validate", "handoff", "--stdin", "--root", root, "--json"], { input: example });
    expect(r.code, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout) as { valid: boolean; score: number; errors: unknown[]; findings: unknown[]; dropped: unknown[]; parts: Record<string, { score: number; max: number }> };
    expect(v).toMatchObject({ valid: true, score: 100, errors: [], findings: [], dropped: [] });
    expect(Object.values(v.parts).every((p) => p.score === p.max)).toBe(true);
    // Without a root nothing is looked up: the key files part is left out, not failed.
    const bare = JSON.parse((await inProcess(["validate", "handoff", "--stdin", "--json"], { input: example })).stdout) as { score: number; parts: Record<string, unknown> };
    expect(bare.score).toBe(100);
    expect(bare.parts.keyFiles).toBeUndefined();
  });

  it("the heading typo: exit 2, the error and its suggestion on stdout", async () => {
    const doc = example.replace("## Failed approaches", "## Failed approaches:");
    const r = await inProcess(["validate", "handoff", "--stdin"], { input: doc });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n").slice(0, 3)).toEqual([
      "HANDOFF.md: invalid, 1 schema error(s), score 94/100",
      "error: line 24: section-missing: \"## Failed approaches:\" is not a section heading of schema v1 and `## Failed approaches` is missing: did you mean `## Failed approaches`?",
      "parts: sections 10/15, saved 5/5, anchors 10/10, failed 10/10, decisions 10/10, nextSteps 10/10, nextAction 5/5, verification 10/10, size 5/5, secrets 5/5",
    ]);
  });

  it("--root reads the handoff and compares it with the newest archive; --stdin --root with the current file", async () => {
    const root = gitRepo();
    const plan = (steps: string) => handoff("g").replace("## Plan\n- none\n", `## Plan\n${steps}\n`);
    save(root, plan("- [ ] alpha step\n- [ ] beta step"));
    await saveIn(root, plan("- [x] alpha step\n- [ ] gamma step"));
    const onDisk = await inProcess(["validate", "handoff", "--root", root]);
    expect(onDisk.code, onDisk.stdout).toBe(0);
    expect(onDisk.stdout).toMatch(/^dropped: "beta step"$/m);
    const json = JSON.parse((await inProcess(["validate", "handoff", "--root", root, "--json"])).stdout) as { findings: { rule: string; line: number; message: string }[] };
    expect(json.findings).toContainEqual({ rule: "dropped", line: 0, message: '[Plan] "beta step" of the previous handoff is neither carried over nor closed' });
    const pasted = await inProcess(["validate", "handoff", "--stdin", "--root", root, "--json"], { input: plan("- [x] other") });
    expect((JSON.parse(pasted.stdout) as { dropped: string[] }).dropped).toEqual(["gamma step"]);
    const closed = await inProcess(["validate", "handoff", "--stdin", "--root", root, "--json"], { input: plan("- [-] gamma step — dropped: not needed") });
    expect((JSON.parse(closed.stdout) as { dropped: string[] }).dropped).toEqual([]);
  });

  it("a handoff on disk without Saved: is invalid; the same text on stdin is valid with a finding", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("x"));
    const file = path.join(root, ".ai", "memory", "HANDOFF.md");
    const text = readFileSync(file, "utf8").replace(/^Saved: .*\n/m, "");
    writeFileSync(file, text);
    const disk = await inProcess(["validate", "handoff", "--root", root, "--json"]);
    expect(disk.code).toBe(2);
    expect((JSON.parse(disk.stdout) as { errors: { rule: string }[] }).errors.map((e) => e.rule)).toEqual(["saved"]);
    const pasted = await inProcess(["validate", "handoff", "--stdin", "--json"], { input: text });
    expect(pasted.code).toBe(0);
  });

  it.each([
    ["no handoff under the root", ["validate", "handoff"], "", 3, /^no HANDOFF\.md at .*: nothing to validate\n$/],
    ["empty stdin", ["validate", "handoff", "--stdin"], "", 2, /^memory operation refused: stdin is empty: send the whole document on stdin\n$/],
    ["invalid UTF-8", ["validate", "handoff", "--stdin"], Buffer.from([0x3c, 0xff, 0x0a]), 2, /not valid UTF-8/],
    ["a NUL byte", ["validate", "lessons", "--stdin"], "a\0b\n", 2, /NUL byte/],
    ["an unknown kind", ["validate", "notes", "--stdin"], "x\n", 2, /unknown kind "notes"/],
  ] as const)("%s: exit %i", (_name, args, input, code, stderr) => {
    const root = gitRepo();
    const r = helper([...args, ...((args as readonly string[]).includes("--stdin") ? [] : ["--root", root])], { input });
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(stderr);
  });

  it("a CRLF, BOM paste is read, and said", async () => {
    const r = await inProcess(["validate", "handoff", "--stdin", "--json"], { input: `\uFEFF${example.replace(/\n/g, "\r\n")}` });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { findings: { rule: string }[] }).findings.map((f) => f.rule)).toEqual(["bom", "crlf"]);
  });
});

describe("validate lessons|solutions", () => {
  it("reads the ledger; a malformed entry heading is an error, a missing field a finding", async () => {
    const root = gitRepo();
    const w = await inProcess(["write", "lessons", "--root", root, "--expected-current-sha256", "absent"], {
      input: "<!-- memory-schema: v1 -->\n# Lessons\n\n## L-0001: Test with a real database\n- When: db work\n- Lesson: use docker\n",
    });
    expect(w.code, w.stderr).toBe(0);
    const r = await inProcess(["validate", "lessons", "--root", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^LESSONS\.md: valid, score \d+\/100$/m);
    expect(r.stdout).toMatch(/^finding: line 4: entry-field: L-0001 lacks `- Why:`, `- Source:`, `- Status:`$/m);
    const bad = await inProcess(["validate", "lessons", "--stdin"], { input: "<!-- memory-schema: v1 -->\n# Lessons\n\n## Lesson one\n" });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/^error: line 4: entry-heading: /m);
    expect((await inProcess(["validate", "solutions", "--root", root])).code).toBe(3);
    expect(await tokenIn(root, "lessons")).toMatch(/^[0-9a-f]{64}$/);
  });
});
