import { underLock } from "../store/repair.ts";
import { pendingRepairs } from "../store/recover.ts";
import { checkTree, memoryDir } from "../store/paths.ts";
import { assertNotPaused } from "../store/pause.ts";
import { failpointOf, lockTimeoutOption, rootOption, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { checkpointsDir, checkpointsDirState, cleanCheckpointLeftovers } from "../checkpoint/store.ts";
import { readdirSync } from "../builtins.ts";
import { removeLeftoverDrafts } from "../store/drafts.ts";

/** `recover`: repairs what an interrupted save left (docs/design.md#tokens-and-the-publication-protocol). */
export const recoverVerb: Verb = {
  options: { root: { type: "string" }, "lock-timeout": { type: "string" }, json: { type: "boolean" } },
  help: `usage: node memory_io.mjs recover [--root DIR] [--lock-timeout SECONDS] [--json]

Repairs what an interrupted save left (a private claim or temp file, a half-done
archive step): afterwards each file is whole -- the
complete old or the complete new version --, no prior version is lost, and no
private file remains; the reference helper's (memory_io.py) leftovers too. It
also removes what an interrupted \`checkpoint\` left in checkpoints/, and drafts
untouched for an hour, saying each. Idempotent and resumable; with nothing to do
it prints "nothing to recover". The next \`write\` runs the same repair first. A
private name holding what no save leaves (a link, a directory, a file
hard-linked elsewhere) is refused, naming it: move it away, then retry.
${ROOT_HELP}
exit: 0 done (or nothing to do); 2 refused (unsafe tree); 4 paused; 5 busy.
`,
  async run(ctx) {
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    const root = rootOption(ctx);
    let actions: string[] = [];
    // A promote's private files can be left at the root even with no memory dir.
    if (checkTree(root) || pendingRepairs(root).length > 0) {
      // Leftovers of an interrupted checkpoint go too, and drafts: private junk, not an interrupted save.
      const dotted = () => readdirSync(checkpointsDir(root)).some((n) => n.startsWith("."));
      const leftovers = () => checkpointsDirState(root) === "ok" && dotted();
      const options = { root, env: ctx.env, lockTimeoutSeconds, failpoint: failpointOf(ctx) };
      const { result, repairs } = await underLock(options, async () => [
        ...(leftovers() ? cleanCheckpointLeftovers(root) : []),
        ...removeLeftoverDrafts(root),
      ]);
      actions = [...repairs.map((r) => r.replace(/^recovered: /, "")), ...result];
    } else {
      assertNotPaused(memoryDir(root), ctx.env);
    }
    if (ctx.values.json) return ok(`${JSON.stringify({ actions })}\n`);
    return ok(actions.length > 0 ? `${actions.join("\n")}\n` : "nothing to recover\n");
  },
};
