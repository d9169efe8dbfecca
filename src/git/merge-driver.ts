// The merge driver: the later handoff kept, the other archived; ledgers by id (docs/decisions/merge-driver.md).
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync,
  writeSync } from "../builtins.ts";
import path from "node:path";
import { memoryText } from "../guard/file-verdict.ts";
import { parseHandoff, proposedStep, stateTimeOfText, type ParsedHandoff } from "../schema/handoff.ts";
import { NONE_ITEM, normalise } from "../schema/open-items.ts";
import { archiveName } from "../store/archive.ts";
import { createExclusive, orNull, succeeds } from "../store/files.ts";
import { pauseSwitch } from "../store/pause.ts";
import { runGit, type Env } from "./run.ts";

/** The line the driver adds after `Saved:` naming the other handoff's archive. */
export const MERGED_LINE =
  /^Merged-with: archive\/(HANDOFF-[A-Za-z0-9._-]+\.md)(?:; (merged with [^\n]{1,240}?))?[ \t]*$/m;

/** The brief's clauses for a handoff the driver chose (`brief` prints them): the event, the archive, the note. */
export function mergedClauses(name: string, note: string | null = null): [string, string, string | null] {
  return ["two handoffs met in a merge", `the other is archive/${name}`, note];
}

/** Which handoff stays current: theirs only when both state times are known and theirs is strictly later. */
export function laterHandoff(ours: string, theirs: string, nowMs: number): "ours" | "theirs" {
  const ta = stateTimeOfText(ours, nowMs);
  const tb = stateTimeOfText(theirs, nowMs);
  return ta.known && tb.known && tb.time.ms > ta.time.ms ? "theirs" : "ours";
}

/** Why a side is not merged: its marker names a schema this helper does not read (a newer one is never downgraded). */
export function unreadSchema(ours: string, theirs: string): string | null {
  const v = (t: string) => /^<!--\s*memory-schema:\s*([A-Za-z0-9._-]{1,20})\s*-->/.exec(t)?.[1] ?? "v1";
  const [side, version] = v(theirs) !== "v1" ? ["their", v(theirs)] : ["our", v(ours)];
  return version === "v1" ? null : `${side} side is memory schema ${version} and this helper reads v1 only`;
}

// Where the driver puts its line: right after the first `Saved:` line, else the title, else the first line.
function mergedAt(lines: readonly string[]): number {
  const saved = lines.findIndex((l) => /^Saved:/.test(l));
  const title = lines.findIndex((l) => l === "# Session Handoff");
  return saved !== -1 ? saved + 1 : title !== -1 ? title + 1 : Math.min(1, lines.length);
}

/** The chosen handoff with a `Merged-with: archive/<name>[; note]` line after its `Saved:` line (or title). */
export function markMerged(text: string, archiveName: string, note: string | null = null): string {
  const line = `Merged-with: archive/${archiveName}${note === null ? "" : `; ${note}`}`;
  const lines = text.split("\n").filter((l) => !MERGED_LINE.test(l));
  lines.splice(mergedAt(lines), 0, line);
  return lines.join("\n");
}

/** The driver's `Merged-with:` line ([1] archive, [2] note) only where the driver writes it: elsewhere it is text. */
export function mergedLineOf(text: string): RegExpExecArray | null {
  const lines = text.split(/\r?\n/);
  const end = lines.findIndex((l) => l.startsWith("## "));
  const preamble = end === -1 ? lines : lines.slice(0, end);
  return MERGED_LINE.exec(preamble[mergedAt(preamble)] ?? "");
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
export function mergeLedgers(ours: string, theirs: string, prefix: string, base = ""): string {
  const a = splitLedger(ours, prefix);
  const b = splitLedger(theirs, prefix);
  const was = new Map(splitLedger(base, prefix).entries.map((e) => [e.id, entryText(e)]));
  // Against the base: an entry one side left as it was yields to the other side's edit or deletion.
  const same = (e: LedgerParts["entries"][number]) => was.get(e.id) === entryText(e);
  const kept = a.entries.flatMap((e) => (same(e) ? b.entries.filter((t) => t.id === e.id) : [e]));
  const used = new Set([...a.entries, ...b.entries].map((e) => e.id));
  b.entries = b.entries.filter((e) => !same(e));
  const byId = new Map(kept.map((e) => [e.id, e]));
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
  const all = [...kept, ...added];
  const blocks = all.map((e) => {
    const body = [...e.body];
    while (body.length > 0 && body[body.length - 1] === "") body.pop();
    return [e.heading, ...body].join("\n");
  });
  const head = [...a.head];
  while (head.length > 0 && head[head.length - 1] === "") head.pop();
  return `${[head.join("\n"), ...blocks].join("\n\n")}\n`;
}

// Done outranks dropped: the merged tree holds the done side's work (docs/decisions/merge-driver.md).
const RANK: Record<string, number> = { unmarked: 0, todo: 1, "in-progress": 2, abandoned: 3, done: 4 };
const BOX: Record<string, string> = { todo: " ", "in-progress": "~", done: "x", abandoned: "-" };
const PLAN_LINE = /^(\s*[-*+] \[)([ xX~-])(\]\s+)(.*)$/;
const LIST_ITEM = /^( {0,3})(?:[-*+]|\d{1,9}([.)]))( +)/;

const MERGED = ["plan", "decisions", "failed approaches", "open questions", "next steps"];
const firstLine = (t: string) => t.split("\n")[0]!.trim();
const real = (items: string[]) => items.filter((t) => !NONE_ITEM.test(t.trim()));

// The line range [from, to) of a level-2 section's body, by its title (case-insensitive), or null.
function sectionBody(lines: string[], h: ParsedHandoff, title: string): { from: number; to: number } | null {
  const at = h.headings.findIndex((x) => x.depth === 2 && x.title.toLowerCase() === title);
  if (at === -1) return null;
  const next = h.headings.slice(at + 1).find((x) => x.depth <= 2);
  return { from: h.headings[at]!.line, to: next === undefined ? lines.length : next.line - 1 };
}

// Adds items to a section's list (replacing a lone `- none`), or adds the section when the winner has none.
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
  const listed = lines.slice(body.from, end);
  const none = listed.findIndex((l) => LIST_ITEM.test(l) && NONE_ITEM.test(l.replace(LIST_ITEM, "").trim()));
  const lone = none !== -1 && listed.filter((l) => LIST_ITEM.test(l)).length === 1;
  lines.splice(lone ? body.from + none : end, lone ? 1 : 0, ...bullets);
}

// The text with merged sections' items rewritten by `fate` (null: removed; undefined: kept).
function editItems(text: string, fate: (section: string, item: string) => string | null | undefined): string {
  const mine = parseHandoff(text).items.filter((i) => MERGED.includes(i.section));
  const to = mine.map((i) => fate(i.section, i.text));
  const lines = text.split("\n");
  for (let k = mine.length - 1; k >= 0; k--) {
    const [i, put] = [mine[k]!, to[k]];
    if (put === undefined) continue;
    const head = lines[i.line - 1]!;
    const bullet = head.slice(0, head.indexOf(i.text.split("\n")[0]!));
    const emptied = mine.every((m, j) => m.section !== i.section || to[j] === null);
    const none = emptied && mine.find((m) => m.section === i.section) === i ? ["- none"] : [];
    lines.splice(i.line - 1, i.text.split("\n").length, ...(put === null ? none : `${bullet}${put}`.split("\n")));
  }
  return lines.join("\n");
}

// An ordered Next steps list is numbered 1, 2, … again once the merge removed or added items.
function numberNext(text: string): string {
  const lines = text.split("\n");
  const items = parseHandoff(text).items.filter((i) => i.section === "next steps");
  const delim = LIST_ITEM.exec(lines[(items[0]?.line ?? 0) - 1] ?? "")?.[2];
  if (delim === undefined) return text;
  items.forEach((i, k) => {
    lines[i.line - 1] = lines[i.line - 1]!.replace(LIST_ITEM, (_all, pad, _d, gap) => `${pad}${k + 1}${delim}${gap}`);
  });
  return lines.join("\n");
}

// The same plan step: equal words, or the other's words go on to say where it stopped or why it was dropped.
function sameStep(was: string, now: string): boolean {
  const [a, b] = [was, now].map((t) => firstLine(t).replace(/^\[[ xX~-]\]\s*/, ""));
  return a !== "" && b!.startsWith(a!) && /^(?:$|\s*[:;,(\u2014\u2013-])/.test(b!.slice(a!.length));
}

/** What `mergeHandoffs` added from the other side, for the brief's sentence; `step`: the step the brief proposes
 * is the other side's, not among the later one's own steps; `goal`: the other side's goal was another. */
type MergeCounts = { decisions: number; failed: number; step?: boolean; goal?: boolean };

/** The later handoff, keeping the other's decisions, failed approaches, questions, plan progress and next steps. */
export function mergeHandoffs(later: string, other: string, base = ""): { text: string; added: MergeCounts } {
  // Items other than plan steps (whose checkbox is their status) are one item in trivially different words.
  const key = (section: string, t: string) => `${section}\n${section === "plan" ? t : normalise(t)}`;
  const keys = (t: string) => new Set(parseHandoff(t).items.map((i) => key(i.section, i.text)));
  const [was, kept, mine] = [keys(base), keys(other), keys(later)];
  // A side that changed the base's goal wrote a handoff of its own, not an edit of the base's: what it left out or
  // put in a base item's place says nothing of the other side's items, so they stay (docs/decisions/merge-own-goal.md).
  const goalOf = (t: string) => normalise(parseHandoff(t).goal);
  const [laterOn, otherOn] = [later, other].map((t) => goalOf(t) === goalOf(base));
  // A failed approach is never removed by a merge: only the other side's edit of it (the same words before its
  // cause) replaces it, as a dead end anyone recorded must stay recorded (docs/decisions/merge-keeps-failed.md).
  const tried = (t: string) => normalise(firstLine(t).split(/:\s|\s[—–-]\s|\s\(/)[0]!);
  const fresh = (side: string) =>
    parseHandoff(side).failedApproaches.filter((f) => !was.has(key("failed approaches", f)));
  const [laterEdits, otherEdits] = [fresh(later), fresh(other)];
  const editedIn = (t: string, side: string[]) => side.some((f) => tried(f) === tried(t));
  // Against the base, an item one side left yields to the other's edit, a plan step in its place to keep the order.
  const moved = parseHandoff(other).items.filter((i) => i.section === "plan" && !was.has(`plan\n${i.text}`));
  // So does a next step the other side reworded where it stood in the base: the first step stays the first.
  const [baseNext, otherNext] = [parseHandoff(base).nextSteps, parseHandoff(other).nextSteps];
  const text = editItems(later.replace(/\r\n?/g, "\n"), (section, t) => {
    if (!otherOn || !was.has(key(section, t)) || kept.has(key(section, t))) return undefined;
    if (section === "failed approaches" && !editedIn(t, otherEdits)) return undefined;
    const there = otherNext[baseNext.findIndex((n) => key(section, n) === key(section, t))] ?? "";
    if (section === "next steps" && there !== "" && ![was, mine].some((k) => k.has(key(section, there)))) {
      return /^\[-\]/.test(there) ? null : there;
    }
    const at = section === "plan" ? moved.findIndex((o) => sameStep(t, o.text)) : -1;
    return at === -1 ? null : moved.splice(at, 1)[0]!.text;
  });
  const a = parseHandoff(text);
  const gone = (section: string, t: string) =>
    laterOn && was.has(key(section, t)) && (section !== "failed approaches" || editedIn(t, laterEdits));
  const b = parseHandoff(editItems(other, (section, t) => (gone(section, t) ? null : undefined)));
  const lines = text.split("\n");
  const missing = (mine: string[], theirs: string[]) => {
    const have = new Set(mine.map(normalise));
    return real(theirs).filter((t) => !have.has(normalise(t)) && (have.add(normalise(t)), true));
  };
  const decisions = missing(a.decisions, b.decisions);
  const failed = missing(a.failedApproaches, b.failedApproaches);
  const questions = missing(a.openQuestions, b.openQuestions);
  // Plan: each step at the furthest status either side reached (`sameStep` matches a step with a note added).
  const plan = sectionBody(lines, a, "plan") ?? { from: 0, to: 0 };
  const known = new Set(a.steps.map((s) => firstLine(s.text)));
  for (let i = plan.from; i < plan.to; i++) {
    const m = PLAN_LINE.exec(lines[i]!);
    if (!m) continue;
    const mine = m[2] === "~" ? "in-progress" : m[2] === " " ? "todo" : m[2] === "-" ? "abandoned" : "done";
    const t = m[4]!.trim();
    const exact = b.steps.filter((s) => firstLine(s.text) === t);
    const like = exact.length > 0 ? exact : b.steps.filter((s) => sameStep(t, s.text) || sameStep(s.text, t));
    like.forEach((s) => known.add(firstLine(s.text)));
    const best = like.sort((x, y) => RANK[y.status]! - RANK[x.status]!)[0];
    if (best && RANK[best.status]! > RANK[mine]!) lines[i] = `${m[1]}${BOX[best.status]}${m[3]}${firstLine(best.text)}`;
  }
  const newSteps = b.plan
    .filter((s) => s.status !== "unmarked" && !known.has(firstLine(s.text)))
    .map((s) => `[${BOX[s.status]}] ${s.text}`);
  // Next steps: the other side's open ones, unless done in the merged plan or already listed.
  const done = new Set([...a.steps, ...b.steps].filter((s) => RANK[s.status]! >= 3).map((s) => firstLine(s.text)));
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
  const step = proposedStep(parseHandoff(out));
  const own = parseHandoff(later);
  const isStep = (t: string) => step !== null && normalise(t) === normalise(step);
  const theirs = step !== null && ![...own.nextSteps, ...own.steps.map((s) => s.text)].some(isStep);
  const goal = goalOf(later) !== goalOf(other) || undefined;
  const added = { decisions: decisions.length, failed: failed.length, step: theirs || undefined, goal };
  return { text: numberNext(out), added };
}

/** The end of a merge's note when the step the brief proposes came from the other handoff, whose saver it names. */
export const THEIR_STEP = "the proposed step is from that handoff";
/** After the other handoff's saver and time in a merge's note: its steps now stand under a goal they were not for. */
export const OTHER_GOAL = ", for another goal";

/** `+2 decisions, +1 failed approach`: what a merge added, in the brief's words. */
export function mergeCountsText(c: MergeCounts): string {
  const n = (k: number, one: string, many: string) => `+${k} ${k === 1 ? one : many}`;
  const counts = `${n(c.decisions, "decision", "decisions")}, ${n(c.failed, "failed approach", "failed approaches")}`;
  return c.step === true ? `${counts}; ${THEIR_STEP}` : counts;
}

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
    if (lstatSync(at, { throwIfNoEntry: false }) === undefined) mkdirSync(at, { mode: 0o700 });
    if (!lstatSync(at).isDirectory()) throw new Error(`${at} is not a real folder`);
  }
  return at;
}

// Who committed the other side's handoff's blob, on any ref (git has no MERGE_HEAD yet when a driver runs), or null.
async function otherAuthor(cwd: string, env: Env, id: string | null, file: string) {
  if (id === null) return null;
  const r = await runGit(cwd, ["log", "--all", "-1", "--format=%an", `--find-object=${id}`, "--", file], env);
  const name = r.code === 0 ? r.stdout.toString("utf8").trim().replace(/[^\p{L}\p{N} .'_-]/gu, "") : "";
  return name === "" ? null : name.slice(0, 60);
}

// Whether the replaced handoff must be archived: outside a rebase always, in one only when no commit will hold it
// (the upstream's or the branch's last) (docs/decisions/rebase-archives.md).
async function archivedInRebase(cwd: string, env: Env, id: string | null, file: string): Promise<boolean> {
  const dirs = await runGit(cwd, ["rev-parse", "--git-path", "rebase-merge", "--git-path", "rebase-apply"], env);
  const state = dirs.stdout.toString("utf8").split("\n").map((d) => path.resolve(cwd, d))
    .find((d) => d !== cwd && lstatSync(path.join(d, "onto"), { throwIfNoEntry: false }) !== undefined);
  if (dirs.code !== 0 || state === undefined) return true;
  const blob = (rev: string) => runGit(cwd, ["rev-parse", "-q", "--verify", `${rev}:${file}`], env);
  const tips = ["onto", "orig-head"].map((f) => readFileSync(path.join(state, f), "utf8").trim());
  const known = await Promise.all(tips.map(blob));
  return known.some((k) => k.code === 0 && k.stdout.toString("utf8").trim() === id);
}

// Merges git's sides of `file` into `ours` (code 1: git's conflict stands); journal/, a floor above, hands its merge.
export async function mergeMemoryFile(
  args: string[], cwd: string, env: Env, journalMonth: (a: string, b: string) => string | null,
): Promise<Said> {
  const [base, ours, theirs, file] = args as [string, string, string, string];
  const said = (code: 0 | 1, note: string | null = null): Said =>
    ({ notes: note === null ? [] : [`session-handoff merge driver: ${note}`], code });
  const m = /^((?:.*\/)?)\.ai\/memory\/(HANDOFF|LESSONS|SOLUTIONS)\.md$/.exec(file);
  // Every path's sides are read one way: a text merge would keep a NUL or rewrite invalid UTF-8.
  let sides: string[];
  try {
    sides = [memorySide(ours, "our side"), memorySide(theirs, "their side"), memorySide(base, "the base")];
  } catch (err) {
    return said(1, (err as Error).message);
  }
  const [a, b, o] = sides as [string, string, string];
  const gitMerge = async (mode: string[], why: string | null) => {
    const labels = ["-L", "ours", "-L", "base", "-L", "theirs", "--", ours, base, theirs];
    const r = await runGit(cwd, ["merge-file", ...mode, ...labels], env);
    return said(r.code === 0 ? 0 : 1, why === null ? null : `${why}; merged as text`);
  };
  // Paused, every path merges as git would without the driver: a text merge, markers and all, nothing of ours written.
  const prefix = /^((?:.*\/)?)\.ai\/memory\//.exec(file)?.[1];
  const paused = prefix === undefined ? null : pauseSwitch(path.join(cwd, prefix, ".ai", "memory"), env);
  if (paused !== null) return gitMerge([], `memory writes are paused (${paused})`);
  // The journal is appended on both sides: a month keeps each entry once, in order; another file, git's union merge.
  if (/^(?:.*\/)?\.ai\/memory\/journal\/[^/]+\.md$/.test(file)) {
    // A month unreadable as text, or not written: the union below.
    const merged = /\/journal\/\d{4}-\d{2}(?:-\d+)?\.md$/.test(file) ? orNull(() => journalMonth(a, b)) : null;
    if (merged !== null && succeeds(() => writeResult(ours, merged))) return said(0);
    return gitMerge(["--union"], null);
  }
  if (!m) return gitMerge([], null);
  if (a === b) return said(0);
  const unread = unreadSchema(a, b);
  if (unread !== null) return gitMerge([], unread);
  if (m[2] !== "HANDOFF") {
    writeResult(ours, mergeLedgers(a, b, m[2] === "LESSONS" ? "L" : "S", o));
    return said(0);
  }
  const later = laterHandoff(a, b, Date.now());
  const winner = later === "ours" ? a : b;
  const loser = winner === a ? b : a;
  const hashed = await runGit(cwd, ["hash-object", "--", later === "ours" ? theirs : ours], env);
  const loserId = hashed.code === 0 ? hashed.stdout.toString("utf8").trim() : null;
  if (!(await archivedInRebase(cwd, env, loserId, file))) {
    // Our side's line names the archive this rebase already left, if any: it stays.
    const line = mergedLineOf(a);
    const text = mergeHandoffs(winner, loser, o).text;
    writeResult(ours, line === null ? text : markMerged(text, line[1]!, line[2] ?? null));
    return said(0, `${file}: kept the later handoff; the other is in this rebase's history, not archived`);
  }
  try {
    const dir = archiveDirOf(cwd, `${m[1]}.ai/memory`);
    const name = archiveName("HANDOFF", dir);
    if (!createExclusive(path.join(dir, name), loser)) throw new Error(`archive/${name} could not be created`);
    const merged = mergeHandoffs(winner, loser, o);
    const who = await otherAuthor(cwd, env, loserId, file);
    const at = stateTimeOfText(loser, Date.now());
    const whose = who === null ? "the other" : `${who}'s`;
    const of = at.known ? ` of ${at.time.iso}` : "";
    const goal = merged.added.goal ? OTHER_GOAL : "";
    const note = `merged with ${whose} handoff${of}${goal}: ${mergeCountsText(merged.added)}`;
    writeResult(ours, markMerged(merged.text, name, note));
    const mine = stateTimeOfText(winner, Date.now());
    // `Saved:` has whole seconds: two saves in one second cannot be ordered, so ours stays and the line says why.
    let chose = at.known && mine.known ? "the later handoff" : "ours, as a state time is unknown or in the future";
    if (at.known && mine.known && at.time.ms === mine.time.ms) chose = "ours, as both were saved in the same second";
    const kept = `${file}: kept ${chose}; the other is archive/${name}`;
    return said(0, `${kept}, not in this merge's commit: \`publish\` commits it`);
  } catch (err) {
    return gitMerge([], `the other handoff could not be archived (${(err as Error).message})`);
  }
}
