import { checkTree } from "../store/paths.ts";
import { GOOD_SCORE, group, MIN_GROUP, readResumes, type ImpactGroup } from "../journal/impact.ts";
import { rootOption, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";

function pct(n: number, of: number): string {
  return of === 0 ? "n/a" : `${n} of ${of} (${Math.round((n / of) * 100)}%)`;
}

function lines(g: ImpactGroup): string[] {
  return [
    `next step followed: ${g.judged === 0 ? "not measurable (no resume named a file or command to start with)" : pct(g.followed, g.judged)}`,
    `failed approaches retried: ${g.retried} (in ${g.resumesWithRetry} of ${g.resumes} resumes)`,
    `median tool calls to the first edit: ${g.medianCallsToFirstEdit ?? "no edit after a resume"}`,
  ];
}

/** `impact [--json]`: did the handoffs help? From the journal's resume entries. */
export const impactVerb: Verb = {
  name: "impact",
  options: { root: { type: "string" }, json: { type: "boolean" } },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs impact [--root DIR] [--json]

Did the handoffs help? Each resume of this project that an automatic checkpoint saw (a
\`brief\` call in the session's transcript) is a journal entry: the handoff resumed and its
score, whether the first edits and commands after it touched what its proposed next step
named, each command or path after it matching one of its failed approaches (a do-not-retry
violated), and the tool calls before the first edit. impact sums them for the project:
resumes, next step followed, failed approaches retried, the median calls to the first edit;
then the same for handoffs scoring ${GOOD_SCORE} or more against the rest, shown only when each
group holds at least ${MIN_GROUP} resumes (else "too few resumes"). Counts only: no user words.
--json prints {resumes, all, good, rest, comparison: "shown"|"too few resumes"}.
${ROOT_HELP}
exit:   0 (also with no resume recorded).
`,
  async run(ctx) {
    const root = rootOption(ctx);
    // The one verdict on the memory tree: nothing reached through a link or another user's folder is read.
    checkTree(root);
    const { resumes, files } = await readResumes(root);
    const all = group(resumes);
    const good = group(resumes.filter((r) => r.score !== null && r.score >= GOOD_SCORE));
    const rest = group(resumes.filter((r) => r.score === null || r.score < GOOD_SCORE));
    const shown = good.resumes >= MIN_GROUP && rest.resumes >= MIN_GROUP;
    if (ctx.values.json === true) {
      return ok(`${JSON.stringify({ resumes: all.resumes, all, good: shown ? good : null, rest: shown ? rest : null, comparison: shown ? "shown" : "too few resumes" }, null, 2)}\n`);
    }
    if (all.resumes === 0) return ok(`impact: no resume recorded yet (${files} journal file(s) read); checkpoints record one when a session resumes with \`brief\`\n`);
    const out = [`impact: ${all.resumes} resume(s) recorded in ${files} journal file(s)`, ...lines(all)];
    if (shown) {
      out.push(`handoffs scoring ${GOOD_SCORE} or more (${good.resumes} resumes):`, ...lines(good).map((l) => `  ${l}`), `the rest (${rest.resumes} resumes):`, ...lines(rest).map((l) => `  ${l}`));
    } else {
      out.push(`handoffs scoring ${GOOD_SCORE} or more against the rest: too few resumes (${good.resumes} and ${rest.resumes}; ${MIN_GROUP} needed in each)`);
    }
    return ok(`${out.join("\n")}\n`);
  },
};
