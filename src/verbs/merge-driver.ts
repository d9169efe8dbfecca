import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import path from "node:path";
import { laterHandoff, markMerged, mergeCountsText, mergeHandoffs, mergeLedgers } from "../git/merge-driver.ts";
import { stateTimeOfText } from "../schema/handoff.ts";
import { runGit } from "../git/run.ts";
import { archiveName } from "../store/archive.ts";
import { createExclusive } from "../store/files.ts";
import { mergeJournalMonth } from "../journal/entry.ts";
import { ok, type Verb } from "./types.ts";
import { memoryText } from "../guard/memory-text.ts";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

// git's sides are regular files; a link is never followed (docs/decisions/merge-driver.md).
function onRegularFile<T>(p: string, flags: number, use: (fd: number) => T): T {
  const fd = openSync(p, flags | NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${p} is not a regular file`);
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

// A NUL is unsafe and invalid UTF-8 would be rewritten lossily: neither is merged, git's conflict stands.
function memorySide(p: string, side: string): string {
  const m = memoryText(side, onRegularFile(p, constants.O_RDONLY, (fd) => readFileSync(fd)));
  if (m.invalid.length > 0) throw new Error(`${side} is not valid UTF-8`);
  return m.text;
}

function writeResult(p: string, text: string): void {
  onRegularFile(p, constants.O_WRONLY | constants.O_TRUNC, (fd) => writeSync(fd, Buffer.from(text, "utf8")));
}

// The memory dir's archive/, every folder on the way a real one (a merged branch could have
// made any of them a link), created when missing.
function archiveDirOf(top: string, memRel: string): string {
  let at = top;
  for (const part of [...memRel.split("/").filter(Boolean), "archive"]) {
    at = path.join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      mkdirSync(at, { mode: 0o700 });
      st = lstatSync(at);
    }
    if (!st.isDirectory()) throw new Error(`${at} is not a real folder`);
  }
  return at;
}

// Who committed the other side's handoff: the commit that brought its bytes, on any ref (git has
// not written MERGE_HEAD yet when a driver runs); null when git cannot say.
async function otherAuthor(cwd: string, env: Record<string, string | undefined>, side: string, file: string) {
  const blob = await runGit(cwd, ["hash-object", "--", side], env);
  if (blob.code !== 0) return null;
  const id = blob.stdout.toString("utf8").trim();
  const r = await runGit(cwd, ["log", "--all", "-1", "--format=%an", `--find-object=${id}`, "--", file], env);
  const name = r.code === 0 ? r.stdout.toString("utf8").trim().replace(/[^\p{L}\p{N} .'_-]/gu, "") : "";
  return name === "" ? null : name.slice(0, 60);
}

export const mergeDriverVerb: Verb = {
  name: "merge-driver",
  options: {},
  positionals: [4, 4],
  help: `usage: node memory_io.mjs merge-driver <base> <ours> <theirs> <path>

Run by git, never by hand: the merge driver "session-handoff" that \`install\` and
\`publish\` register (.git/config, and \`.ai/memory/**/*.md merge=session-handoff\`
in a block of ours in the root .gitattributes), as \`merge-driver %O %A %B %P\`,
from this clone's copy of the helper at .git/session-handoff/merge-driver.mjs (a
merge never changes that copy; without it git merges as text and keeps the
  conflict). HANDOFF.md   the later state time stays current (ours on equal,
               unknown or future times) and keeps the other's work: both sides'
               decisions, failed approaches and open questions (each once), plan
               steps at the furthest status either side reached, the other's
               open next steps below its own. A line \`Merged-with:
               archive/<name>; merged with <author>'s handoff of <time>: +N
               decisions, +M failed approaches\` follows its Saved: line; the
               whole other handoff goes to archive/<name> (created, never
               replacing a file; git commits only <ours>, so \`publish\` commits
               it, as every archive). brief then says "two handoffs met in a
               merge; the other is archive/<name>; merged with …".
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
the path (exit 1): git's conflict stands.
It writes only <ours> (a regular file, no link followed) and the new archive.
exit: 0 merged; 1 not merged (git's conflict stands)
`,
  async run(ctx) {
    const [base, ours, theirs, file] = ctx.positionals as [string, string, string, string];
    const m = /^((?:.*\/)?)\.ai\/memory\/(HANDOFF|LESSONS|SOLUTIONS)\.md$/.exec(file);
    // Every path's sides are read one way: a text merge would keep a NUL or rewrite invalid UTF-8.
    let a: string;
    let b: string;
    try {
      a = memorySide(ours, "our side");
      b = memorySide(theirs, "their side");
    } catch (err) {
      return ok("", [`session-handoff merge driver: ${(err as Error).message}`], 1);
    }
    const gitMerge = async (mode: string[], why: string | null) => {
      const labels = ["-L", "ours", "-L", "base", "-L", "theirs", "--", ours, base, theirs];
      const r = await runGit(ctx.cwd, ["merge-file", ...mode, ...labels], ctx.env);
      return ok("", why === null ? [] : [`session-handoff merge driver: ${why}; merged as text`], r.code === 0 ? 0 : 1);
    };
    // The journal is appended on both sides: a month file keeps each entry once, in time order
    // (docs/decisions/journal.md); any other journal file gets git's union merge.
    if (/^(?:.*\/)?\.ai\/memory\/journal\/[^/]+\.md$/.test(file)) {
      if (/\/journal\/\d{4}-\d{2}(?:-\d+)?\.md$/.test(file)) {
        try {
          const merged = mergeJournalMonth(a, b);
          if (merged !== null) {
            writeResult(ours, merged);
            return ok("");
          }
        } catch {
          // Unreadable as text: the union below.
        }
      }
      return gitMerge(["--union"], null);
    }
    if (!m) return gitMerge([], null);
    if (a === b) return ok("");
    if (m[2] !== "HANDOFF") {
      writeResult(ours, mergeLedgers(a, b, m[2] === "LESSONS" ? "L" : "S"));
      return ok("");
    }
    const later = laterHandoff(a, b, Date.now());
    const winner = later === "ours" ? a : b;
    const loser = winner === a ? b : a;
    try {
      const dir = archiveDirOf(ctx.cwd, `${m[1]}.ai/memory`);
      const name = archiveName("HANDOFF", dir);
      if (!createExclusive(path.join(dir, name), loser)) throw new Error(`archive/${name} could not be created`);
      const merged = mergeHandoffs(winner, loser);
      const who = await otherAuthor(ctx.cwd, ctx.env, later === "ours" ? theirs : ours, file);
      const at = stateTimeOfText(loser, Date.now());
      const whose = who === null ? "the other" : `${who}'s`;
      const of = at.known ? ` of ${at.time.iso}` : "";
      const note = `merged with ${whose} handoff${of}: ${mergeCountsText(merged.added)}`;
      writeResult(ours, markMerged(merged.text, name, note));
      const kept = `${file}: kept the later handoff; the other is archive/${name}`;
      return ok("", [`session-handoff merge driver: ${kept}, not in this merge's commit: \`publish\` commits it`]);
    } catch (err) {
      return gitMerge([], `the other handoff could not be archived (${(err as Error).message})`);
    }
  },
};
