import { HelperError, Refused } from "../errors.ts";
import { acquireLock, type LockHandle } from "./lock.ts";
import { checkTree, memoryDir } from "./paths.ts";
import { assertNotPaused } from "./pause.ts";
import { needsRepair } from "./recover.ts";
import { repair } from "./repair.ts";

interface MutateOptions {
  root: string;
  env: Record<string, string | undefined>;
  lockTimeoutSeconds: number;
  // The input checks that come after "busy" in the refusal order, run before anything is created.
  validate?: () => void;
  // The compare-and-swap check when the memory dir did not exist: a stale token then creates nothing.
  precheck?: () => Promise<void>;
  failpoint?: string;
}

/** Runs `body` under the memory lock, after the kill switch and repairs; the memory dir is made after `validate`. */
export async function underLock<T>(opts: MutateOptions, body: (lock: LockHandle) => Promise<T>) {
  const memDir = memoryDir(opts.root);
  assertNotPaused(memDir, opts.env);
  const existed = checkTree(opts.root);
  let lock: LockHandle | null = null;
  let repairs: string[] = [];
  try {
    if (existed) lock = await acquireLock(memDir, opts.lockTimeoutSeconds);
    opts.validate?.();
    if (!existed) await opts.precheck?.();
    checkTree(opts.root, { create: true });
    if (lock === null) lock = await acquireLock(memDir, opts.lockTimeoutSeconds);
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
