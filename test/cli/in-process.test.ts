// The tests' in-process runner (test/in-process.ts) against the real process when a run throws past
// its verb's own handling (the helper's code damaged): the same exit code and output, so a harness
// verb exits 0 in both (it must never fail the harness's session) and any other verb 2.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VERBS } from "../../src/verbs/index.ts";
import { copyHelper, cleanEnv, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const RUNS = [
  ["hook", "--mode", "session"], ["hook", "--format", "gemini"], ["context"], ["statusline"], ["checkpoint"], ["read", "handoff"],
];

// A copy of the built helper whose process boundary throws before it dispatches, in both bundles.
function damagedHelper(): string {
  const helper = path.join(tempDir("sh-damaged-"), "scripts", "memory_io.mjs");
  copyHelper(helper);
  for (const lib of ["cli.mjs", "session.mjs"]) {
    const file = path.join(path.dirname(helper), "lib", lib);
    // runProcess's call (esbuild may rename the parameter); guarded's call passes `quiet`.
    const text = readFileSync(file, "utf8");
    const call = /^ {4}code = await dispatch\d*\(\{$/m;
    expect(text).toMatch(call);
    writeFileSync(file, text.replace(call, (line) => `    throw new Error("damaged");\n${line}`));
  }
  return helper;
}

describe("inProcess and the real process when a run throws", () => {
  it("exit alike: 0 for the verbs a harness runs, 2 for the others; the same words", async () => {
    const helper = damagedHelper();
    const root = tempDir("sh-crash-");
    for (const args of RUNS) {
      const real = spawnSync(process.execPath, [helper, ...args, "--root", root], { env: cleanEnv(), encoding: "utf8" });
      const entry = VERBS[args[0]!]!;
      const load = entry.load;
      entry.load = () => Promise.reject(new Error("damaged"));
      let inside;
      try {
        inside = await inProcess([...args, "--root", root]);
      } finally {
        entry.load = load;
      }
      // Old: inProcess exited 2 for every verb.
      expect({ code: inside.code, stdout: inside.stdout, stderr: inside.stderr }, args.join(" "))
        .toEqual({ code: real.status, stdout: real.stdout, stderr: real.stderr });
      // Gemini shows stderr as a chat line: its hook says `{}` on stdout instead.
      const gemini = args.includes("gemini");
      expect([real.stdout, real.stderr]).toEqual(gemini ? ["{}\n", ""] : ["", "memory_io internal error: damaged\n"]);
      expect(real.status, args.join(" ")).toBe(args[0] === "read" ? 2 : 0);
    }
  });
});
