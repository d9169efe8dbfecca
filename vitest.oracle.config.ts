import { defineConfig } from "vitest/config";
import { ORACLE } from "./vitest.config.ts";

// `npm run test:oracle`: the brief checked against git over 1,000 seeded histories (SEEDS in the
// script). `npm test` leaves it out for its time; CI runs it as its own step.
export default defineConfig({
  test: {
    include: ORACLE,
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
