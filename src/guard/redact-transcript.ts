/** Rules for transcript text only (what a session said and ran, never a user's document). Pure; linear. */
import { UUID, looksLikeCode, namesSomething, placeholderOrVariable, shannonEntropy } from "./redact-kit.ts";

type TranscriptSpan = [number, number, string];

const WORD_WINDOW = 3;
const KEYWORD_LIST = "key keys token tokens secret secrets password passwords passwd passphrase pwd apikey";
const KEYWORDS = new Set(KEYWORD_LIST.split(" "));
// A run of base64 characters, or a word's letter run (camelCase split: `webhookKey` -> webhook, Key).
const WORDS_AND_RUNS =
  /(?<run>(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_=-]))|[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g;
/** Our own labels and a commit's, right before a 40/64-hex run: an object id or our token. */
const ID_LABEL =
  /(?:--expected-current-sha256|CURRENT-SHA256|Since-handoff|\bcommit|\bHEAD|\bsha(?:1|256)?)[\s:="'`(]*$/i;

/** A run that may be a secret: hex with a digit and a letter, or base64 mixing cases and digits. */
function secretRun(v: string): boolean {
  if (UUID.test(v)) return false;
  if (/^[0-9a-fA-F]+$/.test(v)) return /\d/.test(v) && /[a-fA-F]/.test(v);
  if (!/\d/.test(v) || !/[a-z]/.test(v) || !/[A-Z]/.test(v)) return false;
  return shannonEntropy(v) >= 3.5 && !looksLikeCode(v) && !namesSomething(v);
}

function proseSpans(text: string, out: TranscriptSpan[]): void {
  let words = 0;
  let lastKeyword = -Infinity;
  // Runs not yet near a keyword, with the word count when they were seen.
  let pending: Array<[number, number, number]> = [];
  for (const m of text.matchAll(WORDS_AND_RUNS)) {
    const run = m.groups?.["run"];
    if (run === undefined) {
      words++;
      if (!KEYWORDS.has(m[0].toLowerCase())) {
        if (pending.length > 0 && words - pending[0]![2] > WORD_WINDOW + 1) {
          pending = pending.filter((p) => words - p[2] <= WORD_WINDOW + 1);
        }
        continue;
      }
      lastKeyword = words;
      // Runs before the keyword with at most WORD_WINDOW words between.
      for (const [a, b, seen] of pending) if (words - seen - 1 <= WORD_WINDOW) out.push([a, b, "secret-in-prose"]);
      pending = [];
      continue;
    }
    const start = m.index;
    const value = run.replace(/=+$/, "");
    const end = start + value.length;
    if (!secretRun(value)) continue;
    const objectId = (value.length === 40 || value.length === 64) && /^[0-9a-fA-F]+$/.test(value);
    if (objectId && ID_LABEL.test(text.slice(Math.max(0, start - 40), start))) continue;
    if (words - lastKeyword <= WORD_WINDOW) out.push([start, end, "secret-in-prose"]);
    else pending.push([start, end, words]);
  }
}

const USES = new RegExp(
  "\\bBearer[ \\t]+\\$\\{?(?<b>[A-Za-z_][A-Za-z0-9_]*)\\}?" +
    "|(?<![\\w-])(?:-[A-Za-z]*?u|--user)(?:=|[ \\t]*)[\"']?(?:[^\\s\"':$]*:)?\\$\\{?(?<u>[A-Za-z_][A-Za-z0-9_]*)\\}?",
  "g",
);
const ASSIGNMENTS =
  /(?<![A-Za-z0-9_$])(?<name>[A-Za-z_][A-Za-z0-9_]*)=(?:"(?<dq>[^"\n]+)"|'(?<sq>[^'\n]+)'|(?<bare>[^\s;&|"'`]+))/dg;

function variableSpans(text: string, out: TranscriptSpan[]): void {
  if (!text.includes("$")) return;
  // The last use of each variable, and what it is used as.
  const used = new Map<string, { at: number; kind: string }>();
  for (const m of text.matchAll(USES)) {
    const name = m.groups?.["b"] ?? m.groups?.["u"];
    const kind = m.groups?.["b"] !== undefined ? "bearer-token" : "cli-password";
    if (name !== undefined) used.set(name, { at: m.index, kind });
  }
  if (used.size === 0) return;
  for (const m of text.matchAll(ASSIGNMENTS)) {
    const use = used.get(m.groups!["name"]!);
    if (use === undefined || m.index >= use.at) continue;
    const g = m.indices?.groups;
    const span = g?.["dq"] ?? g?.["sq"] ?? g?.["bare"];
    if (!span) continue;
    const value = text.slice(span[0], span[1]);
    if (placeholderOrVariable(value) || value.startsWith("$(") || value.length < 4) continue;
    out.push([span[0], span[1], use.kind]);
  }
}

/** "my password is X", "the root pw: X", "password for the db is X": a user typing a password. */
const SAID_PASSWORD =
  /\b(?:pass(?:word|phrase|wd)?|pw|pin)\b(?:[ \t]+(?:for|of|on|to)[ \t]+(?:the[ \t]+)?[\w.@-]{1,40})?[ \t]*/.source +
  /(?:\bis\b|\bwas\b|:|=)[ \t]*(?:now[ \t]+)?["'`]?(?<v>[^\s"'`]{1,128})/.source;

function saidSpans(text: string, out: TranscriptSpan[]): void {
  for (const m of text.matchAll(new RegExp(SAID_PASSWORD, "dgi"))) {
    const [a, z0] = m.indices!.groups!["v"]!;
    let z = z0;
    // Sentence punctuation after the value is not part of it.
    while (z > a + 1 && /[.,;!?)]/.test(text[z - 1]!)) z--;
    const value = text.slice(a, z);
    // A plain word ("the password is wrong") or a reference is prose, not a password.
    const prose = /^[A-Za-z][a-z]*$/.test(value) || value.startsWith("<") || placeholderOrVariable(value);
    if (prose || value.length < 4) continue;
    out.push([a, z, "secret-in-prose"]);
  }
}

/** The transcript-only spans of `text`, in no particular order (the caller drops overlaps). */
export function transcriptSpans(text: string): TranscriptSpan[] {
  const out: TranscriptSpan[] = [];
  proseSpans(text, out);
  variableSpans(text, out);
  saidSpans(text, out);
  return out;
}
