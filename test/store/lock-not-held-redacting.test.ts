// The memory lock is never held while a document is redacted or validated: `write` does that
// work before it waits for the lock, so a large document keeps no other writer waiting.
// Counted, never timed: the calls of the real redactText (wrapped by a spy) while another holder has the lock.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli.ts";
import { redactText } from "../../src/guard/redact.ts";
import { acquireLock } from "../../src/store/lock.ts";
import { gitRepo, handoff, save } from "../helpers.ts";

vi.mock("../../src/guard/redact.ts", async (original) => {
  const real = await original<typeof import("../../src/guard/redact.ts")>();
  return { ...real, redactText: vi.fn(real.redactText) };
});
const passes = (): number => vi.mocked(redactText).mock.calls.length;

describe("write redacts and validates before it takes the lock", () => {
  it("all of a write's redaction is done while another process holds the lock", async () => {
    const root = gitRepo();
    const token = save(root, handoff("First."));
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    const held = await acquireLock(path.join(root, ".ai", "memory"), 1);
    vi.mocked(redactText).mockClear();
    const doc = Buffer.from(handoff(`Second, with password=Hx9kQ2zPm7wL and more.\n${"- a line of prose\n".repeat(2000)}`));
    const out: string[] = [];
    const run = main({
      argv: ["write", "handoff", "--root", root, "--expected-current-sha256", token, "--lock-timeout", "20"],
      env: { ...process.env, SESSION_HANDOFF_PAUSE: "", SESSION_HANDOFF_DISABLE: "" },
      cwd: root,
      stdinIsTTY: false,
      readStdin: async () => doc,
      readStdinWithin: async () => doc,
      writeOut: (d) => out.push(String(d)),
      writeErr: (t) => out.push(t),
    });
    // Bounded: the write redacts while it waits for the lock we hold.
    for (let i = 0; i < 400 && passes() === 0; i++) await new Promise((r) => setTimeout(r, 25));
    const before = passes();
    expect(before).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200));
    const waiting = passes();
    await held.release();
    const code = await run;
    expect(code, out.join("")).toBe(0);
    expect(out.join("")).toMatch(/saved HANDOFF\.md/);
    // Nothing was redacted once the lock was ours.
    expect(passes()).toBe(waiting);
  }, 60_000);
});
