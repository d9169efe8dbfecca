// Compare-and-swap under a Windows Node (Wine): several writers started together with one
// token; exactly one saves, the others are refused as stale, and the prior version is archived
// once (docs/design.md#tokens-and-compare-and-swap).
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { handoff, helper as linuxHelper, unstamped } from "../helpers.ts";
import { get, helperIn, runBatch, scratch, winPath, windowsUser, type Result, type Step } from "./wine.ts";

const COUNTS = [2, 6];
let dir: string;
let results: Record<string, Result>;

beforeAll(() => {
  dir = scratch("sh-win-race-");
  const { env } = windowsUser(dir);
  const helper = helperIn(path.join(dir, "skill"));
  const steps: Step[] = [];
  for (const n of COUNTS) {
    const root = path.join(dir, `race-${n}`);
    mkdirSync(root);
    const seeded = linuxHelper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("prior"), env: { GIT_CEILING_DIRECTORIES: dir } });
    if (seeded.code !== 0) throw new Error(seeded.stderr);
    const token = /CURRENT-SHA256: (\S+)/.exec(seeded.stdout)![1]!;
    const R = winPath(root);
    steps.push({
      id: `race-${n}`,
      parallel: Array.from({ length: n }, (_, w) => ({
        id: `${n}:${w}`,
        args: ["write", "handoff", "--root", R, "--expected-current-sha256", token, "--lock-timeout", "60"],
        env,
        cwd: R,
        stdin: handoff(`writer ${w}`),
      })),
    });
  }
  results = runBatch(helper, steps);
});

describe("compare-and-swap under a Windows Node (Wine)", () => {
  it.each(COUNTS)("%i writers, one token: one saves, the rest are refused as stale", (n) => {
    const runs = Array.from({ length: n }, (_, w) => get(results, `${n}:${w}`));
    const won = runs.map((r, w) => (r.code === 0 ? w : -1)).filter((w) => w >= 0);
    expect(won, runs.map((r) => `${r.code} ${r.stderr}`).join("\n")).toHaveLength(1);
    for (const r of runs.filter((r) => r.code !== 0)) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/stale|changed since|expected/i);
    }
    const root = path.join(dir, `race-${n}`);
    expect(unstamped(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8"))).toBe(unstamped(handoff(`writer ${won[0]}`)));
    const archive = path.join(root, ".ai", "memory", "archive");
    const prior = readdirSync(archive).filter((f) => readFileSync(path.join(archive, f), "utf8").includes("prior"));
    expect(prior).toHaveLength(1);
    expect(readdirSync(path.join(root, ".ai", "memory")).filter((f) => f.startsWith(".") && !f.startsWith(".lock"))).toEqual([]);
  });
});
