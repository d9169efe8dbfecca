// The checkpoint document (docs/design.md#checkpoints): rendering within 4,096 bytes, and its header values.
import { sanitize } from "../guard/sanitize.ts";
import { redactTranscript, type RedactionFinding } from "../guard/redact.ts";
import { quotePath } from "../guard/quote.ts";
import { LISTED_ITEMS, type Capture } from "../schema/capture.ts";
import { CHECKPOINT_HEADING, type CheckpointSections } from "./store.ts";
import { MARKER } from "../schema/values.ts";

export const CHECKPOINT_MAX_BYTES = 4096;
export const MAX_REQUESTS = 3;

// ContextThreshold is no harness event: the context verb names its own checkpoint so.
const TRIGGERS: Record<string, string> = {
  PreCompact: "pre-compact", PreCompress: "pre-compact", PostCompact: "post-compact", SessionEnd: "session-end",
  Stop: "stop", ContextThreshold: "context-threshold",
};

export function triggerOf(event: unknown): string {
  return (typeof event === "string" && Object.hasOwn(TRIGGERS, event) ? TRIGGERS[event] : null) ?? "unknown";
}

/** Everything a checkpoint is made of; strings are raw (this module makes them safe), anchor lines rendered. */
export interface CheckpointInput {
  saved: string;
  session: string;
  sessionStart: string | null;
  trigger: string;
  source: string;
  capture: Capture | null;
  compactSummary: string | null;
  anchorLines: string[];
  root: string;
  sinceHandoff?: string | null;
  // The session's earlier checkpoint after the same save, merged in (never degraded).
  prior?: CheckpointSections | null;
}

// Per-item caps in code points: enough to recognise the item, small enough that 4 KiB holds every section.
const CAP = { request: 400, plan: 160, file: 200, command: 200, claim: 600, summary: 1200 };
// Secrets are found in the raw text before any cut: a cut made first could leave half a token.
const REDACT_WINDOW = 16_384;

/** Makes transcript text one safe line: secrets redacted in the raw text, then sanitised and cut to `max` clusters. */
export function safeItem(raw: string, max: number, findings: RedactionFinding[]): string {
  const { text, findings: found } = redactTranscript(raw.length > REDACT_WINDOW ? raw.slice(0, REDACT_WINDOW) : raw);
  findings.push(...found);
  return sanitize(text, { max, redact: false });
}

const MARK = { done: "[x]", doing: "[~]", open: "[ ]", dropped: "[-]" } as const;

const ANCHORS = "## Environment anchors";

// `dropped`: how many older items were left out, for the budget and the count line.
type Section = { heading: string; items: string[]; dropped: number };

function renderSections(head: string[], sections: Section[]): string {
  const out = [...head];
  for (const s of sections) {
    out.push("", s.heading);
    if (s.dropped > 0) out.push(`- (${s.dropped} older left out)`);
    if (s.items.length === 0 && s.dropped === 0) out.push(s.heading === ANCHORS ? "- none" : "- none captured");
    out.push(...s.items);
  }
  return `${out.join("\n")}\n`;
}

/** Renders a checkpoint; over 4,096 bytes the oldest item of the longest list goes, repeatedly, the anchors never. */
export function renderCheckpoint(input: CheckpointInput): { text: string; findings: RedactionFinding[] } {
  const findings: RedactionFinding[] = [];
  const cap = input.capture;
  const earlier = [...new Set(input.prior?.triggers ?? [])].filter((t) => t !== input.trigger);
  const head = [
    MARKER,
    CHECKPOINT_HEADING,
    `Saved: ${input.saved}`,
    `Session: ${input.session}`,
    `Session-start: ${input.sessionStart ?? "unknown"}`,
    `Trigger: ${input.trigger}${earlier.length > 0 ? ` (earlier: ${earlier.join(", ")})` : ""}`,
    `Source: ${input.source}`,
    ...(input.sinceHandoff ? [`Since-handoff: ${input.sinceHandoff}`] : []),
    "",
    "Captured automatically from the harness's transcript, without a model: quoted lines are the user's words, " +
      "the last claim is the agent's statement, not a verified fact. Not confirmed by anyone; " +
      "a handoff written later supersedes it.",
  ];
  // Older items are counted, never redacted or rendered (a tail can hold thousands of commands).
  const list = <T>(heading: string, all: readonly T[] | null | undefined, item: (x: T) => string): Section => {
    const n = all?.length ?? 0;
    return { heading, items: (all ?? []).slice(-LISTED_ITEMS).map(item), dropped: Math.max(0, n - LISTED_ITEMS) };
  };
  const safe = (text: string, max: number) => safeItem(text, max, findings);
  const said = (what: string, raw: string, max: number) => `- ${what}: "${safe(raw, max).replace(/"/g, "'")}"`;
  const command = (c: string) => safe(c, CAP.command).replace(/`/g, "'");
  const requests = (cap?.userRequests ?? []).slice(-MAX_REQUESTS).map((r) => said("The user wrote", r, CAP.request));
  const root = input.root.endsWith("/") ? input.root : `${input.root}/`;
  const file = (f: string) => safe(f.startsWith(root) ? f.slice(root.length) : f, CAP.file);
  const sections: Section[] = [
    { heading: "## User requests", items: requests, dropped: 0 },
    list("## Plan state", cap?.plan, (p) => `- ${MARK[p.status]} ${safe(p.text, CAP.plan)}`),
    list("## Files edited", cap?.filesEdited, (f) => `- ${quotePath(file(f))}`),
    list("## Commands", cap?.commands, (c) => `- \`${command(c.command)}\` — ${c.status}`),
    {
      heading: "## Last claim",
      items: cap?.lastClaim ? [said("The agent claimed (not verified)", cap.lastClaim, CAP.claim)] : [],
      dropped: 0,
    },
  ];
  const summary = input.compactSummary;
  if (summary !== null && summary.trim() !== "") {
    const items = [said("The harness summarised (not verified)", summary, CAP.summary)];
    sections.push({ heading: "## Compaction summary", items, dropped: 0 });
  }
  if (input.prior) mergePrior(sections, input.prior);
  sections.push({ heading: ANCHORS, items: input.anchorLines, dropped: 0 });
  let text = renderSections(head, sections);
  while (Buffer.byteLength(text, "utf8") > CHECKPOINT_MAX_BYTES) {
    let longest: Section | null = null;
    for (const s of sections) {
      if (s.heading === ANCHORS || s.items.length === 0) continue;
      if (longest === null || s.items.length > longest.items.length) longest = s;
    }
    if (longest === null) break;
    longest.items.shift();
    longest.dropped++;
    text = renderSections(head, sections);
  }
  return { text, findings };
}

// What the new capture cannot fill is kept: earlier list items first, then new ones; the latest plan, claim, summary.
const LATEST_WINS = new Set(["## Plan state", "## Last claim", "## Compaction summary"]);

function mergePrior(sections: Section[], prior: CheckpointSections): void {
  for (const [heading, old] of prior.items) {
    if (heading === ANCHORS || (old.length === 0 && !prior.dropped.has(heading))) continue;
    let s = sections.find((x) => x.heading === heading);
    if (s === undefined) {
      s = { heading, items: [], dropped: 0 };
      sections.push(s);
    }
    if (LATEST_WINS.has(heading)) {
      if (s.items.length === 0) {
        s.items = [...old];
        s.dropped = prior.dropped.get(heading) ?? 0;
      }
      continue;
    }
    const fresh = s.items;
    // A command captured before its result was written is the same run as its finished line.
    const kept = heading === "## Commands" ? old.filter((x) => !supersededRun(x, fresh)) : old;
    const merged = [...kept, ...fresh.filter((x) => !kept.includes(x))];
    const cap = heading === "## User requests" ? MAX_REQUESTS : LISTED_ITEMS;
    // Two captures of one transcript overlap: the larger count of older items stands for both.
    s.dropped = Math.max(s.dropped, prior.dropped.get(heading) ?? 0) + Math.max(0, merged.length - cap);
    s.items = merged.slice(-cap);
    if (heading === "## User requests") s.dropped = 0;
  }
}

function supersededRun(item: string, fresh: readonly string[]): boolean {
  const cut = item.lastIndexOf(" — ");
  if (cut < 0 || item.slice(cut) !== " — unknown" || fresh.includes(item)) return false;
  return fresh.some((x) => x.lastIndexOf(" — ") === cut && x.startsWith(item.slice(0, cut + 3)));
}

/** True when two checkpoints are equal apart from `Saved:` and the `- Date:` anchor (docs/design.md#checkpoints). */
export function sameCheckpoint(a: string, b: string): boolean {
  const strip = (t: string) => t.replace(/^Saved: .*$/m, "").replace(/^- Date: .*$/m, "");
  return strip(a) === strip(b);
}
