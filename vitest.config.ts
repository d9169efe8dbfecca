import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real-harness and Windows suites have their own configs (vitest.harness.config.ts,
    // vitest.windows.config.ts).
    exclude: ["test/harness/**", "test/windows/**", "**/node_modules/**"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests spawn many processes; two cores is the target machine.
    pool: "forks",
  },
});
