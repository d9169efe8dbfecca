import { quotedValue } from "../guard/quote.ts";
import { lstatSync, unlinkSync } from "../builtins.ts";
import path from "node:path";
import { Refused, UsageError } from "../errors.ts";
import { journalDir, listJournal, type JournalFile } from "../journal/store.ts";
import { checkTree } from "../store/paths.ts";
import { exists } from "../store/files.ts";
import { underLock } from "../store/repair.ts";
import { failpointOf, lockTimeoutOption, rootOption, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";

/** `journal purge [--before YYYY-MM]`: deletes journal files under the memory lock. */
export const journalVerb: Verb = {
  options: { root: { type: "string" }, before: { type: "string" }, "lock-timeout": { type: "string" } },
  positionals: [1, 1],
  help: `usage: node memory_io.mjs journal purge [--before YYYY-MM] [--root DIR]
       [--lock-timeout SECONDS]

The journal is .ai/memory/journal/: every save of the handoff appends one entry
to <YYYY-MM>.md (the month of its Saved: time, UTC; past 1,000,000 bytes the
month goes on in <YYYY-MM>-2.md, -3, ...), and the first save that finds a month
more than six whole months old folds it into <YYYY>.md (decisions, failed
approaches and resume outcomes one line per session, the rest counted). A file
journal/OFF (made by hand, like PAUSE) stops new entries and folds, and publish
then commits no journal file.

purge deletes the journal files (month, continuation and year files; nothing
else in the folder), all of them, or with --before only those of months before
YYYY-MM (a year file when its whole year is). It runs under the memory lock and
is refused while writes are paused. Files already committed by publish stay in
git's history: purge changes only the working tree (commit the deletion, and
rewrite history if it must go).
stdout: "purged N journal file(s)" and one line per file; "nothing to purge: …"
        when there is no journal folder (none is made). A link or a folder named
        like a journal file is refused before anything is deleted.
${ROOT_HELP}
exit:   0 purged (also none); 2 refused; 4 paused; 5 busy.
`,
  async run(ctx) {
    if (ctx.positionals[0] !== "purge") {
      const got = quotedValue(String(ctx.positionals[0]).slice(0, 40));
      throw new UsageError(`journal takes one action, purge; got ${got}`);
    }
    const before = ctx.values.before;
    if (before !== undefined && (typeof before !== "string" || !/^\d{4}-(0[1-9]|1[0-2])$/.test(before))) {
      throw new UsageError(`--before takes a month as YYYY-MM, got ${quotedValue(String(before).slice(0, 40))}`);
    }
    const root = rootOption(ctx);
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    // A project without a journal gets no memory folder for asking.
    const none = "nothing to purge: there is no journal (.ai/memory/journal/)\n";
    if (!checkTree(root) || !exists(journalDir(root))) return ok(none);
    const opts = { root, env: ctx.env, lockTimeoutSeconds, failpoint: failpointOf(ctx) };
    // A year file goes with its whole year.
    const lastMonth = (f: JournalFile) => (f.kind === "year" ? `${f.period}-12` : f.period);
    const { result, repairs } = await underLock(opts, async () => {
      const chosen = listJournal(root).filter((f) => before === undefined || lastMonth(f) < before);
      // Every file is looked at before any goes: purge deletes nothing it cannot vouch for.
      for (const f of chosen) {
        const st = lstatSync(path.join(journalDir(root), f.name));
        if (st.isFile()) continue;
        const what = st.isSymbolicLink() ? "a link" : st.isDirectory() ? "a folder" : "not a regular file";
        const todo = "move it out of .ai/memory/journal/, then purge again (nothing was deleted)";
        throw new Refused(`journal/${f.name} is ${what}, not a journal file; ${todo}`);
      }
      for (const f of chosen) unlinkSync(path.join(journalDir(root), f.name));
      return chosen.map((f) => `journal/${f.name}`);
    });
    return ok(`purged ${result.length} journal file(s)\n${result.map((f) => `${f}\n`).join("")}`, repairs);
  },
};
