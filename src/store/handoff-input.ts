import { Refused } from "../errors.ts";
import { firstNul, memoryText } from "../guard/file-verdict.ts";
import type { ParsedHandoff } from "../schema/handoff.ts";
import { quoted } from "../guard/sanitize.ts";
import { QUOTE_CUT } from "../schema/validate-common.ts";
import { MAX_DOCUMENT_BYTES } from "./paths.ts";
import { readMemoryFile } from "./read.ts";

type Stdin = { readStdin(maxBytes: number): Promise<Buffer> };

/** The handoff text drift and brief work from: `--stdin` (pasted) or the file; null when absent. */
export async function loadHandoff(ctx: Stdin, root: string, fromStdin: boolean) {
  const file = fromStdin ? null : await readMemoryFile(root, "handoff");
  const bytes = fromStdin ? await ctx.readStdin(MAX_DOCUMENT_BYTES) : file?.bytes;
  if (bytes === undefined || (fromStdin && bytes.length === 0)) return null;
  // Stdin has no file to move away: the advice is the sender's.
  const nul = fromStdin ? firstNul(bytes) : -1;
  if (nul >= 0) throw new Refused(`the pasted handoff holds a NUL byte (at byte ${nul}): it is not text and was not ` +
    "loaded; send the handoff's text without that byte on stdin, or leave out --stdin to read the project's handoff");
  // The warnings name what was shown as `<U+XXXX>` / `<0xNN>`.
  const m = memoryText(fromStdin ? "the pasted handoff" : "HANDOFF.md", bytes);
  return { text: m.text, warnings: m.warning === null ? [] : [m.warning], pasted: fromStdin, token: file?.token };
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

