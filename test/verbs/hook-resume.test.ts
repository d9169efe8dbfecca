import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHECKPOINT_SENTENCES } from "../../src/checkpoint/store.ts";
import { gitRepo, helper } from "../helpers.ts";
import { checkpoint, transcript } from "./support.ts";

// Claude Code's `--resume` fires SessionStart twice: `resume` with the resumed id and a
// `startup` with a new id; the checkpoint sentence is said once per token, not once per launch
// (docs/decisions/checkpoint-after-last-save.md#once-per-token).

const REAL = path.join(import.meta.dirname, "..", "fixtures", "transcripts", "real", "claude-code-2.1.332", "compact.hook-inputs.jsonl");
/** The recorded inputs, one object per line, in firing order. */
const inputs = readFileSync(REAL, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
const startup = inputs.find((i) => i.hook_event_name === "SessionStart" && i.source === "startup")!;
const sessionEnd = inputs.find((i) => i.hook_event_name === "SessionEnd")!;

/** A recorded input moved to this test's project: its cwd, and a transcript path beside it named for `session`. */
function moved(input: Record<string, unknown>, root: string, session: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...input, session_id: session, cwd: root, transcript_path: path.join(root, `${session}.jsonl`), ...extra });
}

const hook = (input: string) => helper(["hook", "--mode", "session", "--format", "claude"], { input });
const context = (stdout: string): string => (stdout === "" ? "" : (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext);

const COUNTS = "3 requests, a plan of 3 steps, 2 files, 3 commands";

describe("hook: a resume launch's extra startup does not repeat the checkpoint sentence", () => {
  it.each([
    ["resume first, then the new id's startup", ["resume", "startup"]],
    ["the new id's startup first, then resume", ["startup", "resume"]],
  ])("%s: said once at the first start, never at later launches", (_name, order) => {
    const root = gitRepo();
    const ended = "d126b78a-d8d8-4a3a-ae45-b98791b5a435";
    // The recorded session ends with work: its SessionEnd hook writes its checkpoint.
    checkpoint(root, { ...sessionEnd, session_id: ended, cwd: root, transcript_path: transcript(root) });
    // The next start (a new session, the recorded startup input): told once, in the harness's envelope.
    const next = "5f0c9a52-3b1e-4c7d-9a0e-6d2b8f4e1a77";
    const first = context(hook(moved(startup, root, next)).stdout);
    expect(first).toBe(CHECKPOINT_SENTENCES.only("0 minutes ago", COUNTS));
    expect(first.length).toBeGreaterThan(300);
    // Two `claude --resume <next>` launches: each fires `resume` (the resumed id) and `startup`
    // with a fresh id, a transcript that does not exist and a model field (anthropics/claude-code#23932).
    for (const spurious of ["9b1d3c5e-7f20-4a61-8c93-e4d5f6a7b8c9", "0a2b4c6d-8e0f-4123-9456-789abcdef012"]) {
      for (const source of order) {
        const input = source === "resume" ? moved(startup, root, next, { source: "resume" }) : moved(startup, root, spurious, { model: "claude-opus-5-5" });
        expect(context(hook(input).stdout), `${source} ${spurious}`).not.toContain("automatic checkpoint");
      }
    }
  });

  it("a new checkpoint (more work captured) is named again, once; a compaction still names the session's own", () => {
    const root = gitRepo();
    checkpoint(root, { ...sessionEnd, session_id: "a1", cwd: root, transcript_path: transcript(root) });
    expect(context(hook(moved(startup, root, "b1")).stdout)).toContain("automatic checkpoint");
    // Session b1 works and ends: its own checkpoint is a new token.
    checkpoint(root, { ...sessionEnd, session_id: "b1", cwd: root, transcript_path: transcript(root) });
    expect(context(hook(moved(startup, root, "c1")).stdout)).toBe(CHECKPOINT_SENTENCES.only("0 minutes ago", COUNTS));
    expect(context(hook(moved(startup, root, "c2")).stdout)).toBe("");
    // b1's compaction names b1's checkpoint to b1, though c1 heard it: per session, once.
    const compacted = moved(startup, root, "b1", { source: "compact" });
    expect(context(hook(compacted).stdout)).toBe(CHECKPOINT_SENTENCES.compacted("0 minutes ago", "b1", COUNTS));
    expect(context(hook(compacted).stdout)).toBe("");
  });
});
