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
  // A file the helper cannot use may be the one that turned the offer off: the offer stays off.
  const unusable = (what: string) => ({
    settings: { ...settings, contextOffer: false },
    problems: [`.ai/memory/${SETTINGS_FILE} ${what}; using the defaults, with the context offer off`],
  });
  if (text === null) return why === null ? { settings, problems: [] } : unusable(why);
  const parsed = orNull(() => ({ value: JSON.parse(text.replace(/^\uFEFF/, "")) as unknown }));
  if (parsed === null) return unusable("is not valid JSON");
  if (parsed.value === null || typeof parsed.value !== "object" || Array.isArray(parsed.value)) {
    return unusable("is not a JSON object");
  }
  const problems: string[] = [];
  for (const [key, value] of Object.entries(parsed.value as Record<string, unknown>)) {
    const rule = RULES[key as keyof Settings];
    if (!Object.hasOwn(RULES, key)) {
      problems.push(`.ai/memory/${SETTINGS_FILE}: unknown key ${quotedValue(key.slice(0, 40))} ignored`);
    } else if (!rule.ok(value)) {
      // A bad off switch fails toward off.
      const def = key === "contextOffer" ? "false" : JSON.stringify(DEFAULT_SETTINGS[key as keyof Settings]);
      if (key === "contextOffer") settings.contextOffer = false;
      const shown = typeof value === "string" ? value : String(JSON.stringify(value));
      const got = quotedValue(shown.slice(0, 40));
      problems.push(`.ai/memory/${SETTINGS_FILE}: "${key}" must be ${rule.want}, got ${got}; using ${def}`);
    } else {
      (settings as Record<string, unknown>)[key] = value;
    }
  }
  return { settings, problems };
}
