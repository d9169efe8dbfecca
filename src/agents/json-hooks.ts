import { createScanner, findNodeAtLocation, parse, parseTree, printParseErrorCode, visit, type JSONPath, type Node,
  type ParseError } from "jsonc-parser/lib/esm/main.js";
import path from "node:path";
import { Refused } from "../errors.ts";
import { succeeds } from "../store/files.ts";
import { shellQuote, unguarded } from "./command.ts";
import { windowsShaped } from "./harness-path.ts";
import type { HookSpec, JsonHooksEdit } from "./types.ts";

/** The helper's file name, which the commands of our hooks (and of other tools' maybe) name. */
export const HELPER_FILE = "memory_io.mjs";

const FILE_TAIL = '; [ ! -f "$f" ] || ';

type Commands = Pick<JsonHooksEdit, "command" | "commandWindows" | "hooks">;

// What install writes for each hook now, and the forms of before (bare `node`, no backslash guard), upgraded in place.
export function installedForms(spec: Commands, args = spec.hooks.map((h) => h.args)): string[] {
  return args.flatMap((a) => {
    const now = spec.command(a);
    return [now, unguarded(now), `${now.slice(0, now.indexOf(FILE_TAIL) + FILE_TAIL.length)}node "$f" ${a}`];
  });
}

/** The helper path of a command install writes from any copy of the helper; null for another tool's command. */
export function installShaped(spec: Commands, command: string, args?: string[]): string | null {
  for (const form of installedForms(spec, args)) {
    const tail = form.slice(form.indexOf(FILE_TAIL));
    if (!command.startsWith("f=") || !command.endsWith(tail)) continue;
    const [, dir = "", word = ""] = /^("\$\w+"\/)?(.*)$/s.exec(command.slice(2, -tail.length))!;
    const name = word.startsWith("'") ? word.slice(1, -1).replaceAll(`'\\''`, "'") : word;
    // The path is one word exactly as install quotes it, naming our helper (a Windows path read as Windows does).
    const base = (windowsShaped(name) ? path.win32 : path.posix).basename(name);
    if (shellQuote(name) === word && base === HELPER_FILE) return dir + name;
  }
  return null;
}

// Ours is a command install writes (now or before) from any copy of the helper; one merely naming it is the user's.
const commandOf = (hook: Json) => (isObj(hook) && typeof hook.command === "string" ? hook.command : "");
const oursFor = (spec: Commands) => (hook: Json) => installShaped(spec, commandOf(hook)) !== null;

// jsonc-parser recurses once per level: deeper files are refused rather than overflow the stack.
const MAX_JSON_DEPTH = 64;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const JSONC = { allowTrailingComma: true, disallowComments: false };

const parseJsonc = (text: string) => parse(text.replace(/^\uFEFF/, ""), [], JSONC) as Json;

function keepBom(text: string, change: (body: string) => string): string {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  return bom + change(text.slice(bom.length));
}

function byHand(file: string, what: string, fix: string): Refused {
  return new Refused(`${file}${what}; nothing was changed. ${fix}`);
}

// Removes the hooks `drop` names from an event's groups (a group of only those whole), last first so paths stay valid.
function dropHooks(text: string, event: string, groups: Json[], drop: (h: Json) => boolean, fmt: Format) {
  let out = text;
  for (let g = groups.length - 1; g >= 0; g--) {
    const group = groups[g]!;
    if (!isObj(group) || !Array.isArray(group.hooks) || !group.hooks.some(drop)) continue;
    if (group.hooks.every(drop)) {
      out = edit(out, ["hooks", event, g], undefined, fmt);
      continue;
    }
    for (let h = group.hooks.length - 1; h >= 0; h--) {
      if (drop(group.hooks[h]!)) out = edit(out, ["hooks", event, g, "hooks", h], undefined, fmt);
    }
  }
  return out;
}

/** The JSON a user pastes by hand when the file cannot be edited safely. */
export function hooksSnippet(spec: Commands): string {
  return JSON.stringify({ hooks: groupsOf(spec) }, null, 2);
}

function groupOf(h: HookSpec, commands: Commands): Obj {
  const windows: Obj = commands.commandWindows ? { commandWindows: commands.commandWindows(h.args) } : {};
  const hook: Obj = { type: "command", command: commands.command(h.args), ...windows, timeout: h.timeout };
  return h.matcher === undefined ? { hooks: [hook] } : { matcher: h.matcher, hooks: [hook] };
}

function groupsOf(spec: Commands): Obj {
  const out: Obj = {};
  for (const h of spec.hooks) out[h.event] = [...((out[h.event] as Json[] | undefined) ?? []), groupOf(h, spec)];
  return out;
}

// SyntaxKind is a const enum we cannot import: 1 and 3 open a brace or bracket, 2 and 4 close them, 17 is the end.
function depthOf(text: string): number {
  const scanner = createScanner(text, false);
  let depth = 0;
  let max = 0;
  for (let kind: number = scanner.scan(); kind !== 17; kind = scanner.scan()) {
    if (kind === 1 || kind === 3) max = Math.max(max, ++depth);
    else if (kind === 2 || kind === 4) depth--;
  }
  return max;
}

// The comments and trailing commas in `text`, by line; scanned as depthOf does (12 and 13 are comments).
function looseParts(text: string): { comment: number[]; "trailing comma": number[] } {
  const scanner = createScanner(text, false);
  const found = { comment: [] as number[], "trailing comma": [] as number[] };
  let comma: number | null = null;
  for (let kind: number = scanner.scan(); kind !== 17; kind = scanner.scan()) {
    const line = scanner.getTokenStartLine() + 1;
    if (kind === 12 || kind === 13) found.comment.push(line);
    else if (kind !== 14 && kind !== 15) {
      if (comma !== null && (kind === 2 || kind === 4)) found["trailing comma"].push(comma);
      comma = kind === 5 ? line : null;
    }
  }
  return found;
}

/** Why the harness reading `edit`'s file as strict JSON skips this text whole, and the fix; null when it loads. */
export function strictSkip(edit: JsonHooksEdit, text: string, shown: string): { what: string; fix: string } | null {
  const body = text.replace(/^\uFEFF/, "");
  if (edit.strict === undefined || body.trim() === "" || succeeds(() => JSON.parse(body))) return null;
  const found = Object.entries(looseParts(body)).filter(([, lines]) => lines.length > 0);
  const parts = found.map(([what, lines]) => {
    const at = [...new Set(lines)];
    return `the ${what}${lines.length > 1 ? "s" : ""} on line${at.length > 1 ? "s" : ""} ${at.join(", ")}`;
  });
  const held = parts.length > 0 ? `holds ${parts.join(" and ")}` : "is not strict JSON";
  const skips = `${edit.strict} reads strict JSON only and skips the whole file, so none of its hooks run`;
  const them = found.length === 1 && found[0]![1].length === 1 ? "it" : "them";
  const fix = parts.length > 0 ? `remove ${them} from ${shown}` : `make ${shown} strict JSON`;
  return { what: `${shown} ${held}: ${skips}`, fix };
}

// JSON with comments and trailing commas (Gemini accepts both), whose `hooks` is an object of arrays, else Refused.
function parseSettings(text: string, file: string, fix: string): Obj {
  const body = text.replace(/^\uFEFF/, "");
  if (depthOf(body) > MAX_JSON_DEPTH) {
    throw byHand(file, ` nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`, fix);
  }
  const errors: ParseError[] = [];
  const parsed = parse(body, errors, JSONC) as Json;
  if (errors.length > 0) {
    const e = errors[0]!;
    throw byHand(file, ` is not valid JSON (${printParseErrorCode(e.error)} at offset ${e.offset})`, fix);
  }
  if (!isObj(parsed)) throw byHand(file, " does not hold a JSON object", fix);
  const twice = duplicateKey(body);
  if (twice !== null) {
    // A parser keeps the last of two keys and drops the first: an edit would delete the user's.
    const what = ` has the key "${twice.key}" twice in one object (lines ${twice.lines.join(" and ")})`;
    throw byHand(file, what, `Merge the two into one "${twice.key}" (keep the entries of both), then run this again.`);
  }
  if (parsed.hooks !== undefined && !isObj(parsed.hooks)) {
    throw byHand(file, `: "hooks" is not an object`, fix);
  }
  for (const [event, groups] of Object.entries((parsed.hooks as Obj | undefined) ?? {})) {
    if (!Array.isArray(groups)) throw byHand(file, `: hooks.${event} is not a list`, fix);
  }
  return parsed;
}

// The first key that appears twice in one object, with the 1-based lines of both.
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
    JSONC,
  );
  return found;
}

type Format = { unit: string; eol: string };

// How the file is laid out, so that what we insert looks like what is there.
function formatOf(text: string): Format {
  return { unit: /\n([ \t]+)["\]}]/.exec(text)?.[1] ?? "  ", eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

// The leading blanks of the line `offset` is on.
const indentAt = (text: string, at: number) => /^[ \t]*/.exec(text.slice(text.lastIndexOf("\n", at - 1) + 1))![0];
const splice = (text: string, at: number, cut: number, put: string) => text.slice(0, at) + put + text.slice(at + cut);
const endOf = (n: Node) => n.offset + n.length;

// An edit (value undefined: remove) touching no byte but ours, so uninstall gives back the user's layout exactly.
function edit(text: string, at: JSONPath, value: Json | undefined, fmt: Format, insert = false): string {
  const tree = parseTree(text, [], JSONC)!;
  let parent = findNodeAtLocation(tree, at.slice(0, -1));
  // A missing parent (no `hooks` yet) is added with the value in it.
  for (; parent === undefined && value !== undefined; parent = findNodeAtLocation(tree, at.slice(0, -1))) {
    value = { [at[at.length - 1]!]: value };
    at = at.slice(0, -1);
  }
  if (parent === undefined) return text;
  const key = at[at.length - 1]!;
  const kids = parent.children ?? [];
  const i = typeof key === "number" ? key : kids.findIndex((p) => p.children![0]!.value === key);
  const show = (v: Json, indent: string) => JSON.stringify(v, null, fmt.unit).split("\n").join(fmt.eol + indent);
  if (value === undefined) return i < 0 || i >= kids.length ? text : remove(text, parent, i, fmt);
  if (i >= 0 && i < kids.length && !insert) {
    const node = typeof key === "number" ? kids[i]! : kids[i]!.children![1]!;
    return splice(text, node.offset, node.length, show(value, indentAt(text, node.offset)));
  }
  const indent = indentAt(text, parent.offset) + fmt.unit;
  const item = (typeof key === "number" ? "" : `${JSON.stringify(key)}: `) + show(value, indent);
  const pos = i < 0 || i > kids.length ? kids.length : i;
  if (pos > 0) return splice(text, endOf(kids[pos - 1]!), 0, `,${fmt.eol}${indent}${item}`);
  if (kids.length > 0) return splice(text, kids[0]!.offset, 0, `${item},${fmt.eol}${indent}`);
  const close = parent.length === 2 ? fmt.eol + indentAt(text, parent.offset) : "";
  return splice(text, parent.offset + 1, 0, `${fmt.eol}${indent}${item}${close}`);
}

// Removes the `i`th child of `parent` with what the insertion put before it (a comma, a line break, the indent).
function remove(text: string, parent: Node, i: number, fmt: Format): string {
  const kids = parent.children!;
  const end = endOf(kids[i]!);
  if (i > 0) return splice(text, endOf(kids[i - 1]!), end - endOf(kids[i - 1]!), "");
  if (kids.length > 1) return splice(text, kids[0]!.offset, kids[1]!.offset - kids[0]!.offset, "");
  const close = parent.offset + parent.length - 1;
  const from = /^\s*$/.test(text.slice(parent.offset + 1, kids[0]!.offset)) ? parent.offset + 1 : kids[0]!.offset;
  const rest = text.slice(end, close);
  return splice(text, from, (rest === fmt.eol + indentAt(text, parent.offset) ? close : end) - from, "");
}

const parsedHooks = (text: string): Obj => hooksOf(parseJsonc(text));
const hooksOf = (v: Json): Obj => (isObj(v) && isObj(v.hooks) ? v.hooks : {});

// An event's groups with ours taken out, and where the first of ours stood: an old form is upgraded in place.
function withoutOurs(groups: Json[], isOurs: (h: Json) => boolean): { kept: Json[]; at: number | null } {
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

// Puts `ours` where the first of ours stood (else at the end); an event already right is untouched, byte for byte.
function rewrite(text: string, ours: Obj | null, isOurs: (h: Json) => boolean): string {
  const fmt = formatOf(text);
  let out = text;
  const existing = parsedHooks(text);
  for (const [event, groups] of Object.entries(existing) as [string, Json[]][]) {
    const want = (ours?.[event] as Json[] | undefined) ?? [];
    const { kept, at } = withoutOurs(groups, isOurs);
    const next = [...kept];
    next.splice(at ?? next.length, 0, ...want);
    if (JSON.stringify(next) === JSON.stringify(groups)) continue;
    out = dropHooks(out, event, groups, isOurs, fmt);
    // Emptied of ours (nothing is wanted then): the event's list goes too when nothing else is in it.
    if (next.length === 0 && bareAt(out, ["hooks", event])) out = edit(out, ["hooks", event], undefined, fmt);
    want.forEach((group, i) => {
      out = edit(out, ["hooks", event, (at ?? kept.length) + i], group, fmt, true);
    });
  }
  for (const [event, groups] of Object.entries(ours ?? {})) {
    if (existing[event] === undefined) out = edit(out, ["hooks", event], groups, fmt);
  }
  const emptied = Object.keys(existing).length > 0 && Object.keys(parsedHooks(out)).length === 0;
  if (ours === null && emptied && bareAt(out, ["hooks"])) out = edit(out, ["hooks"], undefined, fmt);
  return out;
}

// An emptied container goes only when no comment of the user's is in it or in the separator its removal takes.
function bareAt(text: string, where: JSONPath): boolean {
  const tree = parseTree(text);
  const node = tree === undefined ? undefined : findNodeAtLocation(tree, where);
  if (node === undefined || !/^[[{]\s*[\]}]$/.test(text.slice(node.offset, endOf(node)))) return false;
  const [prop, obj] = [node.parent!, node.parent!.parent!];
  const [kids, i] = [obj.children!, obj.children!.indexOf(prop)];
  const cut = i > 0 ? [endOf(kids[i - 1]!), endOf(prop)] : [obj.offset + 1, kids[1]?.offset ?? endOf(prop)];
  return !/\/[/*]/.test(text.slice(cut[0], cut[1]));
}

/** The settings text with our hooks merged in, the user's kept; `text` null or blank (no settings): a new file. */
export function mergeHooks(text: string | null, file: string, spec: JsonHooksEdit): string {
  const ours = groupsOf(spec);
  if (text === null || !text.replace(/^\uFEFF/, "").trim()) return `${JSON.stringify({ hooks: ours }, null, 2)}\n`;
  parseSettings(text, file, `Add this to it by hand:\n${hooksSnippet(spec)}`);
  return keepBom(text, (body) => rewrite(body, ours, oursFor(spec)));
}

/** Whether the settings text holds a hook of ours. */
export const holdsOurHooks = (text: string, spec: Commands) => oursIn(text).some(oursFor(spec));

/** The settings text with every hook of ours removed. */
export function removeHooks(text: string, file: string, spec: Commands): string {
  if (text.replace(/^\uFEFF/, "").trim() === "") return text;
  parseSettings(text, file, "Fix it and run this again, or take out the hooks of session-handoff by hand.");
  if (!holdsOurHooks(text, spec)) return text;
  return keepBom(text, (body) => rewrite(body, null, oursFor(spec)));
}

/** Each hook naming the helper in a settings file (ours or another tool's), with its event and matcher, for doctor. */
export function oursIn(text: string): { event: string; command: string; matcher: string | null }[] {
  return Object.entries(parsedHooks(text)).flatMap(([event, groups]) =>
    (Array.isArray(groups) ? groups : []).filter(isObj).flatMap((g) => {
      const matcher = typeof g.matcher === "string" ? g.matcher : null;
      const commands = Array.isArray(g.hooks) ? g.hooks.map(commandOf) : [];
      return commands.filter((c) => c.includes(HELPER_FILE)).map((command) => ({ event, command, matcher }));
    }));
}

// Our status line runs the user's own command first: it is kept, single-quoted, after `--then`.
const THEN = / statusline --then '((?:[^']|'\\'')*)'/;
const isOurStatus = (spec: Commands, command: string): boolean =>
  installShaped(spec, command.replace(THEN, " statusline"), ["statusline"]) !== null;

function theirsOf(ours: string): string | null {
  const m = THEN.exec(ours);
  return m ? m[1]!.replaceAll(`'\\''`, "'") : null;
}

/** The settings text with Claude Code's `statusLine` running ours after the user's own command (`--then`). */
export function mergeStatusLine(text: string, spec: Commands, args: string): string {
  const parsed = parseJsonc(text);
  if (!isObj(parsed)) return text;
  const sl = parsed.statusLine;
  if (sl !== undefined && !(isObj(sl) && typeof sl.command === "string")) return text;
  const was = isObj(sl) ? (sl.command as string) : null;
  const theirs = was === null ? null : isOurStatus(spec, was) ? theirsOf(was) : was;
  const want = spec.command(theirs === null ? args : `${args} --then '${theirs.replaceAll("'", `'\\''`)}'`);
  if (was === want) return text;
  const line = { type: "command", command: want };
  const [at, value]: [JSONPath, Json] = isObj(sl) ? [["statusLine", "command"], want] : [["statusLine"], line];
  return keepBom(text, (body) => edit(body, at, value, formatOf(body)));
}

/** True when a settings text sets a `statusLine` of any kind. */
export function setsStatusLine(text: string | null): boolean {
  const parsed = text === null ? null : parseJsonc(text);
  return isObj(parsed) && parsed.statusLine !== undefined;
}

/** True when a settings text's `statusLine` runs ours (install --global set it). */
export function runsOurStatusLine(text: string | null, spec: Commands): boolean {
  const parsed = text === null ? null : parseJsonc(text);
  const sl = isObj(parsed) ? parsed.statusLine : undefined;
  return isObj(sl) && typeof sl.command === "string" && isOurStatus(spec, sl.command);
}

/** The settings text with our status line taken out: the user's command put back as it was, or the key removed. */
export function removeStatusLine(text: string, spec: Commands): string {
  const parsed = parseJsonc(text);
  if (!isObj(parsed) || !isObj(parsed.statusLine) || typeof parsed.statusLine.command !== "string") return text;
  const was = parsed.statusLine.command;
  if (!isOurStatus(spec, was)) return text;
  const theirs = theirsOf(was);
  const at = theirs === null ? ["statusLine"] : ["statusLine", "command"];
  return keepBom(text, (body) => edit(body, at, theirs ?? undefined, formatOf(body)));
}
