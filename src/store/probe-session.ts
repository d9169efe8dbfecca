// The session id `doctor` gives the start hooks it runs: the hook neither reads nor writes a
// delivered-once marker for it, so a doctor run changes nothing. No harness makes ids of this form.
export const PROBE_SESSION_PREFIX = "session-handoff-doctor-";

export function isProbeSession(id: unknown): boolean {
  return typeof id === "string" && id.startsWith(PROBE_SESSION_PREFIX);
}
