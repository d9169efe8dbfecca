// The checkpoint's capture parser per format, apart from the events table (index.ts), so that the
// session bundle, which reads only events, does not carry the parsers.
import { parseClaude } from "./claude.ts";
import { parseCodex } from "./codex.ts";
import { parseGemini } from "./gemini.ts";
import type { Capture, TranscriptFormat } from "./types.ts";

export const PARSERS: Record<TranscriptFormat, (lines: readonly string[]) => Capture> = {
  codex: parseCodex, gemini: parseGemini, claude: parseClaude,
};
