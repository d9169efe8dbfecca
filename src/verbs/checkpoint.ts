// The `checkpoint` verb's face (contract §12, rulings 19–25): its options, help and the lines
// it prints. The work is a chunk of its own (checkpoint-run.cold.ts, build.mjs rule 2b):
// a compaction or session-end hook then compiles that, not every cold verb (issue 15: ~9 ms).
import { runCheckpoint } from "./checkpoint-run.cold.ts";
import type { Verb } from "./types.ts";

/** Largest hook input read, in bytes (ruling 20); longer input is ignored, not refused. */
export const CHECKPOINT_STDIN_BYTES = 1024 * 1024;
/** Time git may take for the checkpoint's anchors, in ms (ruling 21). */
export const CHECKPOINT_GIT_MS = 500;
/** Most dirty paths and bytes on a checkpoint's `- Dirty files:` line (ruling 21). */
export const CHECKPOINT_DIRTY = { paths: 10, bytes: 1024 };

// Every line this verb prints, all on stderr with stdout empty (docs/design.md#checkpoints);
// with --format gemini cli.ts drops them and prints {} (docs/design.md#integrations).
export const CHECKPOINT_LINES = {
  saved: (name: string) => `checkpoint: saved checkpoints/${name}`,
  unchanged: (name: string) => `checkpoint: unchanged checkpoints/${name}`,
  paused: () => "checkpoint: memory writes are paused; nothing was captured",
  subagent: () => "checkpoint: the hook input comes from a subagent (agent_id); nothing was captured",
  busy: () => "checkpoint: memory is busy (another save holds the lock); skipped, nothing was captured",
  skipped: (reason: string) => `checkpoint: skipped: ${reason}`,
  noTranscript: (reason: string) => `checkpoint: ${reason}; captured the anchors only`,
  unknownFormat: () => "checkpoint: the transcript's format is not recognised; captured the anchors only",
  badInput: () => "checkpoint: the hook input is not a JSON object (or is over 1 MiB); captured the anchors only",
  usage: (what: string) => `checkpoint: ${what}; nothing was captured`,
  redacted: (report: string) => `checkpoint: ${report.replace(/ \(line \d+\)/g, "")} from the transcript`,
} as const;

/**
 * `checkpoint [--format claude|codex|gemini] [--root DIR]` (contract §12, rulings 19–25):
 * captures the session's state from the hook input and the transcript's tail into
 * `checkpoints/<session>.md`. Always exit 0, nothing on stdout.
 */
export const checkpointVerb: Verb = {
  name: "checkpoint",
  options: { root: { type: "string" }, format: { type: "string" } },
  positionals: [0, 0],
  // A getter: built when asked, not at every start of the verbs that share the hot part.
  get help() {
    return `usage: node memory_io.mjs checkpoint [--format claude|codex|gemini] [--root DIR] < hook-input.json

Run by harness hooks at a compaction and at a session's end (Claude Code PreCompact,
PostCompact and SessionEnd; Codex PreCompact and SessionEnd; Gemini SessionEnd only, its
PreCompress firing before every request), never by hand. With no model call, it captures what a handoff would need from
the hook's JSON on stdin (session_id, transcript_path, cwd, hook_event_name,
compact_summary, last_assistant_message) and from the tail of the transcript it names, into
<root>/.ai/memory/checkpoints/<session id>.md:

  <!-- memory-schema: v1 -->
  # Session Checkpoint
  Saved: / Session: / Session-start: / Trigger: / Source:
  ## User requests        the last 3, quoted, labelled as the user's words
  ## Plan state           the latest todo list or plan (TodoWrite, the task tools,
                          update_plan, write_todos)
  ## Files edited
  ## Commands             each with its recorded status: exit N, ok (success recorded
                          without a code) or unknown -- never guessed
  ## Last claim           the agent's last statement, labelled as a claim
  ## Compaction summary   the harness's own summary, when the hook input carries one
  ## Environment anchors  branch, HEAD, dirty files (at most 10 paths, 1,024 bytes), date

At most 4,096 bytes: over that, the oldest item of the longest list goes first, repeatedly;
the anchors are never cut. Trigger comes from hook_event_name: PreCompact/PreCompress
pre-compact, PostCompact post-compact, SessionEnd session-end, Stop stop, else unknown.
Session-start is the transcript's first timestamp, kept across rewrites. Session ids
outside [A-Za-z0-9][A-Za-z0-9._-]{0,127} are written as 16 hex of their SHA-256; a missing
one is "unknown". Input from a subagent (carrying agent_id) is ignored. Two sessions never
share a file; the checkpoints of the 5 newest sessions (by Saved:) are kept, and only
names of this pattern are ever deleted.

The transcript is opened read-only, never through a link, only when it is a regular file;
its first 64 KiB choose the format (--format only when they hold no record to recognise). Its last 1 MiB is read (a
partial first line dropped), and all of its last 4 MiB -- never more -- when that part lacks
the last three user requests, a last statement, or the latest plan (a plan that earlier
records may change, or a plan tool's name in the bytes before it). Files edited and
commands are those of the part read. It is never searched for. Formats are known by shape,
whatever version the records name; Source: is "<format> <version or unknown>". A missing,
unreadable, compressed or unknown transcript gives a checkpoint with the anchors, the
trigger and the hook input's own summary; Source: "anchors only (<why>)". Transcript text is redacted (see \`--help redact\`), flattened to
one line per item, and refused characters are written as <U+XXXX>: content is never
refused. git gets 500 ms; past that the anchors say "unknown (git timed out)".

It publishes like \`write\` (the lock, a claim, a link that cannot overwrite), taking the
lock once (--lock-timeout 0): when memory is busy it skips. A checkpoint equal to the
current one apart from Saved: and - Date: is left as it is. It also removes what an
interrupted checkpoint left in checkpoints/. The root is --root, else the hook input's cwd
walked up to the nearest folder holding .ai/memory or .git, else the current directory;
nothing is written at the home directory or the file system's root.

stdout: nothing (a compaction hook must not print); with --format gemini {} and nothing on
stderr, whatever happened. Otherwise stderr, one of:
  ${CHECKPOINT_LINES.saved("<session>.md")}
  ${CHECKPOINT_LINES.unchanged("<session>.md")}
  ${CHECKPOINT_LINES.paused()}
  ${CHECKPOINT_LINES.subagent()}
  ${CHECKPOINT_LINES.busy()}
  ${CHECKPOINT_LINES.skipped("<reason>")}
  ${CHECKPOINT_LINES.usage("<what was wrong>")}
and, before it, any of:
  ${CHECKPOINT_LINES.noTranscript("<why>")}
  ${CHECKPOINT_LINES.unknownFormat()}
  ${CHECKPOINT_LINES.badInput()}
  ${CHECKPOINT_LINES.redacted("redacted N secret(s): KIND, …")}
With SESSION_HANDOFF_DISABLE set it prints nothing at all.

exit: always 0, usage errors included -- a hook must never block the harness.
`;
  },
  run: (ctx) => runCheckpoint(ctx),
};
