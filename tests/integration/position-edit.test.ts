// Editing one open position in place (issue 25, docs/decisions/048-edit-a-position.md), on both
// dialects: through PATCH /api/positions/{id} and the Positions page's plain form post; the stop
// moved, take-profit levels changed (and the engine acting on the new price), break-even and
// trailing switched, refusals with the reason, nothing written when nothing changed, the audit
// row, the activity line and the dashboard event; a partial close by percent and by quantity
// through the same close job as Close; a viewer refused. Simulator: entry BUY 1 ETH at 3000 ×
// 1.0005 = 3001.5; default controls: SL 0.5 % (2986.4925), TPs +0.5/+1/+1.5 %, BE, trailing.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { DEFAULT_TRADING_CONFIG } from "#app/core/schemas/trading-config.ts";
import {
  freshApp,
  jobsIdle,
  registeredAccounts,
  sendSignal,
  toastAfter,
  waitFor,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";
import { processPriceTicks } from "#worker/monitor/price-loop.ts";
import { positionRowToPosition } from "#db/queries/positions.ts";
import { saveTradingConfig } from "#db/queries/trading-state.ts";

describe.each(testDialects())("editing a position on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, {
    admin: "edit_admin",
    trader: "edit_trader",
    viewer: ["edit_viewer", "viewer"],
  });
  let secret: string;
  let runner: Runner | null = null;
  const db = () => app.database.db;

  const tick = async (symbol: string, price: string) => {
    await setPrice(db(), symbol, price, "test");
    await processPriceTicks(db(), [{ symbol, price }]);
    await jobsIdle(app);
  };
  const open = async () => {
    const response = await sendSignal(app, secret, {
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "1",
      order_type: "market",
      id: `e-${Date.now()}-${Math.random()}`,
    });
    expect(response.status).toBe(200);
    return waitFor("position open", async () => {
      const row = await db()
        .selectFrom("positions")
        .selectAll()
        .where("symbol", "=", "ETH-PERP")
        .where("status", "=", "open")
        .executeTakeFirst();
      return row ? positionRowToPosition(row) : null;
    });
  };
  const position = async (id: string) =>
    positionRowToPosition(
      await db().selectFrom("positions").selectAll().where("id", "=", id).executeTakeFirstOrThrow(),
    );
  const patch = (id: string, json: unknown, cookie = cookies.trader) =>
    app.fetch(`/api/positions/${id}`, { method: "PATCH", cookie, json });
  const audits = async () =>
    db().selectFrom("audit_entries").selectAll().where("action", "like", "position.%").orderBy("id").execute();
  const editEvents = async () =>
    (await db().selectFrom("events").select("data").where("type", "=", "dashboard_update").execute()).filter((e) =>
      String(e.data).includes("position_edited"),
    ).length;
  const enabledLevels = (p: {
    advancedControls: { takeProfits: { enabled: boolean; price?: string; portfolio: number }[] | null } | null;
  }) =>
    (p.advancedControls?.takeProfits ?? [])
      .filter((l) => l.enabled)
      .map((l) => ({ price: l.price ?? null, portfolio: l.portfolio }));

  beforeAll(async () => {
    secret = await webhookSecret(app, cookies.admin);
    await new SimulatorAdapter(db()).ensureAccount();
  });
  afterAll(async () => {
    await runner?.stop();
  });
  beforeEach(async () => {
    await runner?.stop();
    for (const table of ["trades", "jobs", "positions", "sim_orders", "signals", "sim_positions"] as const)
      await db().deleteFrom(table).execute();
    await db().updateTable("balances").set({ available: "10000", hold: "0" }).execute();
    await saveTradingConfig(db(), DEFAULT_TRADING_CONFIG);
    await setPrice(db(), "ETH-PERP", "3000", "test");
    runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "w-edit", pollMs: 3 });
  });

  test("API: stop moved, refused on the wrong side, take-profits replaced and acted on, break-even and trailing switched, audited once", async () => {
    const p = await open();
    expect(p).toMatchObject({ entryPrice: "3001.5", stopPrice: "2986.4925" });
    const auditsBefore = (await audits()).length;

    // The stop moved: the exact price typed, in force at once.
    let response = await patch(p.id, { stopLoss: "2950" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, changed: true, position: { stopPrice: "2950" } });
    expect(await position(p.id)).toMatchObject({ stopPrice: "2950", advancedControls: { stopLossPrice: "2950" } });
    const rows = await audits();
    expect(rows.length).toBe(auditsBefore + 1);
    expect(rows.at(-1)).toMatchObject({ action: "position.edit", actor: "edit_trader" });
    expect(JSON.parse(String(rows.at(-1)!.changes))).toMatchObject({
      stopPrice: { before: "2986.4925", after: "2950" },
    });
    const log = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Position ETH-PERP edited by edit_trader%")
      .executeTakeFirst();
    expect(log?.message).toContain("stop 2950");
    expect(await editEvents()).toBeGreaterThanOrEqual(1);

    // The same edit again: nothing changed, no audit row.
    response = await patch(p.id, { stopLoss: "2950" });
    expect(await response.json()).toMatchObject({ success: true, changed: false });
    expect((await audits()).length).toBe(auditsBefore + 1);

    // Refusals, with the reason; the old stop stays.
    response = await patch(p.id, { stopLoss: "3005" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      field: "stopLoss",
      error: "A long's stop loss must be below the current price (3000), else it closes the position at once",
    });
    await setPrice(db(), "ETH-PERP", "2990", "test");
    response = await patch(p.id, { stopLoss: "2995" });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toContain("A long's stop loss must be below the current price (2990)");
    response = await patch(p.id, { takeProfits: [{ price: "2980", close: "50" }] });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toContain("Take-profit 1 of a long must be above its entry price (3001.5)");
    response = await patch(p.id, { stopLoss: "abc" });
    expect(response.status).toBe(400);
    expect(await position(p.id)).toMatchObject({ stopPrice: "2950" });
    expect((await audits()).length).toBe(auditsBefore + 1);

    // Take-profits: two levels instead of three (the third slot disabled), at the prices typed.
    response = await patch(p.id, {
      takeProfits: [
        { price: "3100", close: "50" },
        { price: "3020", close: "50" },
      ],
    });
    expect(response.status).toBe(200);
    expect(enabledLevels(await position(p.id))).toEqual([
      { price: "3020", portfolio: 0.5 },
      { price: "3100", portfolio: 0.5 },
    ]);
    // The engine acts on the new level: 3020 takes half; break-even arms.
    await tick("ETH-PERP", "3020");
    const after = await waitFor("TP1 filled", async () => {
      const row = await position(p.id);
      return row.remainingQuantity === "0.5" ? row : null;
    });
    expect(after.breakEvenTriggered).toBe(true);
    const beStop = after.stopPrice!;
    expect(Number(beStop)).toBeGreaterThan(3001.5);
    // At break-even the stop moves only with break-even off.
    response = await patch(p.id, { stopLoss: "2960" });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toContain(`The stop is at break-even (${beStop})`);
    // The filled level stays; the open one is changed.
    response = await patch(p.id, { takeProfits: [{ price: "3090", close: "50" }] });
    expect(response.status).toBe(200);
    expect(enabledLevels(await position(p.id))).toEqual([
      { price: "3020", portfolio: 0.5 },
      { price: "3090", portfolio: 0.5 },
    ]);
    // Break-even off: the stop typed is back in force; trailing off.
    response = await patch(p.id, { breakEven: false, trailing: false });
    expect(response.status).toBe(200);
    expect(await position(p.id)).toMatchObject({
      stopPrice: "2950",
      breakEvenTriggered: false,
      advancedControls: { breakEven: false, trailingStop: null },
    });
    // Trailing on with new distances.
    response = await patch(p.id, { trailing: true, trailingActivation: "2", trailingRetrace: "0.5" });
    expect(response.status).toBe(200);
    expect((await position(p.id)).advancedControls?.trailingStop).toEqual({ activation: 0.02, execute: 0.005 });
    response = await patch(p.id, { trailing: true, trailingActivation: "0", trailingRetrace: "0.5" });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe("The trailing stop needs an activation and a distance above 0");
  });

  test("a stop past the entry (in profit): a long's and a short's, taken on the protective side of the price, the worker closes at it, break-even never loosens it", async () => {
    // Long entered at 3001.5; the price at 3015 (TP1 at 3016.5075 not reached yet).
    const p = await open();
    await setPrice(db(), "ETH-PERP", "3015", "test");
    let response = await patch(p.id, { stopLoss: "3016" });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe(
      "A long's stop loss must be below the current price (3015), else it closes the position at once",
    );
    response = await patch(p.id, { stopLoss: "3012" });
    expect(response.status).toBe(200);
    const locked = await position(p.id);
    expect(locked).toMatchObject({ stopPrice: "3012", advancedControls: { stopLossPrice: "3012" } });
    expect(locked.advancedControls!.stopLossOffset).toBeLessThan(0); // past the entry: a signed distance below 0
    // The form shows it as the stop in force; the same form posted back changes nothing.
    const page = await (await app.fetch(`/positions?edit=${p.id}`, { cookie: cookies.trader })).text();
    expect(page).toContain('value="3012"');

    // TP1 fills and break-even arms at ≈ 3008.11 (entry + fees + 0.1 %): looser than 3012, so 3012 stays.
    await tick("ETH-PERP", "3020");
    const armed = await waitFor("TP1 filled", async () => {
      const row = await position(p.id);
      return row.remainingQuantity === "0.8" && row.breakEvenTriggered ? row : null;
    });
    expect(armed.stopPrice).toBe("3012");
    const beStop = (armed.ruleState as { breakEvenStop?: string }).breakEvenStop!;
    expect(Number(beStop)).toBeGreaterThan(3001.5);
    expect(Number(beStop)).toBeLessThan(3012);
    const note = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Break-even armed for ETH-PERP%")
      .executeTakeFirst();
    expect(note?.message).toContain("the stop stays at 3012, set by hand and tighter");
    // Break-even armed: a stop below it is refused, a tighter one taken.
    response = await patch(p.id, { stopLoss: "3005" });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe(
      `The stop is at break-even (${beStop}) since take-profit 1 filled: a stop below it would loosen it; turn break-even off to move it there`,
    );
    await setPrice(db(), "ETH-PERP", "3020", "test");
    response = await patch(p.id, { stopLoss: "3014" });
    expect(response.status).toBe(200);
    expect(await position(p.id)).toMatchObject({ stopPrice: "3014", breakEvenTriggered: true });

    // The price falls to 3013.5 (above break-even, through the stop): the worker closes what remains.
    await tick("ETH-PERP", "3013.5");
    await waitFor("long closed at its stop", async () => ((await position(p.id)).status === "closed" ? true : null));
    const hit = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "%Stop loss hit%")
      .executeTakeFirst();
    expect(hit).toBeTruthy();

    // Short entered at 2998.5 (3000 less the simulator's slippage); the price at 2990.
    await setPrice(db(), "ETH-PERP", "3000", "test");
    const response2 = await sendSignal(app, secret, {
      action: "sell",
      symbol: "ETH-PERP",
      quantity: "1",
      order_type: "market",
      id: `s-${Date.now()}`,
    });
    expect(response2.status).toBe(200);
    const short = await waitFor("short open", async () => {
      const row = await db()
        .selectFrom("positions")
        .selectAll()
        .where("symbol", "=", "ETH-PERP")
        .where("status", "=", "open")
        .where("side", "=", "short")
        .executeTakeFirst();
      return row ? positionRowToPosition(row) : null;
    });
    await setPrice(db(), "ETH-PERP", "2990", "test");
    response = await patch(short.id, { stopLoss: "2989" });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe(
      "A short's stop loss must be above the current price (2990), else it closes the position at once",
    );
    response = await patch(short.id, { stopLoss: "2994" });
    expect(response.status).toBe(200);
    expect(await position(short.id)).toMatchObject({ stopPrice: "2994", advancedControls: { stopLossPrice: "2994" } });
    await tick("ETH-PERP", "2993");
    expect((await position(short.id)).status).toBe("open");
    await tick("ETH-PERP", "2994.5");
    await waitFor("short closed at its stop", async () =>
      (await position(short.id)).status === "closed" ? true : null,
    );
    const exit = await db()
      .selectFrom("trades")
      .select(["side", "executed_price"])
      .where("position_id", "=", short.id)
      .where("side", "=", "buy")
      .executeTakeFirst();
    expect(exit?.side).toBe("buy");
  });

  test("roles, unknown ids and methods", async () => {
    const p = await open();
    expect((await patch(p.id, { stopLoss: "2950" }, cookies.viewer)).status).toBe(403);
    expect((await app.fetch(`/api/positions/${p.id}/close`, { method: "POST", cookie: cookies.viewer })).status).toBe(
      403,
    );
    expect((await patch("nope", { stopLoss: "2950" })).status).toBe(404);
    expect(
      (await app.fetch(`/api/positions/${p.id}`, { method: "POST", cookie: cookies.trader, json: {} })).status,
    ).toBe(405);
    expect((await patch(p.id, { stopLoss: "2950", extra: 1 })).status).toBe(400);
    const viewerPost = await app.fetch("/positions", {
      method: "POST",
      cookie: cookies.viewer,
      form: { intent: "edit", id: p.id, stopLoss: "2950" },
    });
    expect(viewerPost.status).toBe(403);
    expect((await position(p.id)).stopPrice).toBe("2986.4925");
    // A viewer's page has no Edit link and no form.
    const page = await (await app.fetch(`/positions?edit=${p.id}`, { cookie: cookies.viewer })).text();
    expect(page).not.toContain('data-testid="position-edit"');
  });

  test("no JavaScript: the edit form renders, saves, and answers a refusal on the form", async () => {
    const p = await open();
    const page = await (await app.fetch(`/positions?edit=${p.id}`, { cookie: cookies.trader })).text();
    expect(page).toContain('data-testid="position-edit"');
    // The stop in force (2986.4925) pre-filled on ETH-PERP's 0.01 tick, as a trader types it.
    expect(page).toContain('value="2986.49"');
    expect(page).not.toContain('value="2986.4925"');
    expect(page).toContain('data-testid="position-edit-link"');
    const form = (fields: [string, string][]) =>
      app.fetch(`/positions?edit=${p.id}`, {
        method: "POST",
        cookie: cookies.trader,
        body: new URLSearchParams([["intent", "edit"], ["id", p.id], ...fields]),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
    const levels: [string, string][] = [
      ["tpPrice", "3040"],
      ["tpClose", "40"],
      ["tpPrice", ""],
      ["tpClose", ""],
    ];
    const rules: [string, string][] = [
      ["breakEven", "on"],
      ["breakEvenOffset", "2"],
      ["breakEvenOffsetUnit", "ticks"],
      ["trailingActivation", ""],
      ["trailingRetrace", ""],
    ];
    const saved = await form([["stopLoss", "2970"], ...levels, ...rules]);
    expect(await toastAfter(app, saved, cookies.trader)).toContain("Position Updated");
    expect(await position(p.id)).toMatchObject({
      stopPrice: "2970",
      advancedControls: { trailingStop: null, breakEven: true, breakEvenOffset: { unit: "ticks", value: 2 } },
    });
    expect(enabledLevels(await position(p.id))).toEqual([{ price: "3040", portfolio: 0.4 }]);
    // Posting the same form again changes nothing.
    const count = (await audits()).length;
    const again = await form([["stopLoss", "2970"], ...levels, ...rules]);
    expect(await toastAfter(app, again, cookies.trader)).toContain("Nothing Changed");
    expect((await audits()).length).toBe(count);
    // A refusal comes back on the form with the values typed.
    const refused = await form([["stopLoss", "3010"], ...levels, ...rules]);
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain("A long&#x27;s stop loss must be below the current price (3000)");
    expect(html).toContain('value="3010"');
    expect((await position(p.id)).stopPrice).toBe("2970");
  });

  test("no JavaScript: the price chart's marks link to the one edit form, on their field, and a save returns to the chart", async () => {
    const p = await open();
    const chartUrl = `/positions/${p.id}/chart`;
    const chart = await (await app.fetch(chartUrl, { cookie: cookies.trader })).text();
    // TP1..TP3, SL, BE and the trailing stop offer Edit; the entry does not.
    expect(chart.split('data-testid="chart-level-edit"').length - 1).toBe(6);
    const back = encodeURIComponent(chartUrl);
    const stopHref = `/positions?edit=${p.id}&amp;focus=stopLoss&amp;back=${back}#edit-stopLoss`;
    expect(chart).toContain(`href="${stopHref}"`);
    expect(chart).toContain(`href="/positions?edit=${p.id}&amp;focus=tp2&amp;back=${back}#edit-tp2"`);
    // A viewer's chart offers no Edit.
    const viewerChart = await (await app.fetch(chartUrl, { cookie: cookies.viewer })).text();
    expect(viewerChart).toContain('data-testid="chart-levels"');
    expect(viewerChart).not.toContain('data-testid="chart-level-edit"');

    // The link's form: the stop's control carries the fragment's id; the form posts back to the chart.
    const page = await (
      await app.fetch(`/positions?edit=${p.id}&focus=stopLoss&back=${back}`, { cookie: cookies.trader })
    ).text();
    expect(page).toContain('id="edit-stopLoss"');
    expect(page).toContain('id="edit-tp2"');
    expect(page).toContain(`name="back" value="${chartUrl}"`);
    const saved = await app.fetch(`/positions?edit=${p.id}&back=${back}`, {
      method: "POST",
      cookie: cookies.trader,
      form: { intent: "edit", id: p.id, back: chartUrl, stopLoss: "2975", breakEven: "on" },
    });
    expect(saved.status).toBe(302);
    expect(saved.headers.get("location")).toBe(chartUrl);
    expect((await position(p.id)).stopPrice).toBe("2975");
    // A back that leaves the app is not followed.
    const away = await app.fetch("/positions", {
      method: "POST",
      cookie: cookies.trader,
      form: { intent: "edit", id: p.id, back: "//evil.example", stopLoss: "2976", breakEven: "on" },
    });
    expect(away.headers.get("location")).toBe("/positions");
  });

  test("partial close by percent (form) and by quantity (API), through the Close job; too small: Close's refusal", async () => {
    const p = await open();
    const posted = await app.fetch("/positions", {
      method: "POST",
      cookie: cookies.trader,
      form: { intent: "close-part", symbol: "ETH-PERP", amount: "50", unit: "percent" },
    });
    expect(await toastAfter(app, posted, cookies.trader)).toContain("Close order queued for 0.5 ETH-PERP");
    await waitFor("half closed", async () => ((await position(p.id)).remainingQuantity === "0.5" ? true : null));
    const job = await db()
      .selectFrom("jobs")
      .select(["task", "payload"])
      .where("task", "=", "close-position")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(String(job.payload))).toMatchObject({
      quantity: "0.5",
      source: "manual",
      requestedBy: "edit_trader",
    });

    let response = await app.fetch("/api/positions/ETH-PERP/close", {
      method: "POST",
      cookie: cookies.trader,
      json: { quantity: "0.2" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, message: "Close order queued for 0.2 ETH-PERP" });
    await waitFor("0.2 closed", async () => ((await position(p.id)).remainingQuantity === "0.3" ? true : null));
    expect((await audits()).filter((a) => a.action === "position.close_part").length).toBe(2);

    response = await app.fetch("/api/positions/ETH-PERP/close", {
      method: "POST",
      cookie: cookies.trader,
      json: { percent: "150" },
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe("The percent to close must be above 0 and at most 100");
    response = await app.fetch("/api/positions/ETH-PERP/close", {
      method: "POST",
      cookie: cookies.trader,
      json: { quantity: "0.000001" },
    });
    expect(response.status).toBe(409);
    expect((await response.json()).error).toMatch(/^Nothing sent for ETH-PERP: /);
    expect((await position(p.id)).remainingQuantity).toBe("0.3");

    // No body: Close, everything.
    response = await app.fetch("/api/positions/ETH-PERP/close", { method: "POST", cookie: cookies.trader });
    expect(response.status).toBe(200);
    await waitFor("closed", async () => ((await position(p.id)).status === "closed" ? true : null));
  });
});
