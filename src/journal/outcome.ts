// What a session did after its last `brief`, from the transcript: counts, paths and commands, never the user's words.
import type { LineEvents, ToolEvent } from "../agents/transcripts/types.ts";

/** What one resume led to; `followed` is `unknown` when the next step names nothing concrete or nothing followed. */
export interface Outcome {
  followed: "yes" | "no" | "unknown";
  /** Commands or paths matching a failed approach, each once, in order. */
  retried: string[];
  /** Tool calls between the resume and the first edit (null: no edit followed). */
  callsToFirstEdit: number | null;
}

/** How many of the first edits and commands are compared with the next step. */
const FIRST_ACTIONS = 5;

const CODE_SPAN = /`([^`\n]+)`/g;
// A path-like word: has a slash or a file extension (src/a.ts, README.md, ./run.sh).
const PATH_PART = String.raw`(?:\.{0,2}\/)?[\w@.-]+`;
const WITH_EXT = String.raw`${PATH_PART}(?:\/[\w@.-]+)*\.[A-Za-z0-9]{1,8}`;
const WITH_DIR = String.raw`${PATH_PART}(?:\/[\w@.-]+)+`;
const PATHISH = new RegExp(String.raw`(?:^|[\s(\x60"'])(${WITH_EXT}|${WITH_DIR})(?=$|[\s),:;\x60"'])`, "g");

function norm(s: string): string {
  return s.replace(/\s+/g, " ").trim().toLowerCase();
}

/** The concrete things a text names: code spans and path-like words, normalised; at least 3 characters each. */
export function namedThings(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(CODE_SPAN)) out.add(norm(m[1]!));
  for (const m of text.matchAll(PATHISH)) out.add(norm(m[1]!).replace(/^\.\//, ""));
  return [...out].filter((t) => t.length >= 3);
}

/** What a failed approach names: its code spans and paths, else its words before `:` when they read like a command. */
export function failedSignatures(entry: string): string[] {
  const text = entry.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "");
  const things = namedThings(text);
  if (things.length > 0) return things;
  const head = /^([^:—–]{3,60}?)\s*(?::|\s[—–]\s)/.exec(text)?.[1];
  // "sort -u: breaks the order" names a command; "Sorting first: …" (prose) names none.
  if (!head || /^[A-Z]/.test(head) || !/^[a-z][\w.-]*(\s+-{1,2}[\w-]+|\s+\S+)*$/.test(head)) return [];
  return /\s-{1,2}\w|^[a-z][\w.-]*$/.test(head) ? [norm(head)] : [];
}

function touches(ev: ToolEvent, thing: string): boolean {
  if (ev.kind === "edit" && ev.path) {
    const p = norm(ev.path);
    return p === thing || p.endsWith(`/${thing}`) || thing.endsWith(`/${p}`);
  }
  return ev.kind === "command" && ev.command !== undefined && norm(ev.command).includes(thing);
}

/** Measures one resume from the tool calls after the `brief`, the handoff's first next step and failed approaches. */
export function measureOutcome(events: readonly ToolEvent[], next: string | null, failed: readonly string[]): Outcome {
  const actions = events.filter((e) => e.kind !== "other").slice(0, FIRST_ACTIONS);
  const named = next === null ? [] : namedThings(next);
  const hit = actions.some((e) => named.some((t) => touches(e, t)));
  const followed = named.length === 0 || actions.length === 0 ? "unknown" : hit ? "yes" : "no";
  const retried: string[] = [];
  const sigs = failed.flatMap(failedSignatures);
  for (const e of events) {
    const what = e.kind === "command" ? e.command : e.kind === "edit" ? e.path : undefined;
    if (!what || retried.includes(what)) continue;
    if (sigs.some((s) => touches(e, s))) retried.push(what);
  }
  const firstEdit = events.findIndex((e) => e.kind === "edit");
  return { followed, retried, callsToFirstEdit: firstEdit < 0 ? null : firstEdit };
}

/** A `brief` call of this helper: its `--root` (unquoted), the folder recorded for it, and what followed. */
export interface ResumeCall {
  rootArg: string | null;
  cwd: string | null;
  /** Tool calls after it, in order. */
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

/** The last `brief` call and what followed; Codex's completed items, once seen, are its commands and edits. */
export function findLastResume(lineEvents: readonly LineEvents[]): ResumeCall | null {
  const items = lineEvents.some((ev) => ev.items);
  const all = lineEvents.flatMap((ev) =>
    ev.calls.flatMap((call) =>
      call.events.map((raw) => {
        const counted = !items || call.item === true || raw.kind === "other";
        return { raw, event: counted ? raw : ({ kind: "other" } as ToolEvent), call };
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
  const events = all.slice(last + 1).map((e) => e.event);
  const isSave = (c: string) => /\bwrite\s+handoff\b/.test(c) && /memory_io\.mjs/.test(c);
  const save = events.find((e) => e.kind === "command" && isSave(e.command!));
  const expectedToken = /--expected-current-sha256[= ]["']?([0-9a-f]{64})\b/.exec(save?.command ?? "")?.[1] ?? null;
  return { rootArg, cwd: all[last]!.call.cwd, events, expectedToken };
}
