import {
  applyEdits,
  createScanner,
  modify,
  parse,
  printParseErrorCode,
  visit,
  type FormattingOptions,
  type JSONPath,
  type ParseError,
} from "jsonc-parser/lib/esm/main.js";
import { Refused } from "../errors.ts";
import type { HookSpec } from "./types.ts";

/** Our JSON entries are the hooks whose command names the helper (docs/design.md#integrations). */
export const HELPER_FILE = "memory_io.mjs";

/** Deepest nesting of arrays and objects a settings file may have before it is refused. */
export const MAX_JSON_DEPTH = 64;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function isOurs(hook: Json): boolean {
  return isObj(hook) && typeof hook.command === "string" && hook.command.includes(HELPER_FILE);
}

/** The commands of one settings file: the POSIX one, and the Windows one where the harness has that field. */
export interface HookCommands {
  command(args: string): string;
  commandWindows?(args: string): string;
}

/** The JSON a user pastes by hand when the file cannot be edited safely. */
export function hooksSnippet(hooks: HookSpec[], commands: HookCommands): string {
  return JSON.stringify({ hooks: groupsOf(hooks, commands) }, null, 2);
}

function groupOf(h: HookSpec, commands: HookCommands): Obj {
  const group: Obj = {};
  if (h.matcher !== undefined) group.matcher = h.matcher;
  const hook: Obj = { type: "command", command: commands.command(h.args) };
  if (commands.commandWindows) hook.commandWindows = commands.commandWindows(h.args);
  hook.timeout = h.timeout;
  group.hooks = [hook];
  return group;
}

function groupsOf(hooks: HookSpec[], commands: HookCommands): Obj {
  const out: Obj = {};
  for (const h of hooks) out[h.event] = [...((out[h.event] as Json[] | undefined) ?? []), groupOf(h, commands)];
  return out;
}

// The deepest nesting of `text`, counted on the scanner's tokens (strings and comments are
// skipped whole): jsonc-parser's own parse and modify recurse once per level.
// jsonc-parser's SyntaxKind is a const enum, which this build's module syntax cannot import.
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

function depthOf(text: string): number {
  const scanner = createScanner(text, false);
  let depth = 0;
  let max = 0;
  for (let kind: number = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind === OPEN_BRACE || kind === OPEN_BRACKET) max = Math.max(max, ++depth);
    else if (kind === CLOSE_BRACE || kind === CLOSE_BRACKET) depth--;
  }
  return max;
}

/**
 * Parses a settings file: JSON with comments and trailing commas (Gemini accepts both; they
 * are kept, since the file is edited in place), whose top level is an object and `hooks`
 * (when present) an object of arrays.
 * @throws Refused (exit 2) saying what is wrong, with `snippet` to paste by hand: a syntax
 *   error, another shape, or nesting deeper than MAX_JSON_DEPTH levels.
 */
export function parseSettings(text: string, file: string, snippet: string): Obj {
  const body = text.replace(/^\uFEFF/, "");
  if (depthOf(body) > MAX_JSON_DEPTH) {
    throw new Refused(`${file} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; nothing was changed. Add this to it by hand:\n${snippet}`);
  }
  const errors: ParseError[] = [];
  const parsed = parse(body, errors, { allowTrailingComma: true, disallowComments: false }) as Json;
  if (errors.length > 0) {
    const e = errors[0]!;
    throw new Refused(`${file} is not valid JSON (${printParseErrorCode(e.error)} at offset ${e.offset}); nothing was changed. Add this to it by hand:\n${snippet}`);
  }
  if (!isObj(parsed)) throw new Refused(`${file} does not hold a JSON object; nothing was changed. Add this to it by hand:\n${snippet}`);
  const twice = duplicateKey(body);
  if (twice !== null) {
    // A parser keeps the last of two keys and drops the first: an edit would delete the user's.
    throw new Refused(
      `${file} has the key "${twice.key}" twice in one object (lines ${twice.lines.join(" and ")}); nothing was changed. ` +
        `Merge the two into one "${twice.key}" (keep the entries of both), then run this again.`,
    );
  }
  if (parsed.hooks !== undefined && !isObj(parsed.hooks)) {
    throw new Refused(`${file}: "hooks" is not an object; nothing was changed. Add this to it by hand:\n${snippet}`);
  }
  for (const [event, groups] of Object.entries((parsed.hooks as Obj | undefined) ?? {})) {
    if (!Array.isArray(groups)) throw new Refused(`${file}: hooks.${event} is not a list; nothing was changed. Add this to it by hand:\n${snippet}`);
  }
  return parsed;
}

// The first key that appears twice in one object, with the 1-based lines of both; null when none.
function duplicateKey(text: string): { key: string; lines: [number, number] } | null {
  const stack: Map<string, number>[] = [];
  let found: { key: string; lines: [number, number] } | null = null;
  visit(
    text,
    {
      onObjectBegin: () => void stack.push(new Map()),
      onObjectEnd: () => void stack.pop(),
      onObjectProperty: (key, _offset, _length, startLine) => {
        const keys = stack[stack.length - 1];
        if (keys === undefined || found !== null) return;
        const first = keys.get(key);
        if (first !== undefined) found = { key, lines: [first + 1, startLine + 1] };
        else keys.set(key, startLine);
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  return found;
}

// How the file is laid out, so that what we insert looks like what is there.
function formatOf(text: string): FormattingOptions {
  const m = /\n([ \t]+)["\]}]/.exec(text);
  const indent = m ? m[1]! : "  ";
  return { insertSpaces: !indent.startsWith("\t"), tabSize: indent.startsWith("\t") ? 1 : indent.length, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

// One jsonc-parser edit (value undefined: remove), comments and layout around it kept.
function edit(text: string, path: JSONPath, value: Json | undefined, fmt: FormattingOptions, insert = false): string {
  return applyEdits(text, modify(text, path, value, { formattingOptions: fmt, isArrayInsertion: insert }));
}

function parsedHooks(text: string): Obj {
  const v = parse(text, [], { allowTrailingComma: true, disallowComments: false }) as Json;
  return isObj(v) && isObj(v.hooks) ? v.hooks : {};
}

// An event's groups with ours taken out, and where the first group of ours stood (the place
// ours go back to: an old form of ours, a bare `node` or a matcher without `fork`, is
// upgraded where it stands).
function withoutOurs(groups: Json[]): { kept: Json[]; at: number | null } {
  const kept: Json[] = [];
  let at: number | null = null;
  for (const g of groups) {
    if (!isObj(g) || !Array.isArray(g.hooks) || !g.hooks.some(isOurs)) {
      kept.push(g);
      continue;
    }
    at ??= kept.length;
    const rest = g.hooks.filter((h) => !isOurs(h));
    if (rest.length > 0) kept.push({ ...g, hooks: rest });
  }
  return { kept, at };
}

/**
 * Removes our hooks from `text`; with `ours`, puts ours in, one group per hook, where the
 * first group of ours stood (else at the end). An event whose groups are already what they
 * should be is not touched, so a re-install changes no byte. Events and `hooks` left empty
 * by a removal go too.
 */
function rewrite(text: string, ours: Obj | null): string {
  const fmt = formatOf(text);
  let out = text;
  const existing = parsedHooks(text);
  for (const [event, groups] of Object.entries(existing) as [string, Json[]][]) {
    const want = (ours?.[event] as Json[] | undefined) ?? [];
    const { kept, at } = withoutOurs(groups);
    const next = [...kept];
    next.splice(at ?? next.length, 0, ...want);
    if (JSON.stringify(next) === JSON.stringify(groups)) continue;
    if (next.length === 0 && at !== null) {
      out = edit(out, ["hooks", event], undefined, fmt);
      continue;
    }
    // Ours out, last first (paths stay valid), then ours in at their place.
    for (let g = groups.length - 1; g >= 0; g--) {
      const group = groups[g]!;
      if (!isObj(group) || !Array.isArray(group.hooks) || !group.hooks.some(isOurs)) continue;
      if (group.hooks.every(isOurs)) out = edit(out, ["hooks", event, g], undefined, fmt);
      else for (let h = group.hooks.length - 1; h >= 0; h--) if (isOurs(group.hooks[h]!)) out = edit(out, ["hooks", event, g, "hooks", h], undefined, fmt);
    }
    const base = at ?? kept.length;
    want.forEach((group, i) => {
      out = edit(out, ["hooks", event, base + i], group, fmt, true);
    });
  }
  for (const [event, groups] of Object.entries(ours ?? {})) {
    if (existing[event] === undefined) out = edit(out, ["hooks", event], groups, fmt);
  }
  if (ours === null && Object.keys(existing).length > 0 && Object.keys(parsedHooks(out)).length === 0) out = edit(out, ["hooks"], undefined, fmt);
  return out;
}

/**
 * The settings text with our hooks merged in (docs/design.md#integrations): the user's other keys, hooks,
 * comments and layout kept; ours once per event. `text` null: a new file.
 * @throws Refused (see parseSettings).
 */
export function mergeHooks(text: string | null, file: string, hooks: HookSpec[], commands: HookCommands): string {
  const snippet = hooksSnippet(hooks, commands);
  const ours = groupsOf(hooks, commands);
  if (text === null) return `${JSON.stringify({ hooks: ours }, null, 2)}\n`;
  parseSettings(text, file, snippet);
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  const next = rewrite(body, ours);
  return next === body ? text : bom + next;
}

/**
 * The settings text with every hook of ours removed (other bytes kept, but the separators
 * next to them), or null when nothing but an empty object would be left. Unchanged text when
 * there was nothing of ours.
 * @throws Refused (see parseSettings).
 */
export function removeHooks(text: string, file: string): string | null {
  const settings = parseSettings(text, file, "(nothing to add: remove the hooks whose command names memory_io.mjs)");
  if (!isObj(settings.hooks) || !JSON.stringify(settings.hooks).includes(HELPER_FILE)) return text;
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  const next = rewrite(body, null);
  if (next === body) return text;
  const left = parse(next, [], { allowTrailingComma: true, disallowComments: false }) as Json;
  if (isObj(left) && Object.keys(left).length === 0 && !/\/[/*]/.test(next)) return null;
  return bom + next;
}

/**
 * The settings text without the hooks that name the helper but are not `exact` (another
 * tool's entry, or ours edited by hand): doctor judges only our own entries current or
 * outdated, and reports the others as not ours. Groups and events left empty by the removal
 * go too; other bytes are kept. Unparseable text is returned as it is. Pure.
 */
export function withoutForeignHooks(text: string, exact: (command: string) => boolean): string {
  const foreign = (h: Json): boolean => isOurs(h) && !exact((h as Obj).command as string);
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const fmt = formatOf(text);
  let out = text.slice(bom.length);
  const hits = (g: Json): g is Obj & { hooks: Json[] } => isObj(g) && Array.isArray(g.hooks) && g.hooks.some(foreign);
  for (const [event, groups] of Object.entries(parsedHooks(out)) as [string, Json[]][]) {
    if (!Array.isArray(groups) || !groups.some(hits)) continue;
    if (groups.every((g) => hits(g) && g.hooks.every(foreign))) {
      out = edit(out, ["hooks", event], undefined, fmt);
      continue;
    }
    // Last first, so that the paths of those before stay valid.
    for (let g = groups.length - 1; g >= 0; g--) {
      const group = groups[g]!;
      if (!hits(group)) continue;
      if (group.hooks.every(foreign)) out = edit(out, ["hooks", event, g], undefined, fmt);
      else for (let h = group.hooks.length - 1; h >= 0; h--) if (foreign(group.hooks[h]!)) out = edit(out, ["hooks", event, g, "hooks", h], undefined, fmt);
    }
  }
  return bom + out;
}

/**
 * Our hooks in a settings file as doctor reads them: each hook of ours, with its event, its
 * command and the matcher of its group. Unparseable text gives none.
 */
export function oursIn(text: string): { event: string; command: string; matcher: string | null }[] {
  const hooks = parsedHooks(text.replace(/^\uFEFF/, ""));
  const out: { event: string; command: string; matcher: string | null }[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      if (!isObj(g) || !Array.isArray(g.hooks)) continue;
      for (const h of g.hooks) if (isOurs(h)) out.push({ event, command: (h as Obj).command as string, matcher: typeof g.matcher === "string" ? g.matcher : null });
    }
  }
  return out;
}

// Our status line runs the user's own command first: it is kept, single-quoted, after `--then`.
const THEN = / statusline --then '((?:[^']|'\\'')*)'/;
const isOurStatus = (command: string): boolean => command.includes(HELPER_FILE) && / statusline\b/.test(command);

function theirsOf(ours: string): string | null {
  const m = THEN.exec(ours);
  return m ? m[1]!.replaceAll(`'\\''`, "'") : null;
}

/**
 * The settings text with Claude Code's `statusLine` running ours (`command`), composed with the
 * user's: a command status line of theirs is kept whole after `--then` (the other keys of
 * the object too), so ours prints after theirs; an existing one of ours is brought up to date.
 * A status line that is not a command one is left alone. Unparseable text is returned as is.
 */
export function mergeStatusLine(text: string, command: (args: string) => string, args: string): string {
  const parsed = parse(text.replace(/^\uFEFF/, ""), [], { allowTrailingComma: true, disallowComments: false }) as Json;
  if (!isObj(parsed)) return text;
  const sl = parsed.statusLine;
  if (sl !== undefined && !(isObj(sl) && typeof sl.command === "string")) return text;
  const was = isObj(sl) ? (sl.command as string) : null;
  const theirs = was === null ? null : isOurStatus(was) ? theirsOf(was) : was;
  const want = command(theirs === null ? args : `${args} --then '${theirs.replaceAll("'", `'\\''`)}'`);
  if (was === want) return text;
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  return bom + edit(body, ["statusLine"], isObj(sl) ? { ...sl, command: want } : { type: "command", command: want }, formatOf(body));
}

/** The settings text with our status line taken out: the user's command put back as it was, or the key removed. */
export function removeStatusLine(text: string): string {
  const parsed = parse(text.replace(/^\uFEFF/, ""), [], { allowTrailingComma: true, disallowComments: false }) as Json;
  if (!isObj(parsed) || !isObj(parsed.statusLine) || typeof parsed.statusLine.command !== "string") return text;
  const sl = parsed.statusLine;
  const was = sl.command as string;
  if (!isOurStatus(was)) return text;
  const theirs = theirsOf(was);
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  return bom + edit(body, ["statusLine"], theirs === null ? undefined : { ...sl, command: theirs }, formatOf(body));
}
