import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Suites too slow for the default run (`npm test`, the README's command): the crash and race
 * matrices, the lock's contention cases, the stress and kill loops, the seeded checkpoint window,
 * redaction's linearity on 1 MB inputs, the torn-read race, every memory folder against every
 * verb, odd handoffs through every verb, the random read-write round trips, the bench's quick
 * run, the secret scanners over every file, many sessions saving at once until each has saved,
 * the install channels through the real installers from npm, two teammates' clones through a
 * bare remote, the merge driver's base cases, the hook's stdin waits and publish under contention,
 * installs killed mid-write, and every verb under Node's hardened flags from a read-only copy.
 * `npm run test:reliability` runs them (vitest.reliability.config.ts), and CI runs that as its
 * own step. The reliability files not listed (the kill switch, the breaker, the checkpoint
 * boundary) stay in `npm test` as its sample of the suite; the one-verdict files on bytes and
 * the refusals stay as the sample of the folder matrix, one-reading.test.ts as that of the odd
 * handoffs (docs/decisions/test-speed.md).
 */
export const HEAVY = [
  "test/reliability/crash-matrix.test.ts",
  "test/reliability/recover-crash-matrix.test.ts",
  "test/reliability/checkpoint-crash.test.ts",
  "test/reliability/checkpoint-window.test.ts",
  "test/reliability/race-matrix.test.ts",
  "test/reliability/hostile.test.ts",
  "test/reliability/lock.test.ts",
  "test/reliability/stress.test.ts",
  "test/reliability/saves-record.test.ts",
  "test/reliability/kill-loop.test.ts",
  "test/store/races.test.ts",
  "test/store/drafts-concurrent.test.ts",
  "test/agents/install-races.test.ts",
  "test/guard/redact-scale.test.ts",
  "test/store/torn-read.test.ts",
  "test/store/tree-verdict.test.ts",
  "test/bench/smoke.test.ts",
  "test/guard/secret-scanners.test.ts",
  "test/guard/roundtrip.test.ts",
  "test/verbs/one-reading-odd.test.ts",
  "test/packaging/channels.test.ts",
  "test/git/two-clones.test.ts",
  "test/git/archive-flows.test.ts",
  "test/git/team-handoffs.test.ts",
  "test/agents/install-crash.test.ts",
  "test/bench/hardened.test.ts",
  "test/git/merge-base.test.ts",
  "test/git/merge-steps.test.ts",
  "test/git/rebase-archives.test.ts",
  "test/bench/stdin.test.ts",
  "test/verbs/publish-lock.test.ts",
];

/** The seeded git oracle: `npm run test:oracle` runs it over 1,000 seeds (vitest.oracle.config.ts). */
export const ORACLE = ["test/git/oracle.test.ts"];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real-harness and Windows suites have their own configs (vitest.harness.config.ts,
    // vitest.windows.config.ts); HEAVY runs in `npm run test:reliability`.
    exclude: ["test/harness/**", "test/windows/**", "**/node_modules/**", ...HEAVY, ...ORACLE],
    globalSetup: ["test/global-setup.ts"],
    // Three workers on a shared 2-core machine stretch each test: at load 22 four tests took
    // 70-86 s (docs/decisions/test-speed.md).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Integration tests spawn many processes; two cores is the target machine. vitest's default
    // for a run is one worker fewer than the cores: one worker on two cores left the second core
    // idle while a test waited on its child. One more worker than cores keeps both busy
    // (docs/decisions/test-speed.md).
    pool: "forks",
    maxWorkers: availableParallelism() + 1,
  },
});
