// The checks and changes `write` makes to a document before publishing it (docs/design.md#files-on-disk):
// schema errors refused, `Saved:` stamped, an empty anchors section
// filled (git runs only then, inside the lock), redaction with the anchor exemption, the
// `unchanged` comparison, and the score and findings for stderr. write.ts calls these.
import { quotedValue } from "../guard/quote.ts";
import { closeSync, lstatSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { collectAnchors, statInsideRoot } from "../git/anchors.ts";
import { formatRedactionReport, redactText } from "../guard/redact.ts";
import type { RedactionFinding } from "../guard/redact.ts";
import { renderAnchorLines } from "../schema/anchor-lines.ts";
import { droppedItems, droppedReport } from "../schema/open-items.ts";
import { cloneIdOf, markClone } from "../git/saves.ts";
import { anchorsBody, anchorsEmpty, comparable, fillAnchors, stampSaved } from "../schema/stamp.ts";
import { handoffKeyFiles, handoffLayout, validateHandoff } from "../schema/validate.ts";
import { issueLines, scoreLine, type Issue, type Validation } from "../schema/validate-common.ts";
import { validateLedger } from "../schema/validate-ledger.ts";
import { CLOCK_SKEW_MS, isoSeconds } from "../schema/values.ts";
import { decodeInput } from "../store/document.ts";
import { openRegular, readAll, readStable, UnsafeFile, type ReadFile } from "../store/files.ts";
import { FILE_OF, MAX_DOCUMENT_BYTES, memoryDir, type Kind } from "../store/paths.ts";

/** Most findings `write` prints on stderr; `validate` lists them all. */
const MAX_FINDINGS_SHOWN = 20;

/** The schema refusal: `<FILE> has N schema error(s)`, then `line L: <rule>: <message>` each. */
export function schemaRefusal(file: string, errors: readonly Issue[]): Refused {
  const count = errors.filter((e) => e.rule !== "more").length + Number(/\d+/.exec(errors.find((e) => e.rule === "more")?.message ?? "")?.[0] ?? 0);
  return new Refused([`${file} has ${count} schema error(s)`, ...issueLines(errors)].join("\n"));
}

/** stderr lines for a saved document: the score, then its findings (bounded). */
export function scoreNotes(v: Validation): string[] {
  const shown = v.findings.filter((f) => f.rule !== "dropped" && f.rule !== "more");
  const lines = issueLines(shown.slice(0, MAX_FINDINGS_SHOWN)).map((l) => `finding: ${l}`);
  const rest = shown.length - MAX_FINDINGS_SHOWN + (v.findings.some((f) => f.rule === "more") ? 1 : 0);
  if (rest > 0) lines.push(`finding: … and more; run \`validate\` for the full list`);
  return [scoreLine(v), ...lines];
}

/** A document decoded and checked before the lock's body runs (in the refusal order of). */
export interface Checked {
  kind: Kind;
  /** LF text as sent (BOM dropped), not yet stamped or redacted. */
  text: string;
  notes: string[];
  /** Bytes received on stdin (the size a refusal names first, issue 10; docs/design.md#files-on-disk). */
  rawBytes: number;
  /**
   * The one redaction pass over `text` (docs/design.md#redaction): made before the lock for the
   * size limit, then reused by {@link buildDocument}, which scans only the lines it writes itself.
   */
  redacted: Pass;
}

/** A redaction's result: the redacted text and what was found, lines of the text scanned. */
interface Pass {
  text: string;
  findings: RedactionFinding[];
}

/** Where the anchors of a save come from: the project's environment and the running skill's folder. */
export interface AnchorsContext {
  env: Record<string, string | undefined>;
  /** Left out of the dirty files (docs/design.md#verdicts-and-the-brief), as `anchors` leaves it out. */
  skillDir: string | null;
}

function sizeCheck(raw: Buffer): void {
  if (raw.length > MAX_DOCUMENT_BYTES + 4096) {
    throw new Refused(`the document is ${raw.length} bytes; memory documents are at most ${MAX_DOCUMENT_BYTES} bytes`);
  }
}

// A look at the current handoff without the lock's body (the anchors-identical case of
// docs/design.md#files-on-disk); never a basis for publication, which reads again.
function peekCurrent(root: string, file: string): string | null {
  try {
    lstatSync(memoryDir(root));
    const opened = openRegular(path.join(memoryDir(root), file));
    if (opened === null) return null;
    try {
      return readAll(opened.fd).toString("utf8");
    } finally {
      closeSync(opened.fd);
    }
  } catch {
    return null;
  }
}

/**
 * Decodes stdin (NUL, UTF-8, BOM, CRLF, invisible characters; docs/design.md#files-on-disk, docs/design.md#redaction)
 * and refuses the kind's schema errors (docs/design.md#files-on-disk), before the memory dir is created. A handoff's
 * missing `Saved:` and empty anchors are not errors: write supplies them.
 * @throws Refused (exit 2): `<FILE> has N schema error(s)` then one line per error.
 */
export function checkDocument(raw: Buffer, kind: Kind, root: string): Checked {
  sizeCheck(raw);
  const decoded = decodeInput(raw, "document");
  // The size limit comes before the schema (a 1 MB flood is refused for what it is), and
  // before the memory dir is created: redaction can only be measured by redacting.
  const redacted = redactText(decoded.text);
  finalBytes(redacted.text, raw.length);
  const file = FILE_OF[kind];
  let errors: Issue[];
  if (kind === "handoff") {
    const pass = { secrets: redacted.findings, redactedText: redacted.text };
    errors = validateHandoff(decoded.text, { mode: "stdin", nowMs: Date.now(), ...pass }).errors;
    // Anchors identical to the current handoff's are refilled (docs/design.md#files-on-disk): their lines are not the
    // agent's.
    if (errors.some((e) => e.rule === "anchor-line")) {
      const current = peekCurrent(root, file);
      const mine = anchorsBody(decoded.text);
      if (current !== null && mine !== null && JSON.stringify(anchorsBody(current)) === JSON.stringify(mine)) {
        errors = errors.filter((e) => e.rule !== "anchor-line");
      }
    }
  } else {
    errors = validateLedger(decoded.text, kind, redacted).errors;
  }
  if (errors.length > 0) throw schemaRefusal(file, errors);
  return { kind, text: decoded.text, notes: decoded.notes, rawBytes: raw.length, redacted };
}

/** What a write will publish, or that it is `unchanged`. */
export interface Built {
  bytes: Buffer;
  /** The current file as read under the lock (null: none). */
  prior: ReadFile | null;
  /** True when the result equals the current file (docs/design.md#files-on-disk): nothing is published. */
  unchanged: boolean;
  /** stderr lines: normalisation, stamping, anchors, redaction, dropped items, score, findings. */
  notes: string[];
}

function minutes(ms: number): number {
  return Math.round(Math.abs(ms) / 60_000);
}

/** `text` with its anchors' first `- Date:` line set to `iso`. */
function replaceDate(text: string, iso: string): string {
  const layout = handoffLayout(text);
  const range = layout.anchors;
  if (range === null) return text;
  const lines = [...layout.lines];
  for (let i = range.start; i < range.end; i++) {
    if (/^- Date: /.test(lines[i]!)) {
      lines[i] = `- Date: ${iso}`;
      break;
    }
  }
  return lines.join("\n");
}

/**
 * Under the lock: reads the current file, stamps `Saved:` and fills an empty anchors section
 * (handoff), redacts with the anchor exemption (docs/design.md#redaction), and compares with the current file
 * ignoring `Saved:` and a self-filled `- Date:` (docs/design.md#files-on-disk). Runs git only when it fills
 * anchors, or when a redaction hit an anchor line the agent wrote.
 * @throws Refused (exit 2) when the result is over 1,000,000 bytes.
 */
export async function buildDocument(checked: Checked, root: string, anchors: AnchorsContext): Promise<Built> {
  const { env, skillDir } = anchors;
  const file = FILE_OF[checked.kind];
  const prior = await readStable(path.join(memoryDir(root), file));
  // Checked before the `unchanged` comparison, so write gives read's verdict on a hard-linked file (publish would
  // refuse it too, but an unchanged save never reaches publish); under the lock, after repair, a second link is no
  // publication in progress (docs/design.md#tokens-and-the-publication-protocol).
  if (prior !== null && prior.stat.nlink !== 1n) throw new UnsafeFile("hard-linked", path.join(memoryDir(root), file));
  const priorText = prior ? prior.bytes.toString("utf8") : null;
  const notes = [...checked.notes];
  if (checked.kind !== "handoff") {
    // A ledger is saved as sent: the pass made before the lock is its redaction.
    const redacted = checked.redacted;
    if (redacted.findings.length > 0) notes.push(formatRedactionReport(redacted.findings));
    const bytes = finalBytes(redacted.text, checked.rawBytes);
    const v = validateLedger(checked.text, checked.kind, redacted);
    return { bytes, prior, unchanged: prior !== null && prior.bytes.equals(bytes), notes: [...notes, ...scoreNotes(v)] };
  }

  const nowMs = Date.now();
  const iso = isoSeconds(nowMs);
  const stamped = stampSaved(checked.text, iso);
  if (stamped.replaced !== null) {
    const then = Date.parse(stamped.replaced.replace(/^`(.*)`$/, "$1"));
    if (Number.isNaN(then)) {
      if (!/^<[^<>]*>$/.test(stamped.replaced)) notes.push(`note: Saved: ${quotedValue(stamped.replaced.slice(0, 60))} is not a time; stamped ${iso}`);
    } else if (Math.abs(nowMs - then) > CLOCK_SKEW_MS) {
      notes.push(`note: Saved: ${quotedValue(stamped.replaced.slice(0, 60))} was ${minutes(nowMs - then)} minutes off; stamped ${iso}`);
    }
  }
  let text = stamped.text;
  // Which clone saved it: a line after `Saved:` that a hand edit keeps, put in after the checks so
  // that findings give the draft's own line numbers (docs/decisions/absent-not-rewritten.md).
  const marked = (t: string) => markClone(t, cloneIdOf(root, true));
  const mine = anchorsBody(text);
  // The current file sent back as it was read (a round trip; docs/design.md#files-on-disk): unchanged, before any
  // refilling of its anchors could make it differ.
  const sentBack = priorText !== null && comparable(priorText, false) === comparable(marked(text), false);
  const identical = !sentBack && priorText !== null && mine !== null && JSON.stringify(anchorsBody(priorText)) === JSON.stringify(mine);
  const fill = !sentBack && (anchorsEmpty(text) || identical);
  let exempt = new Set<number>();
  const keyFiles = handoffKeyFiles(text);
  let reported: string | null = null;
  let collected: Awaited<ReturnType<typeof collectAnchors>> | null = null;
  const anchorsNow = async (): Promise<string> => {
    if (reported === null) {
      const a = await collectAnchors(root, env, nowMs, keyFiles, { skillDir, hashes: true });
      collected = a;
      if (a.gitNote !== null && fill) notes.push(`note: anchors filled outside git: ${a.gitNote}`);
      reported = renderAnchorLines(a);
    }
    return reported;
  };
  if (fill) {
    const filled = fillAnchors(text, await anchorsNow());
    text = filled.text;
    exempt = filled.lines;
  } else if (mine !== null) {
    const date = mine.map((l) => /^- Date: `?([^`]*)`?$/.exec(l)?.[1]).find((d) => d !== undefined);
    const then = date === undefined ? NaN : Date.parse(date);
    if (!sentBack && !Number.isNaN(then) && then > Math.floor(nowMs / 1000) * 1000) {
      // A state time after the save is no state time at all: every reader would call its age
      // unknown (docs/design.md#verdicts-and-the-brief). The save's time is the truth.
      text = replaceDate(text, iso);
      notes.push(`note: the - Date: anchor ${quotedValue(date!.slice(0, 40))} was later than this save; set it to ${iso}`);
    } else if (!Number.isNaN(then) && nowMs - then > CLOCK_SKEW_MS) {
      notes.push(`note: the - Date: anchor is ${minutes(nowMs - then)} minutes before this save; empty the anchors section to have write fill them`);
    }
    // Kept anchors still current (Branch and HEAD): their dirty files anchored by content now
    // (docs/design.md#verdicts-and-the-brief).
    const line = (label: string) => mine.find((l) => l.startsWith(`- ${label}: `))?.slice(label.length + 4);
    if (line("Branch") !== undefined && line("HEAD") !== undefined) {
      const now = (await anchorsNow()).split("\n");
      const a = collected as Awaited<ReturnType<typeof collectAnchors>> | null;
      if (a !== null && a.insideGit && now.includes(`- Branch: ${line("Branch")}`) && now.includes(`- HEAD: ${line("HEAD")}`)) {
        const hashes = now.find((l) => l.startsWith("- Dirty hashes: ")) ?? null;
        text = withDirtyHashes(text, hashes);
      }
    }
  }
  const range = handoffLayout(text).anchors;
  const sentRange = fill ? null : handoffLayout(checked.text).anchors;
  if (sentRange !== null && range !== null && checked.redacted.findings.some((f) => f.line > sentRange.start && f.line <= sentRange.end)) {
    // An anchor line the agent wrote is exempt only when it is what `anchors` reports now (docs/design.md#redaction).
    const now = new Set((await anchorsNow()).split("\n"));
    const lines = text.split("\n");
    for (let i = range.start; i < range.end; i++) if (now.has(lines[i]!)) exempt.add(i + 1);
  }
  const helperMade = new Set([`Saved: ${iso}`, `- Date: ${iso}`, ...(reported === null ? [] : (reported as string).split("\n"))]);
  const redacted = reuseRedaction(checked.text, checked.redacted, text, exempt, helperMade) ?? redactText(text, { exemptLines: exempt });
  if (redacted.findings.length > 0) notes.push(formatRedactionReport(redacted.findings));
  const markedText = marked(redacted.text);
  const bytes = finalBytes(markedText, checked.rawBytes);
  const unchanged = sentBack || (priorText !== null && comparable(priorText, fill) === comparable(markedText, fill));

  if (priorText !== null && !unchanged) {
    const report = droppedReport(droppedItems(priorText, redacted.text));
    if (report) notes.push(report);
  }
  const existing = new Set<string>();
  for (const k of keyFiles) if ((await statInsideRoot(root, k)) !== null) existing.add(k);
  const v = validateHandoff(text, {
    mode: "root",
    nowMs,
    prior: unchanged ? null : priorText,
    existingKeyFiles: existing,
    secrets: redacted.findings,
    redactedText: redacted.text,
  });
  if (stamped.insertedAt !== null) {
    // Findings name the lines of the document as sent, before the inserted `Saved:` line.
    for (const f of v.findings) if (f.line > stamped.insertedAt) f.line--;
  }
  return { bytes, prior, unchanged, notes: [...notes, ...scoreNotes(v)] };
}

// The size the user sent comes first (docs/design.md#files-on-disk); what write made of it (redaction, the
// stamp, filled anchors) second, when it differs.
function finalBytes(text: string, rawBytes: number): Buffer {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > MAX_DOCUMENT_BYTES) {
    const after = bytes.length === rawBytes ? "" : ` (${bytes.length} after redaction)`;
    throw new Refused(`the document is ${rawBytes} bytes${after}; memory documents are at most ${MAX_DOCUMENT_BYTES} bytes (shorten it)`);
  }
  return bytes;
}

// The anchors section with its `- Dirty hashes:` line replaced by `hashes` (inserted after
// `- Dirty files:`, or removed when null).
function withDirtyHashes(text: string, hashes: string | null): string {
  const range = handoffLayout(text).anchors;
  if (range === null) return text;
  const lines = text.split("\n");
  const body = lines.slice(range.start, range.end).filter((l) => !l.startsWith("- Dirty hashes: "));
  if (hashes !== null) {
    const at = body.findIndex((l) => l.startsWith("- Dirty files: "));
    body.splice(at === -1 ? body.length : at + 1, 0, hashes);
  }
  return [...lines.slice(0, range.start), ...body, ...lines.slice(range.end)].join("\n");
}

/**
 * The final text's redaction from the one pass over the text as sent (docs/design.md#redaction):
 * the lines write kept are taken redacted from `pass`; the lines it wrote or exempts (`Saved:`,
 * filled or refreshed anchors, anchor lines that are what `anchors` reports now) are scanned,
 * together and alone, with the anchor exemption (vendors' token shapes only). Lines are matched
 * in order; a line the match cannot place among write's own (`helperMade`, `exempt`, blank), or
 * a multi-line secret that would straddle a kept and a rewritten line, returns null: the caller
 * then redacts the final text whole, as before.
 * @param sent the text as sent; `pass` is its redaction.
 * @param final the text to publish, unredacted; `exempt` are its 1-based anchor lines.
 */
export function reuseRedaction(sent: string, pass: Pass, final: string, exempt: ReadonlySet<number>, helperMade: ReadonlySet<string>): Pass | null {
  const from = sent.split("\n");
  const to = final.split("\n");
  const red = pass.text.split("\n");
  // Each line of `sent` (0-based) -> its redacted line's index in `red`, and how many lines of
  // `sent` that redacted line stands for (a secret spanning lines joins them into one).
  const group = new Map<number, { red: number; span: number }>();
  const starts = new Map<number, number>();
  for (const f of pass.findings) if ((f.lines ?? 1) > 1) starts.set(f.line - 1, Math.max(starts.get(f.line - 1) ?? 1, f.lines!));
  for (let i = 0, r = 0; i < from.length; r++) {
    let end = i;
    for (let j = i; j <= end; j++) end = Math.max(end, j + (starts.get(j) ?? 1) - 1);
    group.set(i, { red: r, span: end - i + 1 });
    i = end + 1;
  }
  // Each line of `final` -> the line of `sent` it is, or -1: a line write made.
  const origin: number[] = [];
  let t = 0;
  // Write changes a few lines in two places; a longer search means the texts are not that.
  const MAX_SKIP = 64;
  for (let f = 0; f < to.length; f++) {
    if (t < from.length && to[f] === from[t]) {
      origin.push(t++);
      continue;
    }
    // The nearest re-alignment: skip the fewest lines of both (the stamp inserts at most two,
    // an anchors fill replaces one section).
    let best: [number, number] | null = null;
    for (let d = 1; best === null && d <= Math.min(MAX_SKIP, from.length - t + to.length - f); d++) {
      for (let df = 0; df <= d; df++) {
        const dt = d - df;
        if (f + df < to.length && t + dt < from.length && to[f + df] === from[t + dt]) {
          best = [df, dt];
          break;
        }
      }
    }
    if (best === null) {
      if (to.length - f > MAX_SKIP) return null;
      best = [to.length - f, 0];
    }
    for (let k = 0; k < best[0]; k++) origin.push(-1);
    f += best[0] - 1;
    t += best[1];
  }
  // One entry per line of `final`; null for the lines a multi-line secret's marker stands for.
  const out: (string | null)[] = [];
  const findings: RedactionFinding[] = [];
  const scanned: number[] = [];
  for (let f = 0; f < to.length; f++) {
    const o = origin[f]!;
    if (o === -1 || exempt.has(f + 1)) {
      if (o === -1 && !exempt.has(f + 1) && to[f]!.trim() !== "" && !helperMade.has(to[f]!)) return null;
      // Blank lines and the stamp hold no token shape: nothing to scan.
      if (to[f]!.trim() !== "" && !to[f]!.startsWith("Saved: ")) scanned.push(f);
      out.push(to[f]!);
      continue;
    }
    const g = group.get(o);
    if (g === undefined) return null;
    for (let k = 1; k < g.span; k++) if (origin[f + k] !== o + k || exempt.has(f + k + 1)) return null;
    for (const x of pass.findings) if (x.line - 1 >= o && x.line - 1 < o + g.span) findings.push({ ...x, line: x.line - o + f });
    out.push(red[g.red]!);
    // The redacted line stands for the span's lines; the ones after its first are in it.
    for (let k = 1; k < g.span; k++) out.push(null);
    f += g.span - 1;
  }
  if (scanned.length > 0) {
    const own = redactText(scanned.map((f) => to[f]!).join("\n"), { exemptLines: new Set(scanned.map((_, i) => i + 1)) });
    if (own.findings.some((x) => (x.lines ?? 1) > 1)) return null;
    const lines = own.text.split("\n");
    scanned.forEach((f, i) => {
      out[f] = lines[i]!;
    });
    for (const x of own.findings) findings.push({ ...x, line: scanned[x.line - 1]! + 1 });
  }
  findings.sort((a, b) => a.line - b.line || a.column - b.column);
  return { text: out.filter((l) => l !== null).join("\n"), findings };
}
