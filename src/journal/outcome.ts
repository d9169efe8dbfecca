// "Did the handoff help?": what a session did after it resumed from a handoff, measured from
// its transcript by `checkpoint` (never by `write`, which reads no transcript), recorded as a
// journal entry of counts, paths and commands, never the user's words (docs/decisions/journal.md).
// Pure: events in, facts out.

/** One tool call after the resume, in transcript order. */
export interface ToolEvent {
  kind: "command" | "edit" | "other";
  /** The shell command (kind `command`). */
  command?: string;
  /** The file edited (kind `edit`), as the harness recorded it. */
  path?: string;
}

/** What one resume led to. */
export interface Outcome {
  /**
   * `yes` when one of the first edits or commands touched what the proposed next step named; `unknown` when it names
   * nothing concrete or nothing followed.
   */
  followed: "yes" | "no" | "unknown";
  /** Commands or paths after the resume matching a failed approach, each once, in order. */
  retried: string[];
  /** Tool calls between the resume and the first edit (null: no edit followed). */
  callsToFirstEdit: number | null;
}

/** How many of the first edits and commands are compared with the next step. */
export const FIRST_ACTIONS = 5;

const CODE_SPAN = /`([^`\n]+)`/g;
// A path-like word: has a slash or a file extension (src/a.ts, README.md, ./run.sh).
const PATHISH = /(?:^|[\s(`"'])((?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.-]+)*\.[A-Za-z0-9]{1,8}|(?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.-]+)+)(?=$|[\s),:;`"'])/g;

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
  if (head && !/^[A-Z]/.test(head) && /^[a-z][\w.-]*(\s+-{1,2}[\w-]+|\s+\S+)*$/.test(head) && /\s-{1,2}\w|^[a-z][\w.-]*$/.test(head)) return [norm(head)];
  return [];
}

function touches(ev: ToolEvent, thing: string): boolean {
  if (ev.kind === "edit" && ev.path) {
    const p = norm(ev.path);
    return p === thing || p.endsWith(`/${thing}`) || thing.endsWith(`/${p}`);
  }
  if (ev.kind === "command" && ev.command) return norm(ev.command).includes(thing);
  return false;
}

/**
 * Measures one resume: `events` are the tool calls after the `brief` call, in order;
 * `nextStep` the handoff's first next step (its proposed next step), `failed` its failed
 * approaches.
 */
export function measureOutcome(events: readonly ToolEvent[], nextStep: string | null, failed: readonly string[]): Outcome {
  const actions = events.filter((e) => e.kind !== "other").slice(0, FIRST_ACTIONS);
  const named = nextStep === null ? [] : namedThings(nextStep);
  const followed = named.length === 0 || actions.length === 0 ? "unknown" : actions.some((e) => named.some((t) => touches(e, t))) ? "yes" : "no";
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
