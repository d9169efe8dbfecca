// The bench cannot rot: run it once in its quick mode and check the shape of what it writes.
// Timings are not asserted (they belong in BENCHMARKS.md, not in tests).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { tempDir } from "../helpers.ts";

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bench/run.mjs");

const positive = (x: unknown): boolean => typeof x === "number" && Number.isFinite(x) && x > 0;

it("npm run bench --quick runs end to end and writes well-formed results", () => {
  const out = path.join(tempDir("sh-bench-"), "results.json");
  const r = spawnSync(process.execPath, [BENCH, "--quick", "--out", out], { encoding: "utf8", timeout: 240_000 });
  expect(r.stderr).not.toMatch(/Error/);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^measure\s+median/m);
  expect(r.stdout).toMatch(/context, save flow: \d+ B/);

  const res = JSON.parse(readFileSync(out, "utf8"));
  expect(res.quick).toBe(true);
  expect(positive(res.bareNodeMs)).toBe(true);
  for (const verb of ["hook", "read", "check", "anchors", "write", "brief"]) {
    expect(positive(res.verbs[verb].medianMs), verb).toBe(true);
    expect(positive(res.verbs[verb].ratio), verb).toBe(true);
    expect(positive(res.peakRssKB[verb]), verb).toBe(true);
  }
  for (const key of ["hook", "read", "check", "write"]) expect(typeof res.verbs[key].met).toBe("boolean");
  expect(positive(res.drift.near.ratio)).toBe(true);
  expect(positive(res.drift.far.ratio)).toBe(true);
  expect(res.drift.near.verdict).toBe("drifted");
  expect(res.drift.near.ahead).toBe(20);
  expect(res.drift.gitCommands).toHaveLength(3);
  expect(res.bigDocument.bytes).toBe(1_000_000);
  expect(positive(res.bigDocument.writeMs) && positive(res.bigDocument.readMs)).toBe(true);
  expect(res.hookOutputChars).toBeGreaterThan(0);
  expect(res.search.entries).toBe(10_000);
  expect(positive(res.search.medianMs) && typeof res.search.met === "boolean").toBe(true);
  expect(res.checkpoint.transcriptBytes).toBeGreaterThan(50 * 1024 * 1024 - 1);
  expect(positive(res.checkpoint.ratio) && typeof res.checkpoint.overFloor.pass === "boolean").toBe(true);
  expect(res.checkpoint.small.transcriptBytes).toBeLessThan(1024 * 1024);
  expect(positive(res.checkpoint.small.ratio)).toBe(true);
  expect(positive(res.checkpoint.floor.ratio) && positive(res.checkpoint.floorSmall.ratio)).toBe(true);
  expect(positive(res.checkpoint.cpuOverFloor.big) && positive(res.checkpoint.cpuOverFloor.small)).toBe(true);
  // The speed gates: each row's median per-round ratio with its spread, judged pass or fail
  // (never by this test: docs/decisions/bench-method.md).
  const major = process.versions.node.split(".")[0];
  expect(res.gates.map((g: { row: string }) => g.row)).toEqual([`hook on Node ${major}`, "read", "check", "checkpoint (50 MB transcript)", "checkpoint (200 KB transcript)"]);
  expect(res.gates[0].unit).toBe("ms");
  expect(r.stdout).toMatch(/^gate hook on Node \d+: \+-?[\d.]+ ms over bare node \(IQR .*\) ≤ (25|35) ms (pass|FAIL)$/m);
  for (const g of res.gates) expect((g.unit === "ms" || positive(g.median)) && g.min <= g.q1 && g.q1 <= g.median && g.median <= g.q3 && g.q3 <= g.max && typeof g.pass === "boolean", g.row).toBe(true);
  expect(r.stdout).toMatch(/^gate checkpoint \(50 MB transcript\): [\d.]+× the floor script \(IQR [\d.]+–[\d.]+, min–max [\d.]+–[\d.]+, \d+ rounds\) ≤ 1\.25× (pass|FAIL)$/m);
  expect(res.redaction.lines).toBe(150);
  expect(positive(res.redaction.loadMs) && positive(res.redaction.firstCallMs) && positive(res.redaction.warmMedianMs)).toBe(true);
  expect(r.stdout).toMatch(/redaction of a 150-line handoff/);
  expect(res.bundle.files.map((f: { name: string }) => f.name)).toEqual(["memory_io.mjs", "lib/session.mjs", "lib/cli.mjs"]);
  for (const flow of ["save", "resume", "resumeWithLedgers"]) {
    expect(res.context[flow].files[0].file).toBe("SKILL.md");
    expect(positive(res.context[flow].bytes)).toBe(true);
    expect(positive(res.context[flow].tokens)).toBe(true);
  }
  expect(res.context.tokenizer).toMatch(/o200k_base/);
  expect(res.summary.map((s: { what: string }) => s.what)).toEqual(["hook", "read", "check", "write", "checkpoint (50 MB transcript)", "checkpoint (200 KB transcript)", "drift", "search (10,000 journal entries)", "hook output", "save flow", "resume flow", "agent resume", "agent save"]);
  expect(res.agentFlow.resume.callCount).toBe(1);
  expect(res.agentFlow.save.callCount).toBe(2);
  expect(r.stdout).toMatch(/^agent flow, save: 2 calls/m);
  for (const s of res.summary) expect(typeof s.met).toBe("boolean");
  expect(res.machine.cores).toBeGreaterThan(0);
  // As long as the spawn may take: a loaded 2-core machine needs minutes for the quick run.
}, 240_000);
