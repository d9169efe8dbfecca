// The checkpoint document (docs/design.md#checkpoints): rendering within 4,096 bytes, and its header values.
import { sanitize } from "../guard/sanitize.ts";
import { redactTranscript } from "../guard/redact.ts";
import type { RedactionFinding } from "../guard/redact.ts";
import { quotePath } from "./anchor-lines.ts";
import { LISTED_ITEMS, type Capture } from "./capture.ts";
import { CHECKPOINT_HEADING } from "./checkpoint-name.ts";

export * from "./checkpoint-name.ts";

export const CHECKPOINT_MAX_BYTES = 4096;
export const MAX_REQUESTS = 3;

export type Trigger = "pre-compact" | "post-compact" | "session-end" | "stop" | "context-threshold" | "unknown";

export function triggerOf(event: unknown): Trigger {
  switch (event) {
    case "PreCompact":
    case "PreCompress":
      return "pre-compact";
    case "PostCompact":
      return "post-compact";
    case "SessionEnd":
      return "session-end";
    case "Stop":
      return "stop";
    // Not a harness event: the context verb names its own checkpoint so.
    case "ContextThreshold":
      return "context-threshold";
    default:
      return "unknown";
  }
}

/** Everything a checkpoint is made of; strings are raw (this module makes them safe). */
export interface CheckpointInput {
  saved: string;
  session: string;
  sessionStart: string | null;
  trigger: Trigger;
  /** `claude transcript`, or why there is none (`no transcript: …`). */
  source: string;
  capture: Capture | null;
  /** The harness's own summary from the hook input (`compact_summary`), when given. */
  compactSummary: string | null;
  /** The `## Environment anchors` lines, already rendered (never cut, never redacted). */
  anchorLines: string[];
  /** The root, to write edited files relative to it. */
  root: string;
  /** `Since-handoff:`: the token of the session's last save this capture starts after, or null. */
  sinceHandoff?: string | null;
  /** The same session's earlier checkpoint with the same `Since-handoff:`, merged in (never degraded). */
  prior?: PriorCheckpoint | null;
}

/** An earlier checkpoint of the session as written: its trigger history and its rendered items per section. */
export interface PriorCheckpoint {
  /** Its `Trigger:` then its `(earlier: …)` ones, oldest first. */
  triggers: string[];
  source: string | null;
  /** Item lines (`- …`) of each `## ` section, placeholders and counts left out. */
  items: Map<string, string[]>;
  /** Its `- (N older left out)` count per section. */
  dropped: Map<string, number>;
}

/** Reads a checkpoint as written, for a merge; unknown lines are ignored. */
export function parsePriorCheckpoint(text: string): PriorCheckpoint {
  const trigger = /^Trigger: ([a-z-]+)(?: \(earlier: ([a-z, -]+)\))?$/m.exec(text);
  const triggers = trigger === null ? [] : [...(trigger[2]?.split(", ") ?? []), trigger[1]!];
  const source = /^Source: (.*)$/m.exec(text)?.[1] ?? null;
  const items = new Map<string, string[]>();
  const dropped = new Map<string, number>();
  let section: string | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) {
      section = line;
      items.set(section, []);
      continue;
    }
    if (section === null || !line.startsWith("- ") || line === "- none captured") continue;
    const older = /^- \((\d+) older left out\)$/.exec(line);
    if (older) dropped.set(section, Number(older[1]));
    else items.get(section)!.push(line);
  }
  return { triggers, source, items, dropped };
}

/** `Trigger: <latest>` then ` (earlier: <a>, <b>)` for the distinct earlier ones merged in. */
export function triggerLine(latest: string, earlier: readonly string[]): string {
  const before = [...new Set(earlier)].filter((t) => t !== latest);
  return `Trigger: ${latest}${before.length > 0 ? ` (earlier: ${before.join(", ")})` : ""}`;
}

// Per-item caps in code points: enough to recognise the item, small enough that 4 KiB holds every section.
const CAP = { request: 400, plan: 160, file: 200, command: 200, claim: 600, summary: 1200 };
// Older items are counted, never redacted or rendered (a tail can hold thousands of commands).
const MAX_ITEMS = LISTED_ITEMS;
// Secrets are found in the raw text before any cut: a cut made first could leave half a token.
const REDACT_WINDOW = 16_384;

/** Makes transcript text one safe line: secrets redacted in the raw text, then sanitised and cut to `max` clusters. */
export function safeItem(raw: string, max: number, findings: RedactionFinding[]): string {
  const { text, findings: found } = redactTranscript(raw.length > REDACT_WINDOW ? raw.slice(0, REDACT_WINDOW) : raw);
  findings.push(...found);
  return sanitize(text, { max, redact: false });
}

function quoted(s: string): string {
  return `"${s.replace(/"/g, "'")}"`;
}

function relativePath(file: string, root: string): string {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return file.startsWith(prefix) ? file.slice(prefix.length) : file;
}

const MARK = { done: "[x]", doing: "[~]", open: "[ ]", dropped: "[-]" } as const;

const ANCHORS = "## Environment anchors";

interface Section {
  heading: string;
  items: string[];
  /** How many older items were left out, for the budget (and the count line). */
  dropped: number;
}

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
  const head = [
    "<!-- memory-schema: v1 -->",
    CHECKPOINT_HEADING,
    `Saved: ${input.saved}`,
    `Session: ${input.session}`,
    `Session-start: ${input.sessionStart ?? "unknown"}`,
    triggerLine(input.trigger, input.prior?.triggers ?? []),
    `Source: ${input.source}`,
    ...(input.sinceHandoff ? [`Since-handoff: ${input.sinceHandoff}`] : []),
    "",
    "Captured automatically from the harness's transcript, without a model: quoted lines are the user's words, " +
      "the last claim is the agent's statement, not a verified fact. Not confirmed by anyone; " +
      "a handoff written later supersedes it.",
  ];
  const newest = <T>(list: readonly T[] | undefined | null): [T[], number] => {
    const all = list ?? [];
    return [all.slice(-MAX_ITEMS), Math.max(0, all.length - MAX_ITEMS)];
  };
  const said = (what: string, raw: string, max: number) => `- ${what}: ${quoted(safeItem(raw, max, findings))}`;
  const requests = (cap?.userRequests ?? []).slice(-MAX_REQUESTS).map((r) => said("The user wrote", r, CAP.request));
  const [planKept, planOlder] = newest(cap?.plan);
  const [filesKept, filesOlder] = newest(cap?.filesEdited);
  const [commandsKept, commandsOlder] = newest(cap?.commands);
  const plan = planKept.map((p) => `- ${MARK[p.status]} ${safeItem(p.text, CAP.plan, findings)}`);
  const files = filesKept.map((f) => `- ${quotePath(safeItem(relativePath(f, input.root), CAP.file, findings))}`);
  const command = (c: string) => safeItem(c, CAP.command, findings).replace(/`/g, "'");
  const commands = commandsKept.map((c) => `- \`${command(c.command)}\` — ${c.status}`);
  const claim = cap?.lastClaim ? [said("The agent claimed (not verified)", cap.lastClaim, CAP.claim)] : [];
  const sections: Section[] = [
    { heading: "## User requests", items: requests, dropped: 0 },
    { heading: "## Plan state", items: plan, dropped: planOlder },
    { heading: "## Files edited", items: files, dropped: filesOlder },
    { heading: "## Commands", items: commands, dropped: commandsOlder },
    { heading: "## Last claim", items: claim, dropped: 0 },
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

function mergePrior(sections: Section[], prior: PriorCheckpoint): void {
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
    const cap = heading === "## User requests" ? MAX_REQUESTS : MAX_ITEMS;
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
