// Unsafe memory, said alike by every verb that looks at it: check and doctor name what is wrong as brief does,
// the status line never says "none" or an age where the hook refuses, and a file too large says its size.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const mem = (root: string, ...p: string[]) => path.join(root, ".ai", "memory", ...p);
const UNSAFE_LINE = "handoff: memory unsafe (run check)\n";

// Each unsafe shape, with the sentence brief refuses it with (brief is right already).
const SHAPES: [string, (root: string) => void][] = [
  ["`.ai` is a file", (root) => writeFileSync(path.join(root, ".ai"), "x\n")],
  ["HANDOFF.md is a link", (root) => {
    mkdirSync(mem(root), { recursive: true });
    writeFileSync(path.join(root, "elsewhere.md"), handoff("x"));
    symlinkSync(path.join(root, "elsewhere.md"), mem(root, "HANDOFF.md"));
  }],
  ["HANDOFF.md is larger than the helper reads", (root) => {
    mkdirSync(mem(root), { recursive: true });
    writeFileSync(mem(root, "HANDOFF.md"), handoff("x").replace("## Plan\n", `## Plan\n${"- [ ] step\n".repeat(110_000)}`));
  }],
];

describe("unsafe memory", () => {
  for (const [name, make] of SHAPES) {
    it(`${name}: check and doctor carry brief's sentence; the status line says unsafe`, async () => {
      const root = gitRepo();
      make(root);
      const brief = await inProcess(["brief", "--root", root]);
      expect(brief.code).toBe(2);
      const why = brief.stderr.replace(/^memory operation refused: /, "").trim();
      expect(why).toContain(root);
      const check = await inProcess(["check", "--root", root]);
      expect(check.code).toBe(3);
      expect(check.stdout).toBe(`memory is unsafe or foreign: do not load it; tell the user: ${why}\n`);
      const json = JSON.parse((await inProcess(["check", "--root", root, "--json"])).stdout);
      expect(json.message).toBe(`memory is unsafe or foreign: do not load it; tell the user: ${why}`);
      const doctor = JSON.parse((await inProcess(["doctor", "--root", root, "--json"])).stdout);
      const problem = doctor.problems.find((p: { what: string }) => p.what.includes("failed safety"));
      expect(problem.fix).toBe(why);
      const line = await inProcess(["statusline"], { input: JSON.stringify({ cwd: root }) });
      expect(line.stdout).toBe(UNSAFE_LINE);
    });
  }

  it("a handoff too large is refused for its size, with a fix that keeps it", async () => {
    const root = gitRepo();
    SHAPES[2]![1](root);
    const r = await inProcess(["read", "handoff", "--root", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${mem(root, "HANDOFF.md")} is larger than 1000000 bytes; the helper reads no larger file (shorten it, ` +
        "or move it away, and retry)",
    );
  });
});
