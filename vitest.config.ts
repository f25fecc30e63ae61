import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: [{ find: /^#(app|db|exchange|reports|worker|tests)\/(.*)$/, replacement: path.resolve("$1/$2") }],
  },
  esbuild: { jsx: "automatic" },
  test: {
    // Under `bun --bun vitest`: threads is the pool that works (the forks pool does not run under Bun).
    pool: "threads",
    include: [
      "app/**/*.test.{ts,tsx}",
      "db/**/*.test.ts",
      "exchange/**/*.test.ts",
      "reports/**/*.test.ts",
      "worker/**/*.test.ts",
      "tests/integration/**/*.test.ts",
    ],
    setupFiles: ["tests/setup/setup-test-env.ts"],
    globalSetup: ["tests/setup/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    restoreMocks: true,
  },
});
