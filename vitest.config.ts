import { defineConfig } from "vitest/config";

/**
 * Suites too slow for the default run (`npm test`, the README's command): the crash and race
 * matrices, the lock's contention cases, the stress and kill loops, the seeded checkpoint window,
 * redaction's linearity on 1 MB inputs, many sessions saving at once until each has saved.
 * `npm run test:reliability` runs them (vitest.reliability.config.ts), and CI runs that as its
 * own step. The reliability files not listed (the kill switch, the breaker, the checkpoint
 * boundary) stay in `npm test` as its sample of the suite.
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
  "test/reliability/kill-loop.test.ts",
  "test/store/races.test.ts",
  "test/store/drafts-concurrent.test.ts",
  "test/agents/install-races.test.ts",
  "test/guard/redact-scale.test.ts",
];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real-harness and Windows suites have their own configs (vitest.harness.config.ts,
    // vitest.windows.config.ts); HEAVY runs in `npm run test:reliability`.
    exclude: ["test/harness/**", "test/windows/**", "**/node_modules/**", ...HEAVY],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests spawn many processes; two cores is the target machine.
    pool: "forks",
  },
});
