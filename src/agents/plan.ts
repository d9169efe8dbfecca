import path from "node:path";
import { Refused } from "../errors.ts";
import { holdsOurHooks, hooksSnippet, mergeHooks, mergeStatusLine } from "./json-hooks.ts";
import { removeHooks, removeStatusLine } from "./json-hooks.ts";
import { block, BLOCK_BEGIN, blockAgents, findBlock, holdsBlock, putBlock, takeBlock } from "./md-block.ts";
import { CLINE_HOOK_MARK } from "./command.ts";
import { orNull } from "../store/files.ts";
import type { AgentName, Edit, OwnedFileEdit } from "./types.ts";

/** What a user would paste by hand for an edit, when the file cannot be edited safely. */
export function snippetOf(edit: Edit, agent: AgentName): string {
  if (edit.kind === "json-hooks") return hooksSnippet(edit);
  if (edit.kind === "md-block") return block(edit.body([agent]));
  return edit.content;
}

/** True when `text` still holds something install put there (a hook, a block, an owned file). */
export function holdsOurs(edit: Edit, text: string): boolean {
  if (edit.kind === "json-hooks") return holdsOurHooks(text, edit);
  if (edit.kind === "md-block") return holdsBlock(text);
  return ownedSpan(edit, text) !== null;
}

/** `holdsOurs` for one agent: a shared AGENTS.md block counts only when it lists `agent`. Throws Refused. */
export function holdsAgentEntries(edit: Edit, agent: AgentName, text: string): boolean {
  if (!holdsOurs(edit, text)) return false;
  const span = edit.kind === "md-block" ? findBlock(text, edit.file) : null;
  return span === null || blockAgents(text, span).includes(agent);
}

/** The text install wants for one file, given what is there (null: absent). Pure; throws Refused. */
export function installText(edit: Edit, agent: AgentName, current: string | null, shown: string): string {
  switch (edit.kind) {
    case "json-hooks": {
      const merged = mergeHooks(current, shown, edit);
      return edit.statusLine === undefined ? merged : mergeStatusLine(merged, edit, edit.statusLine);
    }
    case "md-block":
      return putBlock(current, shown, agent, edit.body);
    case "owned-file": {
      const put = current === null ? (ours: string) => ours : ownedSpan(edit, current);
      const why = "exists and was not written by install; nothing was changed. Move it away, or merge this into it";
      if (put === null) throw new Refused(`${shown} ${why} by hand:\n${edit.content}`);
      if (current !== null && edit.content.includes(BLOCK_BEGIN)) findBlock(current, shown);
      return put(edit.content);
    }
  }
}

/** The text uninstall leaves for one file (null: delete it); `committed`: the file at HEAD, when git tracks it. */
export function uninstallText(edit: Edit, agent: AgentName, current: string, shown: string, committed: string | null) {
  // A file committed without entries of ours is the user's: given back as committed, or emptied of ours, never deleted.
  const theirs = committed !== null && !holdsOurs(edit, committed);
  const forms = edit.kind === "json-hooks" ? [edit, { ...edit, statusLine: undefined }] : [edit];
  if (theirs && forms.some((e) => current === orNull(() => installText(e, agent, committed, shown)))) return committed;
  const rest = takeOurs(edit, agent, current, shown);
  return rest !== current && !theirs && nothingLeft(edit, rest) ? null : rest;
}

function takeOurs(edit: Edit, agent: AgentName, current: string, shown: string): string {
  if (edit.kind === "md-block") return takeBlock(current, shown, agent, edit.body) ?? "";
  if (edit.kind === "owned-file") return ownedSpan(edit, current)?.("") ?? current;
  return removeHooks(edit.statusLine === undefined ? current : removeStatusLine(current, edit), shown, edit);
}

// Nothing of the user's left once ours went: no text; blanks in a file install creates; `{}` with no comment.
const nothingLeft = (edit: Edit, rest: string) => edit.kind === "md-block" ? rest === ""
  : edit.kind === "owned-file" ? !rest.trim() : /^\uFEFF?\s*\{\s*\}\s*$/.test(rest);

// Our part runs from install's first line through its last (an older script's to the end); lines around are theirs.
function ownedSpan(edit: OwnedFileEdit, text: string): ((ours: string) => string) | null {
  const want = edit.content.replace(/\r?\n$/, "").split(/\r?\n/);
  const lines = text.split("\n");
  const bare = (i: number) => lines[i]!.replace(/\r$/, "");
  const from = lines.findIndex((_, i) => bare(i) === want[0]);
  if (from < 0) return null;
  let to = lines.findIndex((_, i) => i > from && bare(i) === want[want.length - 1]);
  if (to < 0) to = lines.length - 1;
  const ours = lines.slice(from, to + 1).join("\n");
  if (!ours.includes(BLOCK_BEGIN) && !ours.includes(CLINE_HOOK_MARK)) return null;
  return (mid) => lines.slice(0, from).map((l) => `${l}\n`).join("") + mid + lines.slice(to + 1).join("\n");
}

/** How a file is named to the user: from the project, or `~/…`, or whole (a per-user file outside HOME). */
export const shownOf = (edit: Edit, file: string, home: string | null) =>
  home === null ? edit.file : file === userPath(home, edit.file) ? `~/${edit.file}` : file;

/** `rel` (`/`-separated) under `base`; with `env` (per-user), `.claude/…` is under CLAUDE_CONFIG_DIR when set. */
export function userPath(base: string, rel: string, env?: Record<string, string | undefined>): string {
  const claude = env !== undefined && /^\.claude(\/|$)/.test(rel);
  return claude ? path.join(claudeUserDir(base, env), rel.slice(8)) : path.join(base, ...rel.split("/"));
}

/** Claude Code's per-user folder, where its settings and plugins live: CLAUDE_CONFIG_DIR when set, else ~/.claude. */
export const claudeUserDir = (home: string, env: Record<string, string | undefined>) =>
  env.CLAUDE_CONFIG_DIR || path.join(home, ".claude");
