import { describe, expect, test } from "vitest";
import { STATUS_TEXT, overallStatus, webhookCard } from "#app/core/system-status.ts";

const entries = (...statuses: string[]) => statuses.map((status, i) => ({ component: `c${i}`, status, message: "" }));

describe("overallStatus", () => {
  test("all online gives online", () => {
    expect(overallStatus(entries("online"))).toBe("online");
    expect(overallStatus(entries("online", "online", "online"))).toBe("online");
  });

  test("any warning gives warning, even next to an error", () => {
    expect(overallStatus(entries("online", "warning", "online"))).toBe("warning");
    expect(overallStatus(entries("warning"))).toBe("warning");
    expect(overallStatus(entries("error", "warning", "online"))).toBe("warning");
  });

  test("otherwise error", () => {
    expect(overallStatus(entries("online", "error"))).toBe("error");
    expect(overallStatus(entries("error", "error"))).toBe("error");
  });

  test("an unknown status is not online", () => {
    expect(overallStatus(entries("online", "unknown"))).toBe("error");
  });

  test("no entries gives error", () => {
    expect(overallStatus([])).toBe("error");
  });
});

describe("STATUS_TEXT", () => {
  test("reads as docs/spec/screens.md says", () => {
    expect(STATUS_TEXT.online).toEqual({ title: "System Online", detail: "All services running" });
    expect(STATUS_TEXT.warning.title).toBe("System Warning");
    expect(STATUS_TEXT.error).toEqual({ title: "System Error", detail: "Check system status" });
  });
});

describe("the Webhook Status card (issue 25)", () => {
  test("a missed heartbeat is a warning (alerts are still accepted), not offline", () => {
    expect(webhookCard({ status: "online" })).toEqual({ value: "online", status: "success" });
    expect(webhookCard({ status: "warning" })).toEqual({ value: "warning", status: "warning" });
    expect(webhookCard({ status: "error" })).toEqual({ value: "offline", status: "error" });
    expect(webhookCard(null)).toEqual({ value: "offline", status: "error" });
  });
});
