// Which activity-log lines are notifications (decision 030), including the alert kinds of
// issue 25 (decision 046): every alert that is not executed is told, with its reason.
import { describe, expect, test } from "vitest";
import { classifyLogLine } from "./classify.ts";

const line = (type: string, level: string, message: string, data: Record<string, unknown> = {}) => ({
  id: 1,
  type,
  level,
  message,
  data,
  createdAt: 0,
});

describe("alert lines", () => {
  test("the worker's 'not executed' lines: error = failed, warning = skipped, the reason in the body", () => {
    expect(
      classifyLogLine(
        line(
          "signal",
          "error",
          "Signal BUY 0.00001 BTC-PERP not executed: Quantity 0.00001 is below the minimum 0.0001",
          { signalId: "s1" },
        ),
      ),
    ).toEqual({
      event: "alert_failed",
      title: "Alert failed: BUY 0.00001 BTC-PERP",
      body: "BUY 0.00001 BTC-PERP was not executed: Quantity 0.00001 is below the minimum 0.0001",
    });
    expect(
      classifyLogLine(
        line("signal", "warning", "Signal SELL 1 ETH-PERP not executed: ETH-PERP has an open position of strategy Mu", {
          signalId: "s2",
        }),
      ),
    ).toEqual({
      event: "alert_skipped",
      title: "Alert skipped: SELL 1 ETH-PERP",
      body: "SELL 1 ETH-PERP was not executed: ETH-PERP has an open position of strategy Mu",
    });
  });

  test("the webhook's stored-without-order lines are skipped alerts; a refusal it already notified is not told twice", () => {
    const data = { signalId: "s3", action: "buy", symbol: "ETH-PERP", quantity: "0.5" };
    expect(
      classifyLogLine(
        line(
          "signal",
          "warning",
          "Signal received: BUY 0.5 ETH-PERP. Emergency stop is active: signal stored, no order sent",
          data,
        ),
      ),
    ).toMatchObject({
      event: "alert_skipped",
      title: "Alert skipped: BUY 0.5 ETH-PERP",
    });
    expect(
      classifyLogLine(
        line(
          "signal",
          "error",
          "Signal received (strategy Mu): BUY 0.5 SOL-PERP. SOL-PERP is not allowed for strategy Mu",
          { ...data, notified: true },
        ),
      ),
    ).toBeNull();
    expect(classifyLogLine(line("signal", "info", "Signal received: BUY 0.5 ETH-PERP", data))).toBeNull();
    expect(
      classifyLogLine(
        line("signal", "warning", "Emergency stop: only the exit of SELL 1 ETH-PERP is sent", {
          signalId: "s4",
          positionId: "p",
        }),
      ),
    ).toBeNull();
  });

  test("a flip's fill names the position it closed", () => {
    const fill = line("trade", "success", "Order filled on simulator: SELL 30 XRP-PERP @ 2", {
      tradeId: "t1",
      orderId: "o1",
      price: "2",
      side: "sell",
      quantity: "30",
      symbol: "XRP-PERP",
      closedPositionId: "p1",
    });
    expect(classifyLogLine(fill)).toMatchObject({ event: "order_filled", tradeId: "t1", closedPositionId: "p1" });
    expect(classifyLogLine({ ...fill, data: { ...fill.data, closedPositionId: undefined } })).not.toHaveProperty(
      "closedPositionId",
    );
  });
});
