// The context in use, as each harness records it in its transcript (docs/context-threshold.md):
// Claude Code writes each response's `usage` but never the window; Codex writes `token_count`
// events with the window. Pure: lines in, usage points out.
import { obj, parseLine, str, type TranscriptFormat } from "./types.ts";

/** One recorded response: the tokens in the context after it, the window when known, where it is. */
export interface UsagePoint {
  used: number;
  /** The window the transcript says, or the one known for its model; null when neither. */
  window: number | null;
  model: string | null;
  /** Index of the line in the lines given. */
  line: number;
}

/** Claude Code's window when nothing says otherwise (harnesses.md, "Context in use"). */
export const CLAUDE_DEFAULT_WINDOW = 200_000;
// Models whose default window is 1M tokens (2.1.332's default); a `[1m]` suffix says so for any.
const ONE_MILLION = new Set(["claude-opus-5-5"]);

/** The window of a Claude model by name: 1,000,000 for `[1m]` models and those that default to it, else 200,000. */
export function claudeWindow(model: string | null): number {
  if (model === null) return CLAUDE_DEFAULT_WINDOW;
  if (/\[1m\]$/i.test(model) || ONE_MILLION.has(model.toLowerCase())) return 1_000_000;
  return CLAUDE_DEFAULT_WINDOW;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

function claudePoint(rec: Record<string, unknown>, line: number): UsagePoint | null {
  if (rec.type !== "assistant" || rec.isSidechain === true) return null;
  const message = obj(rec.message);
  const usage = obj(message?.usage);
  if (usage === null) return null;
  // Claude Code's own count: input + cache creation + cache read + output of the last response.
  const used = num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens) + num(usage.output_tokens);
  const model = str(message?.model);
  // Synthetic records (an interrupted or refused turn) carry zero usage: they say nothing.
  if (used === 0 || model === "<synthetic>") return null;
  // The model asked for keeps a `[1m]` suffix the API's answer drops.
  const asked = str(rec.requestedModel);
  const name = asked !== null && /\[1m\]$/i.test(asked) ? asked : model;
  return { used, window: claudeWindow(name), model: name, line };
}

function codexPoint(rec: Record<string, unknown>, line: number): UsagePoint | null {
  const payload = obj(rec.payload);
  // 0.171.0 writes `token_usage_record` as soon as a response ends, before its tool runs, and
  // `token_count` (with the window) only after the tool's output: the PostToolUse hook sees the first.
  if (rec.type === "token_usage_record") {
    const usage = obj(payload?.usage);
    const used = num(usage?.total_tokens) || num(usage?.input_tokens) + num(usage?.output_tokens);
    return used === 0 ? null : { used, window: null, model: null, line };
  }
  if (rec.type !== "event_msg" || payload?.type !== "token_count") return null;
  const info = obj(payload.info);
  const last = obj(info?.last_token_usage);
  if (info === null || last === null) return null;
  const used = num(last.total_tokens) || num(last.input_tokens) + num(last.output_tokens);
  if (used === 0) return null;
  const window = num(info.model_context_window);
  return { used, window: window > 0 ? window : null, model: null, line };
}

// Cheap prefilters: a line without these words holds no usage record.
const WORDS: Partial<Record<TranscriptFormat, RegExp>> = { claude: /"usage"/, codex: /"token_count"|"token_usage_record"/ };

/** Every recorded usage in `lines`, oldest first (empty for a format that records none). */
export function usagePoints(format: TranscriptFormat, lines: readonly string[]): UsagePoint[] {
  const words = WORDS[format];
  if (words === undefined) return [];
  const out: UsagePoint[] = [];
  lines.forEach((line, i) => {
    if (!words.test(line)) return;
    const rec = parseLine(line);
    if (rec === null) return;
    const p = format === "claude" ? claudePoint(rec, i) : codexPoint(rec, i);
    if (p !== null) out.push(p);
  });
  return out;
}
