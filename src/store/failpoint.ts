import { existsSync, writeFileSync } from "node:fs";

/** The phases of the write protocol, in order; reads pass the first two too. */
export type WritePhase =
  | "read-opened"
  | "read-before-recheck"
  | "before-claim"
  | "after-claim"
  | "after-archive"
  | "before-publication"
  | "after-publication"
  | "before-prune";

/** The steps of a writer's rollback, each fired just after it. */
export type RollbackPhase =
  | "rollback-after-temp-drop"
  | "rollback-before-restore"
  | "rollback-after-restore"
  | "rollback-after-unarchive"
  | "rollback-after-claim-drop";

/** The steps of `recover`'s repair, each fired just after it. */
export type RecoverPhase =
  | "recover-after-restore"
  | "recover-after-unarchive"
  | "recover-after-archive"
  | "recover-after-claim-drop"
  | "recover-after-temp-drop"
  | "recover-before-prune";

/** The steps of a journal append (docs/decisions/journal.md), each fired just after it. */
export type JournalPhase = "journal-after-claim" | "journal-before-publication" | "journal-after-publication";

/** Every failpoint phase (types only: the names cost the bundle nothing at start-up). */
export type Phase = WritePhase | RollbackPhase | RecoverPhase | JournalPhase;

const POLL_MS = 10;
const PAUSE_LIMIT_MS = 30_000;

/**
 * The test seam (docs/decisions/failpoints.md): `MEMORY_IO_FAILPOINT` holds `<phase>:<action>` specs, comma
 * separated; at that phase `crash` (SIGKILL), `pause=<path>` (writes `<path>.ready`, waits up to 30 s for
 * `<path>.go` without blocking the event loop) or `fail[=CODE]` (throws an I/O error, `EIO` by default).
 */
export async function failpoint(spec: string | undefined, phase: Phase): Promise<void> {
  if (!spec) return;
  for (const one of spec.split(",")) {
    const colon = one.indexOf(":");
    if (colon < 0 || one.slice(0, colon) !== phase) continue;
    await act(one.slice(colon + 1), phase);
  }
}

async function act(action: string, phase: Phase): Promise<void> {
  if (action === "crash") {
    process.kill(process.pid, "SIGKILL");
    // SIGKILL is not delivered synchronously everywhere; never go on past a crash point.
    await new Promise(() => {});
  }
  if (action === "fail" || /^fail=E[A-Z]+$/.test(action)) {
    const code = action === "fail" ? "EIO" : action.slice("fail=".length);
    throw Object.assign(new Error(`injected failure at ${phase} (MEMORY_IO_FAILPOINT)`), { code });
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
