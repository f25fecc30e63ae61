// Webhook Config's strict ticker mapping (issue 11), on both dialects: an admin turns it on
// with the page's form (no JavaScript needed); alerts then must name the product itself
// (ETHUSDT.P is a 400 with the reason, ETH-PERP is accepted); a trader may not change it;
// the page says which mapping is in force; off again, tickers map as before.
import { beforeAll, describe, expect, test } from "vitest";
import { freshApp, registerVia, sendSignal, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("strict ticker mapping on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let trader: string;
  let secret: string;
  const toggle = (cookie: string, value: "on" | "off") =>
    app.fetch("/webhook", { method: "POST", cookie, form: { intent: "strict-tickers", value } });
  const alert = (symbol: string) =>
    sendSignal(app, secret, {
      action: "buy",
      symbol,
      quantity: "0.01",
      order_type: "market",
      id: `s-${Math.random()}`,
    });

  beforeAll(async () => {
    admin = (await registerVia(app, "strict_admin")).cookie;
    trader = (await registerVia(app, "strict_trader", "secret123", "trader")).cookie;
    secret = await webhookSecret(app, admin);
  });

  test("off by default: TradingView tickers map to their perpetual", async () => {
    expect((await alert("ETHUSDT.P")).status).toBe(200);
    const page = await (await app.fetch("/webhook", { cookie: admin })).text();
    expect(page).toContain("Turn strict mapping on");
  });

  test("on: only product symbols; the reason in the 400; a trader may not change it; off again", async () => {
    expect((await toggle(trader, "on")).status).toBe(403);
    const on = await toggle(admin, "on");
    expect(on.status).toBe(302);
    const refused = await alert("BINANCE:ETHUSDT");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      success: false,
      field: "symbol",
      error:
        "symbol BINANCE:ETHUSDT is not one of BTC-PERP, ETH-PERP, SOL-PERP, XRP-PERP (strict ticker mapping is on)",
    });
    expect((await alert("ETH-PERP")).status).toBe(200);
    const page = await (await app.fetch("/webhook", { cookie: admin })).text();
    expect(page).toContain("Strict ticker mapping is <b>on</b>");
    expect(page).toContain("Turn strict mapping off");
    const logged = await app.database.db
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "%strict ticker mapping on%")
      .execute();
    expect(logged).toHaveLength(1);

    expect((await toggle(admin, "off")).status).toBe(302);
    expect((await alert("ETHUSDT.P")).status).toBe(200);
  });
});
