// Every Vitest file: a quiet, deterministic environment in which a console.error (a React
// warning, an unexpected server error) fails the test that caused it. A test that expects
// one calls `allowConsoleError()`.
import { afterEach, beforeEach, expect, vi } from "vitest";

process.env.NODE_ENV = "test";
process.env.APP_SECRET ??= "test-app-secret-0123456789abcdef0123456789abcdef";
// No paper funding unless a test asks for it (decision 024): a test crossing the hour would
// otherwise see its balances move.
process.env.SIM_FUNDING_RATE ??= "0";

let consoleError: ReturnType<typeof vi.spyOn> | undefined;
let allowed = false;

export function allowConsoleError() {
  allowed = true;
}

beforeEach(() => {
  allowed = false;
  consoleError = vi.spyOn(console, "error");
});

afterEach(() => {
  const calls = consoleError?.mock.calls ?? [];
  consoleError?.mockRestore();
  if (!allowed && calls.length > 0) {
    const first = calls[0]!
      .map((a: unknown) => (a instanceof Error ? a.stack : String(a)))
      .join(" ")
      .slice(0, 2000);
    expect.fail(`console.error was called ${calls.length} time(s); first: ${first}`);
  }
});
