// The `## Environment anchors` lines and path lists, free of the Markdown grammar: the `anchors` verb uses it alone.
import { refusedIndexes } from "../guard/invisible.ts";
import { quotePath, quotedValue } from "../guard/quote.ts";
import { asObjectId, isNullObjectId, parseStrictTime } from "./values.ts";

const MAX_LISTED_DIRTY = 50;

const UNESCAPE: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

const QUOTED = /"((?:[^"\\]|\\.)*)"/y;

function readQuoted(s: string, start: number): { value: string; end: number } | null {
  QUOTED.lastIndex = start;
  const m = QUOTED.exec(s);
  if (!m) return null;
  const bytes: number[] = [];
  // git writes non-ASCII bytes as \ooo when core.quotePath is on; accept a pasted one.
  for (const part of m[1]!.split(/(\\[0-3][0-7]{2}|\\.)/)) {
    if (part[0] !== "\\") {
      bytes.push(...Buffer.from(part, "utf8"));
      continue;
    }
    const code = part.length === 4 ? parseInt(part.slice(1), 8) : UNESCAPE[part[1]!];
    if (code === undefined) return null;
    bytes.push(code);
  }
  return { value: Buffer.from(bytes).toString("utf8"), end: start + m[0].length };
}

// Reads `<path><tail>, …` (each path C-quoted or bare up to `tail`, whose group is the value); null if malformed.
function readItems(value: string, tail: string): { path: string; value: string; quoted: boolean }[] | null {
  const v = value.trim();
  const afterQuote = new RegExp(`${tail}(?:, |$)`, "y");
  const bare = new RegExp(`(.*?)${tail}(?:, |$)`, "y");
  const out: { path: string; value: string; quoted: boolean }[] = [];
  for (let i = 0; i < v.length; ) {
    const q = v[i] === '"' ? readQuoted(v, i) : null;
    if (v[i] === '"' && q === null) return null;
    const re = q ? afterQuote : bare;
    re.lastIndex = q ? q.end : i;
    const m = re.exec(v);
    const path = q ? q.value : m?.[1];
    if (!m || !path) return null;
    out.push({ path, value: m[q ? 1 : 2] ?? "", quoted: q !== null });
    i = re.lastIndex;
  }
  return out.length > 0 ? out : null;
}

const MORE = /^\u2026 and (\d+) more$/;

/** Parses a path list as `renderPathList` writes it (`none`: empty; `… and N more` counted); null if malformed. */
export function parsePathList(value: string): { paths: string[]; more: number } | null {
  if (value.trim() === "none") return { paths: [], more: 0 };
  const items = readItems(value, "");
  const tails = items?.map((x) => (x.quoted ? null : MORE.exec(x.path))) ?? [];
  const at = tails.findIndex((t) => t !== null);
  if (items === null || (at >= 0 && at < items.length - 1)) return null;
  const paths = items.slice(0, at >= 0 ? at : items.length).map((x) => x.path);
  return { paths, more: at >= 0 ? Number(tails[at]![1]) : 0 };
}

/** Writes paths for an anchor line: `none`, or quoted paths joined by `, ` (at most `limit`). */
export function renderPathList(paths: readonly string[], limit = MAX_LISTED_DIRTY): string {
  if (paths.length === 0) return "none";
  const shown = paths.slice(0, limit).map(quotePath);
  if (paths.length > limit) shown.push(`… and ${paths.length - limit} more`);
  return shown.join(", ");
}

/** Writes a branch for `- Branch:`: quoted as `quotePath` does only when it holds a code point `write` refuses. */
function quoteBranch(name: string): string {
  return refusedIndexes(name).size > 0 ? quotePath(name) : name;
}

/** Reads a `- Branch:` value back: a quoted one is unescaped, anything else is returned as is. */
export function unquoteBranch(value: string): string {
  if (!value.startsWith('"')) return value;
  const q = readQuoted(value, 0);
  return q !== null && q.end === value.length ? q.value : value;
}

/** What the anchor lines are made from (inside git: branch, HEAD, dirty files; outside: key file mtimes). */
export interface AnchorValues {
  insideGit: boolean;
  branch: string | null;
  head: string | null;
  /** Relative to the repository top, the memory dir excluded. */
  dirty: string[];
  date: string;
  keyFileMtimes: { path: string; mtime: string | null }[];
  inProgress?: { words: string; conflicted: number } | null;
  dirtyHashes?: DirtyHash[];
  dirtyModes?: DirtyHash[];
}

/** A `- Dirty hashes:` item: a path and its blob id (40 or 64 hex), `deleted` or `over 8 MB`. */
export interface DirtyHash {
  path: string;
  id: string;
}

/** Reads a `- Dirty hashes:` value (`<path> <blob id | deleted | over 8 MB>, …`); null when malformed. */
export function parseDirtyHashes(value: string): DirtyHash[] | null {
  const items = readItems(value, " ([0-9a-f]{64}|[0-9a-f]{40}|deleted|over 8 MB)");
  return items?.map((x) => ({ path: x.path, id: x.value })) ?? null;
}

/** Reads a `- Dirty modes:` value (`<path> <git mode>, …`, `id` the mode); null when malformed. */
export function parseDirtyModes(value: string): DirtyHash[] | null {
  return readItems(value, " (100644|100755|120000|160000)")?.map((x) => ({ path: x.path, id: x.value })) ?? null;
}

export function renderInProgress(p: { words: string; conflicted: number }): string {
  return `${p.words} (${p.conflicted} conflicted files)`;
}

/** Reads an `- In progress:` value back: the words (`rebase of feature/login`) and the count; null when malformed. */
export function parseInProgress(value: string): { words: string; conflicted: number } | null {
  const m = /^((?:rebase|merge|cherry-pick|revert|bisect)(?: of \S+)?) \((\d+) conflicted files?\)$/.exec(value.trim());
  return m ? { words: m[1]!, conflicted: Number(m[2]) } : null;
}

/** Reads a `- Key file mtimes:` value (`<path> @ <ISO or missing>, …`), times as written; null when malformed. */
export function parseKeyFileMtimes(value: string): { path: string; mtime: string | null }[] | null {
  if (value.trim() === "") return [];
  const items = readItems(value, " @ ((?:(?!, ).)*)");
  if (items === null || items.some((x) => x.value.trim() === "")) return null;
  return items.map((x) => ({ path: x.path, mtime: x.value.trim() === "missing" ? null : x.value.trim() }));
}

/** Renders the anchors section's lines (without the heading), ending with a newline. */
export function renderAnchorLines(a: AnchorValues): string {
  if (!a.insideGit) {
    const lines = [`- Date: ${a.date}`];
    const mtimes = a.keyFileMtimes.map((k) => `${quotePath(k.path)} @ ${k.mtime ?? "missing"}`);
    if (mtimes.length > 0) lines.push(`- Key file mtimes: ${mtimes.join(", ")}`);
    return `${lines.join("\n")}\n`;
  }
  const items = (l: DirtyHash[] | undefined) => l?.map((x) => `${quotePath(x.path)} ${x.id}`).join(", ");
  const [hashes, modes] = [items(a.dirtyHashes), items(a.dirtyModes)];
  return [
    `- Branch: ${quoteBranch(a.branch ?? "(detached)")}`,
    `- HEAD: ${a.head ?? "none (no commits yet)"}`,
    `- Dirty files: ${renderPathList(a.dirty)}`,
    ...(hashes ? [`- Dirty hashes: ${hashes}`] : []),
    ...(modes ? [`- Dirty modes: ${modes}`] : []),
    `- Date: ${a.date}`,
    ...(a.inProgress ? [`- In progress: ${renderInProgress(a.inProgress)}`] : []),
    "",
  ].join("\n");
}

export const ANCHOR_LABELS =
  ["Branch", "HEAD", "Dirty files", "Dirty hashes", "Dirty modes", "In progress", "Date", "Key file mtimes"] as const;
type AnchorLabel = (typeof ANCHOR_LABELS)[number];

type AnchorLine = { label: AnchorLabel; value: string } | { error: string; unknown?: true };

const LINE = new RegExp(`^- (${ANCHOR_LABELS.join("|")}): (.*)$`);
// A later version's label is a finding, not an error, so older readers and newer writers work together.
const OTHER_LABEL = /^- ([A-Z][A-Za-z ]{0,40}): \S/;
// A time of the right shape, in the future or not: the future is a finding, not a malformed line.
const isIsoWithZone = (value: string): boolean => !("error" in parseStrictTime(value, Number.MAX_SAFE_INTEGER));

// A value's problem, or null; HEAD and Date are accepted in backticks (older handoffs).
function valueError(label: AnchorLabel, value: string): string | null {
  const v = /^`([^`]*)`$/.exec(value)?.[1] ?? value;
  const shown = quotedValue(value.slice(0, 60));
  switch (label) {
    case "Branch":
      return /^\S+$/.test(value) && value.length <= 255 ? null : `branch ${shown} is not a branch name or (detached)`;
    case "HEAD": {
      const head = quotedValue(v.slice(0, 70));
      if (isNullObjectId(v)) return `HEAD ${head} is the null object id (all zeros), which names no commit`;
      if (v === "none (no commits yet)" || asObjectId(v) !== null) return null;
      const hex = /^[0-9a-fA-F]+$/.test(v) ? ` (${v.length} hex digits)` : "";
      return `HEAD ${head}${hex} is not a full 40- or 64-hex commit id`;
    }
    case "Dirty files":
      return parsePathList(value) ? null : `dirty files ${shown} are not a comma-separated path list (or none)`;
    case "Dirty hashes":
      if (parseDirtyHashes(value) !== null) return null;
      return `dirty hashes ${shown} are not \`<path> <blob id | deleted | over 8 MB>, …\``;
    case "Dirty modes":
      if (parseDirtyModes(value)) return null;
      return `dirty modes ${shown} are not \`<path> <100644 | 100755 | 120000 | 160000>, …\``;
    case "In progress":
      if (parseInProgress(value)) return null;
      return `in progress ${shown} is not \`<operation>[ of <branch>] (<n> conflicted files)\``;
    case "Date": {
      if (isIsoWithZone(v)) return null;
      const zoneless = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(v) ? " (it has no zone: add Z or an offset)" : "";
      return `date ${quotedValue(v.slice(0, 60))} is not an ISO-8601 time with a zone${zoneless}`;
    }
    case "Key file mtimes": {
      const items = parseKeyFileMtimes(value);
      if (!items?.length) return `key file mtimes: ${shown} is not \`<path> @ <ISO-8601 time, or missing>, …\``;
      const time = items.find((i) => i.mtime !== null && !isIsoWithZone(i.mtime))?.mtime;
      return time ? `key file mtimes: ${quotedValue(time)} is not an ISO-8601 time with a zone (or \`missing\`)` : null;
    }
  }
}

/** Reads one line of the anchors section against the lines `anchors` prints; `unknown`: a label it does not know. */
export function readAnchorLine(line: string): AnchorLine {
  const m = LINE.exec(line);
  if (m) {
    const error = valueError(m[1] as AnchorLabel, m[2]!);
    return error === null ? { label: m[1] as AnchorLabel, value: m[2]! } : { error };
  }
  const other = OTHER_LABEL.exec(line);
  if (other) {
    const label = `\`- ${other[1]}:\` is not an anchor label this helper knows`;
    return { error: `${label} (a newer helper's line?); nothing reads it`, unknown: true };
  }
  const shown = quotedValue(line.slice(0, 60));
  if (/^[-*+]\s*([A-Za-z ]+):/.test(line)) {
    return { error: `${shown} is not an anchor line (labels are exactly ${ANCHOR_LABELS.join(", ")}, after "- ")` };
  }
  const paste = "paste what `anchors` prints, or leave the section empty for write to fill";
  return { error: `${shown} is not an anchor line; ${paste}` };
}

/** True when an anchors section body is empty: blank lines, `- none` or template placeholders only. */
export function isEmptyAnchorsBody(lines: readonly string[]): boolean {
  return lines.every((raw) => {
    const line = raw.trim();
    if (line === "" || /^(?:[-*+] )?none$/i.test(line)) return true;
    if (/^(?:[-*+] )?<[^<>]*>$/.test(line) || /^<!--.*-->$/.test(line)) return true;
    const m = /^[-*+] [A-Za-z ]+: (.*)$/.exec(line);
    return m !== null && /^<[^<>]*>$/.test(m[1]!.trim());
  });
}
