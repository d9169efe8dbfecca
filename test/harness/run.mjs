#!/usr/bin/env node
// `npm run test:harness`: installs the pinned CLIs (test/harness/versions.json) into one cache
// folder outside the repository, then runs the harness tests inside a loopback-only network
// namespace, so nothing a CLI sends can leave the machine (test/harness/README.md).
// Prints "SKIP: <reason>" and starts no CLI when the namespace or the CLIs are unavailable.
// Arguments after `--` go to vitest.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const versions = JSON.parse(readFileSync(path.join(REPO, "test/harness/versions.json"), "utf8"));
const cache = process.env.SESSION_HANDOFF_HARNESS_CACHE || path.join(tmpdir(), "session-handoff-harness");
const args = process.argv.slice(2);

function skip(reason) {
  console.log(`SKIP: ${reason}`);
  process.exit(0);
}

if (process.env.SESSION_HANDOFF_SKIP_HARNESS === "1") skip("SESSION_HANDOFF_SKIP_HARNESS=1");
if (process.platform !== "linux") skip(`a loopback-only network namespace needs Linux (this is ${process.platform})`);

// The namespace first: without one no CLI may start, so there is no point installing them.
const probe = spawnSync("unshare", ["-n", "sh", "-c", "ip link set lo up && ip -o link show | wc -l"], {
  encoding: "utf8",
});
if (probe.error || probe.status !== 0 || probe.stdout.trim() !== "1") {
  skip(
    "no loopback-only network namespace (unshare -n + ip link set lo up: " +
      `${(probe.stderr || probe.error?.message || "").trim() || `exit ${probe.status}`}; ` +
      "it needs root or user namespaces)",
  );
}

// Install what is missing. A folder is complete once its marker names the version.
const t0 = Date.now();
let installed = 0;
mkdirSync(cache, { recursive: true });
const folders = new Set();
for (const [id, v] of Object.entries(versions)) {
  const dir = path.join(cache, `${v.package.replace("/", "+")}@${v.version}`);
  folders.add(dir);
  const marker = path.join(dir, ".complete");
  if (existsSync(marker) && existsSync(path.join(dir, v.bin))) continue;
  const t = Date.now();
  console.log(`harness: installing ${v.package}@${v.version} into ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      dir,
      "--no-audit",
      "--no-fund",
      "--no-save",
      "--loglevel=error",
      `${v.package}@${v.version}`,
    ],
    { stdio: "inherit", timeout: 15 * 60_000 },
  );
  if (r.status !== 0 || !existsSync(path.join(dir, v.bin)))
    skip(
      `could not install ${v.package}@${v.version} into ${dir} (npm exit ${r.status}; ${id}'s binary ${v.bin} missing)`,
    );
  writeFileSync(marker, `${v.package}@${v.version}\n`);
  installed++;
  console.log(`harness: ${v.package}@${v.version} installed in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
const setup = (Date.now() - t0) / 1000;
console.log(
  installed > 0
    ? `harness: cold cache: installed ${installed} CLI(s) in ${setup.toFixed(1)} s (${cache})`
    : `harness: warm cache: all ${folders.size} CLIs present (checked in ${setup.toFixed(1)} s, ${cache})`,
);

const rg = spawnSync("sh", ["-c", "command -v rg"], { encoding: "utf8" });
if (rg.status !== 0)
  console.log("harness: ripgrep (rg) is not on PATH: OpenCode's skill tool will fail (apt-get install -y ripgrep)");

// vitest runs inside the namespace: the fake model server and the CLIs share its loopback.
const t1 = Date.now();
const vitest = path.join(REPO, "node_modules", "vitest", "vitest.mjs");
const r = spawnSync(
  "unshare",
  [
    "-n",
    "sh",
    "-c",
    'ip link set lo up && exec "$@"',
    "sh",
    process.execPath,
    vitest,
    "run",
    "-c",
    "vitest.harness.config.ts",
    ...args,
  ],
  {
    cwd: REPO,
    stdio: "inherit",
    env: { ...process.env, SESSION_HANDOFF_HARNESS_CACHE: cache, SESSION_HANDOFF_HARNESS_NETNS: "1" },
  },
);
console.log(
  `harness: ${installed > 0 ? "cold" : "warm"} run: setup ${setup.toFixed(1)} s, ` +
    `tests ${((Date.now() - t1) / 1000).toFixed(1)} s`,
);
process.exit(r.status ?? 1);
