// The tail reader in one call, for tests: the last `maxTail` bytes as lines, the head and the size; never throws.
import { closeTranscript, openTranscript, readFailure, TAIL_BYTES, tailLines } from "../../src/agents/transcripts/tail.ts";

export function readTranscriptTail(transcriptPath: string, maxTail = TAIL_BYTES) {
  const opened = openTranscript(transcriptPath);
  if (!opened.ok) return opened;
  try {
    return { ok: true as const, tail: tailLines(opened.file, maxTail), head: opened.file.head, size: opened.file.size };
  } catch (err) {
    return { ok: false as const, reason: readFailure(err) };
  } finally {
    closeTranscript(opened.file);
  }
}
