import { mergeMemoryFile } from "../git/merge-driver.ts";
import { mergeJournalMonth } from "../journal/entry.ts";
import { ok, type Verb } from "./types.ts";

export const mergeDriverVerb: Verb = {
  options: {},
  positionals: [4, 4],
  help: `usage: node memory_io.mjs merge-driver <base> <ours> <theirs> <path>

Run by git, never by hand: the merge driver "session-handoff" that \`install\` and
\`publish\` register (.git/config, and \`.ai/memory/**/*.md merge=session-handoff
eol=lf\` in a block of ours in the root .gitattributes), as \`merge-driver %O %A
%B %P\`, from this clone's copy of the helper at
.git/session-handoff/merge-driver.mjs (a merge never changes that copy; without
it git merges as text and keeps the conflict).
  HANDOFF.md   the later state time stays current (ours on equal times,
               which have whole seconds, and on unknown or future ones; the
               line on the merge says which) and keeps the other's work: both
               sides' decisions, failed approaches and open questions (each
               once; a failed approach one side left out stays), plan steps
               at the furthest status either side reached, the other's open
               next steps below its own. A line \`Merged-with:
               archive/<name>; merged with <author>'s handoff of <time>: +N
               decisions, +M failed approaches\` follows its Saved: line (\`,
               for another goal\` after the time when the goals differ); the
               whole other handoff goes to archive/<name> (created, never
               replacing a file; git commits only <ours>, so \`publish\` commits
               it, as every archive; in a rebase, only the upstream's or the
               branch's last handoff, the others being in its history). brief
               then says "two handoffs met in a merge; the other is
               archive/<name>; merged with …".
  LESSONS.md, SOLUTIONS.md   entries merged by id, both sides kept; an id whose
               text differs keeps ours and renumbers theirs to the next free id,
               with a line \`- Renumbered: was <old id> on the other side of a
               merge\`.
  journal/<YYYY-MM>.md  both sides' entries, each once, in time order; a side
               that breaks the journal's schema, and the year files: both sides'
               lines kept (git merge-file --union).
  other paths  a text merge (git merge-file): conflict markers stand, and
               \`check\` exits 3.
A side holding a NUL byte or bytes that are not UTF-8 is not merged, whatever
the path (exit 1): git's conflict stands; so too a handoff or ledger in a schema
other than v1. Both read <base>: an item one side left as it was takes the other
side's edit or removal.
It writes only <ours> (a regular file, no link followed) and the new archive;
while memory writes are paused it merges every path as text (git merge-file),
conflict markers and all, and writes no archive.
exit: 0 merged; 1 not merged (git's conflict stands)
`,
  async run(ctx) {
    const { notes, code } = await mergeMemoryFile(ctx.positionals, ctx.cwd, ctx.env, mergeJournalMonth);
    return ok("", notes, code);
  },
};
