import { Refused } from "../errors.ts";
import { AGENTS_LINE, BLOCK_BEGIN, BLOCK_END, block } from "./bootstrap.ts";
import type { AgentName } from "./types.ts";

/** Where our block sits in a Markdown file: line indexes of the two markers. */
export interface BlockSpan {
  begin: number;
  end: number;
}

/**
 * Finds our block: exactly one begin marker line, then exactly one end marker line, each
 * alone on its line. Anything else is malformed and refused, never guessed (contract §9).
 * @returns null when the file has neither marker.
 * @throws Refused (exit 2) naming the problem and what to do.
 */
export function findBlock(text: string, file: string): BlockSpan | null {
  const lines = text.split("\n");
  const at = (marker: string) => lines.flatMap((l, i) => (l.replace(/\r$/, "").trim() === marker ? [i] : []));
  const begins = at(BLOCK_BEGIN);
  const ends = at(BLOCK_END);
  const mentions = lines.filter((l) => l.includes("session-handoff:begin") || l.includes("session-handoff:end")).length;
  if (begins.length === 0 && ends.length === 0 && mentions === 0) return null;
  if (begins.length !== 1 || ends.length !== 1 || mentions !== 2 || ends[0]! < begins[0]!) {
    throw new Refused(
      `${file} has malformed session-handoff markers (expected one \`${BLOCK_BEGIN}\` line, then one \`${BLOCK_END}\` line); nothing was changed. Fix or remove them by hand, then run this again`,
    );
  }
  return { begin: begins[0]!, end: ends[0]! };
}

/** The agents named in an existing block (ruling 11: the block lists the agents that asked for it). */
export function blockAgents(text: string, span: BlockSpan): string[] {
  const lines = text.split("\n").slice(span.begin + 1, span.end);
  const line = lines.find((l) => l.startsWith(AGENTS_LINE));
  if (!line) return [];
  return line
    .slice(AGENTS_LINE.length)
    .replace(/\.\s*$/, "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Puts our block into `text` (null: a new file): replaced in place when present, else
 * appended after a blank line. `body` builds it from the agents that asked for it, `agent`
 * added to those already listed.
 */
export function putBlock(text: string | null, file: string, agent: AgentName, body: (agents: AgentName[]) => string): string {
  if (text === null || text === "") return `${block(body([agent]))}\n`;
  const span = findBlock(text, file);
  if (span === null) {
    const sep = text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n";
    return `${text}${sep}${block(body([agent]))}\n`;
  }
  const agents = [...new Set([...blockAgents(text, span), agent])].sort() as AgentName[];
  const lines = text.split("\n");
  lines.splice(span.begin, span.end - span.begin + 1, block(body(agents)));
  return lines.join("\n");
}

/**
 * `text` with `agent` taken off our block; the block goes with the last agent (ruling 11),
 * with the blank line that install put before it. Returns null when nothing would be left.
 */
export function takeBlock(text: string, file: string, agent: AgentName, body: (agents: AgentName[]) => string): string | null {
  const span = findBlock(text, file);
  if (span === null) return text;
  const rest = blockAgents(text, span).filter((a) => a !== agent) as AgentName[];
  const lines = text.split("\n");
  if (rest.length > 0) {
    lines.splice(span.begin, span.end - span.begin + 1, block(body(rest)));
    return lines.join("\n");
  }
  let from = span.begin;
  const atEnd = lines.slice(span.end + 1).every((l) => l === "");
  if (atEnd && from > 0 && lines[from - 1] === "") from--;
  lines.splice(from, span.end - from + 1);
  const out = lines.join("\n");
  return out.trim() === "" ? null : out;
}
