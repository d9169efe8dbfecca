// The hook waits at most a second for a harness's stdin (contract, "Words"); a harness that
// keeps stdin open must not keep the process, and the session start, waiting too.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { HELPER, cleanEnv, gitRepo } from "../helpers.ts";

it("hook ends about a second after start when stdin stays open", async () => {
  const root = gitRepo();
  const child = spawn(process.execPath, [HELPER, "hook", "--mode", "session"], { cwd: root, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 8_000);
    child.on("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  child.stdin.destroy();
  expect(code).toBe(0);
  expect(Date.now() - started).toBeLessThan(5_000);
});
