// A newer handoff in the branch's upstream than the tree's (a teammate's, fetched and not pulled), for check and
// brief (docs/decisions/upstream-handoff.md).
import { branchWords } from "../guard/words.ts";
import { isoSeconds } from "../schema/values.ts";
import { parseStatusV2 } from "./status.ts";
import { batchBlobs, runGit, unlessUnavailable } from "./run.ts";

type Env = Record<string, string | undefined>;
/** The upstream's name, its handoff's `Saved:` time, and whether this clone's memory has changes git would not pull
 * over (untracked, or saves not published). */
export type UpstreamHandoff = { ref: string; saved: string; unpublished: boolean };

const savedOf = (text: string) => /^Saved: (\S+)[ \t]*\r?$/m.exec(text)?.[1] ?? "";

/** The upstream's handoff when it differs from `tree` and its `Saved:` is later; one git run, two when it is. */
export async function upstreamHandoff(root: string, env: Env, tree: string): Promise<UpstreamHandoff | null> {
  const input = "@{upstream}:./.ai/memory/HANDOFF.md\n";
  const r = await unlessUnavailable(runGit(root, ["cat-file", "--batch"], env, undefined, { input }), null);
  const theirs = r?.code === 0 ? batchBlobs(r.stdout, 1)[0]?.toString("utf8") : undefined;
  const at = theirs === undefined ? NaN : Date.parse(savedOf(theirs));
  if (theirs === undefined || theirs === tree || !(at > Date.parse(savedOf(tree)))) return null;
  // Its name, and the memory's own changes: the same status drift reads, for the memory dir alone.
  const args = ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--", ".ai/memory"];
  const s = await unlessUnavailable(runGit(root, args, env), null);
  const snap = s?.code === 0 ? parseStatusV2(s.stdout) : null;
  if (snap?.upstream == null) return null;
  // The time as this helper writes it: the upstream's file is a teammate's text, never printed as is.
  return { ref: snap.upstream.name, saved: isoSeconds(at), unpublished: snap.dirty.length > 0 };
}

/** What to run to take the upstream's handoff: git pull stops on memory it does not track or that changed here. */
export const pullCommand = (u: UpstreamHandoff, helper: string) =>
  u.unpublished ? `\`node ${helper} publish\`, then \`git pull\` (git pull stops on unpublished memory)` : "`git pull`";

/** What check and brief say of it. */
export const upstreamSentence = (u: UpstreamHandoff, helper: string) =>
  `the upstream ${branchWords(u.ref)} holds a newer handoff (Saved: ${u.saved}) than this one: run ` +
  `${pullCommand(u, helper)}, then brief again`;
