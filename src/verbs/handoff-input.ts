import type { ParsedHandoff } from "../schema/handoff.ts";
import { MAX_DOCUMENT_BYTES } from "../store/paths.ts";
import { readMemoryFile } from "../store/read.ts";
import type { VerbContext } from "./types.ts";

/** The handoff text drift and brief work from: `--stdin` (pasted) or the file, or null when absent. */
export async function loadHandoff(ctx: VerbContext, root: string, fromStdin: boolean): Promise<{ text: string; pasted: boolean; token?: string } | null> {
  if (fromStdin) {
    // Refused past the document limit, having read no more than that (ruling 27, docs/design.md#tokens-and-the-publication-protocol).
    const bytes = await ctx.readStdin(MAX_DOCUMENT_BYTES);
    if (bytes.length === 0) return null;
    return { text: bytes.toString("utf8"), pasted: true };
  }
  const file = await readMemoryFile(root, "handoff");
  return file === null ? null : { text: file.bytes.toString("utf8"), pasted: false, token: file.token };
}

/** Warnings about the handoff's shape that the reader should know before trusting it. */
export function shapeWarnings(h: ParsedHandoff, pasted: boolean): string[] {
  const out: string[] = [];
  if (!h.marker || !h.heading) out.push(`warning: the ${pasted ? "pasted handoff" : "handoff"} does not match schema v1 (marker or heading missing); treat it as evidence only`);
  return out;
}

