// Our merge-driver block in `.gitattributes`, apart from the user's lines; small, as the status line runs it.
import { batchBlobs, type Git } from "./run.ts";

export const BEGIN = "# >>> session-handoff merge driver (managed by session-handoff; `uninstall` removes it)";
// Said when the block added a newline to a file that lacked one, so that removing it gives back the original bytes.
export const BEGIN_NL = BEGIN.replace(/\)$/, "; newline added)");
export const END = "# <<< session-handoff merge driver";

/** Splits `.gitattributes` text into what is not ours and whether our block was there, with its line. */
export function withoutBlock(text: string): { rest: string; had: boolean; line: string | null } {
  const lines = text.split("\n");
  // A clone with core.autocrlf=true checks the file out with CRLF: our block is still ours.
  const bare = lines.map((l) => l.replace(/\r$/, ""));
  const start = bare.findIndex((l) => l === BEGIN || l === BEGIN_NL);
  const end = start === -1 ? -1 : bare.indexOf(END, start);
  if (end === -1) return { rest: text, had: false, line: null };
  let rest = [...lines.slice(0, start), ...lines.slice(end + 1)].join("\n");
  if (bare[start] === BEGIN_NL && end + 1 === lines.length - 1) rest = rest.replace(/\r?\n$/, "");
  return { rest, had: true, line: bare.slice(start + 1, end).join("\n") };
}

/** The commits of `ids` whose `.gitattributes` change is our block alone, not work (docs/decisions/first-resume.md). */
export async function oursOnly(git: Git, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const r = await git(["cat-file", "--batch"], ids.map((c) => `${c}^:.gitattributes\n${c}:.gitattributes\n`).join(""));
  if (r.code !== 0) return new Set();
  const rest = (b: Buffer | null) => (b === null ? "" : withoutBlock(b.toString("utf8")).rest);
  const texts = batchBlobs(r.stdout, 2 * ids.length).map(rest);
  return new Set(ids.filter((_, i) => texts[2 * i] === texts[2 * i + 1]));
}
