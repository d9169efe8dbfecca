// The checkpoint's capture, apart from index.ts so that the session bundle, which reads only events, lacks it.
import { readEvents } from "./index.ts";
import { emptyCapture, noteEdit, type Call, type Capture, type CommandRun, type LineEvents, type PlanItem,
  type TranscriptFormat } from "./types.ts";

/** Extracts a capture from complete transcript lines, oldest first. Pure. */
export function parseTranscript(format: TranscriptFormat, lines: readonly string[]): Capture {
  return captureOf(format, readEvents(format, lines, "all"));
}

/** The capture of a transcript's events; a Codex call a completed item tells counts only as the item. */
export function captureOf(format: TranscriptFormat, events: readonly LineEvents[]): Capture {
  const cap = emptyCapture(format);
  const lastWrite = new Map<string, number>();
  events.forEach((ev, i) => ev.id !== null && lastWrite.set(ev.id, i));
  const said = { users: [[], [], []] as string[][], claims: [null, null, null] as (string | null)[] };
  const plans: Plans = { todo: null, from: null, taskCreates: new Map(), tasks: new Map() };
  const steps: Call[] = [];
  const runs = new Map<Call, CommandRun[]>();
  const waiting = new Map<string, CommandRun>();
  const calls = new Set<string>();
  const itemized = new Set<string>();
  const openScripts = new Set<string>();
  for (const [i, ev] of events.entries()) {
    if (ev.id !== null && lastWrite.get(ev.id) !== i) continue;
    if (ev.record) cap.records++;
    cap.firstTimestamp ??= ev.ts;
    cap.version = ev.version ?? cap.version ?? null;
    said.users[ev.rank]!.push(...ev.users);
    said.claims[ev.rank] = ev.claim ?? said.claims[ev.rank]!;
    for (const r of ev.results) {
      const run = waiting.get(r.id);
      if (run !== undefined) run.status = r.status;
      waiting.delete(r.id);
      openScripts.delete(r.id);
      // A TaskCreate's answer names the task its later updates name.
      const created = plans.taskCreates.get(r.id);
      if (created !== undefined && r.task != null) plans.tasks.set(r.task, created);
      plans.taskCreates.delete(r.id);
    }
    for (const call of ev.calls) {
      if (call.item === true) {
        if (call.id !== null && calls.has(call.id)) itemized.add(call.id);
        else for (const open of openScripts) itemized.add(open);
      } else if (call.id !== null) {
        calls.add(call.id);
        if (call.script === true) openScripts.add(call.id);
      }
      plan(plans, call);
      const commands = call.events.filter((e) => e.kind === "command");
      const made = commands.map((e) => ({ command: e.command ?? "", status: call.status ?? "unknown" }));
      if (made.length === 1 && call.id !== null && call.item !== true && call.script !== true) {
        waiting.set(call.id, made[0]!);
      }
      runs.set(call, made);
      steps.push(call);
    }
  }
  for (const call of steps) {
    if (call.item !== true && call.id !== null && itemized.has(call.id)) continue;
    cap.commands.push(...runs.get(call)!);
    for (const e of call.events) if (e.kind === "edit") noteEdit(cap.filesEdited, e.path ?? "");
  }
  cap.userRequests = said.users.find((u) => u.length > 0) ?? [];
  cap.lastClaim = said.claims[0] ?? said.claims[1] ?? said.claims[2] ?? null;
  cap.plan = plans.from === "todo" || plans.tasks.size === 0 ? plans.todo : [...plans.tasks.values()];
  // A task list is built from records that may lie further back (TaskCreate before TaskUpdate).
  cap.planFinal = plans.from === "todo";
  return cap;
}

/** The plan tools' state while reading: the last whole list, the tasks created and updated. */
interface Plans {
  todo: PlanItem[] | null;
  from: "todo" | "tasks" | null;
  taskCreates: Map<string, PlanItem>;
  tasks: Map<string, PlanItem>;
}

function plan(plans: Plans, call: Call): void {
  if (call.plan !== undefined) {
    plans.todo = call.plan;
    plans.from = "todo";
  }
  const task = call.task;
  if (task === undefined) return;
  plans.from = "tasks";
  if ("create" in task) {
    if (call.id !== null) plans.taskCreates.set(call.id, task.create);
    return;
  }
  const known = plans.tasks.get(task.update);
  if (known !== undefined && task.status !== undefined) known.status = task.status;
  if (known !== undefined && task.subject !== undefined) known.text = task.subject;
}
