// Shared by the golden tests: renders a fixture transcript's checkpoint with fixed header and anchors.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseTranscript } from "../../src/agents/transcripts/parsers.ts";
import type { TranscriptFormat } from "../../src/agents/transcripts/types.ts";
import { renderCheckpoint } from "../../src/checkpoint/capture.ts";
import { withFakes } from "../fixtures/transcripts/fakes.ts";

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "transcripts");

/** The golden cases: fixture name and its format. */
export const GOLDEN: [string, TranscriptFormat][] = [
  ["claude", "claude"],
  ["claude-tasks", "claude"],
  ["codex", "codex"],
  ["gemini", "gemini"],
];

export const FIXED_ANCHORS = ["- Branch: main", "- HEAD: 1111111111111111111111111111111111111111", "- Dirty files: none", "- Date: 2026-11-30T12:00:00Z"];

/** The checkpoint of fixture `name`, with a fixed Saved: time and anchors. */
export function goldenCheckpoint(name: string, format: TranscriptFormat): string {
  const lines = withFakes(readFileSync(path.join(FIXTURES, `${name}.jsonl`), "utf8")).split("\n");
  const cap = parseTranscript(format, lines);
  return renderCheckpoint({
    saved: "2026-11-30T12:00:00Z",
    session: "s",
    sessionStart: cap.firstTimestamp,
    trigger: "pre-compact",
    source: `${format} transcript`,
    capture: cap,
    compactSummary: null,
    anchorLines: FIXED_ANCHORS,
    root: "/home/dev/proj",
  }).text;
}
