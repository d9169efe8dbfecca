import { HelperError, Refused, UsageError } from "../errors.ts";
import { inspectFile, interruptedSave, unsafePrivate } from "../store/inspect.ts";
import { FILE_OF, memoryDir, type Kind } from "../store/paths.ts";
import { isConflicted } from "../schema/conflicted.ts";
import { glanceAtHandoff, straySentence } from "../schema/handoff.ts";
import { driverUnset, MERGE_DRIVER_MISSING, mergeDriverMissing } from "../git/merge-driver-config.ts";
import { elsewhereSentence, handoffsElsewhere, newestSave, newestSentence } from "../git/handoff-away.ts";
import type { HandoffAway } from "../git/handoff-away.ts";
import { configPipe } from "../git/config-pipe.ts";
import { upstreamHandoff, upstreamSentence } from "../git/upstream-handoff.ts";
import { conflictAdvice, unmergedMemory } from "../git/unmerged.ts";
import { listJournal, readJournalText } from "../journal/store.ts";
import { pauseSwitch } from "../store/pause.ts";
import { orNull } from "../store/files.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { checkpointNoteForHandoff, currentCheckpoint } from "../checkpoint/store.ts";
import { helperShown } from "../agents/target.ts";

/** The result of `check` (docs/design.md#check); `--json` prints it, with where this clone's newest save is. */
export interface CheckResult extends Partial<HandoffAway> {
  code: 0 | 1 | 2 | 3;
  state: "clean" | "interrupted" | "parked" | "unsafe" | "conflicted";
  files: Record<Kind, string>;
  paused: string | null;
  message: string;
  parked?: "handoff" | "stash" | "branch" | "lost" | "checkpoint" | "conflicted";
  /** A parked handoff, and the checkpoint (its file in checkpoints/) holding work from after its save. */
  checkpoint?: string;
  /** The upstream holding a newer handoff than the parked one (fetched, not pulled). */
  upstream?: string;
  /** Nothing parked here, but these other branches hold a committed handoff (a teammate's), newest first. */
  elsewhere?: string[];
  conflicted?: string[];
  /** The attributes name our merge driver but this clone's config lacks it: git merges memory as text. */
  mergeDriverMissing?: boolean;
  /** Each level-2 section of the parked handoff schema v1 does not know: the nearest known title, or null. */
  unknownSections?: (string | null)[];
}

const JOURNAL_MARKERS = "holds merge conflict markers (the handoff is not affected): keep both sides' entries, " +
  "each once, and delete the marker lines";

const MESSAGES: Record<CheckResult["state"], string> = {
  clean: "nothing parked: no saved session state exists",
  interrupted: "an interrupted save needs recovery: run `recover`, then check again",
  parked: "a handoff is parked and can be resumed",
  unsafe: "memory is unsafe or foreign: do not load it; tell the user",
  conflicted: "memory is conflicted: <what resolves it>",
};

const CHECKPOINT_PARKED =
  "an automatic checkpoint is parked: no handoff was written; the resume flow can draft from it";

/** `check --root DIR [--json]`. Usage errors exit 64, because 2 means "parked". */
export const checkVerb: Verb = {
  options: { root: { type: "string" }, json: { type: "boolean" } },
  help: `usage: node memory_io.mjs check [--root DIR] [--json]

Bootstrap check for AGENTS.md-style instructions: what is parked in
<root>/.ai/memory? Reads nothing into the output and takes no lock. It prints
one line, its state's:
  "${MESSAGES.clean}" (0)
  "${MESSAGES.interrupted}" (1)
  "${MESSAGES.parked}" (2)
  "${MESSAGES.unsafe}" (3), then
  ": <what is wrong and what to do>" as brief refuses it, when it can tell
${ROOT_HELP}
exit: 0 nothing parked
      1 an interrupted save needs recovery: run \`recover\` (only when no live
        writer holds the lock; takes precedence over 3): a private file a save
        left marks one, never more archives than are kept (a stash or a merge
        leaves those)
      2 a handoff is parked; or, with no handoff, an automatic checkpoint
        holding a capture ("an automatic checkpoint is parked: no handoff was
        written; the resume flow can draft from it"), or a stash entry holding
        the handoff (\`git stash -u\` took the memory dir), or a branch holding
        this clone's saved handoff (a checkout left it there): the line names
        the command that brings it back
        (0 with no handoff here names other branches holding a committed one:
        "…; a handoff is committed on branch "<name>", not on this one: …")
        A handoff other than this clone's newest save adds where that is, or
        that a reset or checkout discarded it, with git's copy: "…; but this
        clone's newest save (Saved: <time>) is in neither …" ("lost"); and a
        checkpoint of work after its save: "…; an automatic checkpoint newer
        than this handoff exists (checkpoints/<name>, …); before saving, run
        \`read checkpoint\` …" ("checkpoint"); the upstream's handoff, fetched
        and newer: "…; but the upstream "<ref>" holds a newer handoff …"
        ("upstream")
      3 memory is unsafe or foreign (a link, a hard link, a FIFO, a NUL byte, no
        v1 marker, a private name holding what no save leaves): do not load it;
        or conflicted: a memory file holds unresolved merge conflict markers,
        or git holds it unmerged (the line names the commands that resolve
        it; markers in a journal month alone are named, the code kept); or
        a root every verb refuses (another user's checkout, /tmp, $HOME)
      64 usage error
--json prints {"code", "state", "files", "paused", "message"} and, when they
apply, "parked" ("handoff", "stash", "branch", "lost", "checkpoint" or
"conflicted"), "stash", "ref", "worktree", "lost", "later", "restore",
"checkpoint", "upstream", "elsewhere", "conflicted", "mergeDriverMissing" and
"unknownSections":
references/verbs/check.md. When the kill switch is on, the paused sentence is
printed too and the code is kept.
`,
  async run(ctx) {
    let root: string;
    try {
      root = rootOption(ctx);
    } catch (err) {
      // A root every verb refuses (another user's checkout, /tmp, $HOME) holds no memory to load: 3, never "usage".
      if (err instanceof Refused) throw new HelperError(err.message, 3);
      throw new UsageError((err as Error).message);
    }
    const kinds: Kind[] = ["handoff", "lessons", "solutions"];
    const inspections = kinds.map((k) => inspectFile(root, k, true, { text: true }));
    const pipe = configPipe(root, ctx.env);
    const marked = inspections
      .filter((i) => i.status === "present" && typeof i.text === "string" && isConflicted(i.text))
      .map((i) => FILE_OF[i.kind]);
    const markedJournals = listJournal(root).filter((f) => isConflicted(readJournalText(root, f) ?? ""))
      .map((f) => `journal/${f.name}`);
    // Git's index too: a save over a conflicted handoff, or a journal month, leaves the merge unfinished.
    const marks = marked.length + markedJournals.length > 0;
    const unmerged = pipe === null ? await unmergedMemory(root, ctx.env, undefined, marks) : undefined;
    const conflicted = [...new Set([...marked, ...(unmerged?.files ?? []).map((p) => p.slice(11))])];
    // Markers in a journal month alone are said, never a reason not to resume: no resume reads the journal.
    const journals = markedJournals.filter((f) => !conflicted.includes(f));
    const files = Object.fromEntries(inspections.map((i) => [i.kind, i.status])) as Record<Kind, string>;
    let state: CheckResult["state"] | null = null;
    if (interruptedSave(root) || inspections.some((i) => i.status === "interrupted")) state = "interrupted";
    else if (inspections.some((i) => i.status === "unsafe" || i.status === "foreign")) state = "unsafe";
    else if (unsafePrivate(root)) state = "unsafe";
    else if (conflicted.length > 0) state = "conflicted";
    else if (files.handoff === "present") state = "parked";
    // A named pipe in git's config would hold each git run for its whole timeout: then none runs, and check says why.
    const away = state === null && files.handoff === "missing" && pipe === null;
    const branches = {};
    const tree = state === "parked" && pipe === null ? inspections[0]!.text : undefined;
    // A newer save of this clone than the tree's, or none where it can be: the same answer as brief's and the hook's.
    const newest = away || typeof tree === "string" ? await newestSave(root, ctx.env, tree ?? null, branches) : null;
    const stashed = away ? newest : null;
    // Leftovers in checkpoints/ never change the code (docs/design.md#checkpoints); a checkpoint is parked state.
    const captured = () => orNull(() => currentCheckpoint(root, null, Date.now()) !== null) ?? false;
    if (stashed !== null || (state === null && files.handoff === "missing" && captured())) state = "parked";
    state ??= "clean";
    const code = ({ clean: 0, interrupted: 1, parked: 2, unsafe: 3, conflicted: 3 } as const)[state];
    const paused = pauseSwitch(memoryDir(root), ctx.env);
    const pausedLine = paused ? `memory writes are paused: remove ${paused} to resume` : null;
    let parked: CheckResult["parked"];
    if (state === "conflicted") parked = "conflicted";
    else if (state === "parked") {
      const kind = stashed?.stash ? "stash" : stashed?.ref ? "branch" : "lost";
      parked = files.handoff === "present" ? "handoff" : stashed ? kind : "checkpoint";
    }
    let message = MESSAGES[state];
    if (parked === "checkpoint") message = CHECKPOINT_PARKED;
    else if (stashed) message = newestSentence(stashed, false);
    const md = pipe ?? await mergeDriverMissing(root, ctx.env);
    if (state === "conflicted") {
      const unset = (unmerged?.files.length ?? 0) > 0 && (await driverUnset(root, ctx.env));
      const init = unset ? `node ${helperShown(ctx, root)} init` : null;
      message = `memory is conflicted: ${conflictAdvice(conflicted, unmerged, init)}`;
    }
    // What is wrong and what to do, as brief refuses it: "unsafe or foreign" alone leaves the user guessing.
    const reason = inspections.find((i) => i.reason !== undefined)?.reason;
    if (state === "unsafe" && reason !== undefined) message = `${message}: ${reason}`;
    if (journals.length > 0) message = `${message}; ${journals.join(", ")} ${JOURNAL_MARKERS}`;
    // Never "parked" alone while this clone's newest save is elsewhere or gone.
    if (newest !== null && newest !== stashed) message = `${message}; but ${newestSentence(newest, true)}`;
    // A teammate's newer handoff fetched and not pulled: resuming the one here would pass over their work.
    const fetched = parked === "handoff" && newest === null && typeof tree === "string";
    const up = fetched ? await upstreamHandoff(root, ctx.env, tree) : null;
    if (up !== null) message = `${message}; but ${upstreamSentence(up, helperShown(ctx, root))}`;
    // Work from after the handoff's save that no save holds yet: a user resuming from the handoff alone would lose it.
    const newer = parked === "handoff" ? checkpointNoteForHandoff(root, inspections[0]!.text as string, ctx.env) : null;
    if (newer !== null) message = `${message}; ${newer.text}`;
    // Not parked here (0 stays 0), but an agent told only "nothing parked" would call a cold start wrongly.
    const other = state === "clean" && away ? await handoffsElsewhere(root, ctx.env, undefined, branches) : null;
    if (other !== null) message = `${message}; ${elsewhereSentence(other, helperShown(ctx, root))}`;
    const { restore, ...at } = newest ?? {};
    const result: CheckResult = { code, state, files, paused, message, ...(parked ? { parked } : {}), ...at };
    if (restore) result.restore = restore;
    if (newer !== null) result.checkpoint = newer.name;
    if (up !== null) result.upstream = up.ref;
    if (other !== null) result.elsewhere = other.refs;
    if (state === "conflicted") result.conflicted = conflicted;
    if (md === MERGE_DRIVER_MISSING) result.mergeDriverMissing = true;
    // Only known titles reach the output: check reads nothing of the file into it.
    const handoff = inspections[0]!;
    const readable = state === "parked" && typeof handoff.text === "string";
    const strays = readable ? glanceAtHandoff(handoff.text as string, Date.now()).strays : [];
    if (strays.length > 0) result.unknownSections = strays.map((s) => s.near);
    // Said in words too: a clone that never ran `init` merges memory as text at its next pull.
    const notes = md !== null ? [md] : [];
    if (ctx.values.json) return ok(`${JSON.stringify(result)}\n`, notes, code);
    return ok(`${[message, straySentence(strays), pausedLine].filter(Boolean).join("\n")}\n`, notes, code);
  },
};
