// How signals read (issue 25), on both databases: a signal whose order was cancelled is in its
// own neutral CANCELLED state, not a red FAILED; a target-position alert shows its target, not
// the quantity it ignores (the dashboard's row and the log line).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import {
  freshApp,
  jobsIdle,
  registeredAccounts,
  restingTrade,
  rowInStatus,
  sendSignalId,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

describe.each(testDialects())("signal display on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, { admin: ["disp_admin", "admin"] });
  const db = () => app.database.db;
  let secret: string;
  let runner: Runner | null = null;

  beforeAll(async () => {
    secret = await webhookSecret(app, cookies.admin);
    await new SimulatorAdapter(db()).ensureAccount();
    await setPrice(db(), "ETH-PERP", "3000", "test");
    runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "disp-w1", pollMs: 3 });
  });
  afterAll(async () => {
    await runner?.stop();
  });

  const dashboardRow = async (signalId: string) => {
    const page = await (await app.fetch("/dashboard", { cookie: cookies.admin })).text();
    const rows = page.split('data-testid="signal-row"').slice(1);
    return { page, rows };
  };

  test("a cancelled order's signal is CANCELLED (neutral), not FAILED", async () => {
    const signalId = await sendSignalId(
      app,
      secret,
      { action: "buy", symbol: "ETH-PERP", quantity: "0.01", order_type: "limit", price: "2000", id: "disp-limit" },
      200,
    );
    const trade = await restingTrade(app, signalId);
    expect(
      (await app.fetch(`/api/trades/${trade.id}/cancel`, { method: "POST", cookie: cookies.admin })).status,
    ).toBeLessThan(300);
    await rowInStatus(app, "trades", trade.id, "cancelled");
    await jobsIdle(app);
    const signal = await db().selectFrom("signals").selectAll().where("id", "=", signalId).executeTakeFirstOrThrow();
    expect(signal.status).toBe("cancelled");
    const api = (await (await app.fetch(`/api/signals/${signalId}`, { cookie: cookies.admin })).json()) as {
      status?: string;
      signal?: { status: string };
    };
    expect(api.signal?.status ?? api.status).toBe("cancelled");
    const { rows } = await dashboardRow(signalId);
    const row = rows.find((r) => r.includes("2000"))!;
    expect(row).toContain("CANCELLED");
    expect(row).not.toContain("FAILED");
    expect(row).not.toContain("MuiChip-colorError");
  });

  test("a target-position alert shows its target, not the ignored qty 1", async () => {
    const signalId = await sendSignalId(
      app,
      secret,
      {
        action: "buy",
        symbol: "ETH-PERP",
        quantity: "1",
        order_type: "market",
        market_position: "long",
        market_position_size: "0.02",
        id: "disp-target",
      },
      200,
    );
    await rowInStatus(app, "signals", signalId, "executed");
    const line = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Signal received%")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(line.message).toBe("Signal received: BUY ETH-PERP (target long 0.02)");
    const { rows } = await dashboardRow(signalId);
    const row = rows.find((r) => r.includes("long 0.02"))!;
    expect(row).toBeDefined();
    expect(row.replaceAll("&quot;", '"')).toContain('"target":"long 0.02"');
    expect(row.replaceAll("&quot;", '"')).not.toContain('"qty"');
  });
});
