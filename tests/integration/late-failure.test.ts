// A manual order that fails after it was accepted (issue 11), on both dialects: the form
// answered 'queued' (no worker yet), then the exchange refuses it (the margin went meanwhile).
// The open page's live socket receives the trade_update with status failed and the
// exchange's reason, which the page turns into the destructive 'Trade Failed' toast
// (app/live/use-live-updates.tsx watchTrade).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { type LiveServer, startLiveServer } from "#tests/setup/live-server.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

describe.each(testDialects())("a late failure reaches the open page on %s", (dialect) => {
  let live: LiveServer;
  let runner: Runner | null = null;
  beforeAll(async () => {
    live = await startLiveServer(dialect);
  });
  afterAll(async () => {
    await runner?.stop();
    await live?.stop();
  });

  test("accepted, then refused by the exchange: the socket gets trade_update failed with the reason", async () => {
    const db = live.database.db;
    const cookie = await live.register("late_admin", "admin");
    await setPrice(db, "ETH-PERP", "3000", "test");
    await new SimulatorAdapter(db).ensureAccount();

    const messages: { type: string; data: Record<string, unknown> }[] = [];
    const ws = new WebSocket(`ws://${live.base}/ws`, { headers: { Cookie: cookie } } as never);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("message", () => resolve(), { once: true });
      ws.addEventListener("error", () => reject(new Error("socket error")));
    });
    ws.addEventListener("message", (event) => messages.push(JSON.parse(String(event.data))));

    const placed = await fetch(`http://${live.base}/api/trades`, {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/json" },
      body: JSON.stringify({
        symbol: "ETH-PERP",
        side: "buy",
        orderType: "market",
        amountType: "quantity",
        quantity: "0.5",
      }),
    });
    expect(placed.status).toBe(201);
    const { trade } = (await placed.json()) as { trade: { id: string; status: string } };
    expect(trade.status).toBe("pending"); // no worker: accepted into the queue

    // The margin goes before the worker sends it: the exchange refuses.
    await db.updateTable("balances").set({ available: "1", hold: "0" }).execute();
    runner = startRunner({ db, exchange: new SimulatorAdapter(db), workerId: "late-w1", pollMs: 5 });

    const deadline = Date.now() + 10_000;
    let failed: { type: string; data: Record<string, unknown> } | undefined;
    while (!failed && Date.now() < deadline) {
      failed = messages.find((m) => m.type === "trade_update" && m.data.id === trade.id && m.data.status === "failed");
      if (!failed) await Bun.sleep(20);
    }
    ws.close();
    expect(failed).toBeDefined();
    expect(String(failed!.data.message)).toMatch(/insufficient|margin/i);
    const row = await db
      .selectFrom("trades")
      .select(["status", "error_message"])
      .where("id", "=", trade.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("failed");
    expect(row.error_message).toBe(failed!.data.message);
  });
});
