import { existsSync } from "node:fs";
import path from "node:path";

// The `checkpoint` verb's limits and the lines it prints (docs/design.md#checkpoints),
// shared by its face (checkpoint-verb.ts) and its work (checkpoint-run.ts).

/** Largest hook input read, in bytes (docs/design.md#checkpoints); longer input is ignored, not refused. */
export const CHECKPOINT_STDIN_BYTES = 1024 * 1024;
/** Time git may take for the checkpoint's anchors, in ms (docs/design.md#checkpoints). */
export const CHECKPOINT_GIT_MS = 500;
/** Most dirty paths and bytes on a checkpoint's `- Dirty files:` line (docs/design.md#checkpoints). */
export const CHECKPOINT_DIRTY = { paths: 10, bytes: 1024 };

/**
 * True when the running helper is installed for the user (under the home folder, outside the
 * project) and the project has no `.ai/memory/`: such a hook fires in every project, and one that
 * never used the skill gets nothing from it (docs/decisions/checkpoint-without-memory.md).
 */
export function userHelperWithoutMemory(skillDir: string | null | undefined, home: string, root: string): boolean {
  if (!skillDir || home === "" || existsSync(path.join(root, ".ai", "memory"))) return false;
  const under = (dir: string, base: string) => {
    const rel = path.relative(base, dir);
    return !rel.startsWith("..") && !path.isAbsolute(rel);
  };
  return under(skillDir, home) && !under(skillDir, root);
}

// Every line this verb prints, all on stderr with stdout empty (docs/design.md#checkpoints);
// with --format gemini cli.ts drops them and prints {} (docs/design.md#integrations).
export const CHECKPOINT_LINES = {
  saved: (name: string) => `checkpoint: saved checkpoints/${name}`,
  unchanged: (name: string) => `checkpoint: unchanged checkpoints/${name}`,
  paused: () => "checkpoint: memory writes are paused; nothing was captured",
  subagent: () => "checkpoint: the hook input comes from a subagent (agent_id); nothing was captured",
  busy: (who: string, lock: string) =>
    `checkpoint: memory is busy: ${who} holds the lock ${lock}; skipped, nothing was captured`,
  skipped: (reason: string) => `checkpoint: skipped: ${reason}`,
  noTranscript: (reason: string) => `checkpoint: ${reason}; captured the anchors only`,
  unknownFormat: () => "checkpoint: the transcript's format is not recognised; captured the anchors only",
  badInput: () => "checkpoint: the hook input is not a JSON object (or is over 1 MiB); captured the anchors only",
  nothing: (afterSave: boolean) => {
    const since = afterSave ? "since the session's last handoff save" : "in the session";
    return `checkpoint: no tool call ${since}; nothing written`;
  },
  removed: (name: string) =>
    `checkpoint: no tool call since the session's last handoff save; removed checkpoints/${name}, which it supersedes`,
  noMemory: (root: string) =>
    `checkpoint: ${root} has no .ai/memory and this helper is installed for the user, ` +
    "not the project; nothing was captured",
  usage: (what: string) => `checkpoint: ${what}; nothing was captured`,
  redacted: (report: string) => `checkpoint: ${report.replace(/ \(line \d+\)/g, "")} from the transcript`,
} as const;
