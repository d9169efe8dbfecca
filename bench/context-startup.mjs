#!/usr/bin/env node
// The context hook's start-up (docs/context-threshold.md): `context --format claude` on a real
// Claude Code transcript under the threshold, with .ai/memory/settings.json present, against
// bare `node -e 0` and against `hook --mode session`, interleaved in the same rounds (the
// method of docs/decisions/bench-method.md). Usage: node bench/context-startup.mjs [--runs N]
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const helper = path.join(repo, "scripts", "memory_io.mjs");
const at = process.argv.indexOf("--runs");
const runs = at > 0 ? Number(process.argv[at + 1]) : 21;

const dir = mkdtempSync(path.join(os.tmpdir(), "sh-ctx-bench-"));
try {
  const root = path.join(dir, "p");
  mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
  execFileSync("git", ["init", "-q", root]);
  writeFileSync(path.join(root, ".ai", "memory", "settings.json"), `${JSON.stringify({ contextOffer: true, contextThreshold: 70, archivesKept: 5 })}\n`);
  const transcript = path.join(dir, "t.jsonl");
  copyFileSync(path.join(repo, "test", "fixtures", "transcripts", "real", "claude-code-2.1.332", "compact.transcript.jsonl"), transcript);
  const input = JSON.stringify({ session_id: "bench", transcript_path: transcript, cwd: root, hook_event_name: "PostToolUse" });
  const cases = {
    bare: [process.execPath, ["-e", "0"]],
    context: [process.execPath, [helper, "context", "--format", "claude"]],
    hook: [process.execPath, [helper, "hook", "--mode", "session", "--format", "claude"]],
  };
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < runs + 2; i++) {
    for (const [name, [cmd, args]] of Object.entries(cases)) {
      const t = process.hrtime.bigint();
      const r = spawnSync(cmd, args, { input, stdio: ["pipe", "pipe", "pipe"] });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}`);
      if (name === "context" && r.stdout.length > 0) throw new Error("context printed an offer under the threshold");
      if (i >= 2) times[name].push(ms);
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const bare = median(times.bare);
  console.log(`node ${process.version}, ${runs} paired rounds, medians:`);
  for (const name of Object.keys(cases)) {
    const m = median(times[name]);
    console.log(`  ${name.padEnd(8)} ${m.toFixed(1)} ms${name === "bare" ? "" : `  (bare + ${(m - bare).toFixed(1)} ms, ${(m / bare).toFixed(2)}x)`}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
