// The values a handoff carries (object ids, times, branches, paths), free of Markdown so git/ can use them.
import path from "node:path";

/** The first line of every memory document of schema v1. */
export const MARKER = "<!-- memory-schema: v1 -->";

/** A full git object id (40 or 64 lowercase hex) that this helper validated itself. */
export type ObjectId = string & { readonly __brand: "ObjectId" };

/** How far in the future a saved time may be before it is unverifiable (clock skew), in ms. */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** True for git's null object id, 40 or 64 zeros: it names no object (a reflog's "before the first entry"). */
export function isNullObjectId(value: string): boolean {
  return /^(?:0{40}|0{64})$/.test(value);
}

/** Exactly 40 or 64 hex digits (folded to lower case), never all zeros, else null: only such ids reach git. */
export function asObjectId(value: string): ObjectId | null {
  const lower = value.toLowerCase();
  return OBJECT_ID.test(lower) && !isNullObjectId(lower) ? (lower as ObjectId) : null;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):?(\d{2}))$/;

/** A validated time: the text as written and its instant in ms since the epoch. */
export interface ValidTime {
  iso: string;
  ms: number;
}

/** Parses a strict ISO-8601 time with a zone, a real calendar day, not past `nowMs` + 5 minutes; never throws. */
export function parseStrictTime(value: string, nowMs: number): ValidTime | { error: string } {
  const m = ISO.exec(value);
  if (!m) return { error: "not a strict ISO-8601 time with a zone" };
  const [year, month, day, hour, minute] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const fraction = m[7] === undefined ? 0 : Number(`0.${m[7]}`);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return { error: "a field is out of range" };
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return { error: "no such day" };
  let offsetMin = 0;
  if (m[8] !== "Z") {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return { error: "zone offset out of range" };
    offsetMin = (m[8]!.startsWith("-") ? -1 : 1) * (oh * 60 + om);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second) + Math.floor(fraction * 1000) - offsetMin * 60_000;
  // Date.UTC maps years 0-99 to 1900-1999; such a year in a handoff is a mistake anyway.
  if (year < 1970) return { error: "before 1970" };
  if (utc > nowMs + CLOCK_SKEW_MS) return { error: "in the future" };
  return { iso: value, ms: utc };
}

/** A value without the backticks around it (older handoffs wrote HEAD and times as code), trimmed. */
export function unticked(value: string): string {
  const m = /^`([^`]*)`$/.exec(value.trim());
  return m ? m[1]!.trim() : value.trim();
}

/** An instant as ISO-8601 UTC with `Z`, whole seconds (the anchors' `- Date:` form). */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

// Characters git forbids in ref names, plus shell metacharacters: a branch holding `$(…)` is hostile, not a name.
const BRANCH_FORBIDDEN = /[\x00-\x20\x7f~^:?*[\\$`;|&<>'"]/;

/** True for `(detached)` or a name by git's ref-name rules with no shell metacharacter (never passed to git). */
export function isPlausibleBranch(name: string): boolean {
  if (name === "(detached)") return true;
  if (name.length === 0 || name.length > 255) return false;
  if (BRANCH_FORBIDDEN.test(name)) return false;
  if (/^[-/]|[/.]$|\.lock$/.test(name)) return false;
  if (name.includes("..") || name.includes("//") || name.includes("@{") || name === "@") return false;
  return !name.split("/").some((part) => part.startsWith("."));
}

/** A relative path normalised, or null when absolute, empty, leaving the root, or holding a control or a backslash. */
export function safeRelativePath(value: string): string | null {
  if (value.length === 0 || value.length > 4096) return null;
  if (/[\x00-\x1f\x7f\\]/.test(value)) return null;
  if (value.startsWith("/") || value.startsWith("~") || /^[A-Za-z]:/.test(value)) return null;
  const normal = path.posix.normalize(value);
  if (normal === "." || normal === ".." || normal.startsWith("../")) return null;
  return normal.replace(/\/$/, "");
}
