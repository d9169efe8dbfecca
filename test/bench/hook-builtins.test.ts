// Every session start runs the hook: it must not load node:crypto or node:child_process when the handoff in the tree
// is this clone's newest save (a start that pays for them pays 5-10 ms on every session; BENCHMARKS.md).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, HELPER, save, tempDir } from "../helpers.ts";

describe("the session hook's built-in modules", () => {
  it("a saved handoff, this clone's newest: no node:crypto, no node:child_process", () => {
    const root = gitRepo();
    save(root, handoff("Ship the importer."));
    const dir = tempDir("sh-modules-");
    const list = path.join(dir, "modules.txt");
    const preload = path.join(dir, "list.cjs");
    writeFileSync(preload, `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(list)}, ` +
      `process.moduleLoadList.join("\\n")));\n`);
    const r = spawnSync(process.execPath, ["-r", preload, HELPER, "hook", "--mode", "session", "--root", root], {
      encoding: "utf8",
    });
    expect(r.stdout).toContain("a parked handoff exists");
    const loaded = readFileSync(list, "utf8").split("\n");
    expect(loaded.filter((m) => /^NativeModule (crypto|child_process)$/.test(m))).toEqual([]);
  });
});
