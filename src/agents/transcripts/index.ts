// The transcript formats (docs/design.md#checkpoints): each is one reader file, one row here and one in parsers.ts.
import { claudeEvents } from "./claude.ts";
import { codexEvents } from "./codex.ts";
import { geminiEvents } from "./gemini.ts";
import { parseLine, type Capture, type LineEvents, type TranscriptFormat, type Usage } from "./types.ts";

/** A format: `is` tells its records by shape; lines without `words`, `usage` or `planMarkers` hold none of those. */
interface Format {
  is: (rec: Record<string, unknown>) => boolean;
  events: (rec: Record<string, unknown>, line: number, state: { cwd: string | null }) => LineEvents;
  words: RegExp;
  usage: RegExp | null;
  planMarkers: readonly string[];
}

const CODEX_TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"]);

export const FORMATS: Record<TranscriptFormat, Format> = {
  codex: {
    is: (r) => "payload" in r && typeof r.type === "string" && CODEX_TYPES.has(r.type),
    events: codexEvents,
    words: /_call|CommandExecution|FileChange|"session_meta"|"turn_context"|"token_count"|token_usage_record|task_st/,
    usage: /"token_count"|"token_usage_record"|"task_started"|"compacted"/,
    planMarkers: ["update_plan"],
  },
  gemini: {
    is: (r) => "projectHash" in r || r.type === "gemini" || ("startTime" in r && "sessionId" in r && !("uuid" in r)),
    events: (rec, line) => geminiEvents(rec, line),
    words: /"toolCalls"/,
    usage: null,
    planMarkers: ["write_todos"],
  },
  claude: {
    is: (r) => ("sessionId" in r || "uuid" in r) && typeof r.type === "string",
    events: (rec, line) => claudeEvents(rec, line),
    words: /"tool_use"|"tool_result"|"usage"/,
    usage: /"usage"|"compact_boundary"/,
    planMarkers: ["TodoWrite", "TaskCreate", "TaskUpdate"],
  },
};

export function isFormat(value: unknown): value is TranscriptFormat {
  return typeof value === "string" && Object.hasOwn(FORMATS, value);
}

/** The format of the first complete records (at most 50 looked at); null when none is recognised. */
export function sniffFormat(lines: readonly string[]): TranscriptFormat | null {
  let seen = 0;
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    if (++seen > 50) break;
    const rec = parseLine(line);
    if (rec === null) continue;
    for (const [name, f] of Object.entries(FORMATS)) if (f.is(rec)) return name as TranscriptFormat;
  }
  return null;
}

/** The events of `lines`, oldest first: by default lines with calls or usage, with "usage" usage only, or "all". */
export function readEvents(format: TranscriptFormat, lines: readonly string[], only?: "usage" | "all"): LineEvents[] {
  const f = FORMATS[format];
  const words = only === "all" ? /^/ : only === "usage" ? f.usage : f.words;
  if (words === null) return [];
  const state = { cwd: null as string | null };
  const out: LineEvents[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    // A harness that rewrites, resumes or copies into the same file writes records again: a copy is the same record.
    if (!words.test(lines[i]!) || seen.has(lines[i]!)) continue;
    seen.add(lines[i]!);
    const rec = parseLine(lines[i]!);
    if (rec === null) continue;
    const ev = f.events(rec, i, state);
    const any = ev.calls.length > 0 || ev.results.length > 0 || ev.usage !== null || ev.window !== null || ev.compacted;
    if (any || ev.items || only === "all") out.push(ev);
  }
  return out;
}

/** One recorded response's usage and its line; a usage without a window takes the last window named before it. */
export type UsagePoint = Usage & { line: number };

/** Every recorded usage since the last compaction, oldest first. */
export function usagePoints(events: readonly LineEvents[]): UsagePoint[] {
  const out: UsagePoint[] = [];
  let window: number | null = null;
  for (const ev of events) {
    if (ev.compacted) out.length = 0;
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

/** The checkpoint's `Source:` value: the format and its records' version (`claude 2.1.332`). */
export function captureSource(cap: Capture): string {
  return `${cap.format} ${cap.version ?? "unknown"}`;
}
