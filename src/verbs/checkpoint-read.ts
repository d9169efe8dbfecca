// `read checkpoint [--session ID]` (docs/design.md#tokens-and-the-publication-protocol), loaded on demand: the read
// verb stays small.
import { renderEnvelope } from "../guard/untrusted.ts";
import { Refused } from "../errors.ts";
import { checkpointsDir, checkpointsDirState, sessionFileId } from "../store/checkpoints.ts";
import { checkTree, memoryDir } from "../store/paths.ts";
import { readManagedFile } from "../store/read.ts";
import { newestCheckpoint } from "./checkpoint-surface.ts";
import { ok, type Outcome } from "./types.ts";

/**
 * `read checkpoint [--session ID]` (docs/design.md#tokens-and-the-publication-protocol): as `read`, FILE
 * `checkpoints/<id>.md`, the newest by `Saved:` without `--session`; exit 3 (`CURRENT-SHA256: absent`) when none.
 * @throws Refused (exit 2) when `checkpoints/` or the file is unsafe.
 */
export async function readCheckpoint(root: string, session: string | undefined): Promise<Outcome> {
  const absent = ok("CURRENT-SHA256: absent\n", [], 3);
  if (!checkTree(root)) return absent;
  // The same tree verdict as `read handoff` (docs/design.md#one-reading-of-the-handoff).
  checkTree(root);
  const state = checkpointsDirState(root);
  if (state === "missing") return absent;
  if (state === "unsafe") {
    const why = "is a link or not a directory; memory must live in real directories under the root (move it away)";
    throw new Refused(`${checkpointsDir(root)} ${why}`);
  }
  const id = session !== undefined ? sessionFileId(session) : newestCheckpoint(root)?.session;
  if (id === undefined) return absent;
  const name = `${id}.md`;
  const got = await readManagedFile(checkpointsDir(root), name, memoryDir(root));
  if (got === null) return absent;
  const { out, warning } = renderEnvelope(`checkpoints/${name}`, got.token, got.bytes);
  return ok(out, warning ? [warning] : []);
}
