import { existsSync, writeFileSync } from "node:fs";

/**
 * The named phases of the write protocol, in order (docs/decisions/failpoints.md). `read-opened` and
 * `read-before-recheck` (between a read's first pass and its second, docs/decisions/torn-reads.md) are also passed by
 * reads.
 */
export type WritePhase =
  | "read-opened"
  | "read-before-recheck"
  | "before-claim"
  | "after-claim"
  | "after-archive"
  | "before-publication"
  | "after-publication"
  | "before-prune";

/**
 * The steps of a writer's rollback (docs/decisions/failpoints.md): a failure between the claim and
 * publication drops the temp, links the claim back as the current file, removes the archive
 * copy the save made of it, then drops the claim. Each phase fires just after its step.
 */
export type RollbackPhase =
  | "rollback-after-temp-drop"
  | "rollback-before-restore"
  | "rollback-after-restore"
  | "rollback-after-unarchive"
  | "rollback-after-claim-drop";

/**
 * The steps of `recover`'s repair (docs/decisions/failpoints.md), each fired just after that step
 * (every time it is taken): a claim linked back as the current file, that version's archive
 * copy removed, a prior version linked into the archive, a claim dropped, a temp dropped;
 * and `recover-before-prune` before the retention a crash skipped is finished.
 */
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
 * The test seam (docs/decisions/failpoints.md). `MEMORY_IO_FAILPOINT` holds one or more
 * `<phase>:<action>` specs separated by commas; at a named phase the process acts:
 * `crash` kills itself with SIGKILL; `pause=<path>` creates `<path>.ready` and waits
 * (without blocking the event loop, so the lock stays fresh) up to 30 s for `<path>.go`;
 * `fail` throws an I/O error (`EIO`), `fail=<CODE>` one with that code (`ENOSPC`, `EMLINK`…),
 * as a full disk would, so that tests reach a rollback
 * (`before-publication:fail,rollback-after-restore:crash`) and its rename
 * (`rollback-before-restore:fail=ENOSPC`, fired before the link back). Any other value, or another
 * phase, does nothing. Documented for contributors in docs/decisions/failpoints.md, not in `--help`.
 * @throws Error with code `EIO` for `fail`.
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
