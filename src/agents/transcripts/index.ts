// The transcript adapters, one file per format (docs/design.md#checkpoints): a format change is one file's edit.
import { parseClaude } from "./claude.ts";
import { parseCodex } from "./codex.ts";
import { parseGemini } from "./gemini.ts";
import type { Capture, TranscriptFormat } from "./types.ts";

/** The adapter of each format. */
export const ADAPTERS: Record<TranscriptFormat, (lines: readonly string[]) => Capture> = {
  claude: parseClaude,
  codex: parseCodex,
  gemini: parseGemini,
};

/**
 * Words that every plan record of a format holds, as written in the file (its tool names): a
 * part of a transcript without any of them holds no plan (cold/checkpoint-run.ts).
 */
export const PLAN_MARKERS: Record<TranscriptFormat, readonly string[]> = {
  claude: ["TodoWrite", "TaskCreate", "TaskUpdate"],
  codex: ["update_plan"],
  gemini: ["write_todos"],
};

/** True when `value` names an adapter. */
export function isFormat(value: unknown): value is TranscriptFormat {
  return value === "claude" || value === "codex" || value === "gemini";
}

/**
 * The checkpoint's `Source:` value for a capture (docs/design.md#checkpoints): the format
 * and the version its records name, `unknown` when they name none (`claude 2.1.332`,
 * `gemini unknown`). A known shape is captured whatever its version says.
 */
export function captureSource(cap: Capture): string {
  return `${cap.format} ${cap.version ?? "unknown"}`;
}

/** The `Source:` value of an anchors-only checkpoint: `anchors only (<why>)`. */
export function anchorsOnlySource(why: string): string {
  return `anchors only (${why})`;
}
