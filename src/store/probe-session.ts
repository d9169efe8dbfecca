// The session id `doctor` gives the start hooks it runs (docs/design.md#integrations): the hook
// neither reads nor writes a delivered-once marker for it, so a doctor run changes nothing and
// uses up no once-per-checkpoint notice.

/** Prefix of every session id `doctor` sends; no harness makes ids of this form (they use UUIDs or `ses_…`). */
export const PROBE_SESSION_PREFIX = "session-handoff-doctor-";

/** True for a session id `doctor` made (a `string` starting with PROBE_SESSION_PREFIX). */
export function isProbeSession(id: unknown): boolean {
  return typeof id === "string" && id.startsWith(PROBE_SESSION_PREFIX);
}
