import { existsSync, writeFileSync } from "../builtins.ts";

// Every failpoint phase, in protocol order.
type Phase =
  | "read-opened" | "read-before-recheck" | "before-claim" | "after-claim" | "after-archive"
  | "before-publication" | "after-publication" | "before-prune"
  | "rollback-after-temp-drop" | "rollback-before-restore" | "rollback-after-restore"
  | "rollback-after-unarchive" | "rollback-after-claim-drop"
  | "recover-after-restore" | "recover-after-unarchive" | "recover-after-archive"
  | "recover-after-claim-drop" | "recover-after-temp-drop"
  | "journal-before-publication" | "journal-after-publication" | "publish-before-commit";

const POLL_MS = 10;
const PAUSE_LIMIT_MS = 30_000;

/** The test seam: `MEMORY_IO_FAILPOINT`'s `<phase>:<action>` list (docs/decisions/failpoints.md). */
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
