import { defineConfig } from "vitest/config";
import { HEAVY } from "./vitest.config.ts";

// `npm run test:reliability`: the suites `npm test` leaves out for their time (listed in
// vitest.config.ts). CI runs this as its own step after `npm test`.
export default defineConfig({
  test: {
    include: HEAVY,
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
