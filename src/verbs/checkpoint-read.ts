// `read checkpoint [--session ID]`, apart from the read verb so that it stays small.
import { renderEnvelope } from "../guard/untrusted.ts";
import { Refused } from "../errors.ts";
import { checkpointsDir, checkpointsDirState, listCheckpoints, sessionFileId } from "../store/checkpoints.ts";
import { checkTree, memoryDir } from "../store/paths.ts";
import { readManagedFile } from "../store/read.ts";
import { ok, type Outcome } from "./types.ts";

/** As `read`, FILE `checkpoints/<id>.md`, the newest by `Saved:` without `--session`; exit 3 when none. */
export async function readCheckpoint(root: string, session: string | undefined): Promise<Outcome> {
  const absent = ok("CURRENT-SHA256: absent\n", [], 3);
  // The same tree verdict as `read handoff` (docs/design.md#one-reading-of-the-handoff).
  if (!checkTree(root)) return absent;
  const state = checkpointsDirState(root);
  if (state === "missing") return absent;
  if (state === "unsafe") {
    const why = "is a link or not a directory; memory must live in real directories under the root (move it away)";
    throw new Refused(`${checkpointsDir(root)} ${why}`);
  }
  const id = session !== undefined ? sessionFileId(session) : listCheckpoints(root)[0]?.session;
  if (id === undefined) return absent;
  const got = await readManagedFile(checkpointsDir(root), `${id}.md`, memoryDir(root));
  if (got === null) return absent;
  const { out, warning } = renderEnvelope(`checkpoints/${id}.md`, got.token, got.bytes);
  return ok(out, warning ? [warning] : []);
}
