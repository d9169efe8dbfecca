import { Refused } from "../errors.ts";
import type { HookSpec } from "./types.ts";

/** Our JSON entries are the hooks whose command names the helper (ruling 11). */
export const HELPER_FILE = "memory_io.mjs";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function isOurs(hook: Json): boolean {
  return isObj(hook) && typeof hook.command === "string" && hook.command.includes(HELPER_FILE);
}

/** The JSON a user pastes by hand when the file cannot be rewritten safely. */
export function hooksSnippet(hooks: HookSpec[], command: (args: string) => string): string {
  return JSON.stringify({ hooks: groupsOf(hooks, command) }, null, 2);
}

function groupsOf(hooks: HookSpec[], command: (args: string) => string): Obj {
  const out: Obj = {};
  for (const h of hooks) {
    const group: Obj = {};
    if (h.matcher !== undefined) group.matcher = h.matcher;
    group.hooks = [{ type: "command", command: command(h.args), timeout: h.timeout }];
    out[h.event] = [...((out[h.event] as Json[] | undefined) ?? []), group];
  }
  return out;
}

/**
 * Parses a settings file strictly: plain JSON whose top level is an object, `hooks` (when
 * present) an object of arrays. Comments and trailing commas (Gemini accepts them) are not
 * JSON and are refused, never rewritten (ruling 11).
 * @throws Refused (exit 2) saying what is wrong, with `snippet` to paste by hand.
 */
export function parseSettings(text: string, file: string, snippet: string): Obj {
  let parsed: Json;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, "")) as Json;
  } catch (err) {
    throw new Refused(
      `${file} is not plain JSON (${(err as Error).message}; comments and trailing commas are not rewritten); nothing was changed. Add this to it by hand:\n${snippet}`,
    );
  }
  if (!isObj(parsed)) throw new Refused(`${file} does not hold a JSON object; nothing was changed. Add this to it by hand:\n${snippet}`);
  if (parsed.hooks !== undefined && !isObj(parsed.hooks)) {
    throw new Refused(`${file}: "hooks" is not an object; nothing was changed. Add this to it by hand:\n${snippet}`);
  }
  for (const [event, groups] of Object.entries((parsed.hooks as Obj | undefined) ?? {})) {
    if (!Array.isArray(groups)) throw new Refused(`${file}: hooks.${event} is not a list; nothing was changed. Add this to it by hand:\n${snippet}`);
  }
  return parsed;
}

// The indentation the file already uses (two spaces when it has none).
function indentOf(text: string): string | number {
  const m = /\n([ \t]+)"/.exec(text);
  return m ? m[1]! : 2;
}

function serialize(value: Obj, like: string | null): string {
  const out = JSON.stringify(value, null, like === null ? 2 : indentOf(like));
  return like === null || like.endsWith("\n") ? `${out}\n` : out;
}

// Removes our hooks from every event; groups and events left empty by that go too.
function withoutOurs(hooks: Obj, keepFirstOf: Set<string>): { hooks: Obj; firstAt: Map<string, number> } {
  const out: Obj = {};
  const firstAt = new Map<string, number>();
  for (const [event, groups] of Object.entries(hooks)) {
    const kept: Json[] = [];
    for (const g of groups as Json[]) {
      if (!isObj(g) || !Array.isArray(g.hooks) || !g.hooks.some(isOurs)) {
        kept.push(g);
        continue;
      }
      if (keepFirstOf.has(event) && !firstAt.has(event)) firstAt.set(event, kept.length);
      const rest = g.hooks.filter((h) => !isOurs(h));
      if (rest.length > 0) kept.push({ ...g, hooks: rest });
    }
    if (kept.length > 0 || !(groups as Json[]).some((g) => isObj(g) && Array.isArray(g.hooks) && g.hooks.some(isOurs))) out[event] = kept;
  }
  return { hooks: out, firstAt };
}

/**
 * The settings text with our hooks merged in (contract §9): the user's other keys and hooks
 * kept, ours once per event, in place of an earlier one of ours when there was one (so a
 * re-install of the same entry changes no byte). `text` null: a new file.
 * @throws Refused (see parseSettings).
 */
export function mergeHooks(text: string | null, file: string, hooks: HookSpec[], command: (args: string) => string): string {
  const snippet = hooksSnippet(hooks, command);
  const settings = text === null ? {} : parseSettings(text, file, snippet);
  const events = new Set(hooks.map((h) => h.event));
  const { hooks: cleaned, firstAt } = withoutOurs((settings.hooks as Obj | undefined) ?? {}, events);
  const ours = groupsOf(hooks, command);
  for (const [event, groups] of Object.entries(ours)) {
    const list = [...((cleaned[event] as Json[] | undefined) ?? [])];
    list.splice(firstAt.get(event) ?? list.length, 0, ...(groups as Json[]));
    cleaned[event] = list;
  }
  const next: Obj = { ...settings, hooks: cleaned };
  if (text !== null && JSON.stringify(next) === JSON.stringify(settings)) return text;
  return serialize(next, text);
}

/**
 * The settings text with every hook of ours removed, or null when nothing but an empty
 * object would be left. Unchanged text when there was nothing of ours.
 * @throws Refused (see parseSettings).
 */
export function removeHooks(text: string, file: string): string | null {
  const settings = parseSettings(text, file, "(nothing to add: remove the hooks whose command names memory_io.mjs)");
  if (settings.hooks === undefined) return text;
  const { hooks } = withoutOurs(settings.hooks as Obj, new Set());
  const next: Obj = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  if (JSON.stringify(next) === JSON.stringify(settings)) return text;
  if (Object.keys(next).length === 0) return null;
  return serialize(next, text);
}

