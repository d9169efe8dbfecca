import { Absent } from "../errors.ts";
import { skillExcludes } from "../git/anchors.ts";
import { measureDrift, startStatus } from "../git/drift.ts";
import type { DirtyFate } from "../git/fates.ts";
import { branchWords, notHereWords, type DriftReport } from "../git/verdict.ts";
import { showRefused } from "../guard/invisible.ts";
import { withoutTokens } from "../guard/token-shape.ts";
import { quotedPath } from "../schema/anchor-lines.ts";
import { checkAnchors, parseHandoff } from "../schema/handoff.ts";
import { rootOption, ROOT_HELP } from "./common.ts";
import { loadHandoff, shapeWarnings } from "./handoff-input.ts";
import { ok, type Verb } from "./types.ts";

// A count git could not give (the saved HEAD unreachable, no repository): said in words.
function n(v: number | null): string {
  return v === null ? "unknown" : String(v);
}

// A fate in the words of drift's fact lines.
function fateWord(f: DirtyFate): string {
  if (f.fate === "committed") return `committed in ${f.commit.slice(0, 12)}${f.onHead ? "" : " (not on HEAD)"}`;
  if (f.fate === "stashed") return `in ${f.stash}`;
  return f.fate === "not-here" ? "not in this clone" : f.fate;
}

/**
 * Human rendering of a drift report: the summary first, then one fact per line. Branch names,
 * the upstream and paths are in double quotes; no control or code point `write` refuses gets
 * through raw, the committer's name included (docs/design.md#verdicts-and-the-brief).
 */
export function renderDrift(r: DriftReport): string {
  const lines = [
    `verdict: ${r.verdict}`,
    `summary: ${r.summary}`,
    `branch: saved ${r.saved.branch === null ? "unverifiable" : branchWords(r.saved.branch)}, now ${r.current.branch === null ? "none" : branchWords(r.current.branch)}${r.branchChanged ? " (changed)" : ""}`,
    `HEAD: saved ${r.saved.head ?? "unverifiable"}, now ${r.current.head ?? "none"}; reachable ${r.headReachable === null ? "unknown" : r.headReachable ? "yes" : "no"}${r.shallow ? " (shallow clone)" : ""}`,
    // The since-date count is taken only when the saved HEAD is not in HEAD: said only then.
    `ahead: ${n(r.ahead)}, behind: ${n(r.behind)}${r.commitsSinceDate === null ? "" : `, commits since the saved date: ${r.commitsSinceDate}`}`,
    `age: ${r.ageDays === null ? "unknown" : `${r.ageDays} days`} (saved ${r.saved.date ?? "at an unverifiable time"})`,
    `key files missing: ${r.missingKeyFiles.length === 0 ? "none found" : r.missingKeyFiles.map(quotedPath).join(", ")}`,
    `key files not created yet (absent at the save too): ${r.keyFilesNotYetCreated.length === 0 ? "none" : r.keyFilesNotYetCreated.map(quotedPath).join(", ")}`,
    `dirty files: ${r.saved.dirty === null ? "unverifiable" : r.saved.dirty.length + (r.saved.dirtyMore ?? 0)} then, ${r.current.dirty === null ? "unknown" : r.current.dirty.length} now${r.dirtyChanged ? " (changed)" : ""}`,
    `memory-only commits (not counted): ${r.memoryOnlyCommits}`,
    `key files changed: ${r.changedKeyFiles.length === 0 ? "none found" : r.changedKeyFiles.map(quotedPath).join(", ")}`,
    `dirty at the save: ${r.dirtyFates.length === 0 ? "none" : r.dirtyFates.map((f) => `${quotedPath(f.path)} ${fateWord(f)}`).join(", ")}`,
    `key files with uncommitted changes: ${r.dirtyKeyFiles.length === 0 ? "none found" : r.dirtyKeyFiles.map(quotedPath).join(", ")}`,
    `git operation in progress (rebase, merge…): saved ${r.inProgress.saved ?? "none"}, now ${r.inProgress.current ?? "none"}`,
    `upstream: ${r.upstream === null ? "none" : `${branchWords(r.upstream.name)}, ${r.upstream.ahead === null ? "gone" : `${r.upstream.ahead} ahead, ${r.upstream.behind} behind`}`}`,
    `unverifiable anchors: ${r.unverifiable.length === 0 ? "none" : r.unverifiable.join(", ")}`,
    ...(r.provenance === null ? [] : [`provenance: not saved in this clone${r.provenance.committer === null ? "" : `; last committed by ${r.provenance.committer}`}`]),
    ...(r.sinceSaved === null ? [] : [`commits since the save, rewritten copies left out: ${r.sinceSaved}`]),
    ...(r.notHereReason === null ? [] : [`saved HEAD: ${notHereWords(r.notHereReason)}`]),
  ];
  return `${showRefused(lines.join("\n")).text}\n`;
}

/**
 * `drift --root DIR [--stdin] [--json]` (docs/design.md#verdicts-and-the-brief): how far the repository moved since the
 * handoff was saved. Exit 0 with a report (whatever the verdict); 3 when there is no handoff;
 * 2 for a refusal (unsafe memory, interrupted save) or a usage error.
 */
export const driftVerb: Verb = {
  name: "drift",
  options: { root: { type: "string" }, json: { type: "boolean" }, stdin: { type: "boolean" } },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs drift [--root DIR] [--stdin] [--json]

Compares the handoff's environment anchors (or, with --stdin, a pasted handoff of at most
1,000,000 bytes, more is refused; CRLF line ends and a BOM are accepted) with the repository at the root now:
branch then and now (a HEAD saved as (detached) during a rebase of B counts as B, then and
now; a saved branch that does not exist in this clone, locally or as a remote-tracking
branch, is "not in this clone", branchChanged null, never drift by itself); whether the
saved HEAD is still reachable from HEAD or a ref, refs/stash included (a commit kept only
by the reflog counts as rewritten); whether its object is here at all (a commit not fetched, or cut off by a
shallow clone, is unverifiable unless this clone's reflog files name it); commits ahead / behind,
leaving out memory-only commits (those whose diff -- a merge's against its first parent --
touches only .ai/memory/: committing or pulling the handoff is not drift), counted apart;
commits since the saved date when the HEAD is unreachable; age in days; key files that no
longer exist, and key files changed since the save (git diff --name-only <saved> HEAD,
intersected with the key files; outside git, by the \`- Key file mtimes:\` anchor); dirty
files then and now, and what became of each file dirty at the save (committed in which
commit, in which stash, reverted, still dirty, or not in this clone); the operation in progress (rebase, merge, cherry-pick, revert, bisect) at
the save (its \`- In progress:\` anchor) and now (read from the git dir); the upstream's
ahead / behind; who last committed the handoff, when it is tracked.

Age comes from the state time: the \`- Date:\` anchor, else \`Saved:\` (strict ISO-8601 with
a zone), never a file's modification time -- the same age as brief and hook. With no such
time, a zoneless one, or one more than 5 minutes in the future, the age is unknown and the
handoff is never called fresh.

Verdicts, strongest first:
  unverifiable  git missing, not a repository or one git cannot read (a corrupt index,
                a missing HEAD object: the summary says how to repair it), no valid HEAD anchor, the saved HEAD's
                object is not in this clone and no reflog of it names it
                (notHereReason "not-fetched", or "shallow" in a shallow clone), or
                (where it would be fresh) the age is unknown: \`date\` is then listed
  rewritten     the saved HEAD is unreachable (its object here), or missing and named
                by this clone's reflog files (logs/**, read as files)
  stale         saved more than 14 days ago, or more than 30 commits ahead
  drifted       branch changed, commits ahead or behind, or key files missing (a key
                file absent at the save too -- not in the saved commit's tree nor under a
                path dirty then; outside git, "missing" in \`Key file mtimes\` -- is work
                not done yet, listed in keyFilesNotYetCreated, not drift)
  fresh         none of the above
An upstream gap, changed key files or changed dirty files are reported but do not change
the verdict by themselves.

The summary (one line, parts joined by "; ") says, as they apply:
  - at the saved commit <id> | N commits ahead of the saved <id> | N commits behind the saved <id> | diverged from the saved <id>: A ahead, B behind | no commits since the saved <id> but memory-only ones
  - saved HEAD <id> is not in this clone: fetch, or the history was rewritten | saved HEAD <id> is not in this clone: deepen it (git fetch --deepen or --unshallow)
  - saved HEAD <id> is no longer reachable from HEAD or any ref (rebase, amend, reset, squash merge or force-push) | saved HEAD <id> no longer exists here; this clone's reflog names it (history rewritten); N commits on HEAD since the save, rewritten copies of saved commits left out | N commits on HEAD since the saved date; plan statuses are unverified
  - N memory-only commits (the handoff itself) not counted
  - on "<branch>" | branch moved from "<then>" to "<now>" | branch "<then>" is not in this clone; on "<now>"
  - <operation> was in progress at the save[, finished or aborted since]
  - <operation> in progress now
  - saved N days ago | age unknown
  - age unknown: the handoff has no \`- Date:\` or \`Saved:\` time, so the handoff cannot be called fresh | age unknown: the saved time is not a strict ISO-8601 time with a zone, so … | age unknown: the saved time is more than 5 minutes in the future, so …
  - (unverifiable, why) git is not on PATH, so the repository could not be compared (outside-git behaviour) | the root is not in a git repository, so only age and key files were checked | git cannot read the repository at the root (<why>), so only age and key files were checked: <how to repair> | git could not be used (<why>) | the handoff has no valid HEAD anchor (a full 40/64-hex id), so the saved commit could not be checked
  - too stale for line-by-line reconciliation
  - key files missing: <paths> | key files changed: <paths>
  - key files not created yet (absent at the save too): <paths>
  - key files with uncommitted changes: <paths> (dirty now, not dirty at the save)
  - dirty files: N then, M now
  - one clause per fate of the files dirty at the save, each file in exactly one:
    dirty at the save, committed in <id>[ (not on HEAD)]: <paths> | dirty at the save, now in stash@{N}: <paths> |
    dirty at the save, reverted (neither committed nor stashed): <paths> | dirty at the save, still dirty and changed since: <paths> |
    dirty at the save, still dirty and unchanged: <paths> | dirty at the save, still dirty: <paths> |
    dirty in the clone that saved, not in this one: <paths> | dirty at the save, clean now (committed, stashed or reverted): <paths>
  - the handoff was not saved in this clone; its last commit is by "<author>" "<e-mail>" (both quoted; this clone records the tokens of its last 10 handoff saves in <git dir>/session-handoff/saves; outside git, or before its first save with this version, nothing is said)
  - upstream "<name>" is gone | upstream "<name>": A ahead, B behind
  - unverifiable anchors: <fields>
Branch names, the upstream and paths are file-controlled: they are printed in double
quotes (a \" or \\ in a branch name escaped with a backslash; a path holding a comma, a
quote, a control character or a code point that memory files refuse with git's octal
escapes, as \`anchors\` writes it). The text printed shows every other control and
character \`write\` refuses as <U+XXXX>, the summary and the committer's name included.
Anchor values are validated before use: a full 40/64-hex id, a strict ISO-8601 time with a
zone, paths inside the root. A bad value is listed as unverifiable and never reaches git.
Key files are only looked up, never opened.

Below the summary, one fact per line ("branch: saved …, now …", "HEAD: …", …), and as they
apply "provenance: not saved in this clone; last committed by "<author>" <e-mail>",
"commits since the save, rewritten copies left out: N", "saved HEAD: not in this clone:
…". Without git on PATH, stderr adds "note: git was not found on PATH; drift is
unverifiable (outside-git behaviour)". With no handoff (exit 3): "no handoff at
.ai/memory/HANDOFF.md: no saved session state exists", or with --stdin "nothing was pasted
on stdin: no handoff to compare".

--json prints one object: {"verdict", "saved": {"branch","head","date","dirty"},
"current": {"branch","head","dirty"}, "branchChanged", "headReachable", "ahead", "behind",
"commitsSinceDate", "ageDays", "missingKeyFiles", "keyFilesNotYetCreated", "upstream": {"name","ahead","behind"}|null,
"dirtyChanged", "shallow", "headPresent" (the saved HEAD's object is here), "countsAtLeast"
(a shallow history: the counts may be larger), "notHereReason" ("not-fetched", "shallow" or
null), "sinceSaved" (with the saved object present but unreachable: HEAD's commits not
patch-equivalent to the saved side's, git rev-list --cherry-pick --right-only --count
<saved>...HEAD, computed when at most 500 commits are on HEAD since the saved date, else
null), "git": {"state" ("repo", "not-repo", "broken", "missing", "timeout", "failed"),"note"}, "unverifiable", "memoryOnlyCommits",
"changedKeyFiles" (with the saved object present, reachable or not: git diff --name-only
<saved> HEAD, intersected with the key files), "cleanedDirty", "dirtyKeyFiles",
"inProgress": {"saved","current"}, "provenance": {"committer","someoneElse"}|null (only when
this clone did not save the handoff), "dirtyFates": [{"path","fate" ("committed" with "commit" and
"onHead", "stashed" with "stash", "reverted", "changed", "unchanged", "dirty", "not-here", "clean")}],
"summary", "gitProcesses"}.

Runs 2 git processes in the usual case (status, and one log of the commits between the
saved HEAD and HEAD); one diff more when the HEAD moved and there are key files; three logs
(HEAD, the other refs, the stash) limited to the saved dirty files that are clean now; a reachability check and a since-date count only when the saved HEAD is not
in HEAD, and then, with its object present, the patch-equivalence count (so at most 6);
a log of the handoff only when this clone did not save it and no commit since the save
touched it. The shallow state, the reflogs, branch existence and dirty files' blob ids are
read from files, with no process.
Takes no lock; writes nothing.
A handoff holding characters \`write\` refuses, or bytes that are not UTF-8, is read with
them shown as <U+XXXX> / <0xNN> and \`read\`'s warning on stderr ("warning: HANDOFF.md holds
N invisible or control character(s) or invalid UTF-8 byte(s) that write would refuse, shown
as <U+XXXX> / <0xNN>; the token covers the bytes on disk"); one holding a NUL byte is
unsafe and refused (exit 2) as \`read\` refuses it.
${ROOT_HELP}
exit: 0 report printed (any verdict)
      2 refused (unsafe memory; an interrupted save: run \`recover\`) or usage error
      3 no handoff (and nothing on stdin with --stdin)
`,
  async run(ctx) {
    const root = rootOption(ctx);
    const excludes = skillExcludes(root, ctx.skillDir ?? null);
    const early = startStatus(root, ctx.env, excludes);
    const loaded = await loadHandoff(ctx, root, ctx.values.stdin === true);
    if (loaded === null) throw new Absent(ctx.values.stdin === true ? "nothing was pasted on stdin: no handoff to compare" : "no handoff at .ai/memory/HANDOFF.md: no saved session state exists");
    const now = Date.now();
    const parsed = parseHandoff(loaded.text);
    const { report, gitProcesses } = await measureDrift(root, ctx.env, checkAnchors(parsed, now), now, { early, excludes, handoffToken: loaded.token ?? null, handoffText: loaded.text });
    const stderr = [...loaded.warnings, ...shapeWarnings(parsed, loaded.pasted)];
    if (report.git.state === "missing") stderr.push("note: git was not found on PATH; drift is unverifiable (outside-git behaviour)");
    if (ctx.values.json === true) {
      const current = { ...report.current, branch: report.current.branch === null ? null : withoutTokens(report.current.branch) };
      return ok(`${JSON.stringify({ ...report, current, gitProcesses })}\n`, stderr);
    }
    return ok(renderDrift(report), stderr);
  },
};
