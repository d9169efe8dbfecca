// Helpers for the checkpoint tests: hook inputs, transcripts, the checkpoints folder.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { FIXTURES } from "../agents/golden.ts";
import { helper, helperAsync, type Run } from "../helpers.ts";
import { withFakes } from "../fixtures/transcripts/fakes.ts";
import { closeTranscript, openTranscript, readFailure, TAIL_BYTES, tailPart } from "../../src/agents/transcripts/tail.ts";

export const CP_DIR = (root: string) => path.join(root, ".ai", "memory", "checkpoints");

/** The hook's stdin JSON for a checkpoint. */
export function hookInput(root: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: "sess-1", cwd: root, hook_event_name: "PreCompact", trigger: "manual", ...fields });
}

/** Copies a fixture transcript into `dir`; returns its path. */
export function transcript(dir: string, name = "claude"): string {
  const p = path.join(dir, `${name}-${Math.random().toString(16).slice(2)}.jsonl`);
  // The fixtures' project folder becomes this test's, so edited files read as root-relative.
  writeFileSync(p, withFakes(readFileSync(path.join(FIXTURES, `${name}.jsonl`), "utf8")).replaceAll("/home/dev/proj", dir));
  return p;
}

/** Runs `checkpoint` with a hook input (no --root: the root comes from its cwd). */
export function checkpoint(root: string, fields: Record<string, unknown> = {}, args: string[] = [], env: Record<string, string> = {}): Run {
  return helper(["checkpoint", ...args], { input: hookInput(root, fields), env });
}

export function checkpointAsync(root: string, fields: Record<string, unknown> = {}, args: string[] = [], env: Record<string, string> = {}): Promise<Run> {
  return helperAsync(["checkpoint", ...args], { input: hookInput(root, fields), env });
}

/** Names in checkpoints/ (private ones included; our .gitignore has its own test). */
export function cpFiles(root: string): string[] {
  return existsSync(CP_DIR(root)) ? readdirSync(CP_DIR(root)).filter((n) => n !== ".gitignore").sort() : [];
}

/** A checkpoint's text, or null. */
export function cpText(root: string, session: string): string | null {
  const p = path.join(CP_DIR(root), `${session}.md`);
  return existsSync(p) ? readFileSync(p, "utf8") : null;
}

/** A checkpoint document with a given Saved: time (for retention and hook tests). */
export function plantCheckpoint(root: string, session: string, saved: string, extra = "", sessionStart = "unknown"): string {
  const text = `<!-- memory-schema: v1 -->\n# Session Checkpoint\nSaved: ${saved}\nSession: ${session}\nSession-start: ${sessionStart}\nTrigger: pre-compact\nSource: planted\n\n## Plan state\n- [~] planted step${extra}\n\n## Environment anchors\n- Date: ${saved}\n`;
  writeFileSync(path.join(CP_DIR(root), `${session}.md`), text, { mode: 0o600 });
  return text;
}

/** ISO time `minutes` ago, whole seconds. */
export function minutesAgoIso(minutes: number): string {
  return new Date(Math.floor((Date.now() - minutes * 60_000) / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** Reads the last 4 MiB and the head of a transcript in one go, as checkpoint's wider read does; never throws. */
export function readTranscriptTail(transcriptPath: string) {
  const opened = openTranscript(transcriptPath);
  if (!opened.ok) return opened;
  try {
    return { ok: true as const, tail: tailPart(opened.file, TAIL_BYTES).lines, head: opened.file.head, size: opened.file.size };
  } catch (err) {
    return { ok: false as const, reason: readFailure(err) };
  } finally {
    closeTranscript(opened.file);
  }
}
