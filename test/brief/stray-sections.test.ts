// Nothing on file is silently dropped (docs/design.md#files-on-disk): a hand-edited heading that
// schema v1 does not know is named by brief, check and the hook with the validator's "did you
// mean", and brief shows its items under the nearest known section. The verbs run in this process
// (inProcess); the hook, which a harness spawns, spawns the bundle.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseHandoff } from "../../src/schema/handoff.ts";
import { gitRepo, handoff, helper } from "../helpers.ts";
import { inProcess, saveIn } from "../in-process.ts";

const FAILED = "a worker pool - `npm test` timed out";

async function handEdited(from: string, to: string): Promise<string> {
  const root = gitRepo();
  await saveIn(root, handoff("ship the cache").replace("## Failed approaches\n- none", `## Failed approaches\n- ${FAILED}`).replace("## Decisions\n- none", "## Decisions\n- [inferred] keep the API"));
  const file = path.join(root, ".ai/memory/HANDOFF.md");
  const text = readFileSync(file, "utf8");
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
  return root;
}

describe("a section heading schema v1 does not know", () => {
  it("a misspelled `## Failed aproaches`: brief shows its items under Failed approaches and says so; check and the hook name it", async () => {
    const root = await handEdited("## Failed approaches\n", "## Failed aproaches\n");
    const b = await inProcess(["brief", "--root", root]);
    expect(b.code).toBe(0);
    const dnr = b.stdout.split("\n").find((l) => l.startsWith("Do-not-retry"));
    expect(dnr).toContain("a worker pool");
    expect(dnr).not.toContain("none recorded");
    expect(b.stderr).toMatch(/warning: line \d+: "## Failed aproaches" is not a section of schema v1: did you mean `## Failed approaches`\? its items are shown under Failed approaches/);
    const check = await inProcess(["check", "--root", root]);
    expect(check.code).toBe(2);
    expect(check.stdout).toContain("did you mean `## Failed approaches`? its items are read as that section's");
    expect(check.stdout).not.toContain("aproaches");
    expect(JSON.parse((await inProcess(["check", "--root", root, "--json"])).stdout).unknownSections).toEqual(["Failed approaches"]);
    const hook = helper(["hook", "--mode", "session", "--root", root]).stdout;
    expect(hook).toContain("session-handoff: the handoff has a section schema v1 does not know (did you mean `## Failed approaches`?");
    // Fixed sentences only: the file's own heading never reaches the hook.
    expect(hook).not.toContain("aproaches");
    expect(hook.length).toBeLessThan(2000);
    // validate still refuses it, with the same suggestion.
    const v = await inProcess(["validate", "handoff", "--root", root]);
    expect(v.code).toBe(2);
    expect(v.stdout + v.stderr).toContain("did you mean `## Failed approaches`?");
  });

  it("an unknown section with no near name is named, and the known sections still read", async () => {
    const root = await handEdited("## Open questions\n", "## Musings on the weather\n- sunny\n\n## Open questions\n");
    const b = await inProcess(["brief", "--root", root]);
    expect(b.stderr).toMatch(/"## Musings on the weather" is not a section of schema v1; nothing reads it/);
    expect(b.stdout).not.toContain("sunny");
    expect((await inProcess(["check", "--root", root])).stdout).toContain("nothing reads a section with no near name");
    expect(helper(["hook", "--mode", "session", "--root", root]).stdout).toContain("schema v1 does not know; nothing reads");
  });

  it("a well-formed handoff has no strays, and a stray's items never enter the items validate reads", () => {
    const ok = parseHandoff(handoff("x"));
    expect(ok.strays).toEqual([]);
    const h = parseHandoff(handoff("x").replace("## Decisions\n- none", "## Decisons\n- keep it"));
    expect(h.strays).toEqual([{ title: "Decisons", near: "Decisions", line: expect.any(Number) }]);
    expect(h.decisions).toEqual(["keep it"]);
    expect(h.items.some((i) => i.text === "keep it")).toBe(false);
  });
});
