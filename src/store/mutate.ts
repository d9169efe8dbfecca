import { HelperError, Refused } from "../errors.ts";
import { acquireLock, type LockHandle } from "./lock.ts";
import { checkTree, memoryDir } from "./paths.ts";
import { assertNotPaused } from "./pause.ts";
import { needsRepair } from "./recover.ts";
import { repair } from "./repair.ts";

/** Options common to every mutating verb. */
export interface MutateOptions {
  root: string;
  env: Record<string, string | undefined>;
  lockTimeoutSeconds: number;
  /**
   * Checks on the caller's input that come after "busy" in the refusal order
   * (docs/design.md#tokens-and-the-publication-protocol: usage, then paused, then busy, then the rest). Called before
   * anything is created.
   */
  validate?: () => void;
  /**
   * A compare-and-swap check made before the memory dir is created, when it did not exist
   * (no lock can be held then): a stale token is refused without creating anything.
   */
  precheck?: () => Promise<void>;
  /** `MEMORY_IO_FAILPOINT` (docs/decisions/failpoints.md): the repair passes the `recover-*` phases. */
  failpoint?: string;
}

/**
 * Runs `body` under the memory lock, after the kill switch, the tree checks and the repair of anything an interrupted
 * save left ("the next write … repairs"; docs/design.md#tokens-and-the-publication-protocol). Creates the memory dir
 * (0700) only once the input passed `validate`, so that a refusal leaves the disk as it was.
 * @returns body's result and the repair lines for stderr.
 * @throws Paused (4), Busy (5), Refused (2).
 */
export async function underLock<T>(opts: MutateOptions, body: (lock: LockHandle) => Promise<T>) {
  const memDir = memoryDir(opts.root);
  const log = opts.env.MEMORY_IO_LOCK_LOG || undefined;
  assertNotPaused(memDir, opts.env);
  const existed = checkTree(opts.root);
  // A non-folder archive/ is refused before the lock is taken: a refusal leaves the memory dir as it was.
  if (existed) checkTree(opts.root);
  let lock: LockHandle | null = null;
  let repairs: string[] = [];
  try {
    if (existed) lock = await acquireLock(memDir, opts.lockTimeoutSeconds, { log });
    opts.validate?.();
    if (!existed) await opts.precheck?.();
    checkTree(opts.root, { create: true });
    // The archive is made only when something goes into it (publish, recover).
    checkTree(opts.root);
    if (lock === null) lock = await acquireLock(memDir, opts.lockTimeoutSeconds, { log });
    // The switch may have been pulled while we waited for the lock.
    assertNotPaused(memDir, opts.env);
    const repaired = needsRepair(opts.root) ? await repair(opts.root, opts.failpoint) : [];
    repairs = repaired.map((line) => `recovered: ${line}`);
    const result = await body(lock);
    return { result, repairs };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    const fsError = err instanceof Error && !(err instanceof HelperError) && typeof code === "string";
    const refusal = fsError ? new Refused(`file system error: ${(err as Error).message}`) : err;
    // A repair made before a refusal stays made: say so, as a successful save would.
    if (refusal instanceof HelperError) refusal.before = [...repairs, ...refusal.before];
    throw refusal;
  } finally {
    await lock?.release();
  }
}
