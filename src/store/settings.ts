// The user's settings for this project: `.ai/memory/settings.json` (docs/context-threshold.md).
// Read on the hook's path at every turn, so it is one small read and no parser beyond JSON;
// an absent file means the defaults, and a bad value is named and replaced by its default.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import path from "node:path";
import { quotedValue } from "../guard/quote.ts";

/** The settings file's name inside `.ai/memory/`. */
export const SETTINGS_FILE = "settings.json";

/** Largest settings file read, in bytes; a larger one is ignored (the defaults used). */
const MAX_SETTINGS_BYTES = 16 * 1024;

export interface Settings {
  /** The context-threshold offer is on. */
  contextOffer: boolean;
  /** Percent of the context window at which the offer comes. */
  contextThreshold: number;
  /** The model's context window in tokens when the user knows better than the helper; null: the helper's guess. */
  contextWindow: number | null;
  /** Archived handoffs kept in `.ai/memory/archive/`. */
  archivesKept: number;
}

export const DEFAULT_SETTINGS: Settings = {
  contextOffer: true,
  contextThreshold: 70,
  contextWindow: null,
  archivesKept: 5,
};

type Check = (v: unknown) => boolean;
const isInt =
  (lo: number, hi: number): Check =>
  (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= lo && v <= hi;

const RULES: Record<keyof Settings, { ok: Check; want: string }> = {
  contextOffer: { ok: (v) => typeof v === "boolean", want: "true or false" },
  contextThreshold: { ok: isInt(1, 99), want: "a whole percent from 1 to 99" },
  contextWindow: {
    ok: (v) => v === null || isInt(1000, 100_000_000)(v),
    want: "null or a whole number of tokens from 1000",
  },
  archivesKept: { ok: isInt(1, 1000), want: "a whole number from 1 to 1000" },
};

function readSmall(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_SETTINGS_BYTES) return "";
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString("utf8");
  } catch {
    return "";
  } finally {
    closeSync(fd);
  }
}

/**
 * The settings of the memory folder `memDir`, with the problems found (each names the key and
 * the default used). An absent file gives the defaults and no problem; a link, a non-file, an
 * oversized or unparsable file gives the defaults and one problem. Unknown keys are named too.
 */
export function readSettings(memDir: string): { settings: Settings; problems: string[] } {
  const settings = { ...DEFAULT_SETTINGS };
  const text = readSmall(path.join(memDir, SETTINGS_FILE));
  if (text === null) return { settings, problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    const what = `is not a JSON object of at most ${MAX_SETTINGS_BYTES} bytes (nor a link)`;
    return { settings, problems: [`.ai/memory/${SETTINGS_FILE} ${what}; using the defaults`] };
  }
  const problems: string[] = [];
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const rule = RULES[key as keyof Settings];
    if (!Object.hasOwn(RULES, key)) {
      problems.push(`.ai/memory/${SETTINGS_FILE}: unknown key ${quotedValue(key.slice(0, 40))} ignored`);
    } else if (!rule.ok(value)) {
      const def = JSON.stringify(DEFAULT_SETTINGS[key as keyof Settings]);
      const got = quotedValue(String(JSON.stringify(value)).slice(0, 40));
      problems.push(`.ai/memory/${SETTINGS_FILE}: "${key}" must be ${rule.want}, got ${got}; using ${def}`);
    } else {
      (settings as Record<string, unknown>)[key] = value;
    }
  }
  return { settings, problems };
}
