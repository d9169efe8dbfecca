import { existsSync, writeFileSync } from "node:fs";

/**
 * The named phases of the write protocol, in order (contract §11). `read-opened` is also
 * passed by reads.
 */
export const PHASES = [
  "read-opened",
  "before-claim",
  "after-claim",
  "after-archive",
  "before-publication",
  "after-publication",
  "before-prune",
] as const;
export type Phase = (typeof PHASES)[number];

const POLL_MS = 10;
const PAUSE_LIMIT_MS = 30_000;

/**
 * The test seam of contract §11: with `MEMORY_IO_FAILPOINT=<phase>:crash` the process kills
 * itself with SIGKILL at that phase; with `<phase>:pause=<path>` it creates `<path>.ready`
 * and waits (without blocking the event loop, so the lock stays fresh) up to 30 s for
 * `<path>.go`. Any other value, or another phase, does nothing.
 * Documented for contributors in CONTRIBUTING.md, not in `--help`.
 */
export async function failpoint(spec: string | undefined, phase: Phase): Promise<void> {
  if (!spec) return;
  const colon = spec.indexOf(":");
  if (colon < 0 || spec.slice(0, colon) !== phase) return;
  const action = spec.slice(colon + 1);
  if (action === "crash") {
    process.kill(process.pid, "SIGKILL");
    // SIGKILL is not delivered synchronously everywhere; never go on past a crash point.
    await new Promise(() => {});
  }
  if (action.startsWith("pause=")) {
    const base = action.slice("pause=".length);
    writeFileSync(`${base}.ready`, `${process.pid}\n`);
    const deadline = Date.now() + PAUSE_LIMIT_MS;
    while (!existsSync(`${base}.go`) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
