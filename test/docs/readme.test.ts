// The README starts where users start: what it does, the one install command and the two
// sentences to say, all within its first 40 lines; at most 16 KB; the user docs it moved out
// are linked from it. And init's --help is one page.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { HELPER } from "../helpers.ts";
import { readDoc } from "./support.ts";

const README = readDoc("README.md");
const head = README.split("\n").slice(0, 40).join("\n");

describe("README.md", () => {
  it("is at most 16 KB", () => {
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(16 * 1024);
  });
  it("says what it does, then npx session-handoff init, then the two sentences, within 40 lines", () => {
    const what = head.indexOf("Agent Skill");
    const init = head.indexOf("$ npx session-handoff init\n");
    // After the command: the intro names the sentences too.
    const save = head.indexOf('"write a handoff" when you stop', init);
    const resume = head.indexOf('"resume where we left off" when you come back', init);
    expect([what, init, save, resume].every((i) => i >= 0), head).toBe(true);
    expect(what).toBeLessThan(init);
    expect(init).toBeLessThan(save);
    expect(save).toBeLessThan(resume);
  });
  it("needs no GitHub owner: its install command is npm's", () => {
    expect(README).not.toContain("<owner>");
  });
  it("links the user docs", () => {
    for (const page of ["install", "agents", "platforms", "windows", "teammates", "journal", "differences", "context-threshold"]) {
      expect(README).toContain(`](docs/${page}.md)`);
    }
  });
});

describe("init --help", () => {
  it("is one page: at most 60 lines, with usage, options, examples and exit codes", () => {
    const r = spawnSync(process.execPath, [HELPER, "init", "--help"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout.trimEnd().split("\n").length).toBeLessThanOrEqual(60);
    for (const part of [/^usage: /, /^--dry-run /m, /^--undo /m, /^exit: /m, /^example:$/m]) expect(r.stdout).toMatch(part);
  });
});
