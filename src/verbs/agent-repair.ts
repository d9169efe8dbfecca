import path from "node:path";
import { editPath } from "../agents/plan.ts";
import type { Edit } from "../agents/types.ts";
import { missingDirs } from "../store/install-files.ts";
import { conflictRefusal, planLeftovers, repairLeftovers, restoredFrom, type LeftoverPlan } from "../store/install-repair.ts";
import type { AgentTarget } from "./agent-files.ts";
import { failpointOf } from "./common.ts";
import type { VerbContext } from "./types.ts";

/** One agent file `install` or `uninstall` edits: its edit, absolute path, and path as shown. */
export interface EditTarget {
  edit: Edit;
  file: string;
  /** Relative to the project, or `~/…` with --global. */
  shown: string;
}

/** The files the target's agent edits, where this run edits them. */
export function editTargets(t: AgentTarget): EditTarget[] {
  return t.agent.edits(t.helper, t.global).map((edit) => ({ edit, file: editPath(t.base, edit), shown: t.global ? `~/${edit.file}` : edit.file }));
}

/**
 * Before `install` or `uninstall` reads the agent files it is about to edit, repairs what an
 * interrupted run of theirs left beside each (store/install-repair.ts): every file is
 * inspected first, and a conflict that only the user can settle (two set-aside versions and
 * no file; a set-aside version beside a file written since) refuses before anything changes.
 * Each repair is one line on stderr, printed at once (`ctx.warn`), so it is seen even when
 * the verb refuses later. A folder on the way that is a link is refused first: what is under
 * it is not this project's. With `dryRun` nothing changes: the lines say what would be done.
 * @returns for `--dry-run`, per file, what to read as the repair would leave it: the claim it
 *   would put back, or the file with the link count it would have before the repair removes
 *   its second names.
 * @throws Refused (exit 2) for a link on the way, or a conflict, naming the paths and what to do.
 */
export async function repairAgentFiles(
  ctx: VerbContext,
  verb: "install" | "uninstall",
  t: { base: string; dryRun: boolean },
  targets: readonly EditTarget[],
): Promise<Map<string, { path: string; links: number }>> {
  for (const { file } of targets) missingDirs(t.base, path.dirname(file));
  const plans: { plan: LeftoverPlan; shown: string }[] = [];
  for (const { file, shown } of targets) {
    const plan = planLeftovers(path.dirname(file), path.basename(file));
    if (plan.conflict !== null) throw conflictRefusal(plan.conflict);
    plans.push({ plan, shown });
  }
  const views = new Map<string, { path: string; links: number }>();
  for (const { plan, shown } of plans) {
    for (const line of await repairLeftovers(plan, verb, shown, { dryRun: t.dryRun, failpoint: failpointOf(ctx) })) ctx.warn(line);
    if (!t.dryRun) continue;
    // --dry-run reads the file as the repair would leave it: the version it would put back, or
    // the file itself with the second names it would remove (a published temp, a put-back's claim).
    const from = restoredFrom(plan);
    const extra = plan.steps.filter((s) => s.kind === "finish-restore" || (s.kind === "drop-temp" && s.published)).length;
    if (from !== null) views.set(plan.file, { path: from, links: 1 });
    else if (extra > 0) views.set(plan.file, { path: plan.file, links: 1 + extra });
  }
  return views;
}
