// `.ai/memory/settings.json`, read on the hook's path at every turn: one small read and no parser beyond JSON.
import path from "node:path";
import { quotedValue } from "../guard/quote.ts";
import { orNull, readSmall, unreadReason } from "./files.ts";

const SETTINGS_FILE = "settings.json";
const MAX_SETTINGS_BYTES = 16 * 1024;

// contextWindow: the model's window in tokens when the user knows better than the helper; null: the helper's guess.
interface Settings {
  contextOffer: boolean;
  contextThreshold: number;
  contextWindow: number | null;
  archivesKept: number;
}

const DEFAULT_SETTINGS: Settings = { contextOffer: true, contextThreshold: 70, contextWindow: null, archivesKept: 5 };

type Check = (v: unknown) => boolean;
const isInt = (lo: number, hi: number): Check => (v) => Number.isInteger(v) && Number(v) >= lo && Number(v) <= hi;

const RULES: Record<keyof Settings, { ok: Check; want: string }> = {
  contextOffer: { ok: (v) => typeof v === "boolean", want: "true or false" },
  contextThreshold: { ok: isInt(1, 99), want: "a whole percent from 1 to 99" },
  contextWindow: { ok: (v) => v === null || isInt(1000, 1e8)(v), want: "null or a whole number of tokens from 1000" },
  archivesKept: { ok: isInt(1, 1000), want: "a whole number from 1 to 1000" },
};

/** The settings of the memory folder `memDir`, and the problems found, each naming the key and the default used. */
export function readSettings(memDir: string): { settings: Settings; problems: string[] } {
  const settings = { ...DEFAULT_SETTINGS };
  const file = path.join(memDir, SETTINGS_FILE);
  // Absent or a link: the defaults, silently; anything else that is not a small readable file is named.
  const text = readSmall(file, MAX_SETTINGS_BYTES);
  const why = text === null ? unreadReason(file, MAX_SETTINGS_BYTES) : null;
  const unread = why === null ? [] : [`.ai/memory/${SETTINGS_FILE} ${why}; using the defaults`];
  if (text === null) return { settings, problems: unread };
  const parsed: unknown = orNull(() => JSON.parse(text.replace(/^\uFEFF/, "")));
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { settings, problems: [`.ai/memory/${SETTINGS_FILE} is not a JSON object; using the defaults`] };
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
