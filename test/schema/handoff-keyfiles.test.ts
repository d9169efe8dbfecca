// `- none` in `## Key files` keeps an empty section's heading (references/handoff-schema.md):
// drift must not report a missing key file named "none".
import { describe, expect, it } from "vitest";
import { parseHandoff } from "../../src/schema/handoff.ts";
import { handoff } from "../helpers.ts";

describe("parseHandoff: key files", () => {
  it.each([
    ["- none", []],
    ["- None.", []],
    ["- none — nothing yet", ["none"]],
    ["- `src/a.ts` — entry\n- none", ["src/a.ts"]],
  ])("%s", (items, paths) => {
    const text = handoff("g").replace("## Key files\n- none\n", `## Key files\n${items}\n`);
    expect(parseHandoff(text).keyFiles.map((k) => k.path)).toEqual(paths);
  });
});
