// The events every consumer but the capture reads (the last save, the resume outcome, the context
// in use), from one parse of each line by its format's reader.
import { claudeEvents } from "./claude.ts";
import { codexEvents } from "./codex.ts";
import { geminiEvents } from "./gemini.ts";
import { parseLine, type LineEvents, type TranscriptFormat, type Usage } from "./types.ts";

// A line naming none of these words holds no tool call, result or usage of its format.
const WORDS: Record<TranscriptFormat, RegExp> = {
  claude: /"tool_use"|"tool_result"|"usage"/,
  codex: /_call|CommandExecution|FileChange|"session_meta"|"turn_context"|"token_count"|token_usage_record|task_started/,
  gemini: /"toolCalls"/,
};
// The context hook reads usage only: a line without these words holds none.
const USAGE_WORDS: Record<TranscriptFormat, RegExp | null> = {
  claude: /"usage"/,
  codex: /"token_count"|"token_usage_record"|"task_started"/,
  gemini: null,
};

/** The events of `lines` (oldest first), one entry per line that holds any; `usageOnly` skips other lines. */
export function readEvents(format: TranscriptFormat, lines: readonly string[], usageOnly = false): LineEvents[] {
  const words = usageOnly ? USAGE_WORDS[format] : WORDS[format];
  if (words === null) return [];
  const state = { cwd: null as string | null };
  const out: LineEvents[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!words.test(lines[i]!)) continue;
    const rec = parseLine(lines[i]!);
    if (rec === null) continue;
    const ev = format === "claude" ? claudeEvents(rec, i) : format === "codex" ? codexEvents(rec, i, state) : geminiEvents(rec, i);
    if (ev.calls.length > 0 || ev.results.length > 0 || ev.usage !== null || ev.window !== null || ev.items) out.push(ev);
  }
  return out;
}

/** One recorded response's usage and its line; a usage without a window takes the last window named before it. */
export type UsagePoint = Usage & { line: number };

/** Every recorded usage, oldest first (none for a format that records none). */
export function usagePoints(events: readonly LineEvents[]): UsagePoint[] {
  const out: UsagePoint[] = [];
  let window: number | null = null;
  for (const ev of events) {
    window = ev.usage?.window ?? ev.window ?? window;
    if (ev.usage !== null) out.push({ ...ev.usage, window: ev.usage.window ?? window, line: ev.line });
  }
  return out;
}

/** How many tool calls the events after line `after` record (every tool, the helper's own included). */
export function countToolCalls(events: readonly LineEvents[], after = -1): number {
  let n = 0;
  for (const ev of events) if (ev.line > after) n += ev.calls.filter((c) => c.item !== true).length;
  return n;
}
