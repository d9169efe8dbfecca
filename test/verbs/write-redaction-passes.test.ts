// One redaction pass per write (docs/design.md#redaction): the text as sent is redacted once,
// before the lock (the size limit needs the redacted size); the save reuses that pass and scans
// only the lines write itself puts in, and the journal entry is rendered from the redacted text
// without redacting it again. Counted through the test-only counter of
// src/guard/redact.ts, never timed; and the reuse is checked against a whole second
// pass on the final text, which is what write did before.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { redactionPasses, redactText } from "../../src/guard/redact.ts";
import { recordSave } from "../../src/journal/record.ts";
import { fillAnchors, stampSaved } from "../../src/schema/stamp.ts";
import { buildDocument, checkDocument, reuseRedaction } from "../../src/verbs/write-checked.ts";
import { awsKeyId, awsSecret, githubToken, pemLines, stripeKey } from "../fixtures/redaction/attacks.ts";
import { gitRepo, handoff, MARKER, tempDir } from "../helpers.ts";

const ISO = "2026-12-02T01:00:00Z";

beforeEach(() => {
  redactionPasses.calls = 0;
  redactionPasses.chars = 0;
});

/** A handoff whose goal is `goal`, with `anchors` as its anchors section's body. */
function doc(goal: string, anchors: string, saved: string | null = "Saved: 2026-11-29T08:00:00Z"): string {
  const none = ["Plan", "Decisions", "Failed approaches", "Open questions", "Next steps", "Key files"].map((s) => `## ${s}\n- none\n`).join("\n");
  return `${MARKER}\n# Session Handoff\n${saved === null ? "" : `${saved}\n`}\n## Current goal\n${goal}\n\n${none}\n## Environment anchors\n${anchors}\n`;
}

async function write(root: string, text: string): Promise<{ bytes: string; notes: string[] }> {
  const checked = checkDocument(Buffer.from(text), "handoff", root);
  const built = await buildDocument(checked, root, { env: process.env, skillDir: null });
  return { bytes: built.bytes.toString("utf8"), notes: built.notes };
}

describe("write redacts each text once", () => {
  it("kept anchors: one pass, over the document as sent", async () => {
    const root = tempDir();
    const text = handoff(`Deploy with ${githubToken(1)} and ${stripeKey(2)}.`);
    const out = await write(root, text);
    expect(out.bytes).toContain("<redacted: github-token>");
    expect(out.bytes).not.toContain(githubToken(1));
    expect(out.notes.join("\n")).toMatch(/redacted 2 secret\(s\)/);
    // Before: the size check, then the save's own pass over the stamped text.
    expect(redactionPasses.calls).toBe(1);
    expect(redactionPasses.chars).toBe(text.length);
  });

  it("anchors filled by write: the document once, then only the lines write wrote", async () => {
    const root = gitRepo();
    const text = doc(`Deploy with ${githubToken(3)}.`, "- none");
    const out = await write(root, text);
    expect(out.bytes).toMatch(/^- Branch: /m);
    expect(out.bytes).not.toContain(githubToken(3));
    expect(redactionPasses.calls).toBe(2);
    const anchors = out.bytes.slice(out.bytes.indexOf("## Environment anchors\n") + 23);
    expect(redactionPasses.chars).toBeLessThanOrEqual(text.length + anchors.length);
  });

  it("the journal entry of a save redacts nothing again: its items come from the redacted text", async () => {
    const root = tempDir();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    const next = redactText(handoff(`Rotate ${githubToken(4)} and ship.`).replace("## Decisions\n- none", "## Decisions\n- [user-directed] Ship on Friday\n- [agent-proposed] Keep one lock")).text;
    redactionPasses.calls = 0;
    const notes = await recordSave(root, { prior: null, next, token: "a".repeat(64) }, undefined);
    expect(notes).toEqual([]);
    expect(redactionPasses.calls).toBe(0);
  });
});

describe("the reused pass equals a whole pass over the final text", () => {
  const pem = pemLines(7).join("\n");
  const goals: Record<string, string> = {
    "a token in prose": `Deploy with ${githubToken(11)} today.`,
    "a key block over several lines": `The key was pasted here:\n${pem}\nthen removed.`,
    "an AWS id and its unnamed secret on two lines": `id ${awsKeyId(12)}\nsecret ${awsSecret(13)}`,
    "nothing secret": "Fix the login redirect.",
  };
  const saved: Record<string, string | null> = {
    "a Saved line": "Saved: 2026-11-29T08:00:00Z",
    "a Saved line holding a token": `Saved: ${stripeKey(14)}`,
    "no Saved line": null,
  };
  const anchors: Record<string, string> = {
    "written anchors": "- Date: 2026-11-29T08:00:00Z\n- Branch: main",
    "empty anchors, filled": "- none",
    "a key block in the anchors": `- Date: 2026-11-29T08:00:00Z\n${pem}`,
  };
  const filled = `- Branch: ${githubToken(15)}\n- HEAD: ${"0".repeat(40)}\n- Dirty files: none\n- Date: ${ISO}\n`;
  const cases = Object.entries(goals).flatMap(([g, goal]) => Object.entries(saved).flatMap(([s, line]) => Object.entries(anchors).map(([a, body]) => [`${g}, ${s}, ${a}`, goal, line, body] as const)));

  it.each(cases)("%s", (_name, goal, line, body) => {
    const sent = doc(goal, body, line);
    let final = stampSaved(sent, ISO).text;
    let exempt = new Set<number>();
    if (body === "- none") {
      const f = fillAnchors(final, filled);
      final = f.text;
      exempt = f.lines;
    }
    const whole = redactText(final, { exemptLines: exempt });
    const reused = reuseRedaction(sent, redactText(sent), final, exempt, new Set([`Saved: ${ISO}`, `- Date: ${ISO}`, ...filled.split("\n")]));
    if (body.includes("BEGIN")) {
      // A key block among the anchors: the match may give up; the caller then redacts whole.
      if (reused === null) return;
    }
    expect(reused).not.toBeNull();
    expect(reused!.text).toBe(whole.text);
    expect(reused!.findings).toEqual(whole.findings);
  });
});
