// Reading a checkpoint's name, header lines and sections, apart from its rendering: the hook never loads that.
import { MARKER } from "../schema/values.ts";

export const CHECKPOINT_HEADING = "# Session Checkpoint";
/** A checkpoint's file name: the session-id pattern plus `.md` (docs/design.md#checkpoints). */
export const CHECKPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.md$/;
type HeaderName = "Saved" | "Session" | "Session-start" | "Trigger" | "Source" | "Since-handoff";

export function headerValue(text: string, name: HeaderName) {
  for (const line of text.split("\n", 12)) if (line.startsWith(`${name}: `)) return line.slice(name.length + 2).trim();
  return null;
}

export function isCheckpointText(text: string): boolean {
  const lines = text.split("\n", 4);
  return lines[0] === MARKER && lines.includes(CHECKPOINT_HEADING);
}

// A checkpoint of the anchors only is never announced as work nor parked; the 1.1 helper's wordings count too.
export function isAnchorsOnlySource(source: string | null): boolean {
  const words = /^(anchors only|no transcript|transcript in an unknown format)|with no complete record$/;
  return source !== null && words.test(source);
}

/** A checkpoint as written: `Trigger:` then its `(earlier: …)` ones oldest first; item lines and left-out counts. */
export interface CheckpointSections {
  triggers: string[];
  source: string | null;
  items: Map<string, string[]>;
  dropped: Map<string, number>;
}

export function readCheckpointText(text: string): CheckpointSections {
  const trigger = /^Trigger: ([a-z-]+)(?: \(earlier: ([a-z, -]+)\))?$/m.exec(text);
  const triggers = trigger === null ? [] : [...(trigger[2]?.split(", ") ?? []), trigger[1]!];
  const source = /^Source: (.*)$/m.exec(text)?.[1] ?? null;
  const items = new Map<string, string[]>();
  const dropped = new Map<string, number>();
  let section: string | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) {
      section = line;
      items.set(section, []);
    } else if (section !== null && line.startsWith("- ") && line !== "- none captured") {
      const older = /^- \((\d+) older left out\)$/.exec(line);
      if (older) dropped.set(section, Number(older[1]));
      else items.get(section)!.push(line);
    }
  }
  return { triggers, source, items, dropped };
}
