// Runs a batch of steps inside one Windows Node under Wine (test/windows/wine.ts writes the plan):
// one Wine start for many helper calls. Every child's stdin, stdout and stderr are files, since a
// Windows Node under Wine writing to a pipe gets EBADF. Plain CommonJS: it runs on node.exe as is.
"use strict";
const { spawn } = require("node:child_process");
const { closeSync, openSync, readFileSync, writeFileSync } = require("node:fs");
const path = require("node:path");

const [planFile, resultsFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
const results = {};

// Windows names its variables in any case: an override replaces the variable whatever its case.
function envFor(overrides) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (k.toUpperCase() !== "HOME") env[k] = v;
  for (const [k, v] of Object.entries(overrides || {})) {
    for (const old of Object.keys(env)) if (old.toUpperCase() === k.toUpperCase()) delete env[old];
    if (v !== null) env[k] = v;
  }
  return env;
}

// `{{token:<id>}}` in an argument is the last CURRENT-SHA256 that step printed.
function expand(arg) {
  return arg.replace(/\{\{token:([^}]+)\}\}/g, (_, id) => {
    const m = [...((results[id] || {}).stdout || "").matchAll(/CURRENT-SHA256: (\S+)/g)].pop();
    return m ? m[1] : "no-token";
  });
}

function argvOf(step) {
  if (step.kind === "cmd") return { file: "cmd.exe", args: ["/d", "/s", "/c", `"${step.command}"`], verbatim: true };
  if (step.kind === "exe") return { file: step.file, args: step.args.map(expand), verbatim: false };
  return { file: process.execPath, args: [step.helper || plan.helper, ...step.args.map(expand)], verbatim: false };
}

function runOne(step) {
  const base = path.join(plan.dir, step.id.replace(/[^A-Za-z0-9._-]/g, "_"));
  writeFileSync(`${base}.in`, step.stdin || "");
  const fds = [openSync(`${base}.in`, "r"), openSync(`${base}.out`, "w"), openSync(`${base}.err`, "w")];
  const { file, args, verbatim } = argvOf(step);
  const started = Date.now();
  return new Promise((resolve) => {
    let timer = null;
    const done = (code, signal, error, retries = 0) => {
      if (timer !== null) clearTimeout(timer);
      for (const fd of fds) closeSync(fd);
      const read = (ext) => readFileSync(`${base}.${ext}`, "utf8");
      const stderr = read("err") + (error ? `\n[runner] ${error}` : "");
      results[step.id] = { code, signal, stdout: read("out"), stderr, ms: Date.now() - started, retries };
      resolve();
    };
    // Wine now and then fails to create a process ("spawn UNKNOWN", thrown at once): the child never ran, so starting
    // it again changes nothing a step checks. A bounded number of times; the result records how many.
    let retries = 0;
    const start = () => {
      let child;
      try {
        child = spawn(file, args, { cwd: step.cwd, env: envFor(step.env), stdio: fds, windowsVerbatimArguments: verbatim, windowsHide: true });
      } catch (err) {
        if (err.code === "UNKNOWN" && retries < 3) setTimeout(start, 200 * ++retries);
        else done(null, null, err.message, retries);
        return;
      }
      timer = setTimeout(() => child.kill("SIGKILL"), step.timeoutMs || 60000);
      child.on("error", (err) => done(null, null, err.message, retries));
      child.on("exit", (code, signal) => done(code, signal, null, retries));
    };
    start();
  });
}

// At most this many children at once: each node.exe under Wine takes ~40 MB and a core's share.
const WIDTH = 6;

// A `parallel` step's children start together (a race); a `sequence` runs its steps in order.
async function runStep(step) {
  if (step.parallel) await Promise.all(step.parallel.map(runStep));
  else if (step.sequence) for (const s of step.sequence) await runStep(s);
  else await runOne(step);
}

// `pool` steps run WIDTH at a time, each to its end: independent cases, not a race.
async function runPool(steps) {
  let next = 0;
  const worker = async () => {
    while (next < steps.length) await runStep(steps[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(WIDTH, steps.length) }, worker));
}

async function main() {
  for (const step of plan.steps) {
    if (step.pool) await runPool(step.pool);
    else await runStep(step);
  }
  writeFileSync(resultsFile, JSON.stringify(results));
}

main().catch((err) => {
  writeFileSync(resultsFile, JSON.stringify({ __error: String(err && err.stack) }));
});
