import { Absent } from "../errors.ts";
import { measureDrift, startStatus } from "../git/drift.ts";
import type { DriftReport } from "../git/verdict.ts";
import { sanitize } from "../guard/sanitize.ts";
import { quotePath } from "../schema/anchor-lines.ts";
import { checkAnchors, parseHandoff } from "../schema/handoff.ts";
import { rootOption } from "./common.ts";
import { loadHandoff, shapeWarnings } from "./handoff-input.ts";
import { ok, type Verb } from "./types.ts";

// Branch names come from the file (saved) and from git (now): shown, never redacted (ruling 6).
const shown = (branch: string): string => sanitize(branch, { redact: false });

function n(v: number | null): string {
  return v === null ? "n/a" : String(v);
}

/** Human rendering of a drift report: the summary first, then one fact per line. */
export function renderDrift(r: DriftReport): string {
  const lines = [
    `verdict: ${r.verdict}`,
    `summary: ${r.summary}`,
    `branch: saved ${r.saved.branch === null ? "unverifiable" : shown(r.saved.branch)}, now ${r.current.branch === null ? "n/a" : shown(r.current.branch)}${r.branchChanged ? " (changed)" : ""}`,
    `HEAD: saved ${r.saved.head ?? "unverifiable"}, now ${r.current.head ?? "n/a"}; reachable ${r.headReachable === null ? "n/a" : r.headReachable ? "yes" : "no"}${r.shallow ? " (shallow clone)" : ""}`,
    `ahead: ${n(r.ahead)}, behind: ${n(r.behind)}, commits since the saved date: ${n(r.commitsSinceDate)}`,
    `age: ${r.ageDays === null ? "unknown" : `${r.ageDays} days`} (saved ${r.saved.date ?? "at an unverifiable time"})`,
    `key files missing: ${r.missingKeyFiles.length === 0 ? "none found" : r.missingKeyFiles.map(quotePath).join(", ")}`,
    `dirty files: ${r.saved.dirty === null ? "unverifiable" : r.saved.dirty.length} then, ${r.current.dirty === null ? "n/a" : r.current.dirty.length} now${r.dirtyChanged ? " (changed)" : ""}`,
    `upstream: ${r.upstream === null ? "none" : `${r.upstream.name}, ${r.upstream.ahead === null ? "gone" : `${r.upstream.ahead} ahead, ${r.upstream.behind} behind`}`}`,
    `unverifiable anchors: ${r.unverifiable.length === 0 ? "none" : r.unverifiable.join(", ")}`,
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * `drift --root DIR [--stdin] [--json]` (contract §5): how far the repository moved since the
 * handoff was saved. Exit 0 with a report (whatever the verdict); 3 when there is no handoff;
 * 2 for a refusal (unsafe memory, interrupted save) or a usage error.
 */
export const driftVerb: Verb = {
  name: "drift",
  options: { root: { type: "string" }, json: { type: "boolean" }, stdin: { type: "boolean" } },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs drift --root DIR [--stdin] [--json]

Compares the handoff's environment anchors (or, with --stdin, a pasted handoff of at most
1,000,000 bytes, more is refused; CRLF line ends and a BOM are accepted) with the
repository at the root now:
branch then and now; whether the saved HEAD is still reachable from HEAD or a ref (a
commit kept only by the reflog, or missing from a shallow clone, counts as rewritten);
commits ahead / behind (git rev-list --left-right --count); commits since the saved date
when the HEAD is unreachable; age in days (from \`Saved:\`, else \`- Date:\`); key files
that no longer exist; dirty files then and now; the upstream's ahead / behind.

Verdicts, strongest first:
  unverifiable  git missing or not a repository, or no valid HEAD anchor
  rewritten     the saved HEAD is unreachable or missing here
  stale         saved more than 14 days ago, or more than 30 commits ahead
  drifted       branch changed, commits ahead or behind, or key files missing
  fresh         none of the above
An upstream gap or changed dirty files are reported but do not change the verdict.

Branch names and the summary are printed with controls and characters \`write\` refuses
shown as <U+XXXX>; paths are quoted with octal escapes as \`anchors\` writes them.
Anchor values are validated before use: a full 40/64-hex id, a strict ISO-8601 time with a
zone (not in the future), paths inside the root. A bad value is listed as unverifiable and
never reaches git. Key files are only looked up, never opened.

--json prints one object: {"verdict", "saved": {"branch","head","date","dirty"},
"current": {"branch","head","dirty"}, "branchChanged", "headReachable", "ahead", "behind",
"commitsSinceDate", "ageDays", "missingKeyFiles", "upstream": {"name","ahead","behind"}|null,
"dirtyChanged", "shallow", "git": {"state","note"}, "unverifiable", "summary",
"gitProcesses"}.

Runs 2 git processes in the usual case, at most 4; takes no lock; writes nothing.

exit: 0 report printed (any verdict)
      2 refused (unsafe memory; an interrupted save: run \`recover\`) or usage error
      3 no handoff (and nothing on stdin with --stdin)
`,
  async run(ctx) {
    const root = rootOption(ctx);
    const early = startStatus(root, ctx.env);
    const loaded = await loadHandoff(ctx, root, ctx.values.stdin === true);
    if (loaded === null) throw new Absent(ctx.values.stdin === true ? "nothing was pasted on stdin: no handoff to compare" : "no handoff at .ai/memory/HANDOFF.md: no saved session state exists");
    const now = Date.now();
    const parsed = parseHandoff(loaded.text);
    const { report, gitProcesses } = await measureDrift(root, ctx.env, checkAnchors(parsed, now), now, early);
    const stderr = shapeWarnings(parsed, loaded.pasted);
    if (report.git.state === "missing") stderr.push("note: git was not found on PATH; drift is unverifiable (outside-git behaviour)");
    if (ctx.values.json === true) return ok(`${JSON.stringify({ ...report, gitProcesses })}\n`, stderr);
    return ok(renderDrift(report), stderr);
  },
};
