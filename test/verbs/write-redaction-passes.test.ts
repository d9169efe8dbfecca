// Redaction in a write (docs/design.md#redaction): the saved bytes and the notes hold no secret,
// and the journal entry is rendered from the redacted text without redacting it again (the real
// redactText, wrapped by a spy for this file only).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { redactText, redactTranscript } from "../../src/guard/redact.ts";
import { recordSave } from "../../src/journal/store.ts";
import { buildDocument, checkDocument } from "../../src/save/save.ts";
import { githubToken, stripeKey } from "../fixtures/redaction/attacks.ts";
import { gitRepo, handoff, MARKER, tempDir } from "../helpers.ts";

vi.mock("../../src/guard/redact.ts", async (original) => {
  const real = await original<typeof import("../../src/guard/redact.ts")>();
  return { ...real, redactText: vi.fn(real.redactText), redactTranscript: vi.fn(real.redactTranscript) };
});

beforeEach(() => {
  vi.mocked(redactText).mockClear();
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

describe("write redacts", () => {
  it("kept anchors: one pass, over the document as sent", async () => {
    const root = tempDir();
    const text = handoff(`Deploy with ${githubToken(1)} and ${stripeKey(2)}.`);
    const out = await write(root, text);
    expect(out.bytes).toContain("<redacted: github-token>");
    expect(out.bytes).not.toContain(githubToken(1));
    expect(out.notes.join("\n")).toMatch(/redacted 2 secret\(s\)/);
  });

  it("anchors filled by write: the document once, then only the lines write wrote", async () => {
    const root = gitRepo();
    const text = doc(`Deploy with ${githubToken(3)}.`, "- none");
    const out = await write(root, text);
    expect(out.bytes).toMatch(/^- Branch: /m);
    expect(out.bytes).not.toContain(githubToken(3));
    expect(out.notes.join("\n")).toMatch(/redacted 1 secret\(s\)/);
  });

  it("the journal entry of a save redacts nothing again: its items come from the redacted text", async () => {
    const root = tempDir();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    const next = redactText(handoff(`Rotate ${githubToken(4)} and ship.`).replace("## Decisions\n- none", "## Decisions\n- [user-directed] Ship on Friday\n- [agent-proposed] Keep one lock")).text;
    vi.mocked(redactText).mockClear();
    const notes = await recordSave(root, { prior: null, next, token: "a".repeat(64) }, undefined);
    expect(notes).toEqual([]);
    expect(redactText).not.toHaveBeenCalled();
    expect(redactTranscript).not.toHaveBeenCalled();
  });
});
