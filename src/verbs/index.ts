import type { VerbTable } from "./types.ts";

/**
 * The verb table: name -> one-line summary and a loader. Loaders import lazily so that a
 * verb only evaluates the code it needs.
 */
export const VERBS: VerbTable = {
  read: { summary: "print a memory file in the untrusted envelope, with its token", load: async () => (await import("./read.ts")).readVerb },
  write: { summary: "replace a memory file (compare-and-swap on its token)", load: async () => (await import("./write.ts")).writeVerb },
  "read-target": { summary: "print AGENTS.md or CLAUDE.md in the envelope, with its token", load: async () => (await import("./read.ts")).readTargetVerb },
  promote: { summary: "append an approved lesson to AGENTS.md or CLAUDE.md (compare-and-swap)", load: async () => (await import("./promote.ts")).promoteVerb },
  check: { summary: "bootstrap check: 0 nothing parked, 1 interrupted save, 2 handoff parked, 3 unsafe", load: async () => (await import("./check.ts")).checkVerb },
  recover: { summary: "repair what an interrupted save left; idempotent", load: async () => (await import("./recover.ts")).recoverVerb },
  anchors: { summary: "print the git anchors (branch, HEAD, dirty files, date) for a save", load: async () => (await import("./anchors.ts")).anchorsVerb },
  drift: { summary: "measure how far the repository moved since the handoff: verdict and numbers", load: async () => (await import("./drift.ts")).driftVerb },
  brief: { summary: "the six-line warm-start brief for a resume (exit 3: cold start)", load: async () => (await import("./brief.ts")).briefVerb },
  hook: { summary: "session-start hook: fixed sentences about parked memory", load: async () => (await import("./hook.ts")).hookVerb },
  validate: { summary: "check a memory document: schema errors (exit 2), score 0-100, findings, dropped items", load: async () => (await import("./validate.ts")).validateVerb },
  archives: { summary: "list, show or restore (compare-and-swap) the archived handoffs", load: async () => (await import("./archives.ts")).archivesVerb },
  init: { summary: "set the skill up in a project: copy it, make every agent see it, install the hooks", load: async () => (await import("./init.ts")).initVerb },
  install: { summary: "wire the session-start hook or bootstrap block into an agent's files", load: async () => (await import("./install.ts")).installVerb },
  uninstall: { summary: "remove exactly what install added", load: async () => (await import("./uninstall.ts")).uninstallVerb },
  doctor: { summary: "read-only health report: Node, installs per agent, memory dir; each problem with its fix", load: async () => (await import("./doctor.ts")).doctorVerb },
  publish: { summary: "commit exactly the memory dir (on the user's request); --push to the upstream", load: async () => (await import("./publish.ts")).publishVerb },
  checkpoint: { summary: "compaction/session-end hooks: capture the session (exit 0)", load: async () => (await import("./checkpoint.ts")).checkpointVerb },
  statusline: { summary: "Claude Code's status line: yours, then the handoff's state", load: async () => (await import("./statusline.ts")).statuslineVerb },
  context: { summary: "prompt/tool hooks: offer a handoff once near a full context", load: async () => (await import("./context.ts")).contextVerb },
  search: { summary: "search memory: journal, archives, ledgers, checkpoints", load: async () => (await import("./search.ts")).searchVerb },
  impact: { summary: "did the handoffs help? measured from the journal's resumes", load: async () => (await import("./impact.ts")).impactVerb },
  journal: { summary: "journal purge [--before YYYY-MM]: delete journal files", load: async () => (await import("./journal.ts")).journalVerb },
  // Run by git only (docs/decisions/merge-driver.md): not in the usage list.
  "merge-driver": { summary: "git's merge driver for memory files (run by git)", load: async () => (await import("./merge-driver.ts")).mergeDriverVerb, hidden: true },
  redact: { summary: "copy stdin to stdout with secrets replaced by <redacted: KIND>", load: async () => (await import("./redact.ts")).redactVerb },
};

