// What the merge driver does with two versions of a memory file (docs/decisions/merge-driver.md): two handoffs ->
// the later one current, the other archived; two ledgers -> entries by id, both sides kept.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import path from "node:path";
import { memoryText } from "../guard/memory-text.ts";
import { parseHandoff, stateTimeOfText, type ParsedHandoff } from "../schema/handoff.ts";
import { archiveName } from "../store/archive.ts";
import { createExclusive } from "../store/files.ts";
import { runGit } from "./run.ts";

/** The line the driver adds after `Saved:` naming the other handoff's archive. */
export const MERGED_LINE =
  /^Merged-with: archive\/(HANDOFF-[A-Za-z0-9._-]+\.md)(?:; (merged with [^\n]{1,200}?))?[ \t]*$/m;

/** The brief's sentence for a handoff the driver chose (`brief` prints it). */
export function mergedSentence(name: string, note: string | null = null): string {
  return `two handoffs met in a merge; the other is archive/${name}${note === null ? "" : `; ${note}`}`;
}

/** Which handoff stays current: theirs only when both state times are known and theirs is strictly later. */
export function laterHandoff(ours: string, theirs: string, nowMs: number): "ours" | "theirs" {
  const ta = stateTimeOfText(ours, nowMs);
  const tb = stateTimeOfText(theirs, nowMs);
  if (!ta.known || !tb.known) return "ours";
  return tb.time.ms > ta.time.ms ? "theirs" : "ours";
}

/** The chosen handoff with a `Merged-with: archive/<name>[; note]` line after its `Saved:` line (or title). */
export function markMerged(text: string, archiveName: string, note: string | null = null): string {
  const line = `Merged-with: archive/${archiveName}${note === null ? "" : `; ${note}`}`;
  const lines = text.split("\n").filter((l) => !MERGED_LINE.test(l));
  const saved = lines.findIndex((l) => /^Saved:/.test(l));
  const title = lines.findIndex((l) => l === "# Session Handoff");
  const at = saved !== -1 ? saved + 1 : title !== -1 ? title + 1 : Math.min(1, lines.length);
  lines.splice(at, 0, line);
  return lines.join("\n");
}

type LedgerParts = { head: string[]; entries: { id: number; heading: string; body: string[] }[] };

function splitLedger(text: string, prefix: string): LedgerParts {
  const re = new RegExp(`^## ${prefix}-(\\d{4}): `);
  const out: LedgerParts = { head: [], entries: [] };
  let fence = false;
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (/^ {0,3}(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : re.exec(line);
    if (m) out.entries.push({ id: Number(m[1]), heading: line, body: [] });
    else if (out.entries.length === 0) out.head.push(line);
    else out.entries[out.entries.length - 1]!.body.push(line);
  }
  return out;
}

function entryText(e: { heading: string; body: string[] }): string {
  return [e.heading.replace(/^## [A-Z]-\d{4}: /, ""), ...e.body].join("\n").trim();
}

/** Two ledgers (`prefix` L or S) merged by id; an id whose text differs keeps ours and renumbers theirs. */
export function mergeLedgers(ours: string, theirs: string, prefix: string): string {
  const a = splitLedger(ours, prefix);
  const b = splitLedger(theirs, prefix);
  const used = new Set([...a.entries, ...b.entries].map((e) => e.id));
  const byId = new Map(a.entries.map((e) => [e.id, e]));
  let next = Math.max(0, ...used) + 1;
  const added: LedgerParts["entries"] = [];
  for (const e of b.entries) {
    const mine = byId.get(e.id);
    if (mine === undefined) {
      byId.set(e.id, e);
      added.push(e);
      continue;
    }
    if (entryText(mine) === entryText(e)) continue;
    const id = next++;
    const old = `${prefix}-${String(e.id).padStart(4, "0")}`;
    const heading = e.heading.replace(/^## [A-Z]-\d{4}: /, `## ${prefix}-${String(id).padStart(4, "0")}: `);
    // The note goes right under the heading, where a reader of the entry sees it first.
    added.push({ id, heading, body: [`- Renumbered: was ${old} on the other side of a merge`, ...e.body] });
  }
  const all = [...a.entries, ...added];
  const blocks = all.map((e) => {
    const body = [...e.body];
    while (body.length > 0 && body[body.length - 1] === "") body.pop();
    return [e.heading, ...body].join("\n");
  });
  const head = [...a.head];
  while (head.length > 0 && head[head.length - 1] === "") head.pop();
  return `${[head.join("\n"), ...blocks].join("\n\n")}\n`;
}

const RANK: Record<string, number> = { unmarked: 0, todo: 1, "in-progress": 2, done: 3, abandoned: 3 };
const BOX: Record<string, string> = { todo: " ", "in-progress": "~", done: "x", abandoned: "-" };
const NONE_ITEM = /^(none|none recorded|n\/a|-)\.?$/i;
const PLAN_LINE = /^(\s*[-*+] \[)([ xX~-])(\]\s+)(.*)$/;

const firstLine = (t: string) => t.split("\n")[0]!.trim();
const real = (items: string[]) => items.filter((t) => !NONE_ITEM.test(t.trim()));

// The line range [from, to) of a level-2 section's body, by its title (case-insensitive), or null.
function sectionBody(lines: string[], h: ParsedHandoff, title: string): { from: number; to: number } | null {
  const at = h.headings.findIndex((x) => x.depth === 2 && x.title.toLowerCase() === title);
  if (at === -1) return null;
  const next = h.headings.slice(at + 1).find((x) => x.depth <= 2);
  return { from: h.headings[at]!.line, to: next === undefined ? lines.length : next.line - 1 };
}

// Adds items at the end of a section's list (a lone `- none` replaced), or a new section before the next known one
// when the winner has none.
function addItems(lines: string[], h: ParsedHandoff, heading: string, add: string[]): void {
  if (add.length === 0) return;
  const body = sectionBody(lines, h, heading.toLowerCase());
  const bullets = add.map((t) => `- ${t}`);
  if (body === null) {
    const later = ["next steps", "key files", "environment anchors"];
    const before = h.headings.find((x) => x.depth === 2 && later.includes(x.title.toLowerCase()));
    lines.splice(before === undefined ? lines.length : before.line - 1, 0, `## ${heading}`, ...bullets, "");
    return;
  }
  let end = body.to;
  while (end > body.from && lines[end - 1]!.trim() === "") end--;
  const none = lines.slice(body.from, end).findIndex((l) => /^[-*+]\s+(none|none recorded|n\/a)\.?\s*$/i.test(l));
  if (none !== -1 && lines.slice(body.from, end).filter((l) => /^[-*+]\s/.test(l)).length === 1) {
    lines.splice(body.from + none, 1, ...bullets);
    return;
  }
  lines.splice(end, 0, ...bullets);
}

/** What `mergeHandoffs` added from the other side, for the brief's sentence. */
type MergeCounts = { decisions: number; failed: number };

/** The later handoff, keeping the other's decisions, failed approaches, questions, plan progress and next steps. */
export function mergeHandoffs(later: string, other: string): { text: string; added: MergeCounts } {
  const text = later.replace(/\r\n?/g, "\n");
  const a = parseHandoff(text);
  const b = parseHandoff(other);
  const lines = text.split("\n");
  const missing = (mine: string[], theirs: string[]) => {
    const have = new Set(mine.map((t) => t.trim()));
    return real(theirs).filter((t) => !have.has(t.trim()) && (have.add(t.trim()), true));
  };
  const decisions = missing(a.decisions, b.decisions);
  const failed = missing(a.failedApproaches, b.failedApproaches);
  const questions = missing(a.openQuestions, b.openQuestions);
  // Plan: each step of the later side at the furthest status either side reached.
  const theirStatus = new Map<string, string>();
  for (const s of b.steps) {
    const key = firstLine(s.text);
    if (RANK[s.status]! > RANK[theirStatus.get(key) ?? "unmarked"]!) theirStatus.set(key, s.status);
  }
  const plan = sectionBody(lines, a, "plan");
  if (plan !== null) {
    for (let i = plan.from; i < plan.to; i++) {
      const m = PLAN_LINE.exec(lines[i]!);
      if (!m) continue;
      const mine = m[2] === "~" ? "in-progress" : m[2] === " " ? "todo" : m[2] === "-" ? "abandoned" : "done";
      const theirs = theirStatus.get(m[4]!.trim());
      if (theirs !== undefined && RANK[theirs]! > RANK[mine]!) lines[i] = `${m[1]}${BOX[theirs]}${m[3]}${m[4]}`;
    }
  }
  const known = new Set(a.steps.map((s) => firstLine(s.text)));
  const newSteps = b.plan
    .filter((s) => s.status !== "unmarked" && !known.has(firstLine(s.text)))
    .map((s) => `[${BOX[s.status]}] ${s.text}`);
  // Next steps: the other side's open ones, unless done in the merged plan or already listed.
  const done = new Set([...a.steps, ...b.steps].filter((s) => RANK[s.status] === 3).map((s) => firstLine(s.text)));
  const open = b.nextSteps.filter((t) => !/^\[-\]/.test(t) && !done.has(firstLine(t.replace(/^\[[ xX~-]\]\s*/, ""))));
  const next = missing(a.nextSteps, open);
  // Each edit re-reads the document, so that line numbers always hold.
  let out = lines.join("\n");
  const edits: [string, string[]][] = [
    ["Plan", newSteps], ["Decisions", decisions], ["Failed approaches", failed], ["Open questions", questions],
    ["Next steps", next],
  ];
  for (const [heading, add] of edits) {
    const now = out.split("\n");
    addItems(now, parseHandoff(out), heading, add);
    out = now.join("\n");
  }
  return { text: out, added: { decisions: decisions.length, failed: failed.length } };
}

/** `+2 decisions, +1 failed approach`: what a merge added, in the brief's words. */
export function mergeCountsText(c: MergeCounts): string {
  const n = (k: number, one: string, many: string) => `+${k} ${k === 1 ? one : many}`;
  return `${n(c.decisions, "decision", "decisions")}, ${n(c.failed, "failed approach", "failed approaches")}`;
}

type Env = Record<string, string | undefined>;
type Said = { notes: string[]; code: 0 | 1 };

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

// git's sides are regular files; a link is never followed (docs/decisions/merge-driver.md).
function onRegularFile<T>(p: string, flags: number, use: (fd: number) => T): T {
  const fd = openSync(p, flags | NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${p} is not a regular file`);
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

// A NUL is unsafe and invalid UTF-8 would be rewritten lossily: neither is merged, git's conflict stands.
function memorySide(p: string, side: string): string {
  const m = memoryText(side, onRegularFile(p, constants.O_RDONLY, (fd) => readFileSync(fd)));
  if (m.invalid.length > 0) throw new Error(`${side} is not valid UTF-8`);
  return m.text;
}

function writeResult(p: string, text: string): void {
  onRegularFile(p, constants.O_WRONLY | constants.O_TRUNC, (fd) => writeSync(fd, Buffer.from(text, "utf8")));
}

// The memory dir's archive/, made when missing; every folder on the way must be real (a merge could make a link).
function archiveDirOf(top: string, memRel: string): string {
  let at = top;
  for (const part of [...memRel.split("/").filter(Boolean), "archive"]) {
    at = path.join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      mkdirSync(at, { mode: 0o700 });
      st = lstatSync(at);
    }
    if (!st.isDirectory()) throw new Error(`${at} is not a real folder`);
  }
  return at;
}

// Who committed the other side's handoff's bytes, on any ref (git has no MERGE_HEAD yet when a driver runs), or null.
async function otherAuthor(cwd: string, env: Env, side: string, file: string) {
  const blob = await runGit(cwd, ["hash-object", "--", side], env);
  if (blob.code !== 0) return null;
  const id = blob.stdout.toString("utf8").trim();
  const r = await runGit(cwd, ["log", "--all", "-1", "--format=%an", `--find-object=${id}`, "--", file], env);
  const name = r.code === 0 ? r.stdout.toString("utf8").trim().replace(/[^\p{L}\p{N} .'_-]/gu, "") : "";
  return name === "" ? null : name.slice(0, 60);
}

// Merges git's sides of `file` into `ours`; code 1 leaves git's conflict. The caller hands in the journal's month
// merge, as journal/ sits above git/.
export async function mergeMemoryFile(
  args: string[], cwd: string, env: Env, journalMonth: (a: string, b: string) => string | null,
): Promise<Said> {
  const [base, ours, theirs, file] = args as [string, string, string, string];
  const said = (code: 0 | 1, note: string | null = null): Said =>
    ({ notes: note === null ? [] : [`session-handoff merge driver: ${note}`], code });
  const m = /^((?:.*\/)?)\.ai\/memory\/(HANDOFF|LESSONS|SOLUTIONS)\.md$/.exec(file);
  // Every path's sides are read one way: a text merge would keep a NUL or rewrite invalid UTF-8.
  let a: string;
  let b: string;
  try {
    a = memorySide(ours, "our side");
    b = memorySide(theirs, "their side");
  } catch (err) {
    return said(1, (err as Error).message);
  }
  const gitMerge = async (mode: string[], why: string | null) => {
    const labels = ["-L", "ours", "-L", "base", "-L", "theirs", "--", ours, base, theirs];
    const r = await runGit(cwd, ["merge-file", ...mode, ...labels], env);
    return said(r.code === 0 ? 0 : 1, why === null ? null : `${why}; merged as text`);
  };
  // The journal is appended on both sides: a month file keeps each entry once, in time order; any other journal
  // file gets git's union merge.
  if (/^(?:.*\/)?\.ai\/memory\/journal\/[^/]+\.md$/.test(file)) {
    if (/\/journal\/\d{4}-\d{2}(?:-\d+)?\.md$/.test(file)) {
      try {
        const merged = journalMonth(a, b);
        if (merged !== null) {
          writeResult(ours, merged);
          return said(0);
        }
      } catch {
        // Unreadable as text: the union below.
      }
    }
    return gitMerge(["--union"], null);
  }
  if (!m) return gitMerge([], null);
  if (a === b) return said(0);
  if (m[2] !== "HANDOFF") {
    writeResult(ours, mergeLedgers(a, b, m[2] === "LESSONS" ? "L" : "S"));
    return said(0);
  }
  const later = laterHandoff(a, b, Date.now());
  const winner = later === "ours" ? a : b;
  const loser = winner === a ? b : a;
  try {
    const dir = archiveDirOf(cwd, `${m[1]}.ai/memory`);
    const name = archiveName("HANDOFF", dir);
    if (!createExclusive(path.join(dir, name), loser)) throw new Error(`archive/${name} could not be created`);
    const merged = mergeHandoffs(winner, loser);
    const who = await otherAuthor(cwd, env, later === "ours" ? theirs : ours, file);
    const at = stateTimeOfText(loser, Date.now());
    const whose = who === null ? "the other" : `${who}'s`;
    const of = at.known ? ` of ${at.time.iso}` : "";
    const note = `merged with ${whose} handoff${of}: ${mergeCountsText(merged.added)}`;
    writeResult(ours, markMerged(merged.text, name, note));
    const kept = `${file}: kept the later handoff; the other is archive/${name}`;
    return said(0, `${kept}, not in this merge's commit: \`publish\` commits it`);
  } catch (err) {
    return gitMerge([], `the other handoff could not be archived (${(err as Error).message})`);
  }
}
