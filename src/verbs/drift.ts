import { Absent } from "../errors.ts";
import { skillExcludes } from "../git/anchors.ts";
import { measureDrift, startStatus } from "../git/drift.ts";
import type { DirtyFate } from "../git/fates.ts";
import { missingWords, notHereWords, placeWords, type DriftReport } from "../git/verdict.ts";
import { showRefused } from "../guard/invisible.ts";
import { withoutTokens } from "../guard/redact.ts";
import { branchWords } from "../guard/words.ts";
import { quotedPath } from "../guard/quote.ts";
import { checkAnchors, parseHandoff } from "../schema/handoff.ts";
import { rootOption, ROOT_HELP } from "./common.ts";
import { loadHandoff, shapeWarnings } from "../store/handoff-input.ts";
import { ok, type Verb } from "./types.ts";

/** Human rendering of a drift report: the summary first, then one fact per line. */
export function renderDrift(r: DriftReport): string {
  const paths = (ps: readonly string[], none = "none found") => ps.map(quotedPath).join(", ") || none;
  const branch = (b: string | null, none: string) => (b === null ? none : branchWords(b, withoutTokens));
  const reachable = r.headReachable === null ? "unknown" : r.headReachable ? "yes" : "no";
  const dirtyThen = r.saved.dirty === null ? "unverifiable" : r.saved.dirty.length + (r.saved.dirtyMore ?? 0);
  const up = r.upstream;
  const gap = up?.ahead == null ? "gone" : `${up.ahead} ahead, ${up.behind} behind`;
  const upWords = up === null ? "none" : `${branchWords(up.name, withoutTokens)}, ${gap}`;
  const fate = (f: DirtyFate) => placeWords(f) ?? (f.fate === "not-here" ? "not in this clone" : f.fate);
  const fates = r.dirtyFates.map((f) => `${quotedPath(f.path)} ${fate(f)}`);
  // A count git could not give (the saved HEAD unreachable, no repository): said in words.
  const n = (v: number | null) => (v === null ? "unknown" : String(v));
  const committer = r.provenance?.committer ?? null;
  const came = r.provenance?.commit ? `; came with your commit ${r.provenance.commit}` : "";
  const by = committer === null ? came : `; last committed by ${committer}`;
  const since = r.commitsSinceDate === null ? "" : `, commits since the saved date: ${r.commitsSinceDate}`;
  const changed = r.branchChanged ? " (changed)" : "";
  const shallow = r.shallow ? " (shallow clone)" : "";
  const op = r.inProgress;
  const lines = [
    `verdict: ${r.verdict}`,
    `summary: ${r.summary}`,
    `branch: saved ${branch(r.saved.branch, "unverifiable")}, now ${branch(r.current.branch, "none")}${changed}`,
    `HEAD: saved ${r.saved.head ?? "unverifiable"}, now ${r.current.head ?? "none"}; reachable ${reachable}${shallow}`,
    // The since-date count is taken only when the saved HEAD is not in HEAD: said only then.
    `ahead: ${n(r.ahead)}, behind: ${n(r.behind)}${since}`,
    `age: ${r.ageDays === null ? "unknown" : `${r.ageDays} days`} (saved ${r.saved.date ?? "at an unverifiable time"})`,
    `key files missing: ${r.missingKeyFiles.map(missingWords(r.renamedKeyFiles)).join(", ") || "none found"}`,
    `key files not created yet (absent at the save too): ${paths(r.keyFilesNotYetCreated, "none")}`,
    `dirty files: ${dirtyThen} then, ${r.current.dirty?.length ?? "unknown"} now${r.dirtyChanged ? " (changed)" : ""}`,
    `memory-only commits (not counted): ${r.memoryOnlyCommits}`,
    // One deleted since is said missing above.
    `key files changed: ${paths(r.changedKeyFiles.filter((p) => !r.missingKeyFiles.includes(p)))}`,
    `dirty at the save: ${fates.length === 0 ? "none" : fates.join(", ")}`,
    `key files with uncommitted changes, clean at the save: ${paths(r.dirtyKeyFiles)}`,
    `git operation in progress (rebase, merge…): saved ${op.saved ?? "none"}, now ${op.current ?? "none"}`,
    `upstream: ${upWords}`,
    `unverifiable anchors: ${r.unverifiable.length === 0 ? "none" : r.unverifiable.join(", ")}`,
    ...(r.provenance === null ? [] : [`provenance: not saved in this clone${by}`]),
    ...(r.sinceSaved === null ? [] : [`commits since the save, rewritten copies left out: ${r.sinceSaved}`]),
    ...(r.notHereReason === null ? [] : [`saved HEAD: ${notHereWords(r.notHereReason)}`]),
  ];
  return `${showRefused(lines.join("\n")).text}\n`;
}

/** `drift`: how far the repository moved since the handoff was saved (docs/design.md#verdicts-and-the-brief). */
export const driftVerb: Verb = {
  options: { root: { type: "string" }, json: { type: "boolean" }, stdin: { type: "boolean" } },
  help: `usage: node memory_io.mjs drift [--root DIR] [--stdin] [--json]

Compares the handoff's environment anchors (or, with --stdin, a pasted handoff)
with the repository now: branch, whether the saved HEAD is still reachable or
here at all, commits ahead / behind (memory-only commits counted apart), age,
key files missing or changed, dirty files then and now, an operation in
progress, the upstream, and who last committed the handoff. Takes no lock;
writes nothing; 2 git processes usually, at most 29 git processes.

verdicts, strongest first:
  unverifiable  git missing or unreadable, no valid HEAD anchor, the saved HEAD
                not in this clone or, in a shallow clone, unreachable where
                HEAD's history is cut, or (where it would be fresh) the age is
                unknown
  rewritten     the saved HEAD is unreachable from HEAD and every ref, and a
                saved patch is not on HEAD (a rebase that kept them is not)
  stale         more than 30 commits since the save (those a merge brings in
                dated before it are drift, not stale), or saved more than
                14 days ago with work since (age alone is not stale)
  drifted       branch changed, commits ahead or behind (not those that only
                commit the save's dirty files as saved), key files missing, or
                work dirty at the save gone from the tree (reverted, stashed,
                committed only on another branch, or unlisted past the 50
                anchored and clean now)
  fresh         none of the above

stdout: "verdict: <v>", "summary: <v>: <parts joined by "; ">", then one fact
        per line; names and paths in double quotes, controls as <U+XXXX>. The
        parts and the JSON fields: references/verbs/drift.md.

options:
  --stdin   compare a pasted handoff (at most 1,000,000 bytes) instead of
            HANDOFF.md
  --json    print one object: verdict, saved, current, ahead, behind, ageDays, …
${ROOT_HELP}
exit: 0 report printed (any verdict)
      2 refused (unsafe memory; an interrupted save: run \`recover\`) or usage
        error
      3 no handoff (and nothing on stdin with --stdin)
`,
  async run(ctx) {
    const root = rootOption(ctx);
    const excludes = skillExcludes(root, ctx.skillDir ?? null);
    const early = startStatus(root, ctx.env, excludes);
    const loaded = await loadHandoff(ctx, root, ctx.values.stdin === true);
    if (loaded === null) {
      const pasted = ctx.values.stdin === true;
      const none = "no handoff at .ai/memory/HANDOFF.md: no saved session state exists";
      throw new Absent(pasted ? "nothing was pasted on stdin: no handoff to compare" : none);
    }
    const now = Date.now();
    const parsed = parseHandoff(loaded.text);
    const report = await measureDrift(root, ctx.env, checkAnchors(parsed, now), now, {
      early, excludes, handoffToken: loaded.token ?? null, handoffText: loaded.text,
    });
    const stderr = [...loaded.warnings, ...shapeWarnings(parsed, loaded.pasted)];
    if (report.git.state === "missing")
      stderr.push("note: git was not found on PATH; drift is unverifiable (outside-git behaviour)");
    if (ctx.values.json === true) {
      const branch = report.current.branch === null ? null : withoutTokens(report.current.branch);
      return ok(`${JSON.stringify({ ...report, current: { ...report.current, branch } })}\n`, stderr);
    }
    return ok(renderDrift(report), stderr);
  },
};
