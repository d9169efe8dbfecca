// What a transcript adapter extracts for a checkpoint; it lives with the document that renders it.

export interface PlanItem {
  text: string;
  status: "done" | "doing" | "open" | "dropped";
}

/** One shell command and its outcome as recorded: `exit N`, `ok`/`failed` (no code) or `unknown`. */
export interface CommandRun {
  command: string;
  status: string;
}

/** What one adapter found in a transcript's tail, oldest first; raw text that the checkpoint makes safe. */
export interface Capture {
  format: TranscriptFormat;
  /** The first record timestamp seen (ISO-8601 as written), for `Session-start:`. */
  firstTimestamp: string | null;
  /** Text typed by the user (scaffolding, tool results and meta records left out). */
  userRequests: string[];
  plan: PlanItem[] | null;
  /** True when the plan is a whole list written at once with no later plan record: nothing earlier can change it. */
  planFinal: boolean;
  /** In the order of their last edit, without repeats. */
  filesEdited: string[];
  commands: CommandRun[];
  lastClaim: string | null;
  /** Complete records the adapter understood (0 means an anchors-only checkpoint). */
  records: number;
  /** The harness version the records name, the latest seen; never used to choose a format (recognised by shape). */
  version?: string | null;
}

/** Most items of one list a checkpoint shows: older ones are only counted, so an adapter may leave them unread. */
export const LISTED_ITEMS = 40;

export type TranscriptFormat = "claude" | "codex" | "gemini";

export function emptyCapture(format: TranscriptFormat): Capture {
  const empty = { firstTimestamp: null, userRequests: [], plan: null, planFinal: false, filesEdited: [], commands: [] };
  return { format, ...empty, lastClaim: null, records: 0, version: null };
}
