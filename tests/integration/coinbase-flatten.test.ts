// Flatten all on the fake Coinbase (issue 11), on both dialects: positions opened through
// webhooks on Coinbase are all closed there by POST /api/positions/close-all, which then asks
// Coinbase itself and answers flat. The app runs with this process's APP_SECRET, as the web
// and the worker share one in production, so the web side reads the stored credentials too.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { SwitchingExchange } from "#app/core/exchange/factory.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { type TestApp, createTestApp, registerVia, sendSignal, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { goLiveOnFakeCoinbase } from "#tests/setup/live-coinbase.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });

describe.each(testDialects())("Flatten all on Coinbase, %s", (dialect) => {
  let app: TestApp;
  let admin: string;
  let secret: string;
  let exchange: SwitchingExchange;
  let runner: Runner | null = null;
  const db = () => app.database.db;

  beforeAll(async () => {
    app = await createTestApp(dialect, { APP_SECRET: process.env.APP_SECRET! }, { file: true });
    admin = (await registerVia(app, "flat_admin")).cookie;
    secret = await webhookSecret(app, admin);
    exchange = await goLiveOnFakeCoinbase(app, key, "flat_admin");
    runner = startRunner({ db: db(), exchange, workerId: "flat-w1", pollMs: 5 });
  });
  afterAll(async () => {
    await runner?.stop();
    exchange?.stop();
    await app?.cleanup();
  });

  test("every position is closed on Coinbase and Coinbase reports the account flat", async () => {
    msw.reset(); // the fake is shared by both dialects' runs
    for (const body of [
      { action: "buy", symbol: "SOL-PERP", quantity: "15", order_type: "market" },
      { action: "sell", symbol: "ETH-PERP", quantity: "0.3", order_type: "market" },
    ]) {
      const { signalId } = (await (await sendSignal(app, secret, body)).json()) as { signalId: string };
      await waitFor("executed", async () => db().selectFrom("trades").select("id").where("signal_id", "=", signalId).where("status", "=", "executed").executeTakeFirst());
    }
    expect(msw.fake.state.positions.size).toBe(2);
    const response = await app.fetch("/api/positions/close-all", { method: "POST", cookie: admin });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, closed: 2, cancelled: 0, flat: true, remaining: [], done: true });
    const closes = msw.fake.requestsTo("/orders/close_position", "POST").map((r) => (r.body as { product_id: string }).product_id);
    expect(closes.sort()).toEqual(["ETP-20DEC30-CDE", "SLP-20DEC30-CDE"]);
    expect(msw.fake.state.positions.size).toBe(0);
    expect(await db().selectFrom("positions").select("id").where("status", "=", "open").execute()).toEqual([]);
    const line = await db().selectFrom("activity_logs").select("message").where("message", "like", "Flatten all%").orderBy("id", "desc").executeTakeFirst();
    expect(line?.message).toMatch(/flat/i);
  });
});
