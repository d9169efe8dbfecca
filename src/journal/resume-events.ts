// The last resume in a transcript part: this helper's `brief` call and the tool calls after it,
// for the journal's resume outcome (docs/decisions/journal.md). Pure: the format's events in.
import type { LineEvents, ToolEvent } from "../agents/transcripts/types.ts";

/** A `brief` call of this helper: where it was made and what followed. */
export interface ResumeCall {
  line: number;
  /** Its `--root` argument, unquoted, or null. */
  rootArg: string | null;
  /** The working folder the transcript records for the call (or the session), or null. */
  cwd: string | null;
  ts: string | null;
  /** Tool calls after it, in order (the brief itself left out). */
  events: ToolEvent[];
  /** The token the first `write handoff` after it expected: the handoff the session resumed from. */
  expectedToken: string | null;
}

// `memory_io.mjs … brief` in a shell command, quoted or not; `brief --stdin` (a pasted handoff) resumes no project.
const OPTIONS = String.raw`((?:\s+--?[a-z][\w-]*(?:[= ](?:"[^"]*"|'[^']*'|\S+))?)*)`;
const BRIEF_REST = String.raw`\s+brief\b(?![^\n|;&]*--stdin)([^\n|;&]*)`;
const BRIEF = new RegExp(String.raw`memory_io\.mjs\\?["']?` + OPTIONS + BRIEF_REST);
const ROOT_ARG = /--root[= ](?:"([^"]*)"|'([^']*)'|(\S+))/;

/** The `--root` of a brief command of this helper; null when the command is no such brief. */
export function briefCall(command: string): { rootArg: string | null } | null {
  const m = BRIEF.exec(command);
  if (!m) return null;
  const r = ROOT_ARG.exec(`${m[1]} ${m[2]}`);
  return { rootArg: r ? (r[1] ?? r[2] ?? r[3] ?? null) : null };
}

/**
 * The last `brief` call of this helper in the events and the tool calls after it. Codex: once its
 * completed items appear, they are the commands and edits (the calls that carried them count as
 * other calls, so nothing is counted twice).
 */
export function findLastResume(lineEvents: readonly LineEvents[]): ResumeCall | null {
  const items = lineEvents.some((ev) => ev.items);
  const all = lineEvents.flatMap((ev) =>
    ev.calls.flatMap((call) =>
      call.events.map((raw) => {
        const counted = !items || call.item === true || raw.kind === "other";
        return { raw, event: counted ? raw : ({ kind: "other" } as ToolEvent), call, line: ev.line };
      }),
    ),
  );
  let last = -1;
  let rootArg: string | null = null;
  all.forEach(({ raw }, i) => {
    const brief = raw.kind === "command" ? briefCall(raw.command ?? "") : null;
    if (brief !== null) [last, rootArg] = [i, brief.rootArg];
  });
  if (last < 0) return null;
  const { call, line } = all[last]!;
  const events = all.slice(last + 1).map((e) => e.event);
  const isSave = (c: string) => /\bwrite\s+handoff\b/.test(c) && /memory_io\.mjs/.test(c);
  const save = events.find((e) => e.kind === "command" && isSave(e.command!));
  const expectedToken = /--expected-current-sha256[= ]["']?([0-9a-f]{64})\b/.exec(save?.command ?? "")?.[1] ?? null;
  return { line, rootArg, cwd: call.cwd, ts: call.ts, events, expectedToken };
}
