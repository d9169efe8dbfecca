// `brief`'s use of automatic checkpoints (docs/design.md#checkpoints), kept out of the brief verb itself.
import { briefFromCheckpoint, foldCheckpoint } from "../brief/checkpoint-brief.ts";
import { renderBrief, type Brief } from "../brief/brief.ts";
import { checkpointsDir } from "../store/checkpoints.ts";
import { memoryDir } from "../store/paths.ts";
import { readManagedFile } from "../store/read.ts";
import { currentCheckpoint, handoffOrderOf, minutesAgo, type HandoffOrder } from "../brief/checkpoint-surface.ts";
import { ok, type Outcome } from "./types.ts";

// Only a checkpoint newer than the handoff (by its Since-handoff token) is folded in.
async function newestText(root: string, handoff: HandoffOrder | null, now: number) {
  const got = currentCheckpoint(root, handoff, now);
  if (got === null || got.newer !== true || got.entry.savedMs === null) return null;
  const age = minutesAgo(got.entry.savedMs, now);
  try {
    const file = await readManagedFile(checkpointsDir(root), got.entry.name, memoryDir(root));
    return file === null ? null : { text: file.bytes.toString("utf8"), age };
  } catch {
    // An unsafe or racing checkpoint is not a reason to refuse the brief.
    return null;
  }
}

/** The brief from the newest checkpoint when there is no handoff, or null when there is none either. */
export async function coldBriefFromCheckpoint(root: string, json: boolean): Promise<Outcome | null> {
  const got = await newestText(root, null, Date.now());
  if (got === null) return null;
  const brief = briefFromCheckpoint(got.text, got.age);
  if (!json) return ok(renderBrief(brief), []);
  return ok(`${JSON.stringify({ brief: { ...brief, source: "checkpoint" }, drift: null })}\n`, []);
}

/** The handoff's brief, with a newer checkpoint folded in. */
export async function briefWithCheckpoint(root: string, handoffText: string, brief: Brief, now: number) {
  const got = await newestText(root, handoffOrderOf(handoffText, now), now);
  if (got === null) return brief;
  return { ...foldCheckpoint(brief, got.text, got.age), source: "handoff+checkpoint" };
}
