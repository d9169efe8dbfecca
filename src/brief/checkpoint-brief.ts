// `brief` from an automatic checkpoint (docs/design.md#checkpoints): with no handoff, a brief drafted from the
// newest checkpoint, every field marked `(captured, not confirmed)`; with a handoff older
// than the checkpoint, Plan status and the next step come from the checkpoint (marked) and
// Drift & lessons says the source. Pure.
import { BRIEF_LABELS, flatten, frameNextStep, MAX_FIELD_CHARS, RANK, type Brief } from "./brief.ts";
import { fitClauses } from "./cut.ts";

/** The mark on every field drafted from a checkpoint (docs/design.md#checkpoints). */
export const CAPTURED = "(captured, not confirmed)";

/** What a brief uses of a checkpoint. */
export interface ParsedCheckpoint {
  requests: string[];
  plan: { status: "done" | "doing" | "open" | "dropped"; text: string }[];
  /** Commands whose recorded status is a non-zero exit. */
  failedCommands: string[];
  claim: string | null;
}

const STATUS = { x: "done", "~": "doing", " ": "open", "-": "dropped" } as const;

/** Reads the sections of a checkpoint document (as `checkpoint` writes it); unknown lines are ignored. */
export function parseCheckpoint(text: string): ParsedCheckpoint {
  const out: ParsedCheckpoint = { requests: [], plan: [], failedCommands: [], claim: null };
  let section = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) {
      section = line.slice(3).trim();
      continue;
    }
    if (!line.startsWith("- ") || line === "- none captured" || /^- \(\d+ older left out\)$/.test(line)) continue;
    const item = line.slice(2);
    if (section === "User requests") out.requests.push(item.replace(/^The user wrote: /, ""));
    else if (section === "Plan state") {
      const m = /^\[([x~ -])\] (.*)$/.exec(item);
      if (m) out.plan.push({ status: STATUS[m[1] as keyof typeof STATUS], text: m[2]! });
    } else if (section === "Commands" && / — exit [1-9]\d*$/.test(item)) out.failedCommands.push(item);
    else if (section === "Last claim") out.claim = item.replace(/^The agent claimed \(not verified\): /, "");
  }
  return out;
}

function planStatusOf(cp: ParsedCheckpoint): { text: string; current: string | null } {
  if (cp.plan.length === 0) return { text: `none captured ${CAPTURED}`, current: null };
  const n = (s: string) => cp.plan.filter((p) => p.status === s).length;
  const current = cp.plan.find((p) => p.status === "doing") ?? cp.plan.find((p) => p.status === "open");
  const bits = [`${n("done")} done`, `${n("doing")} in progress`, `${n("open")} todo`];
  if (n("dropped") > 0) bits.push(`${n("dropped")} abandoned`);
  const where = current
    ? `; ${current.status === "doing" ? "in progress" : "next"}: ${flatten(current.text, 160)}`
    : "";
  return { text: `${bits.join(", ")}${where} ${CAPTURED}`, current: current?.text ?? null };
}

function nextStepOf(current: string | null): string {
  return current !== null
    ? `${flatten(current, 200)} ${CAPTURED} — Confirm?`
    : `review the checkpoint (\`read checkpoint\`) with the user and write a handoff ${CAPTURED} — Confirm?`;
}

function lines(b: Omit<Brief, "lines">): Brief {
  const values = [b.goal, b.planStatus, b.decisionsInForce, b.doNotRetry, b.driftAndLessons, b.proposedNextStep];
  return { ...b, lines: BRIEF_LABELS.map((label, i) => `${label} ${values[i]}`) };
}

/** The brief drafted from a checkpoint alone (no handoff). `age` reads like `12 minutes ago`. */
export function briefFromCheckpoint(cp: ParsedCheckpoint, age: string): Brief {
  const plan = planStatusOf(cp);
  const last = cp.requests[cp.requests.length - 1];
  return lines({
    goal: last ? `the user's last request: ${flatten(last, 300)} ${CAPTURED}` : `none captured ${CAPTURED}`,
    planStatus: plan.text,
    decisionsInForce: `none recorded (no handoff was written) ${CAPTURED}`,
    doNotRetry:
      cp.failedCommands.length > 0
        ? `commands that failed: ${cp.failedCommands
            .slice(-3)
            .map((c) => flatten(c, 120))
            .join("; ")} ${CAPTURED}`
        : `none recorded ${CAPTURED}`,
    driftAndLessons: `no handoff; drift not measured ${CAPTURED}; source: checkpoint ${age}`,
    proposedNextStep: nextStepOf(plan.current),
  });
}

/**
 * Folds a checkpoint newer than the handoff into the handoff's brief (docs/design.md#checkpoints): Goal,
 * Decisions and Do-not-retry stay the handoff's; Plan status and the next step come from the
 * checkpoint, marked; Drift & lessons ends with `source: checkpoint <age>`. The checkpoint's
 * step keeps the handoff brief's frame: drift's verdict before it, the open question after it
 * (a newer checkpoint does not make drift or an unanswered question go away).
 */
export function foldCheckpoint(brief: Brief, cp: ParsedCheckpoint, age: string): Brief {
  const plan = planStatusOf(cp);
  return lines({
    goal: brief.goal,
    planStatus: cp.plan.length > 0 ? plan.text : brief.planStatus,
    decisionsInForce: brief.decisionsInForce,
    doNotRetry: brief.doNotRetry,
    // The source is a clause like the others: whole clauses drop before it, nothing follows a cut.
    driftAndLessons: brief.driftClauses
      ? fitClauses([...brief.driftClauses, { text: `source: checkpoint ${age}`, rank: RANK.source }], MAX_FIELD_CHARS)
      : `${brief.driftAndLessons}; source: checkpoint ${age}`,
    proposedNextStep:
      plan.current === null
        ? brief.proposedNextStep
        : brief.frame === undefined
          ? nextStepOf(plan.current)
          : frameNextStep(
              brief.frame.verdict,
              `${flatten(plan.current, 200)} ${CAPTURED}`,
              brief.frame.question,
              brief.frame.notHere ?? null,
              brief.frame.ageOnly === true,
            ),
  });
}

/** The brief when a stash entry holds the handoff the working tree lacks: where, and how to bring it back. */
export function briefFromStash(stash: string, restore: string): Brief {
  const notRead = `not read: the handoff is in ${stash}`;
  return lines({
    goal: `${notRead}, not in the working tree`,
    planStatus: notRead,
    decisionsInForce: notRead,
    doNotRetry: notRead,
    driftAndLessons: `no handoff in the working tree: .ai/memory/HANDOFF.md is in ${stash}; drift not measured`,
    proposedNextStep: `bring the handoff back with \`${restore}\`, then run brief again — Confirm?`,
  });
}
