// The alert template builder on Webhook Config (issue 12), on both databases: the page
// renders the message for the builder's query parameters (a plain GET form, no JavaScript),
// the secret masked unless revealed, never to a role that may not see it; and the message,
// once TradingView's placeholders are filled, is accepted by the real webhook (raw text/plain
// and JSON posts) and stored as the intended signal; a target and an exit message, run by the
// worker on the simulator, leave the position at the target.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type AlertTemplateOptions,
  DEFAULT_ALERT_OPTIONS,
  alertBuilderSearch,
  buildAlertMessage,
  substitutePlaceholders,
} from "#app/core/alerts/template.ts";
import { getTradingConfig, saveTradingConfig } from "#db/queries/trading-state.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { freshApp, registeredAccounts, signalFinal, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

const unescapeHtml = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The builder's rendered message and its secret state, from the page's HTML. */
function renderedMessage(page: string): { text: string; secret: string | null; mode: string | null } {
  const match = page.match(/<pre([^>]*data-testid="alert-builder-message"[^>]*)>([\s\S]*?)<\/pre>/);
  if (!match) throw new Error("no alert builder message on the page");
  const attrs = match[1]!;
  return {
    text: unescapeHtml(match[2]!),
    secret: attrs.match(/data-secret="([^"]+)"/)?.[1] ?? null,
    mode: attrs.match(/data-mode="([^"]+)"/)?.[1] ?? null,
  };
}

/** TradingView's values when a strategy order fires. */
const fired = (values: Record<string, string>) => ({
  "strategy.order.action": "buy",
  "strategy.order.contracts": "2",
  "strategy.market_position": "long",
  "strategy.market_position_size": "2",
  "strategy.order.id": "Long",
  ticker: "BINANCE:ETHUSDT.P",
  close: "3000",
  time: "2026-11-25T18:00:00Z",
  timenow: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000", ""),
  ...values,
});

describe.each(testDialects())("alert template builder on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, { admin: "builder_admin", viewer: ["builder_viewer", "viewer"] });
  let secret: string;
  let runner: Runner | null = null;
  const db = () => app.database.db;
  const sim = () => new SimulatorAdapter(db());

  beforeAll(async () => {
    secret = await webhookSecret(app, cookies.admin);
  });
  afterAll(async () => {
    await runner?.stop();
  });

  /** Posts the message as TradingView does once it has filled the placeholders. */
  const post = (message: string, contentType = "text/plain") =>
    app.fetch("/api/webhook/tradingview", { method: "POST", body: message, headers: { "Content-Type": contentType } });

  const target: AlertTemplateOptions = { ...DEFAULT_ALERT_OPTIONS, mode: "target", orderType: "limit" };

  test("the admin's page renders the chosen message server-side, the secret masked until revealed", async () => {
    const response = await app.fetch(`/webhook?${alertBuilderSearch(target)}`, { cookie: cookies.admin });
    expect(response.status).toBe(200);
    const page = await response.text();
    const shown = renderedMessage(page);
    expect(shown.mode).toBe("target");
    expect(shown.secret).toBe("masked");
    expect(shown.text).not.toContain(secret);
    const expected = buildAlertMessage(target, secret);
    expect(shown.text).toBe(expected.replace(secret, "•".repeat(Math.min(Math.max(secret.length, 8), 32))));
    for (const text of [
      '"market_position": "{{strategy.market_position}}"',
      '"market_position_size": "{{strategy.market_position_size}}"',
      '"price": "{{close}}"',
      '"bar_time": "{{time}}"',
      '"timenow": "{{timenow}}"',
    ]) {
      expect(shown.text).toContain(text);
    }
    // The form is a plain GET form whose choices come back checked.
    expect(page).toMatch(/<form[^>]*method="get"[^>]*action="\/webhook"/);
    const checked = [...page.matchAll(/<input[^>]*name="alert_mode"[^>]*>/g)]
      .filter((m) => /\schecked/.test(m[0]))
      .map((m) => m[0].match(/value="([^"]+)"/)?.[1]);
    expect(checked).toEqual(["target"]);
    // Each field is explained.
    for (const field of [
      "secret",
      "action",
      "symbol",
      "quantity",
      "order_type",
      "price",
      "market_position",
      "market_position_size",
      "order_id",
      "bar_time",
      "timenow",
    ]) {
      expect(page, field).toContain(`data-field="${field}"`);
    }

    const revealed = renderedMessage(
      await (
        await app.fetch(`/webhook?${alertBuilderSearch(target, { reveal: true })}`, { cookie: cookies.admin })
      ).text(),
    );
    expect(revealed.secret).toBe("shown");
    expect(revealed.text).toBe(expected);

    // Entry mode, fixed product, no dedupe: another message, rendered without JavaScript.
    const entry = {
      ...DEFAULT_ALERT_OPTIONS,
      symbol: "BTC-PERP",
      dedupe: false,
      sizing: "fixed" as const,
      quantity: "0.01",
    };
    const entryShown = renderedMessage(
      await (
        await app.fetch(`/webhook?${alertBuilderSearch(entry, { reveal: true })}`, { cookie: cookies.admin })
      ).text(),
    );
    expect(entryShown.text).toBe(buildAlertMessage(entry, secret));
  });

  test("leverage is offered when Trading Rules apply it to signals; strict ticker mapping warns about {{ticker}}", async () => {
    const leveraged = `/webhook?${alertBuilderSearch({ ...DEFAULT_ALERT_OPTIONS, leverage: 3 }, { reveal: true })}`;
    const without = await (await app.fetch(leveraged, { cookie: cookies.admin })).text();
    expect(without).not.toContain('name="alert_leverage"');
    expect(renderedMessage(without).text).not.toContain("leverage");

    const config = await getTradingConfig(db());
    await saveTradingConfig(db(), { ...config, applyLeverageToSignals: true });
    try {
      const page = await (await app.fetch(leveraged, { cookie: cookies.admin })).text();
      expect(page).toContain('name="alert_leverage"');
      const message = renderedMessage(page).text;
      expect(JSON.parse(message)).toMatchObject({ leverage: 3 });
      const response = await post(substitutePlaceholders(message, fired({ "strategy.order.id": "lev1" })));
      const { signalId } = (await response.json()) as { signalId: string };
      const row = await db()
        .selectFrom("signals")
        .select("payload")
        .where("id", "=", signalId)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.payload)).toMatchObject({ leverage: 3 });
    } finally {
      await saveTradingConfig(db(), config);
    }

    expect(await (await app.fetch("/webhook", { cookie: cookies.admin })).text()).not.toContain(
      "alert-builder-strict-warning",
    );
    expect(
      (
        await app.fetch("/webhook", {
          method: "POST",
          cookie: cookies.admin,
          form: { intent: "strict-tickers", value: "on" },
        })
      ).status,
    ).toBe(302);
    try {
      const page = await (await app.fetch("/webhook", { cookie: cookies.admin })).text();
      expect(page).toContain('data-testid="alert-builder-strict-warning"');
      expect(
        await (
          await app.fetch(`/webhook?${alertBuilderSearch({ ...DEFAULT_ALERT_OPTIONS, symbol: "ETH-PERP" })}`, {
            cookie: cookies.admin,
          })
        ).text(),
      ).not.toContain("alert-builder-strict-warning");
    } finally {
      await app.fetch("/webhook", {
        method: "POST",
        cookie: cookies.admin,
        form: { intent: "strict-tickers", value: "off" },
      });
    }
  });

  test("a viewer gets neither the page nor the secret", async () => {
    const response = await app.fetch(`/webhook?${alertBuilderSearch(target, { reveal: true })}`, {
      cookie: cookies.viewer,
    });
    expect(response.status).toBe(403);
    const body = await response.text();
    expect(body).not.toContain(secret);
    expect(body).not.toContain("alert-builder-message");
  });

  test("every mode's message, filled in, is accepted and stored as the intended signal", async () => {
    const modes: {
      options: AlertTemplateOptions;
      values: Record<string, string>;
      contentType: string;
      expect: {
        action: string;
        quantity: string;
        order_type: string;
        market_position?: string;
        market_position_size?: string;
      };
    }[] = [
      {
        options: { ...DEFAULT_ALERT_OPTIONS },
        values: { "strategy.order.id": "e1" },
        contentType: "text/plain",
        expect: { action: "buy", quantity: "2", order_type: "market" },
      },
      {
        options: { ...DEFAULT_ALERT_OPTIONS, orderType: "limit", sizing: "fixed", quantity: "0.5" },
        values: { "strategy.order.id": "e2", "strategy.order.action": "sell" },
        contentType: "application/json",
        expect: { action: "sell", quantity: "0.5", order_type: "limit" },
      },
      {
        options: { ...DEFAULT_ALERT_OPTIONS, mode: "exit" },
        values: { "strategy.order.id": "x1", "strategy.order.action": "sell" },
        contentType: "text/plain",
        expect: {
          action: "sell",
          quantity: "2",
          order_type: "market",
          market_position: "flat",
          market_position_size: "0",
        },
      },
      {
        options: { ...DEFAULT_ALERT_OPTIONS, mode: "reverse", direction: "short", sizing: "fixed", quantity: "1" },
        values: { "strategy.order.id": "r1" },
        contentType: "text/plain",
        expect: {
          action: "sell",
          quantity: "1",
          order_type: "market",
          market_position: "short",
          market_position_size: "1",
        },
      },
      {
        options: { ...DEFAULT_ALERT_OPTIONS, mode: "target", orderType: "limit" },
        values: {
          "strategy.order.id": "t1",
          "strategy.market_position": "short",
          "strategy.market_position_size": "1.5",
        },
        contentType: "text/plain",
        expect: {
          action: "buy",
          quantity: "2",
          order_type: "limit",
          market_position: "short",
          market_position_size: "1.5",
        },
      },
    ];
    for (const mode of modes) {
      const message = substitutePlaceholders(buildAlertMessage(mode.options, secret), fired(mode.values));
      const response = await post(message, mode.contentType);
      const answer = (await response.json()) as { status: string; signalId: string };
      expect(response.status, `${mode.options.mode}: ${JSON.stringify(answer)}`).toBe(200);
      expect(answer.status).toBe("queued");
      const row = await db()
        .selectFrom("signals")
        .selectAll()
        .where("id", "=", answer.signalId)
        .executeTakeFirstOrThrow();
      const payload = JSON.parse(row.payload) as Record<string, unknown>;
      expect(row.action).toBe(mode.expect.action);
      expect(row.symbol).toBe("ETH-PERP");
      expect(row.order_type).toBe(mode.expect.order_type);
      expect(Number(row.quantity)).toBe(Number(mode.expect.quantity));
      if (mode.expect.order_type === "limit") expect(Number(row.price)).toBe(3000);
      expect(payload.market_position).toBe(mode.expect.market_position);
      expect(payload.market_position_size).toBe(mode.expect.market_position_size);
      expect(payload).not.toHaveProperty("secret");
      expect(payload.order_id).toBe(mode.values["strategy.order.id"]);
      expect(row.dedupe_key).toContain(`order:${mode.values["strategy.order.id"]}@2026-11-25T18:00:00Z`);

      // TradingView's re-send of the same bar's order is one signal.
      const again = (await (await post(message, mode.contentType)).json()) as { status: string };
      expect(again.status).toBe("duplicate");
    }
  });

  test("run by the worker: a target message opens long 2 and an exit message closes it", async () => {
    await db().deleteFrom("jobs").execute();
    await sim().ensureAccount();
    await setPrice(db(), "ETH-PERP", "3000", "test");
    runner = startRunner({ db: db(), exchange: sim(), workerId: "ab-w1", pollMs: 3 });
    const run = async (options: AlertTemplateOptions, values: Record<string, string>) => {
      const response = await post(substitutePlaceholders(buildAlertMessage(options, secret), fired(values)));
      const { signalId } = (await response.json()) as { signalId: string };
      return signalFinal(app, signalId);
    };
    const position = async () => (await sim().getPositions()).find((p) => p.symbol === "ETH-PERP");

    expect(
      await run(
        { ...DEFAULT_ALERT_OPTIONS, mode: "target" },
        { "strategy.order.id": "w-long", time: "2026-11-25T19:00:00Z" },
      ),
    ).toMatchObject({ status: "executed" });
    expect(await position()).toMatchObject({ side: "long" });
    expect(Number((await position())!.quantity)).toBe(2);

    expect(
      await run(
        { ...DEFAULT_ALERT_OPTIONS, mode: "exit" },
        { "strategy.order.id": "w-exit", "strategy.order.action": "sell", time: "2026-11-25T19:05:00Z" },
      ),
    ).toMatchObject({ status: "executed" });
    expect(Number((await position())?.quantity ?? 0)).toBe(0);
  });
});
