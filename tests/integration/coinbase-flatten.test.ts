// Flatten all on the fake Coinbase (issue 11), on both dialects: positions opened through
// webhooks on Coinbase are all closed there by POST /api/positions/close-all, which then asks
// Coinbase itself and answers flat. The app runs with this process's APP_SECRET, as the web
// and the worker share one in production, so the web side reads the stored credentials too.
import { describe, expect, test } from "vitest";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { sendSignalExecuted } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });

describe.each(testDialects())("Flatten all on Coinbase, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, "flat");
  const { app, db } = live;

  test("every position is closed on Coinbase and Coinbase reports the account flat", async () => {
    msw.reset(); // the fake is shared by both dialects' runs
    for (const body of [
      { action: "buy", symbol: "SOL-PERP", quantity: "15", order_type: "market" },
      { action: "sell", symbol: "ETH-PERP", quantity: "0.3", order_type: "market" },
    ]) {
      await sendSignalExecuted(app, live.secret, body);
    }
    expect(msw.fake.state.positions.size).toBe(2);
    const response = await app.fetch("/api/positions/close-all", { method: "POST", cookie: live.admin });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      success: true,
      closed: 2,
      cancelled: 0,
      flat: true,
      remaining: [],
      done: true,
    });
    const closes = msw.fake
      .requestsTo("/orders/close_position", "POST")
      .map((r) => (r.body as { product_id: string }).product_id);
    expect(closes.sort()).toEqual(["ETP-20DEC30-CDE", "SLP-20DEC30-CDE"]);
    expect(msw.fake.state.positions.size).toBe(0);
    expect(await db().selectFrom("positions").select("id").where("status", "=", "open").execute()).toEqual([]);
    const line = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Flatten all%")
      .orderBy("id", "desc")
      .executeTakeFirst();
    expect(line?.message).toMatch(/flat/i);
  });
});
