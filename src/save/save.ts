// One save of a memory document: checked and built before the lock, published by compare-and-swap under it.
import { unmergedMemory } from "../git/unmerged.ts";
import { conflictNote } from "../git/merge-driver-config.ts";
import { quotedValue } from "../guard/quote.ts";
import path from "node:path";
import { agentOfEnv } from "../agents/index.ts";
import { Refused } from "../errors.ts";
import { collectAnchors, statInsideRoot } from "../git/anchors.ts";
import { formatRedactionReport, redactText, type Redacted } from "../guard/redact.ts";
import { recordSave } from "../journal/store.ts";
import { isEmptyAnchorsBody, renderAnchorLines } from "../schema/anchor-lines.ts";
import { droppedItems, droppedReport } from "../schema/open-items.ts";
import { cloneIdOf, markClone, recordSavedBy, recordSavedHere, savedStampOf, trackedArchives } from "../git/saves.ts";
import { anchorsBody, comparable, fillAnchors, stampSaved } from "../schema/stamp.ts";
import { handoffKeyFiles, handoffLayout, validateHandoff } from "../schema/validate.ts";
import { issueLines, lineMaps, scoreLine, type Issue, type Validation } from "../schema/validate-common.ts";
import { validateLedger } from "../schema/validate-ledger.ts";
import { CLOCK_SKEW_MS, isoSeconds } from "../schema/values.ts";
import { decodeInput } from "../store/document.ts";
import { type ReadFile, readHead, readStable, tokenOf, UnsafeFile } from "../store/files.ts";
import { underLock } from "../store/repair.ts";
import { archiveDir, archivePrefixOf, FILE_OF, MAX_DOCUMENT_BYTES, memoryDir, type Kind } from "../store/paths.ts";
import { publish } from "../store/publish.ts";
import { keptBlob } from "../git/handoff-away.ts";

/** The environment git runs in; the running skill's folder is left out of the dirty files, as `anchors` does. */
type AnchorsContext = { env: Record<string, string | undefined>; skillDir: string | null };

export interface SaveRequest extends AnchorsContext {
  root: string;
  kind: Kind;
  /** The document's bytes; throws the refusal of a document that could not be had, raised in its turn. */
  document: () => Buffer;
  /** The token `read` printed, or `absent`. */
  expected: string;
  lockTimeoutSeconds: number;
  failpoint?: string;
  /** The running helper as printed commands name it. */
  helper: string;
}

/** Saves the document; the file's token, the prior handoff's archive and the stderr lines. */
export async function saveDocument(req: SaveRequest) {
  const { root, env, kind, expected, failpoint } = req;
  const file = FILE_OF[kind];
  // A save over a handoff git holds unmerged would finish no merge and leave the journal's markers unseen.
  if (kind === "handoff" && (await unmergedMemory(root, env)).files.includes(".ai/memory/HANDOFF.md"))
    throw new Refused(`${file} is conflicted; nothing was saved: ${await conflictNote(root, env, [], req.helper)}`);
  // Decoding, redaction, validation and the build run before the lock, so that a large document
  // never keeps other writers waiting; a refusal is raised in its turn, under the lock.
  let checked: Checked | null = null;
  let refusal: { error: unknown } | null = null;
  let prebuilt: Built | null = null;
  try {
    checked = checkDocument(req.document(), kind, root);
    prebuilt = await buildDocument(checked, root, req).catch(() => null);
  } catch (error) {
    refusal = { error };
  }
  const validate = () => {
    if (refusal !== null) throw refusal.error;
  };
  // No memory dir: the file cannot exist, so only `absent` can be the current token.
  const precheck = async () => {
    if (expected !== "absent") {
      const what = `expected ${expected}, current absent`;
      throw new Refused(`${file} changed since it was read (${what}); read again and merge`);
    }
  };
  const options = { root, env, lockTimeoutSeconds: req.lockTimeoutSeconds, failpoint, validate, precheck };
  // Asked before the lock: only a commit or `git add` changes it, and an archive made since is this save's own.
  const tracked = kind === "handoff" ? await trackedArchives(root, env) : undefined;
  const { result, repairs } = await underLock(options, async (lock) => {
    // Built again when a repair under the lock changed the current version.
    const now = await readStable(path.join(memoryDir(root), file)).catch(() => undefined);
    const same = prebuilt !== null && now !== undefined && (now?.token ?? null) === (prebuilt.prior?.token ?? null);
    const built = same ? prebuilt! : await buildDocument(checked!, root, req);
    // The same state again: keep the file, archive nothing, whatever the token.
    if (built.unchanged) return { built, done: null, journal: [] };
    const readToken = built.prior?.token ?? "absent";
    // What was built came from the version read above; another program's write since is a change.
    const build = (prior: Buffer | null) => {
      if ((prior === null ? "absent" : tokenOf(prior)) !== readToken) {
        throw new Refused(`${file} changed since it was read (another program wrote it); read again and merge`);
      }
      return built.bytes;
    };
    const done = await publish({
      dir: memoryDir(root), file, archiveDir: archiveDir(root), archivePrefix: archivePrefixOf(file),
      archivePrior: kind === "handoff", tracked, expectedToken: expected, newMode: 0o600, build, lock, failpoint,
    });
    if (kind !== "handoff") return { built, done, journal: [] };
    // Still under the lock: the journal is appended by the same writer that saved.
    const prior = built.prior?.bytes.toString("utf8") ?? null;
    const entry = { prior, next: done.bytes.toString("utf8"), token: done.token };
    return { built, done, journal: await recordSave(root, entry, failpoint) };
  });
  const { built, done, journal } = result;
  const saved = done ?? built.prior!;
  // This clone's record of its handoff saves, and which agent saved it, for the next brief.
  if (kind === "handoff") {
    const stamp = savedStampOf(saved.bytes.toString("utf8"));
    // A copy of what this save published in git's objects: a `git reset --hard` that discards it can be undone.
    const blob = done === null ? undefined : await keptBlob(root, env, done.bytes);
    await recordSavedHere(root, env, saved.token, stamp, blob);
    if (done !== null) await recordSavedBy(root, env, saved.token, agentOfEnv(env));
  }
  const notes = [...repairs, ...built.notes, ...(done?.warnings ?? []), ...journal];
  return { file, unchanged: done === null, token: saved.token, archived: done?.archived ?? null, notes };
}

/** Most findings `write` prints on stderr; `validate` lists them all. */
const MAX_FINDINGS_SHOWN = 20;

function scoreNotes(v: Validation): string[] {
  const shown = v.findings.filter((f) => f.rule !== "dropped" && f.rule !== "more");
  const lines = issueLines(shown.slice(0, MAX_FINDINGS_SHOWN)).map((l) => `finding: ${l}`);
  const rest = shown.length - MAX_FINDINGS_SHOWN + (v.findings.some((f) => f.rule === "more") ? 1 : 0);
  if (rest > 0) lines.push(`finding: … and more; run \`validate\` for the full list`);
  return [scoreLine(v), ...lines];
}

type Checked = ReturnType<typeof checkDocument>;
type Built = Awaited<ReturnType<typeof buildHandoff>>;

function sameAnchors(a: string | null, b: string): boolean {
  const mine = anchorsBody(b);
  return a !== null && mine !== null && JSON.stringify(anchorsBody(a)) === JSON.stringify(mine);
}

/** Refuses size and schema errors before the memory dir is made (write supplies `Saved:`); text stays as sent. */
export function checkDocument(raw: Buffer, kind: Kind, root: string) {
  if (raw.length > MAX_DOCUMENT_BYTES + 4096) {
    throw new Refused(`the document is ${raw.length} bytes; memory documents are at most ${MAX_DOCUMENT_BYTES} bytes`);
  }
  const decoded = decodeInput(raw, "document");
  // The size limit comes before the schema, and redaction can only be measured by redacting.
  const redacted = redactText(decoded.text);
  finalBytes(redacted.text, raw.length);
  const file = FILE_OF[kind];
  let errors: Issue[];
  if (kind === "handoff") {
    errors = validateHandoff(decoded.text, { mode: "stdin", nowMs: Date.now(), redacted }).errors;
    // Anchors identical to the current handoff's are refilled: their lines are not the agent's (a look without
    // the lock, never a basis for publication, which reads again).
    const current = () => readHead(path.join(memoryDir(root), file))?.toString("utf8") ?? null;
    if (errors.some((e) => e.rule === "anchor-line") && sameAnchors(current(), decoded.text)) {
      errors = errors.filter((e) => e.rule !== "anchor-line");
    }
  } else {
    errors = validateLedger(decoded.text, kind, redacted).errors;
  }
  if (errors.length > 0) {
    const more = /\d+/.exec(errors.find((e) => e.rule === "more")?.message ?? "")?.[0] ?? 0;
    const count = errors.filter((e) => e.rule !== "more").length + Number(more);
    throw new Refused([`${file} has ${count} schema error(s)`, ...issueLines(errors)].join("\n"));
  }
  return { kind, text: decoded.text, notes: decoded.notes, rawBytes: raw.length, redacted };
}

// A line of the checked text as the saved file numbers it, since the draft is gone once saved and the file is what
// the user opens: a redacted secret's lines become one, and `marked` puts one line (the clone mark) in.
function savedLines(pass: Redacted, marked: string): (line: number) => number {
  const [from, to] = [pass.text.split("\n"), marked.split("\n")];
  const at: number[] = [];
  for (let i = 0, j = 0; i < from.length; i++) {
    if (from[i] !== to[j] && from[i] === to[j + 1]) j++;
    at.push(j + 1);
    if (from[i] === to[j]) j++;
  }
  const { toRedacted } = lineMaps(pass);
  return (line) => (line === 0 ? 0 : (at[toRedacted(line) - 1] ?? line));
}

function editAnchors(text: string, edit: (body: string[]) => string[]): string {
  const range = handoffLayout(text).anchors;
  if (range === null) return text;
  const lines = text.split("\n");
  const body = edit(lines.slice(range.start, range.end));
  return [...lines.slice(0, range.start), ...body, ...lines.slice(range.end)].join("\n");
}

function replaceDate(text: string, iso: string): string {
  return editAnchors(text, (body) => {
    const at = body.findIndex((l) => l.startsWith("- Date: "));
    if (at >= 0) body[at] = `- Date: ${iso}`;
    return body;
  });
}

const DIRTY = /^- Dirty (files|hashes|modes): /;

// The dirty-file lines become this clone's own: a list pasted from another clone or an older moment would have the
// brief report reverts that never happened.
function withDirtyNow(text: string, now: string[]): string {
  return editAnchors(text, (lines) => {
    const body = lines.filter((l) => !DIRTY.test(l));
    const at = body.findIndex((l) => l.startsWith("- HEAD: "));
    body.splice(at === -1 ? body.length : at + 1, 0, ...now.filter((l) => DIRTY.test(l)));
    return body;
  });
}

// The size the user sent comes first; what write made of it (redaction, stamp, anchors) second.
function finalBytes(text: string, rawBytes: number): Buffer {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > MAX_DOCUMENT_BYTES) {
    const after = bytes.length === rawBytes ? "" : ` (${bytes.length} after redaction)`;
    const limit = `memory documents are at most ${MAX_DOCUMENT_BYTES} bytes (shorten it)`;
    throw new Refused(`the document is ${rawBytes} bytes${after}; ${limit}`);
  }
  return bytes;
}

/** Under the lock: stamps, fills anchors, redacts, and compares with the current file (`unchanged`: publish none). */
export async function buildDocument(checked: Checked, root: string, anchors: AnchorsContext) {
  const file = FILE_OF[checked.kind];
  const prior = await readStable(path.join(memoryDir(root), file));
  // Before the `unchanged` comparison, so write gives read's verdict on a hard-linked file.
  if (prior !== null && prior.stat.nlink !== 1n) {
    throw new UnsafeFile("hard-linked", path.join(memoryDir(root), file));
  }
  const notes = [...checked.notes];
  if (checked.kind === "handoff") return buildHandoff(checked, root, anchors, prior, notes);
  // A ledger is saved as sent: the pass made before the lock is its redaction.
  const redacted = checked.redacted;
  const savedLine = savedLines(redacted, redacted.text);
  const found = redacted.findings.map((f) => ({ ...f, line: savedLine(f.line) }));
  if (found.length > 0) notes.push(formatRedactionReport(found));
  const bytes = finalBytes(redacted.text, checked.rawBytes);
  const v = validateLedger(checked.text, checked.kind, redacted);
  for (const f of v.findings) f.line = savedLine(f.line);
  return { bytes, prior, unchanged: prior !== null && prior.bytes.equals(bytes), notes: [...notes, ...scoreNotes(v)] };
}

async function buildHandoff(
  checked: Checked, root: string, { env, skillDir }: AnchorsContext, prior: ReadFile | null, notes: string[],
) {
  const priorText = prior ? prior.bytes.toString("utf8") : null;
  const nowMs = Date.now();
  const minutes = (ms: number) => Math.round(Math.abs(ms) / 60_000);
  const iso = isoSeconds(nowMs);
  const stamped = stampSaved(checked.text, iso);
  if (stamped.replaced !== null) {
    const then = Date.parse(stamped.replaced.replace(/^`(.*)`$/, "$1"));
    const was = `note: Saved: ${quotedValue(stamped.replaced.slice(0, 60))}`;
    if (Number.isNaN(then)) {
      if (!/^<[^<>]*>$/.test(stamped.replaced)) notes.push(`${was} is not a time; stamped ${iso}`);
    } else if (Math.abs(nowMs - then) > CLOCK_SKEW_MS) {
      notes.push(`${was} was ${minutes(nowMs - then)} minutes off; stamped ${iso}`);
    }
  }
  let text = stamped.text;
  // Which clone saved it: put in after the checks, whose lines are then numbered as the saved file has them.
  const marked = (t: string) => markClone(t, cloneIdOf(root, env, true));
  const mine = anchorsBody(text);
  // The current file sent back as it was read: unchanged, before refilling its anchors could make it differ.
  const sentBack = priorText !== null && comparable(priorText, false) === comparable(marked(text), false);
  const fill = !sentBack && ((mine !== null && isEmptyAnchorsBody(mine)) || sameAnchors(priorText, text));
  let exempt = new Set<number>();
  const keyFiles = handoffKeyFiles(text);
  let collected: Awaited<ReturnType<typeof collectAnchors>> | null = null;
  const anchorsNow = async (): Promise<string[]> => {
    if (collected === null) {
      collected = await collectAnchors(root, env, nowMs, keyFiles, skillDir);
      if (collected.gitNote !== null && fill) notes.push(`note: anchors filled outside git: ${collected.gitNote}`);
    }
    return renderAnchorLines(collected).split("\n");
  };
  if (fill) {
    const filled = fillAnchors(text, (await anchorsNow()).join("\n"));
    text = filled.text;
    exempt = filled.lines;
  } else if (mine !== null) {
    const date = mine.map((l) => /^- Date: `?([^`]*)`?$/.exec(l)?.[1]).find((d) => d !== undefined);
    const then = date === undefined ? NaN : Date.parse(date);
    if (!sentBack && !Number.isNaN(then) && then > Math.floor(nowMs / 1000) * 1000) {
      // A state time after the save is no state time at all (every reader would call its age unknown).
      text = replaceDate(text, iso);
      const shown = quotedValue(date!.slice(0, 40));
      notes.push(`note: the - Date: anchor ${shown} was later than this save; set it to ${iso}`);
    } else if (!Number.isNaN(then) && nowMs - then > CLOCK_SKEW_MS) {
      const todo = "empty the anchors section to have write fill them";
      notes.push(`note: the - Date: anchor is ${minutes(nowMs - then)} minutes before this save; ${todo}`);
    }
    // Kept anchors still current (Branch and HEAD): their dirty files are this clone's, anchored by content.
    const line = (label: string) => mine.find((l) => l.startsWith(`- ${label}: `))?.slice(label.length + 4);
    if (line("Branch") !== undefined && line("HEAD") !== undefined) {
      const now = await anchorsNow();
      const current = now.includes(`- Branch: ${line("Branch")}`) && now.includes(`- HEAD: ${line("HEAD")}`);
      if (collected!.insideGit && current) {
        const files = now.find((l) => l.startsWith("- Dirty files: "));
        if (line("Dirty files") !== undefined && `- Dirty files: ${line("Dirty files")}` !== files) {
          notes.push(`note: the - Dirty files: anchor was not what is dirty now; set it to ${files?.slice(15)}`);
        }
        text = withDirtyNow(text, now);
      }
    }
  }
  const range = handoffLayout(text).anchors;
  const sent = fill ? null : handoffLayout(checked.text).anchors;
  const inSent = (line: number) => sent !== null && line > sent.start && line <= sent.end;
  if (range !== null && checked.redacted.findings.some((f) => inSent(f.line))) {
    // An anchor line the agent wrote is exempt only when it is what `anchors` reports now.
    const now = new Set(await anchorsNow());
    const lines = text.split("\n");
    for (let i = range.start; i < range.end; i++) if (now.has(lines[i]!)) exempt.add(i + 1);
  }
  const redacted = redactText(text, { exemptLines: exempt });
  const markedText = marked(redacted.text);
  const savedLine = savedLines(redacted, markedText);
  const found = redacted.findings.map((f) => ({ ...f, line: savedLine(f.line) }));
  if (found.length > 0) notes.push(formatRedactionReport(found));
  const bytes = finalBytes(markedText, checked.rawBytes);
  const unchanged = sentBack || (priorText !== null && comparable(priorText, fill) === comparable(markedText, fill));
  if (priorText !== null && !unchanged) {
    const report = droppedReport(droppedItems(priorText, redacted.text));
    if (report) notes.push(report);
  }
  const existing = new Set<string>();
  for (const k of keyFiles) if ((await statInsideRoot(root, k)) !== null) existing.add(k);
  const v = validateHandoff(text, {
    mode: "root", nowMs, prior: unchanged ? null : priorText, existingKeyFiles: existing, redacted,
  });
  for (const f of v.findings) f.line = savedLine(f.line);
  return { bytes, prior, unchanged, notes: [...notes, ...scoreNotes(v)] };
}
