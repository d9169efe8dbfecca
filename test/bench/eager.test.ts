// Every session start runs the hook: the functions of lib/session.mjs it runs are written in parentheses, so that V8
// compiles them with the module and Node's compile cache keeps them, instead of compiling each at its first call on
// every session start (tools/session-eager.mjs, docs/decisions/eager-session.md).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EAGER_FUNCTIONS } from "../../tools/session-eager.mjs";
import { aged, gitRepo, handoff, helper, HELPER, save, tempDir } from "../helpers.ts";

const SESSION = path.join(path.dirname(HELPER), "lib", "session.mjs");

// The top-level functions of the bundle by the offset V8's coverage gives them: their `function` (or `async`).
function topLevelFunctions(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of text.matchAll(/^(var \w+ = \()?(?:async )?function (\w+)\(/gm)) {
    out.set(m.index + (m[1]?.length ?? 0), m[2]!);
  }
  return out;
}

// The top-level functions of lib/session.mjs a hook run with a saved handoff calls, from NODE_V8_COVERAGE.
function functionsRun(root: string): Set<string> {
  const coverage = tempDir("sh-coverage-");
  const input = JSON.stringify({ session_id: "eager", cwd: root, hook_event_name: "SessionStart", source: "startup" });
  const r = helper(["hook", "--mode", "session", "--format", "claude"], { input, env: { NODE_V8_COVERAGE: coverage } });
  expect(r.stdout).toContain("a parked handoff exists");
  const tops = topLevelFunctions(readFileSync(SESSION, "utf8"));
  const ran = new Set<string>();
  for (const file of readdirSync(coverage)) {
    const { result } = JSON.parse(readFileSync(path.join(coverage, file), "utf8")) as {
      result: { url: string; functions: { ranges: { startOffset: number; count: number }[] }[] }[];
    };
    for (const script of result.filter((s) => s.url.endsWith("/lib/session.mjs"))) {
      for (const fn of script.functions) {
        const name = tops.get(fn.ranges[0]!.startOffset);
        if (name !== undefined && fn.ranges[0]!.count > 0) ran.add(name);
      }
    }
  }
  return ran;
}

describe("the session bundle's eager functions", () => {
  it("every function the hook runs at a session start is compiled with the module, and only those", () => {
    const root = gitRepo();
    // Saved within the day, as at most session starts: the age in words then looks at the local calendar day.
    save(root, aged(handoff("Ship the importer."), new Date().toISOString().replace(/\.\d+Z$/, "Z")));
    const ran = functionsRun(root);
    expect(ran.size).toBeGreaterThan(40);
    // Missing: add it to EAGER_FUNCTIONS. Extra: it no longer runs at a session start; remove it.
    expect({ missing: [...ran].filter((n) => !EAGER_FUNCTIONS.has(n)).sort() }).toEqual({ missing: [] });
    expect({ extra: [...EAGER_FUNCTIONS].filter((n) => !ran.has(n)).sort() }).toEqual({ extra: [] });
    const text = readFileSync(SESSION, "utf8");
    const wrapped = [...EAGER_FUNCTIONS].filter((n) => new RegExp(`^var ${n} = \\((?:async )?function ${n}\\(`, "m").test(text));
    expect(wrapped.length).toBe(EAGER_FUNCTIONS.size);
  });
});
