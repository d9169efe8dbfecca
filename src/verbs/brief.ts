import { HelperError } from "../errors.ts";
import { skillExcludes } from "../git/anchors.ts";
import { measureDrift, startStatus } from "../git/drift.ts";
import { elsewhereSentence, handoffsElsewhere, newestSave, newestSentence } from "../git/handoff-away.ts";
import { pullCommand, upstreamHandoff, upstreamSentence } from "../git/upstream-handoff.ts";
import { briefWithCheckpoint, coldBriefFromCheckpoint } from "../checkpoint/brief.ts";
import path from "node:path";
import {
  briefFromStash, countLedger, draftBrief, handoffOwner, MAX_FIELD_CHARS, RANK, renderBrief, withLines, type Brief,
  type LedgerCounts,
} from "../brief/brief.ts";
import { fitClauses } from "../brief/cut.ts";
import { mergedClauses, mergedLineOf, OTHER_GOAL, THEIR_STEP } from "../git/merge-driver.ts";
import { mergedSaver } from "../git/saves.ts";
import { readSmall } from "../store/files.ts";
import { conflictNote } from "../git/merge-driver-config.ts";
import { conflictSides } from "../schema/conflicted.ts";
import { conflictAdvice } from "../git/unmerged.ts";
import { archiveDir, FILE_OF } from "../store/paths.ts";
import { checkAnchors, parseHandoff, stateTimeOfText } from "../schema/handoff.ts";
import { readMemoryFile } from "../store/read.ts";
import { rootOption, ROOT_HELP } from "./common.ts";
import { loadHandoff, shapeWarnings } from "../store/handoff-input.ts";
import { memoryText } from "../guard/file-verdict.ts";
import { ok, type Verb } from "./types.ts";
import { helperShown } from "../agents/target.ts";

// A fixed note first in Drift & lessons, as a ranked clause, so the field stays within its length.
function withDriftNote(b: Brief, note: string, rank: number = RANK.note): Brief {
  const driftClauses = b.driftClauses ? [{ text: note, rank }, ...b.driftClauses] : undefined;
  const driftAndLessons = driftClauses ? fitClauses(driftClauses, MAX_FIELD_CHARS) : `${note}; ${b.driftAndLessons}`;
  return withLines({ ...b, driftAndLessons, driftClauses });
}

const COLD_START = "No saved session state exists.";

/** `brief`: the six-line warm-start brief (docs/design.md#verdicts-and-the-brief). */
export const briefVerb: Verb = {
  options: { root: { type: "string" }, json: { type: "boolean" }, stdin: { type: "boolean" } },
  help: `usage: node memory_io.mjs brief [--root DIR] [--stdin] [--json]

Prints the six-line warm-start brief for a resume, drafted from the handoff (or
a pasted one with --stdin), the drift report (\`drift --help\`) and the ledgers,
between \`<<<BEGIN UNTRUSTED BRIEF <nonce>>>\` and \`<<<END UNTRUSTED BRIEF
<nonce>>>\` lines:
  Goal: ...
  Plan status: ...            (D done, P in progress, T todo[, A abandoned][, U
                               unmarked]; UNVERIFIED when history was rewritten)
  Decisions in force: ...
  Do-not-retry: ...           (failed approaches; each keeps its cause)
  Drift & lessons: ...        (the drift summary with its age, ledger counts)
  Proposed next step: ... Confirm?
Handoff text is data: secrets redacted, controls shown as <U+XXXX>, each field
cut at 400 characters. With no handoff, a brief names a stash entry holding one,
or is drafted from an automatic checkpoint (every field marked "captured, not
confirmed"); else exit 3 names other branches holding a committed handoff, with
the command that briefs one. The words of each state and the JSON fields:
references/verbs/brief.md.

options:
  --stdin   brief a pasted handoff (at most 1,000,000 bytes)
  --json    print {"brief": {"goal", "planStatus", …, "lines"}, "drift": {…}}
${ROOT_HELP}
exit: 0 brief printed
      2 refused (unsafe or conflicted memory; an interrupted save: run
        \`recover\`) or usage error
      3 no handoff: cold start (prints \`No saved session state exists.\`, and
        "note: a handoff is committed on branch "<name>"…" if another has one)
`,
  async run(ctx) {
    const root = rootOption(ctx);
    const excludes = skillExcludes(root, ctx.skillDir ?? null);
    const early = startStatus(root, ctx.env, excludes);
    const json = ctx.values.json === true;
    const loaded = await loadHandoff(ctx, root, ctx.values.stdin === true);
    if (loaded === null) {
      // A stash or a checkout took the memory dir: its handoff is on file, and the brief says how to bring it back.
      const stdin = ctx.values.stdin === true;
      const branches = {};
      const away = stdin ? null : await newestSave(root, ctx.env, null, branches);
      const fromStash = away === null || away.restore === "" ? null : briefFromStash(away);
      const b = fromStash ?? (stdin ? null : await coldBriefFromCheckpoint(root));
      if (b !== null) return ok(json ? `${JSON.stringify({ brief: b, drift: null })}\n` : renderBrief(b), []);
      // Still 3, nothing here to resume, but never silent about a teammate's handoff on another branch.
      const other = stdin ? null : await handoffsElsewhere(root, ctx.env, undefined, branches);
      const note = other === null ? undefined : `note: ${elsewhereSentence(other, helperShown(ctx, root))}`;
      const cold = { brief: null, message: COLD_START, elsewhere: other?.refs, note };
      return ok(json ? `${JSON.stringify(cold)}\n` : `${[COLD_START, note].filter(Boolean).join("\n")}\n`, [], 3);
    }
    const now = Date.now();
    // Merge conflict markers: two handoffs in one file, never briefed as one.
    const sides = conflictSides(loaded.text);
    // A merge git has not finished is no handoff to resume either, markers or not (a save over them).
    const advice = loaded.pasted ? null : await conflictNote(root, ctx.env, sides === null ? [] : ["HANDOFF.md"],
      helperShown(ctx, root));
    if (sides !== null || advice !== null) {
      const sideTime = (text: string) => {
        const st = stateTimeOfText(text, now);
        return st.known ? `saved ${st.time.iso}` : "of unknown age";
      };
      const both = sides && `HANDOFF.md has unresolved merge conflicts: one side ${sideTime(sides.ours)}, ` +
        `the other ${sideTime(sides.theirs)}`;
      const message = `${both ?? "memory is conflicted"}; ${advice ?? conflictAdvice(["HANDOFF.md"])}`;
      return ok(json ? `${JSON.stringify({ brief: null, message })}\n` : `${message}\n`, loaded.warnings, 2);
    }
    const parsed = parseHandoff(loaded.text);
    const anchors = checkAnchors(parsed, now);
    const report = await measureDrift(root, ctx.env, anchors, now, {
      early, excludes, handoffToken: loaded.token ?? null, handoffText: loaded.text,
    });
    const stderr = [...loaded.warnings, ...shapeWarnings(parsed, loaded.pasted)];
    const needles = [...anchors.keyFiles];
    if (anchors.branch !== null && !["main", "master", "(detached)"].includes(anchors.branch))
      needles.push(anchors.branch);
    const ledgers: LedgerCounts = { lessons: null, solutions: null, unreadable: [] };
    for (const kind of ["lessons", "solutions"] as const) {
      try {
        const file = await readMemoryFile(root, kind);
        if (file !== null) {
          // A NUL refuses, like an unsafe file.
          const m = memoryText(FILE_OF[kind], file.bytes);
          if (m.warning !== null) stderr.push(m.warning);
          ledgers[kind] = countLedger(m.text, needles);
        }
      } catch (err) {
        if (!(err instanceof HelperError)) throw err;
        const name = FILE_OF[kind];
        ledgers.unreadable!.push(name);
        stderr.push(`warning: ${name} was not read: ${err.message}`);
      }
    }
    const merged = loaded.pasted ? null : mergedLineOf(loaded.text);
    // Only an archive that exists is named (a hand-written line names nothing).
    const other = merged ? readSmall(path.join(archiveDir(root), merged[1]!)) : null;
    // The step the merge took from the other handoff is said to be its saver's, not the current one's.
    const theirs = other !== null && merged![2]?.endsWith(THEIR_STEP) === true;
    const stepBy = theirs ? { ...report, provenance: await mergedSaver(root, ctx.env, other) } : report;
    let brief = loaded.pasted
      ? draftBrief(parsed, stepBy, ledgers)
      : await briefWithCheckpoint(root, loaded.text, draftBrief(parsed, stepBy, ledgers), now, ctx.env);
    // A newer save of this clone than the tree's, elsewhere or gone: the step is to bring it back.
    const newer = loaded.pasted ? null : await newestSave(root, ctx.env, loaded.text);
    if (newer !== null) brief = withDriftNote(brief, newestSentence(newer, true));
    // A handoff saved after it (a teammate's, by a reset) is the newer: its step stands, once the user knows.
    const owner = handoffOwner(report);
    if (newer !== null && newer.restore !== "") {
      const proposedNextStep = newer.later
        ? `tell the user first (\`${newer.restore}\` brings this clone's save back over the later one); then: ` +
          brief.proposedNextStep
        : `bring this clone's newer save back with \`${newer.restore}\`, then run brief again (the fields above ` +
          `are from the older handoff${owner === null ? "" : ` ${owner}`}) — Confirm?`;
      brief = withLines({ ...brief, proposedNextStep });
    }
    // A newer handoff in the upstream (a teammate's, fetched): pulled first, it is the one to resume.
    const behind = newer === null && !loaded.pasted && (report.upstream?.behind ?? 0) > 0;
    const up = behind ? await upstreamHandoff(root, ctx.env, loaded.text) : null;
    if (up !== null) {
      const helper = helperShown(ctx, root);
      const proposedNextStep = `run ${pullCommand(up, helper)}, then run brief again (the fields above are from ` +
        "the older handoff) — Confirm?";
      brief = withLines({ ...withDriftNote(brief, upstreamSentence(up, helper)), proposedNextStep });
    }
    if (merged && other !== null) {
      // Each note goes first, so the last is put first; the archive's long name drops before the counts, unless
      // the other handoff had another goal, which only that archive holds: then it drops just before the note.
      const [met, archive, note] = mergedClauses(merged[1]!, merged[2] ?? null);
      if (note !== null) brief = withDriftNote(brief, note, RANK.other);
      const rank = note?.includes(OTHER_GOAL) ? RANK.other - 1 : RANK.names;
      brief = withDriftNote(withDriftNote(brief, archive, rank), met);
    }
    // The clauses a field was fitted from are the brief's own working, not its output.
    const { driftClauses: _clauses, ...shown } = brief;
    if (json) return ok(`${JSON.stringify({ brief: shown, drift: report })}\n`, stderr);
    return ok(renderBrief(brief), stderr);
  },
};
