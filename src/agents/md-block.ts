import { Refused } from "../errors.ts";
import { shellQuote } from "./command.ts";
import type { AgentName, HelperLocation } from "./types.ts";

/** The markers around our block in AGENTS.md, GEMINI.md and rule files. */
export const BLOCK_BEGIN = "<!-- session-handoff:begin -->";
const BLOCK_END = "<!-- session-handoff:end -->";

const AGENTS_LINE = "Installed by session-handoff for:";

/** The bootstrap for harnesses that read instruction files; short, as Codex reads only 32 KiB of AGENTS.md text. */
export function bootstrapBody(helper: HelperLocation, agents: AgentName[]): string {
  const h = shellQuote(helper.rel ?? helper.abs);
  const where = helper.rel !== null ? " from the project root" : "";
  return [
    `${AGENTS_LINE} ${agents.join(", ")}.`,
    // A session-start hook's notice already says what check would: the call is spared where hooks run.
    `At session start, unless a \`session-handoff:\` notice came with it, run \`node ${h} check --root .\`${where}.`,
    "Exit 2: a handoff is parked; offer to resume it with the session-handoff skill. Exit 1: a save",
    `was interrupted; run \`node ${h} recover --root .\`, then check again.`,
    "Exit 3: memory failed safety or schema checks; don't load it, tell the user. Exit 0: nothing parked.",
  ].join("\n");
}

/** The whole block, markers included, without a trailing newline. */
export function block(body: string): string {
  return `${BLOCK_BEGIN}\n${body}\n${BLOCK_END}`;
}

/** Line indexes of our block's two markers. */
type BlockSpan = { begin: number; end: number };

/** Finds our block: one begin marker line, then one end marker line; anything else is refused, never guessed. */
export function findBlock(text: string, file: string): BlockSpan | null {
  const lines = unfenced(text);
  const at = (marker: string) => lines.flatMap((l, i) => (l.replace(/\r$/, "").trim() === marker ? [i] : []));
  const begins = at(BLOCK_BEGIN);
  const ends = at(BLOCK_END);
  const mentions = lines.filter(mentionsMarker).length;
  if (begins.length === 0 && ends.length === 0 && mentions === 0) return null;
  if (begins.length !== 1 || ends.length !== 1 || mentions !== 2 || ends[0]! < begins[0]!) {
    const expected = `expected one \`${BLOCK_BEGIN}\` line, then one \`${BLOCK_END}\` line`;
    const fix = "Fix or remove them by hand, then run this again";
    throw new Refused(`${file} has malformed session-handoff markers (${expected}); nothing was changed. ${fix}`);
  }
  return { begin: begins[0]!, end: ends[0]! };
}

/** Whether a line names one of our markers (a line of the user's that does is refused, never guessed at). */
export const mentionsMarker = (line: string) => /session-handoff:(begin|end)/.test(line);

// Code lines blanked: a marker there is the user's example; a fence never closed is text, or our block would be lost.
function unfenced(text: string): string[] {
  const lines = text.split("\n");
  const out = [...lines];
  let fence = "";
  let from = -1;
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i]!.replace(/\r$/, ""));
    if (fence === "" && open && !(open[1]![0] === "`" && open[2]!.includes("`"))) [fence, from] = [open[1]!, i];
    else if (fence !== "" && open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && !open[2]!.trim()) {
      fence = "";
    } else if (fence === "") continue;
    out[i] = "";
    if (fence === "" || i < lines.length - 1) continue;
    out.splice(from, lines.length - from, ...lines.slice(from));
    [fence, i] = ["", from];
  }
  // Indented by 4 after a blank line, code, a heading or a break, a line is indented code as CommonMark reads it
  // (install writes none); after a paragraph line it continues the paragraph.
  const opens = (prev = "") => !prev.trim() || /^ {0,3}(#{1,6}(\s|$)|(=+|-+|\*+|_+)\s*$)/.test(prev);
  for (let i = 0; i < out.length; i++) if (/^( {4}| {0,3}\t)/.test(out[i]!) && opens(out[i - 1])) out[i] = "";
  return out;
}

/** Whether the text holds our begin marker outside fenced code. */
export const holdsBlock = (text: string) => unfenced(text).some((l) => l.includes(BLOCK_BEGIN));

/** The agents that asked for an existing block. */
export function blockAgents(text: string, span: BlockSpan): string[] {
  const lines = text.split("\n").slice(span.begin + 1, span.end);
  const line = lines.map((l) => l.replace(/\r$/, "")).find((l) => l.startsWith(AGENTS_LINE));
  if (!line) return [];
  const names = line.slice(AGENTS_LINE.length).replace(/\.\s*$/, "").split(",");
  return names.map((s) => s.trim()).filter(Boolean);
}

const TOP_BLOCK_FROM = 28 * 1024;

/** Codex reads the first 32 KiB of all AGENTS.md text: a block must end within them. */
export const CODEX_BUDGET = 32 * 1024;

// CRLF when the file has one, so an install never mixes line endings.
const eolOf = (text: string) => (text.includes("\r\n") ? "\r\n" : "\n");

/** Byte offset just past our block's end marker line. */
export function blockEndByte(text: string, span: BlockSpan): number {
  const lines = text.split("\n");
  return Buffer.byteLength(lines.slice(0, span.end + 1).join("\n"), "utf8");
}

// Past TOP_BLOCK_FROM bytes the block goes at the top, so Codex reads it; dropBlock takes out exactly what this adds.
function insertBlock(text: string, blk: string, eol: string): string {
  if (Buffer.byteLength(text, "utf8") <= TOP_BLOCK_FROM) {
    return text.endsWith("\n") ? `${text}${eol}${blk}${eol}` : `${text}${eol}${eol}${blk}`;
  }
  const lines = text.split("\n");
  const cr = eol === "\r\n" ? "\r" : "";
  const heading = /^#{1,6}(\s|$)/.test(lines[0]!.replace(/\r$/, ""));
  lines.splice(heading ? 1 : 0, 0, ...(heading ? [cr, `${blk}${cr}`] : [`${blk}${cr}`, cr]));
  return lines.join("\n");
}

type Body = (agents: AgentName[]) => string;

/** Puts our block, listing `agent` too, into `text` (null: a new file); a block ending past CODEX_BUDGET moves up. */
export function putBlock(text: string | null, file: string, agent: AgentName, body: Body): string {
  if (text === null || text === "") return `${block(body([agent]))}\n`;
  const eol = eolOf(text);
  const span = findBlock(text, file);
  if (span === null) return insertBlock(text, block(body([agent])).split("\n").join(eol), eol);
  const agents = [...new Set([...blockAgents(text, span), agent])].sort() as AgentName[];
  const blk = block(body(agents)).split("\n").join(eol);
  if (blockEndByte(text, span) > CODEX_BUDGET) return insertBlock(dropBlock(text, span) ?? "", blk, eol);
  return replaceBlock(text, span, blk);
}

function replaceBlock(text: string, span: BlockSpan, blk: string): string {
  const lines = text.split("\n");
  const cr = lines[span.end]!.endsWith("\r") ? "\r" : "";
  lines.splice(span.begin, span.end - span.begin + 1, `${blk}${cr}`);
  return lines.join("\n");
}

// `text` without the block at `span` and the blank line install put beside it; null when nothing is left.
function dropBlock(text: string, span: BlockSpan): string | null {
  const lines = text.split("\n");
  const blank = (i: number) => i >= 0 && i < lines.length && lines[i]!.replace(/\r$/, "") === "";
  let from = span.begin;
  let to = span.end;
  if (from > 0 && blank(from - 1)) from--;
  else if (from === 0 && blank(to + 1)) to++;
  const last = span.end === lines.length - 1;
  lines.splice(from, to - from + 1);
  // The file ended with our end marker: it had no final newline before.
  if (last && lines.length > 0) lines[lines.length - 1] = lines[lines.length - 1]!.replace(/\r$/, "");
  const out = lines.join("\n");
  return out === "" ? null : out;
}

/** `text` with `agent` taken off our block, which goes with the last agent; null when nothing would be left. */
export function takeBlock(text: string, file: string, agent: AgentName, body: Body): string | null {
  const span = findBlock(text, file);
  if (span === null) return text;
  const rest = blockAgents(text, span).filter((a) => a !== agent) as AgentName[];
  if (rest.length === 0) return dropBlock(text, span);
  return replaceBlock(text, span, block(body(rest)).split("\n").join(eolOf(text)));
}
