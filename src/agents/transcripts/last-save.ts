// The session's last handoff save: a checkpoint covers only what happened after it. Pure.
import type { LineEvents } from "./types.ts";

/** The save a capture starts after: its `CURRENT-SHA256:` token, and the line it was made or answered on. */
export interface LastSave {
  token: string;
  line: number;
  // Its own recorded result shows it; false for a last call not answered yet, judged by the handoff's `Saved:`.
  own: boolean;
}

/** Whether a token is the current HANDOFF.md's or an archive's, and the current one's token and `Saved:` (ms). */
export interface ProjectHandoffs {
  accepts: (token: string) => boolean;
  current: { token: string; savedMs: number | null } | null;
}

// The helper's own save: `memory_io.mjs … write handoff` in a shell command, quoted or not.
const SAVE_COMMAND = /memory_io\.mjs\\?["']?(?:\s+--?[a-z][\w-]*(?:[= ](?:"[^"]*"|'[^']*'|\S+))?)*\s+write\s+handoff\b/;
const TOKEN_LINE = /^CURRENT-SHA256: ([0-9a-f]{64})\s*$/m;
// Gemini prefixes the merged output with `Output: `.
const SAVED_LINE = /^(?:Output: )?(?:saved|unchanged) HANDOFF\.md\b/m;

/** True when a shell command is this helper's `write handoff` (any root: the token decides). */
export function isSaveCommand(command: string): boolean {
  return SAVE_COMMAND.test(command);
}

/** The token a save's recorded output prints when it succeeded (`saved`/`unchanged`), else null. */
export function savedToken(output: string, failed: boolean): string | null {
  if (failed || !SAVED_LINE.test(output)) return null;
  return TOKEN_LINE.exec(output)?.[1] ?? null;
}

/** An ISO time floored to its second, in ms: `Saved:` has seconds only. */
function secondOf(ts: string | null): number | null {
  const ms = ts === null ? Number.NaN : Date.parse(ts);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) * 1000 : null;
}

/** The last successful `write handoff` of a token `project.accepts`; an unanswered last one by the current `Saved:`. */
export function findLastSave(events: readonly LineEvents[], project: ProjectHandoffs): LastSave | null {
  const open = new Map<string, number>();
  let found: LastSave | null = null;
  let unanswered: { line: number; ts: string | null } | null = null;
  const answered = (text: string, failed: boolean, line: number) => {
    const token = savedToken(text, failed);
    if (token !== null && project.accepts(token)) found = { token, line, own: true };
  };
  for (const ev of events) {
    for (const r of ev.results) {
      const at = open.get(r.id);
      if (at === undefined) continue;
      open.delete(r.id);
      if (unanswered?.line === at) unanswered = null;
      answered(r.text, r.failed, ev.line);
    }
    if (ev.calls.some((c) => c.item !== true)) unanswered = null;
    for (const call of ev.calls) {
      if (!isSaveCommand(call.text)) continue;
      if (call.result !== null) answered(call.result.text, call.result.failed, ev.line);
      else {
        if (call.id !== null) open.set(call.id, ev.line);
        unanswered = { line: ev.line, ts: call.ts };
      }
    }
  }
  // The last call, its result not written yet: the handoff on disk says whether it landed.
  const savedMs = project.current?.savedMs ?? null;
  const at = unanswered === null ? null : secondOf(unanswered.ts);
  if (unanswered !== null && savedMs !== null && at !== null && savedMs >= at) {
    return { token: project.current!.token, line: unanswered.line, own: false };
  }
  return found;
}

/** Without a save in the transcript, the last line at or before the current `Saved:` second; -1 for none. */
export function lineOfSavedTime(events: readonly LineEvents[], project: ProjectHandoffs): number {
  const savedMs = project.current?.savedMs ?? null;
  let line = -1;
  for (const ev of events) {
    const at = secondOf(ev.ts);
    if (savedMs !== null && at !== null && at <= savedMs) line = ev.line;
  }
  return line;
}
