import { foldedLines, parseJournal } from "../journal/entry.ts";
import { listJournal, readJournalText } from "../journal/store.ts";
import { checkTree } from "../store/paths.ts";
import { rootOption, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";

/** One resume as the journal records it (a month entry or a folded line). */
interface ResumeRecord {
  score: number | null;
  followed: "yes" | "no" | "unknown";
  retried: number;
  callsToFirstEdit: number | null;
}

/** The fewest resumes each group needs before the score comparison is shown. */
const MIN_GROUP = 5;
/** The score from which a handoff counts as good. */
const GOOD_SCORE = 80;

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

// A group's figures: `followed` of the resumes where it could be told (`judged`).
function group(list: readonly ResumeRecord[]) {
  const judged = list.filter((r) => r.followed !== "unknown");
  return {
    resumes: list.length,
    followed: judged.filter((r) => r.followed === "yes").length,
    judged: judged.length,
    retried: list.reduce((n, r) => n + r.retried, 0),
    resumesWithRetry: list.filter((r) => r.retried > 0).length,
    medianCallsToFirstEdit: median(list.flatMap((r) => (r.callsToFirstEdit === null ? [] : [r.callsToFirstEdit]))),
  };
}

function record(items: readonly { label: string; text: string }[]): ResumeRecord {
  const get = (label: string) => items.find((i) => i.label === label)?.text;
  const score = Number(get("Handoff score"));
  const followed = get("Next step followed");
  const calls = Number(get("Calls to first edit"));
  const retried = items.filter((i) => i.label === "Failed approach retried").length;
  const told = followed === "yes" || followed === "no" ? followed : "unknown";
  const callsToFirstEdit = Number.isInteger(calls) ? calls : null;
  return { score: Number.isInteger(score) ? score : null, followed: told, retried, callsToFirstEdit };
}

/** Every resume the journal records, oldest file first; files that cannot be read are skipped. */
function readResumes(root: string): { resumes: ResumeRecord[]; files: number } {
  const resumes: ResumeRecord[] = [];
  let files = 0;
  for (const f of listJournal(root)) {
    const text = readJournalText(root, f);
    if (text === null) continue;
    files++;
    for (const e of parseJournal(text, f.kind).entries) if (e.kind === "resume") resumes.push(record(e.items));
    for (const folded of f.kind === "year" ? foldedLines(text) : []) {
      if (folded.kind !== "resume") continue;
      const items = folded.items.split("; ").map((part) => {
        const c = part.indexOf(": ");
        return { label: part.slice(0, c), text: part.slice(c + 2) };
      });
      resumes.push(record(items));
    }
  }
  return { resumes, files };
}

function lines(g: ReturnType<typeof group>): string[] {
  const unmeasured = "not measurable (no resume named a file or command to start with)";
  const share = Math.round((g.followed / g.judged) * 100);
  const pct = g.judged === 0 ? unmeasured : `${g.followed} of ${g.judged} (${share}%)`;
  return [
    `next step followed: ${pct}`,
    `failed approaches retried: ${g.retried} (in ${g.resumesWithRetry} of ${g.resumes} resumes)`,
    `median tool calls to the first edit: ${g.medianCallsToFirstEdit ?? "no edit after a resume"}`,
  ];
}

/** `impact [--json]`: did the handoffs help? From the journal's resume entries. */
export const impactVerb: Verb = {
  options: { root: { type: "string" }, json: { type: "boolean" } },
  help: `usage: node memory_io.mjs impact [--root DIR] [--json]

Did the handoffs help? Each resume of this project that an automatic checkpoint
saw (a \`brief\` call in the session's transcript) is a journal entry: the handoff
resumed and its score, whether the first edits and commands after it touched
what its proposed next step named, each command or path after it matching one of
its failed approaches (a do-not-retry violated), and the tool calls before the
first edit. impact sums them for the project: resumes, next step followed,
failed approaches retried, the median calls to the first edit; then the same for
handoffs scoring ${GOOD_SCORE} or more against the rest, shown only when each group holds
at least ${MIN_GROUP} resumes (else "too few resumes"). Counts only: no user words.
--json prints {resumes, all, good, rest, comparison: "shown"|"too few resumes"}.
${ROOT_HELP}
exit:   0 (also with no resume recorded).
`,
  async run(ctx) {
    const root = rootOption(ctx);
    // The one verdict on the memory tree: nothing reached through a link or another user's folder is read.
    checkTree(root);
    const { resumes, files } = readResumes(root);
    const all = group(resumes);
    const good = group(resumes.filter((r) => r.score !== null && r.score >= GOOD_SCORE));
    const rest = group(resumes.filter((r) => r.score === null || r.score < GOOD_SCORE));
    const shown = good.resumes >= MIN_GROUP && rest.resumes >= MIN_GROUP;
    if (ctx.values.json === true) {
      const comparison = shown ? "shown" : "too few resumes";
      const json = { resumes: all.resumes, all, good: shown ? good : null, rest: shown ? rest : null, comparison };
      return ok(`${JSON.stringify(json, null, 2)}\n`);
    }
    if (all.resumes === 0) {
      const todo = "checkpoints record one when a session resumes with `brief`";
      return ok(`impact: no resume recorded yet (${files} journal file(s) read); ${todo}\n`);
    }
    const out = [`impact: ${all.resumes} resume(s) recorded in ${files} journal file(s)`, ...lines(all)];
    const against = `handoffs scoring ${GOOD_SCORE} or more`;
    if (shown) {
      out.push(`${against} (${good.resumes} resumes):`, ...lines(good).map((l) => `  ${l}`));
      out.push(`the rest (${rest.resumes} resumes):`, ...lines(rest).map((l) => `  ${l}`));
    } else {
      const counts = `${good.resumes} and ${rest.resumes}; ${MIN_GROUP} needed in each`;
      out.push(`${against} against the rest: too few resumes (${counts})`);
    }
    return ok(`${out.join("\n")}\n`);
  },
};
