import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo } from "../helpers.ts";
import { CP_DIR, hookInput, transcript } from "../verbs/support.ts";
import { PHASES, runBounded } from "./support.ts";

// `checkpoint` publishes as write does (docs/design.md#publication-step-by-step), through its
// phases. Kill it at each one: the checkpoint is the old or the new version (or parked in a claim
// that the next checkpoint or `recover` puts back), `check`'s code is never changed by the
// leftovers, and afterwards no private file remains.

const FIRES_WITH_PRIOR = ["read-opened", "before-claim", "after-claim", "before-publication", "after-publication"];
const FIRES_WITHOUT = ["before-publication", "after-publication"];

// Leftovers of a killed checkpoint: private names, but not the delivery markers nor the
// .gitignore the helper keeps there on purpose.
const privateIn = (root: string) =>
  existsSync(CP_DIR(root)) ? readdirSync(CP_DIR(root)).filter((n) => n.startsWith(".") && !n.startsWith(".delivered") && n !== ".gitignore") : [];
const text = (root: string) => {
  const p = path.join(CP_DIR(root), "sess-1.md");
  return existsSync(p) ? readFileSync(p, "utf8") : null;
};

describe("crash matrix: a checkpoint killed at each phase loses nothing", () => {
  const cases = PHASES.flatMap((phase) => [true, false].map((prior) => [`${prior ? "prior checkpoint" : "first checkpoint"}, crash at ${phase}`, phase, prior] as const));
  it.each(cases)("%s", (_title, phase, prior) => {
    const root = gitRepo();
    const older = prior ? transcript(root, "codex") : null;
    if (older !== null) expect(runBounded(["checkpoint"], { input: hookInput(root, { transcript_path: older }) }).code).toBe(0);
    const old = text(root);
    const newer = transcript(root, "claude");
    const crashed = runBounded(["checkpoint"], { input: hookInput(root, { transcript_path: newer }), env: { MEMORY_IO_FAILPOINT: `${phase}:crash` } });
    expect(crashed.timedOut).toBe(false);
    const fires = (prior ? FIRES_WITH_PRIOR : FIRES_WITHOUT).includes(phase);
    if (fires) expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
    else expect(crashed.code, crashed.stderr).toBe(0);

    const after = text(root);
    if (after !== null && old !== null && after !== old) expect(after).toContain("logout flow");
    // check: leftovers never change its code; a visible checkpoint is parked state.
    const check = runBounded(["check", "--root", root]);
    expect(check.code).toBe(after === null ? 0 : 2);

    const rec = runBounded(["recover", "--root", root]);
    expect(rec.code, rec.stderr).toBe(0);
    const now = text(root);
    if (old !== null) {
      expect(now).not.toBeNull();
      expect(now === old || now!.includes("logout flow")).toBe(true);
    }
    expect(privateIn(root)).toEqual([]);

    // The next checkpoint works and leaves nothing behind either.
    const next = runBounded(["checkpoint"], { input: hookInput(root, { transcript_path: newer }) });
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/checkpoint: (saved|unchanged) checkpoints\/sess-1\.md/);
    expect(text(root)).toContain("logout flow");
    expect(privateIn(root)).toEqual([]);
  });

  it.each(["before-claim", "after-claim", "before-publication"])("a crash at %s is repaired by the next checkpoint without recover", (phase) => {
    const root = gitRepo();
    runBounded(["checkpoint"], { input: hookInput(root, { transcript_path: transcript(root, "codex") }) });
    const newer = transcript(root, "claude");
    runBounded(["checkpoint"], { input: hookInput(root, { transcript_path: newer }), env: { MEMORY_IO_FAILPOINT: `${phase}:crash` } });
    const next = runBounded(["checkpoint"], { input: hookInput(root, { transcript_path: newer }) });
    expect(next.code).toBe(0);
    expect(text(root)).toContain("logout flow");
    expect(privateIn(root)).toEqual([]);
  });
});
