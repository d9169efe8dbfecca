// `brief` from a checkpoint: drafted from it alone with no handoff, or folded into the handoff's brief when newer.
import { checkpointsDir, currentCheckpoint, handoffOrderOf, minutesAgo, readCheckpointText,
  type HandoffOrder } from "./store.ts";
import { memoryDir } from "../store/paths.ts";
import { readManagedFile } from "../store/read.ts";
import { flatten, frameNextStep, MAX_FIELD_CHARS, RANK, withLines, type Brief } from "../brief/brief.ts";
import { fitClauses } from "../brief/cut.ts";

const CAPTURED = "(captured, not confirmed)";

type ParsedCheckpoint = ReturnType<typeof parseCheckpoint>;

const STATUS = { x: "done", "~": "doing", " ": "open", "-": "dropped" } as const;

function parseCheckpoint(text: string) {
  const { items, dropped } = readCheckpointText(text);
  const of = (heading: string) => (items.get(`## ${heading}`) ?? []).map((line) => line.slice(2));
  const plan = of("Plan state").flatMap((item) => {
    const m = /^\[([x~ -])\] (.*)$/.exec(item);
    return m ? [{ status: STATUS[m[1] as keyof typeof STATUS], text: m[2]! }] : [];
  });
  return {
    requests: of("User requests").map((r) => r.replace(/^The user wrote: /, "")),
    plan,
    planCut: dropped.get("## Plan state") ?? 0,
    failedCommands: of("Commands").filter((c) => / — (exit -?[1-9]\d*|failed)$/.test(c)),
  };
}

function planStatusOf(cp: ParsedCheckpoint): { text: string; current: string | null } {
  if (cp.plan.length === 0) return { text: `none captured ${CAPTURED}`, current: null };
  const n = (s: string) => cp.plan.filter((p) => p.status === s).length;
  const current = cp.plan.find((p) => p.status === "doing") ?? cp.plan.find((p) => p.status === "open");
  const bits = [`${n("done")} done`, `${n("doing")} in progress`, `${n("open")} todo`];
  if (n("dropped") > 0) bits.push(`${n("dropped")} abandoned`);
  // The 4 KiB cap left the oldest steps out: their status is unknown, so they are counted apart.
  if (cp.planCut > 0) bits.push(`${cp.planCut} older left out of the checkpoint`);
  const at = current?.status === "doing" ? "in progress" : "next";
  const where = current ? `; ${at}: ${flatten(current.text, 160)}` : "";
  return { text: `${bits.join(", ")}${where} ${CAPTURED}`, current: current?.text ?? null };
}

function nextStepOf(current: string | null): string {
  return current !== null
    ? `${flatten(current, 200)} ${CAPTURED} — Confirm?`
    : `review the checkpoint (\`read checkpoint\`) with the user and write a handoff ${CAPTURED} — Confirm?`;
}

/** The brief drafted from a checkpoint alone (no handoff). `age` reads like `12 minutes ago`. */
function briefFromCheckpoint(text: string, age: string): Brief {
  const cp = parseCheckpoint(text);
  const plan = planStatusOf(cp);
  const last = cp.requests.at(-1);
  const failed = cp.failedCommands.slice(-3).map((c) => flatten(c, 120));
  return withLines({
    goal: last ? `the user's last request: ${flatten(last, 300)} ${CAPTURED}` : `none captured ${CAPTURED}`,
    planStatus: plan.text,
    decisionsInForce: `none recorded (no handoff was written) ${CAPTURED}`,
    doNotRetry: `${failed.length > 0 ? `commands that failed: ${failed.join("; ")}` : "none recorded"} ${CAPTURED}`,
    driftAndLessons: `no handoff; drift not measured ${CAPTURED}; source: checkpoint ${age}`,
    proposedNextStep: nextStepOf(plan.current),
  });
}

// The next step keeps the handoff brief's frame (drift's verdict, the open question): a checkpoint does not clear them.
function foldCheckpoint(brief: Brief, text: string, age: string): Brief {
  const cp = parseCheckpoint(text);
  const plan = planStatusOf(cp);
  const f = brief.frame;
  const step = (current: string) => {
    if (f === undefined) return nextStepOf(current);
    const marked = `${flatten(current, 200)} ${CAPTURED}`;
    return frameNextStep(f.verdict, marked, f.question, f.notHere ?? null, f.ageOnly === true);
  };
  // The handoff's next step stays when no plan was captured. The last request since the save is a clause of its own,
  // ranked low: a long one must not push out the counts, nor the source that says the checkpoint exists.
  const request = cp.requests.at(-1);
  const asked = request === undefined ? "" : `after the save the user asked: ${flatten(request, 160)} ${CAPTURED}`;
  const driftClauses = [...(brief.driftClauses ?? [{ text: brief.driftAndLessons, rank: RANK.verdict }]),
    { text: `source: checkpoint ${age}`, rank: RANK.source }, { text: asked, rank: RANK.request }];
  const failed = cp.failedCommands.slice(-2).map((c) => flatten(c, 100));
  const retry = `${brief.doNotRetry === "none" ? "" : `${brief.doNotRetry}; `}failed since the save: `;
  return withLines({
    goal: brief.goal,
    planStatus: cp.plan.length > 0 ? plan.text : brief.planStatus,
    decisionsInForce: brief.decisionsInForce,
    doNotRetry: failed.length === 0 ? brief.doNotRetry : `${retry}${failed.join("; ")} ${CAPTURED}`,
    driftAndLessons: fitClauses(driftClauses, MAX_FIELD_CHARS),
    proposedNextStep: plan.current === null ? brief.proposedNextStep : step(plan.current),
    driftClauses,
  });
}

// Only a checkpoint newer than the handoff (by its Since-handoff token) is folded in.
async function newestText(root: string, handoff: HandoffOrder | null, now: number) {
  const got = currentCheckpoint(root, handoff, now);
  if (got === null || !(got.newer === true || got.newer === "unsaved") || got.entry.savedMs === null) return null;
  const after = got.newer === "unsaved" ? " of work after an earlier save, which the handoff may not hold" : "";
  const age = `${minutesAgo(got.entry.savedMs, now)}${after}`;
  // An unsafe or racing checkpoint is not a reason to refuse the brief.
  const file = await readManagedFile(checkpointsDir(root), got.entry.name, memoryDir(root)).catch(() => null);
  return file === null ? null : { text: file.bytes.toString("utf8"), age };
}

export async function coldBriefFromCheckpoint(root: string): Promise<Brief | null> {
  const got = await newestText(root, null, Date.now());
  return got === null ? null : { ...briefFromCheckpoint(got.text, got.age), source: "checkpoint" };
}

export async function briefWithCheckpoint(root: string, handoffText: string, brief: Brief, now: number,
  env: Record<string, string | undefined>) {
  const got = await newestText(root, handoffOrderOf(handoffText, now, { root, env }), now);
  if (got === null) return brief;
  return { ...foldCheckpoint(brief, got.text, got.age), source: "handoff+checkpoint" };
}
