import { quotedValue } from "../guard/quote.ts";
import { unlinkSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../errors.ts";
import { journalDir, listJournal } from "../journal/store.ts";
import { underLock } from "../store/mutate.ts";
import { failpointOf, lockTimeoutOption, rootOption, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";

/** `journal purge [--before YYYY-MM]`: deletes journal files under the memory lock. */
export const journalVerb: Verb = {
  name: "journal",
  options: { root: { type: "string" }, before: { type: "string" }, "lock-timeout": { type: "string" } },
  positionals: [1, 1],
  help: `usage: node memory_io.mjs journal purge [--before YYYY-MM] [--root DIR] [--lock-timeout SECONDS]

The journal is .ai/memory/journal/: every save of the handoff appends one entry to
<YYYY-MM>.md (the month of its Saved: time, UTC; past 1,000,000 bytes the month goes on in
<YYYY-MM>-2.md, -3, ...), and the first save that finds a month more than six whole months
old folds it into <YYYY>.md (decisions, failed approaches and resume outcomes one line per
session, the rest counted). A file journal/OFF (made by hand, like PAUSE) stops new
entries and folds, and publish then commits no journal file.

purge deletes the journal files (month, continuation and year files; nothing else in the
folder), all of them, or with --before only those of months before YYYY-MM (a year file
when its whole year is). It runs under the memory lock and is refused while writes are
paused. Files already committed by publish stay in git's history: purge changes only the
working tree (commit the deletion, and rewrite history if it must go).
stdout: "purged N journal file(s)" and one line per file.
${ROOT_HELP}
exit:   0 purged (also none); 2 refused; 4 paused; 5 busy.
`,
  async run(ctx) {
    if (ctx.positionals[0] !== "purge") throw new UsageError(`journal takes one action, purge; got ${quotedValue(String(ctx.positionals[0]).slice(0, 40))}`);
    const before = ctx.values.before;
    if (before !== undefined && (typeof before !== "string" || !/^\d{4}-(0[1-9]|1[0-2])$/.test(before))) {
      throw new UsageError(`--before takes a month as YYYY-MM, got ${quotedValue(String(before).slice(0, 40))}`);
    }
    const root = rootOption(ctx);
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    const { result, repairs } = await underLock({ root, env: ctx.env, lockTimeoutSeconds, failpoint: failpointOf(ctx) }, async () => {
      const gone: string[] = [];
      for (const f of listJournal(root)) {
        const last = f.kind === "year" ? `${f.period}-12` : f.period;
        if (before !== undefined && last >= before) continue;
        unlinkSync(path.join(journalDir(root), f.name));
        gone.push(`journal/${f.name}`);
      }
      return gone;
    });
    return ok(`purged ${result.length} journal file(s)\n${result.map((f) => `${f}\n`).join("")}`, repairs);
  },
};
