// A checkpoint's names and header lines, apart from its rendering so the session-start verbs never load that.
import { MARKER } from "../schema/values.ts";

/** The heading of a checkpoint (docs/design.md#checkpoints). */
export const CHECKPOINT_HEADING = "# Session Checkpoint";
/** A checkpoint's file name: the session-id pattern plus `.md` (docs/design.md#checkpoints). */
export const CHECKPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.md$/;
type HeaderName = "Saved" | "Session" | "Session-start" | "Trigger" | "Source" | "Since-handoff";

/** The value of a `Name: value` header line in a checkpoint's first lines, or null. */
export function headerValue(text: string, name: HeaderName) {
  const lines = text.split("\n", 12);
  for (const line of lines) if (line.startsWith(`${name}: `)) return line.slice(name.length + 2).trim();
  return null;
}

/** True when `text` has the shape of a checkpoint: the marker, then the heading in the first four lines. */
export function isCheckpointText(text: string): boolean {
  const lines = text.split("\n", 4);
  return lines[0] === MARKER && lines.includes(CHECKPOINT_HEADING);
}

/** True when a checkpoint's `Source:` says it holds the anchors only: never announced as work, never parked. */
export function isAnchorsOnlySource(source: string | null): boolean {
  // The 1.1 helper's wordings for the same thing are read alike.
  const words = /^(anchors only|no transcript|transcript in an unknown format)|with no complete record$/;
  return source !== null && words.test(source);
}
