import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { mergeDriverStep } from "../git/merge-driver-config.ts";
import { editPath, holdsOurs, snippetOf, uninstallText } from "../agents/plan.ts";
import { AGENTS } from "../agents/index.ts";
import { assertNotPaused } from "../store/pause.ts";
import { tokenOf } from "../store/files.ts";
import { dropRecord, missingDirs, readAgentFile, readRecord, recordsDir } from "../agents/agent-file.ts";
import { removeEmptyDirs, writeAgentFile, writeRecord } from "../agents/agent-file.ts";
import { AGENT_OPTIONS, agentTarget } from "./agent-files.ts";
import { failpointOf } from "./common.ts";
import { installHelpCommon } from "./install.ts";
import { ok, type Verb } from "./types.ts";
import { underInstallLock } from "../agents/install-lock.ts";

// Every agent-file edit holds the install lock (docs/decisions/lock.md).
export const uninstallVerb: Verb = underInstallLock<Verb>({
  name: "uninstall",
  options: AGENT_OPTIONS,
  positionals: [0, 0],
  help: `usage: node memory_io.mjs uninstall --agent claude-code|codex|opencode|cline|gemini|cursor
         [--root DIR | --global] [--dry-run]

Removes exactly what \`install --agent\` added. A file nothing else changed since
install gets its original bytes back (a file install created is deleted); otherwise
only our entries go, every other byte kept. Folders install created go when empty;
the merge driver goes with the last agent installed here. Every case and its words:
references/verbs.md#uninstall.

options:
  --agent NAME  the agent whose files to restore
  --dry-run     say what would change, change nothing
${installHelpCommon}
stdout: one line per file: "restored F", "updated F", "removed F" or "unchanged F"
        ("would …" with --dry-run).
exit:   0 done; 2 refused (usage, unsafe file, malformed markers, JSON that does
        not parse, a read-only file, a concurrent edit);
        4 paused; 5 another install or uninstall held the install lock for 10 s.
`,
  async run(ctx) {
    const t = agentTarget(ctx, "uninstall");
    assertNotPaused(t.memDir, ctx.env);
    const records = recordsDir(ctx.env, t.home);
    const targets = t.targets();
    // As install: a link on the way is refused (a linked .claude/ is the user's own settings).
    for (const { file } of targets) missingDirs(t.base, path.dirname(file));
    const plans = [];
    for (const { edit, file, shown } of targets) {
      const snap = await readAgentFile(file, snippetOf(edit, t.agent.name));
      const record = readRecord(records, file);
      if (snap.bytes === null) {
        plans.push({ edit, file, shown, snap, next: null as string | null, verb: "unchanged", record });
        continue;
      }
      const current = snap.bytes.toString("utf8");
      let next = uninstallText(edit, t.agent.name, current, shown);
      let verb = next === null ? "removed" : next === current ? "unchanged" : "updated";
      // Nothing of ours left and nothing else changed since install: the original bytes, unless
      // they hold an entry of ours (an install killed before its record): that would revive it.
      const before = record?.before == null ? null : Buffer.from(record.before, "base64").toString("utf8");
      const clean = (next === null || !holdsOurs(edit, next)) && (before === null || !holdsOurs(edit, before));
      if (record !== null && record.restorable !== false && record.after === snap.token && clean) {
        next = before;
        verb = next === null ? "removed" : "restored";
      }
      plans.push({ edit, file, shown, snap, next, verb, record });
    }
    const lines: string[] = [];
    const dirs: string[] = [];
    for (const p of plans) {
      if (t.dryRun) {
        lines.push(p.verb === "unchanged" ? `unchanged ${p.shown}` : `would ${p.verb.replace(/d$/, "")} ${p.shown}`);
        continue;
      }
      if (p.verb !== "unchanged") {
        const bytes = p.next === null ? null : Buffer.from(p.next, "utf8");
        await writeAgentFile(p.file, p.snap.token, bytes, 0o644, failpointOf(ctx));
      }
      lines.push(`${p.verb} ${p.shown}`);
      // A record stays while something of ours is left in the file (another agent's block).
      if (p.record !== null && (p.next === null || p.verb === "restored" || !holdsOurs(p.edit, p.next))) {
        dropRecord(records, p.file);
        dirs.push(...p.record.createdDirs);
      } else if (p.record !== null && p.next !== null && p.verb !== "unchanged") {
        // Another agent's share stays (the AGENTS.md block): the record follows what we wrote.
        writeRecord(records, { ...p.record, after: tokenOf(Buffer.from(p.next, "utf8")) });
      }
    }
    // The driver serves every agent installed here: it goes with the last one. Its copy goes before
    // the folders, which may then be empty ones install made.
    const last = !t.global && !anotherInstalled(t, t.dryRun ? new Set(plans.map((p) => p.file)) : new Set());
    const driver = last ? await mergeDriverStep(t.base, { remove: true, dryRun: t.dryRun }, ctx.env) : noDriver;
    if (!t.dryRun) removeEmptyDirs(dirs);
    return ok(`${[...lines, ...driver.lines].join("\n")}\n`, driver.notes);
  },
});

const noDriver = { lines: [] as string[], notes: [] as string[] };

// Whether another agent's files here still hold an entry of ours; `skip` holds the files a dry run
// would change. Only small regular files are read (a FIFO would block).
function anotherInstalled(t: ReturnType<typeof agentTarget>, skip: Set<string>): boolean {
  return Object.values(AGENTS).some((a) => a.name !== t.agent.name && a.edits(t.helper, false).some((edit) => {
    const file = editPath(t.base, edit);
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (skip.has(file) || st === undefined || !st.isFile() || st.size > 4_000_000) return false;
    return holdsOurs(edit, readFileSync(file, "utf8"));
  }));
}
