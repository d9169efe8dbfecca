// The six-line warm-start brief the agent answers with on a resume (docs/design.md#the-brief).
import { restoreNote, whereAway, type HandoffAway } from "../git/handoff-away.ts";
import { notHereWords, type DriftReport } from "../git/verdict.ts";
import { sanitize } from "../guard/sanitize.ts";
import { envelopeText } from "../guard/untrusted.ts";
import { cutAtWord, fitClauses, fitList, type Clause } from "./cut.ts";
import { parseBlocks } from "../schema/grammar.ts";
import { proposedStep, type ParsedHandoff } from "../schema/handoff.ts";

/** The six labels, in order (seed 002: match exactly). */
export const BRIEF_LABELS = [
  "Goal:", "Plan status:", "Decisions in force:", "Do-not-retry:", "Drift & lessons:", "Proposed next step:",
] as const;

const AGE_ONLY = "it matches the saved commit, but its time is not known";
const AGE_ONLY_PLAN = "at the saved commit, but the handoff's time is not known";

/** Longest value of one brief field, in characters (the brief must stay short). */
export const MAX_FIELD_CHARS = 400;

type Counts = { entries: number; matching: number };

/** Each ledger's entries and those mentioning a key file or the branch (null: absent); names of refused ones. */
export interface LedgerCounts {
  lessons: Counts | null;
  solutions: Counts | null;
  unreadable?: string[];
}

/** The brief as data: each field's value (already made safe) and the six rendered lines. */
export interface Brief {
  goal: string;
  planStatus: string;
  decisionsInForce: string;
  doNotRetry: string;
  driftAndLessons: string;
  proposedNextStep: string;
  lines: string[];
  /** What framed the next step: drift's verdict and the open question asked first. */
  frame?: { verdict: string; question: string | null; notHere?: string | null; ageOnly?: boolean };
  /** The ranked clauses `Drift & lessons` was fitted from, for a field added to later (a checkpoint's source). */
  driftClauses?: Clause[];
  /** Where a brief not drafted from the handoff alone came from (JSON only). */
  source?: string;
}

const STALE =
  "start fresh: the handoff is too stale to reconcile line by line, so archive it and re-plan from the " +
  "current code, keeping its goal, decisions and failed approaches as background " +
  "(full reconciliation only if you insist)";

function proposal(verdict: string, step: string | null, notHere: string | null, ageOnly: boolean): string {
  const then = step ? `, then: ${step}` : "";
  if (verdict === "stale") return STALE;
  if (verdict === "rewritten") return `re-verify every plan step against the current history before acting${then}`;
  if (verdict === "drifted") return `re-check the steps the drift touches${then}`;
  if (verdict !== "unverifiable") return step ?? "none recorded";
  // Only the age unknown: the anchors were checked and match, so nothing is "by hand".
  if (ageOnly) return `confirm the handoff is still current (${AGE_ONLY})${then}`;
  if (notHere !== null) return `the saved HEAD is ${notHere}${step ? `; then: ${step}` : ""}`;
  return `check the repository by hand (the anchors could not be verified)${then}`;
}

/** The proposed next step under drift's verdict, with the first open question asked before anything is done. */
export function frameNextStep(
  verdict: string, step: string | null, question: string | null, notHere: string | null = null, ageOnly = false,
): string {
  const ask = question === null ? "" : ` (open question first: ${question})`;
  return `${proposal(verdict, step, notHere, ageOnly)}${ask} — Confirm?`;
}

/** File text made safe to sit after a label (one line, so a goal holding `Proposed next step:` stays in Goal:). */
export function flatten(text: string, max = MAX_FIELD_CHARS): string {
  return cutAtWord(sanitize(text), max);
}

const NONE = /^(none|none recorded|none yet|n\/a|-)\.?$/i;

// Where an approach ends and its cause begins: ` — `, ` – `, ` - `, `: `, or `because`.
const CAUSE = /\s[—–-]\s|:\s|\s(?=because\b)/;

/** A failed approach within `room` characters, keeping its cause (what stops a retry): its approach is shortened
 * with `…` first, then, only if still needed, the cause. */
export function keepCause(raw: string, room: number): string {
  const per = Math.max(40, room - 2);
  const item = flatten(raw, 10_000);
  if ([...item].length <= per) return item;
  const m = CAUSE.exec(item);
  if (!m || m.index === 0) return flatten(item, per);
  const sep = m[0];
  const approach = item.slice(0, m.index);
  const cause = item.slice(m.index + sep.length);
  const causeRoom = per - 12 - sep.length;
  const causeText = [...cause].length <= causeRoom ? cause : flatten(cause, causeRoom);
  const approachRoom = per - [...causeText].length - sep.length;
  return `${flatten(approach, Math.max(8, approachRoom))}${sep}${causeText}`;
}

/**
 * Counts ledger entries (level-2 sections, else top-level list items) and those that mention one of `needles`
 * (key files, the branch). Counts only: no ledger text is quoted into the brief.
 */
export function countLedger(text: string, needles: readonly string[]): Counts {
  const body = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const top = parseBlocks(body).children;
  const heads = top.filter((b) => b.type === "heading" && b.depth === 2);
  const items = top.filter((b) => b.type === "list").flatMap((l) => l.children);
  const entries = heads.length > 0
    ? heads.map((h, i) => body.slice(h.start, heads[i + 1]?.start ?? body.length))
    : items.map((b) => body.slice(b.start, b.end));
  const useful = needles.filter((n) => n.length >= 3);
  const matching = entries.filter((e) => useful.some((n) => e.includes(n))).length;
  return { entries: entries.length, matching };
}

function ledgerText(name: string, c: Counts | null): string | null {
  if (c === null) return null;
  const entries = c.entries === 1 ? "entry" : "entries";
  return `${name} ${c.entries} ${entries} (${c.matching} mention the key files or branch)`;
}

/** Drafts the brief from a parsed handoff, its drift report and the ledger counts. */
export function draftBrief(h: ParsedHandoff, drift: DriftReport, ledgers: LedgerCounts): Brief {
  const notHere = drift.notHereReason ? notHereWords(drift.notHereReason) : null;
  // Unverifiable only for want of a state time: git compared the anchors and they match.
  const ageOnly = drift.verdict === "unverifiable" && notHere === null && drift.git.state === "repo" &&
    drift.headReachable === true && drift.ageDays === null;
  const goal = flatten(h.goal) || "none recorded";

  // Every checkbox at any depth counts; `[-] … — dropped:` steps are closed.
  const counts = { done: 0, "in-progress": 0, todo: 0, abandoned: 0, unmarked: 0 };
  for (const s of h.steps) counts[s.status]++;
  const current = h.steps.find((s) => s.status === "in-progress") ?? h.steps.find((s) => s.status === "todo");
  let planStatus: string;
  if (h.steps.length === 0) planStatus = "none recorded";
  else {
    const bits = [`${counts.done} done`, `${counts["in-progress"]} in progress`, `${counts.todo} todo`];
    if (counts.abandoned > 0) bits.push(`${counts.abandoned} abandoned`);
    if (counts.unmarked > 0) bits.push(`${counts.unmarked} unmarked`);
    const where = current?.status === "in-progress" ? "in progress" : "next";
    planStatus = `${bits.join(", ")}${current ? `; ${where}: ${flatten(current.text, 160)}` : ""}`;
    if (drift.verdict === "rewritten") planStatus = `UNVERIFIED (history rewritten since the save): ${planStatus}`;
    else if (ageOnly) planStatus = `unverified (${AGE_ONLY_PLAN}): ${planStatus}`;
    else if (drift.verdict === "unverifiable") {
      const why = notHere === null ? "anchors could not be checked" : `saved HEAD ${notHere}`;
      planStatus = `unverified (${why}): ${planStatus}`;
    }
  }

  const inForce = h.decisions.filter((d) => !/\(superseded\b/i.test(d));
  // List fields drop their last items first; a lone item too long keeps its cause.
  const fitItems = (items: string[]) =>
    items.length === 0 ? "none recorded" : fitList(items.map((d) => flatten(d, 10_000)), 4, MAX_FIELD_CHARS, keepCause);
  const decisionsInForce = fitItems(inForce);
  const doNotRetry = fitItems(h.failedApproaches);

  const ledgerBits = [ledgerText("LESSONS.md", ledgers.lessons), ledgerText("SOLUTIONS.md", ledgers.solutions)]
    .filter((x): x is string => x !== null);
  for (const name of ledgers.unreadable ?? []) ledgerBits.push(`${name} refused by the safety checks (run \`check\`)`);
  // Whole clauses, each ranked: the least important go first when the field is too long.
  const driftClauses: Clause[] = driftSummaryClauses(drift.summary);
  driftClauses.push({
    text: `ledgers: ${ledgerBits.length > 0 ? ledgerBits.join(", ") : "none found"}`, rank: RANK.ledgers,
  });
  const driftAndLessons = fitClauses(driftClauses, MAX_FIELD_CHARS);

  const next = proposedStep(h);
  // A teammate's step is said to be theirs where the agent reads what to do, not only in a clause a cut may drop.
  const who = handoffOwner(drift);
  const whose = who === null ? "" : `(the step ${who}) `;
  const nextText = next === null ? null : `${whose}${flatten(next, 200)}`;
  const open = h.openQuestions.find((q) => !NONE.test(q.trim()));
  const frame = { verdict: drift.verdict, question: open === undefined ? null : flatten(open, 200), notHere, ageOnly };
  const proposedNextStep = frameNextStep(frame.verdict, nextText, frame.question, notHere, ageOnly);

  const fields = { goal, planStatus, decisionsInForce, doNotRetry, driftAndLessons, proposedNextStep };
  return { ...withLines(fields), frame, driftClauses };
}

/** Whose a handoff not saved in this clone is: `of <committer>, saved in another clone`, or `that came with your
 * commit <id>, …` when the user's own commit is all that shows it; null: saved here. */
export function handoffOwner(drift: DriftReport): string | null {
  const p = drift.provenance;
  if (!p?.someoneElse) return null;
  const whose = p.commit ? `that came with your commit ${p.commit}` : `of ${p.committer ?? "someone"}`;
  return `${whose}, saved in another clone`;
}

/** The brief with its six lines rendered from its fields. */
export function withLines(b: Omit<Brief, "lines">): Brief {
  const values = [b.goal, b.planStatus, b.decisionsInForce, b.doNotRetry, b.driftAndLessons, b.proposedNextStep];
  return { ...b, lines: BRIEF_LABELS.map((label, i) => `${label} ${values[i]}`) };
}

/** How much a `Drift & lessons` clause matters, the lowest going first (docs/decisions/brief-cuts.md): what only
 * the brief says (notes, ledgers) and what the resume acts on (verdict, key files, fates) outlast the rest. */
export const RANK = {
  memoryOnly: 10, names: 15, upstream: 20, request: 35, other: 40, stashes: 70, counts: 85, source: 90, now: 92,
  fates: 94, keyFiles: 95, ledgers: 98, verdict: 100, note: 101,
} as const;

// Clause patterns; memory-only commits and key files not created yet are no drift. Who committed a handoff saved
// elsewhere stays unless what the resume acts on needs the room (the session-start hook says the brief names them).
const RANKED: [RegExp, number][] = [
  [/^(the handoff was not saved in this clone|its last commit is by |it came with your commit )/, RANK.source],
  [/memory-only|^key files not created yet/, RANK.memoryOnly],
  [/\bupstream\b/, RANK.upstream],
  [/^key files (missing|changed|with uncommitted)/, RANK.keyFiles],
  [/^(dirty at the save|dirty in the clone that saved)/, RANK.fates],
  [/^dirty files: \d+ then, \d+ now$|^\d+ (other )?commits? on HEAD since|^\d+ saved commits? with no/, RANK.counts],
  [/^(a stash|stashes) made since the save/, RANK.stashes],
  [/ in progress now$|^branch moved from |^branch .* is not in this clone$/, RANK.now],
];

/** drift's summary as ranked clauses: the first is the verdict with its reason. */
export function driftSummaryClauses(summary: string): Clause[] {
  return sanitize(summary).split("; ").map((text, i) => {
    const rank = i === 0 ? RANK.verdict : (RANKED.find(([re]) => re.test(text))?.[1] ?? RANK.other);
    return { text, rank };
  });
}

/** The six lines in the untrusted envelope: its fields carry handoff text and commit authors. */
export function renderBrief(b: Brief): string {
  return envelopeText("BRIEF", `${b.lines.join("\n")}\n`);
}

/** The brief when a stash entry or a branch holds the handoff the working tree lacks: where, how to bring it back. */
export function briefFromStash(a: HandoffAway): Brief {
  const where = whereAway(a);
  const notRead = `not read: the handoff is ${where}`;
  const brief = withLines({
    goal: `${notRead}, not in the working tree`, planStatus: notRead, decisionsInForce: notRead, doNotRetry: notRead,
    driftAndLessons: `no handoff in the working tree: .ai/memory/HANDOFF.md is ${where}; drift not measured`,
    proposedNextStep:
      `bring the handoff back with \`${a.restore}\` (${restoreNote(a)}), then run brief again — Confirm?`,
  });
  return { ...brief, source: a.stash !== undefined ? "stash" : a.ref !== undefined ? "branch" : "lost" };
}
