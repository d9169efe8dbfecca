// GitHub's tarball endpoint on loopback, for installers that fetch GitHub sources through
// giget (skillmds): serves GET /repos/<owner>/<repo>/tarball/<ref> as `git archive` of <ref>
// in a local clone, then runs a command with GIGET_GITHUB_URL pointing here and exits with
// its status. Every request is logged on stderr as "github-emulator: GET <path> <status>".
//
//   node github-emulator.mjs <clone> -- <command> [args…]
import { execFileSync, spawn } from "node:child_process";
import http from "node:http";

const [clone, dashes, command, ...args] = process.argv.slice(2);
if (!clone || dashes !== "--" || !command) {
  console.error("usage: node github-emulator.mjs <clone> -- <command> [args…]");
  process.exit(64);
}

const server = http.createServer((req, res) => {
  const m = /^\/repos\/([^/]+)\/([^/]+)\/tarball\/([^/?]+)$/.exec(req.url ?? "");
  let status = 404;
  if (req.method === "GET" && m) {
    const [, owner, repo, ref] = m;
    try {
      const sha = execFileSync("git", ["rev-parse", "--short=7", `${decodeURIComponent(ref)}^{commit}`], { cwd: clone, encoding: "utf8" }).trim();
      // GitHub's tarballs hold one top folder, <owner>-<repo>-<sha>, which giget strips.
      const body = execFileSync("git", ["archive", "--format=tar.gz", `--prefix=${owner}-${repo}-${sha}/`, decodeURIComponent(ref)], { cwd: clone, maxBuffer: 64 * 1024 * 1024 });
      status = 200;
      res.writeHead(200, { "content-type": "application/x-gzip", "content-length": body.length });
      res.end(body);
    } catch {
      status = 404;
    }
  }
  if (status !== 200) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"message":"Not Found"}');
  }
  console.error(`github-emulator: ${req.method} ${req.url} ${status}`);
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, GIGET_GITHUB_URL: `http://127.0.0.1:${port}` } });
  // Bounded: an installer that hangs is killed after two minutes.
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  child.on("exit", (code, signal) => {
    clearTimeout(timer);
    server.close();
    process.exit(code ?? (signal ? 70 : 1));
  });
});
