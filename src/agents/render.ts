import { ENVELOPES } from "./envelopes.ts";
import type { HookFormat } from "./types.ts";

/**
 * Wraps the hook's fixed sentences in a harness's envelope (docs/design.md#integrations): whole output,
 * envelope and JSON escaping included, under `limit` characters. Sentences come most
 * important first, so the last ones are dropped first; nothing at all when there is none.
 */
export function renderHook(format: HookFormat, text: string, limit: number): string {
  const lines = text.split("\n").filter((l) => l !== "");
  if (lines.length === 0) return "";
  for (;;) {
    const out = ENVELOPES[format](lines.join("\n"));
    if (out.length < limit) return out;
    if (lines.length > 1) {
      lines.pop();
      continue;
    }
    // One sentence longer than the limit (none is): cut it rather than break the harness.
    lines[0] = lines[0]!.slice(0, Math.max(0, lines[0]!.length - (out.length - limit) - 1));
  }
}
