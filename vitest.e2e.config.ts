// The browser suite (tests/e2e): the built app started as in production, driven with
// playwright-core over Debian's Chromium. `npx bun --bun vitest run --config vitest.e2e.config.ts`
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Under `bun --bun vitest`: threads is the pool that works (the forks pool does not run under Bun).
    pool: "threads",
    fileParallelism: false,
    include: ["tests/e2e/**/*.e2e.ts"],
    globalSetup: ["tests/e2e/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
