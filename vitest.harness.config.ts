import { defineConfig } from "vitest/config";

// `npm run test:harness` (test/harness/run.mjs) runs this inside a loopback-only network
// namespace with the pinned CLIs installed; `npm test` never includes these files.
export default defineConfig({
  test: {
    include: ["test/harness/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 150_000,
    hookTimeout: 60_000,
    // Each scenario starts a real CLI (Node or a native binary): two at a time on two cores.
    pool: "forks",
    maxWorkers: 2,
    fileParallelism: true,
  },
});
