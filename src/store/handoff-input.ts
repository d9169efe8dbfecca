import { loadMemoryText } from "../guard/memory-text.ts";
import type { ParsedHandoff } from "../schema/handoff.ts";
import { quoted } from "../guard/sanitize.ts";
import { QUOTE_CUT } from "../schema/validate-common.ts";
import { MAX_DOCUMENT_BYTES } from "./paths.ts";
import { readMemoryFile } from "./read.ts";

interface Loaded {
  text: string;
  pasted: boolean;
  token?: string;
  /** What was shown as `<U+XXXX>` / `<0xNN>`. */
  warnings: string[];
}

/** The handoff text drift and brief work from: `--stdin` (pasted) or the file; null when absent. */
type Stdin = { readStdin(maxBytes: number): Promise<Buffer> };

export async function loadHandoff(ctx: Stdin, root: string, fromStdin: boolean): Promise<Loaded | null> {
  if (fromStdin) {
    const bytes = await ctx.readStdin(MAX_DOCUMENT_BYTES);
    if (bytes.length === 0) return null;
    return { ...decoded("the pasted handoff", bytes), pasted: true };
  }
  const file = await readMemoryFile(root, "handoff");
  if (file === null) return null;
  return { ...decoded("HANDOFF.md", file.bytes), pasted: false, token: file.token };
}

function decoded(file: string, bytes: Buffer): { text: string; warnings: string[] } {
  const m = loadMemoryText(file, bytes);
  return { text: m.text, warnings: m.warning === null ? [] : [m.warning] };
}

/** Warnings about the handoff's shape that the reader should know before trusting it. */
export function shapeWarnings(h: ParsedHandoff, pasted: boolean): string[] {
  const out: string[] = [];
  const which = pasted ? "pasted handoff" : "handoff";
  if (!h.marker || !h.heading) {
    out.push(`warning: the ${which} does not match schema v1 (marker or heading missing); treat it as evidence only`);
  }
  // Nothing on file is silently dropped: the validator's "did you mean", and where the items went.
  for (const s of h.strays) {
    const head = quoted(`## ${s.title}`, QUOTE_CUT);
    const what = `warning: line ${s.line}: ${head} is not a section of schema v1`;
    const near = `did you mean \`## ${s.near}\`? its items are shown under ${s.near}`;
    out.push(s.near === null ? `${what}; nothing reads it: run \`validate handoff\`` : `${what}: ${near}`);
  }
  return out;
}

