import { defineConfig } from "vitest/config";

// `npm run test:windows` (test/windows/run.mjs) runs this with Wine and a Windows Node set up;
// `npm test` never includes these files (docs/windows.md).
export default defineConfig({
  test: {
    include: ["test/windows/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Each file starts Wine once for a batch; two at a time on two cores.
    pool: "forks",
    maxWorkers: 2,
    fileParallelism: true,
  },
});
