// The Trading Rules screen as served (docs/spec/screens.md, api.md#validation, api.md#errors): admins only, every section
// server-rendered (as a browser without JavaScript gets it), and the form saved as a plain
// HTML post: percent inputs stored as fractions, clamping, the take-profit total message,
// and the JSON answers the page gets with JavaScript.
import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_TRADING_CONFIG, type TradingConfig } from "#app/core/schemas/trading-config.ts";
import { saveTradingConfig } from "#db/queries/trading-state.ts";
import { cookieFrom, expectFormRefused, freshApp, registerVia, toastAfter } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { PERCENT_INPUTS, PERCENT_INPUTS_STORED } from "#tests/setup/fixtures.ts";

const TP_ERROR_110 = "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 110%";
const DATA_PARAM = "_data=routes%2F_app%2B%2Ftrading-rules";

/** The form as a browser posts it with the default values: checked switches as "on". */
function defaultForm(): Record<string, string> {
  return {
    autoTradingEnabled: "on",
    emergencyStopEnabled: "on",
    applyTakeProfitToSignals: "on",
    applyStopLossToSignals: "on",
    applyBreakEvenToSignals: "on",
    applyTrailingStopToSignals: "on",
    applyTakeProfitToManual: "on",
    applyStopLossToManual: "on",
    applyBreakEvenToManual: "on",
    applyTrailingStopToManual: "on",
    orderSizeMultiplier: "1",
    signalAmountType: "multiplier",
    signalAmountValue: "1",
    "takeProfits[0].portfolio": "20",
    "takeProfits[0].priceDeviation": "0.5",
    "takeProfits[0].enabled": "on",
    "takeProfits[1].portfolio": "30",
    "takeProfits[1].priceDeviation": "1",
    "takeProfits[1].enabled": "on",
    "takeProfits[2].portfolio": "50",
    "takeProfits[2].priceDeviation": "1.5",
    "takeProfits[2].enabled": "on",
    stopLossOffset: "0.5",
    breakEvenEnabled: "on",
    trailingStopEnabled: "on",
    "trailingStop.activation": "1.2",
    "trailingStop.execute": "0.6",
  };
}

function form(changes: Record<string, string | null>): Record<string, string> {
  const body = defaultForm();
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete body[key];
    else body[key] = value;
  }
  return body;
}

/** The <input> tag of a field in server-rendered HTML. */
function inputTag(html: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = html.match(new RegExp(`<input[^>]*name="${escaped}"[^>]*>`));
  if (!match) throw new Error(`no input named ${name}`);
  return match[0];
}
const inputValue = (html: string, name: string) => inputTag(html, name).match(/value="([^"]*)"/)?.[1];
const isChecked = (html: string, name: string) => /\schecked=""/.test(inputTag(html, name));

describe.each(testDialects())("trading rules screen on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let user: string;

  const config = async (): Promise<TradingConfig> => {
    const response = await app.fetch("/api/trading-config", { cookie: admin });
    return ((await response.json()) as { config: TradingConfig }).config;
  };

  /** The rules form as the admin posts it without JavaScript: the defaults with `changes`. */
  const postRules = (changes: Record<string, string | null>) =>
    app.fetch("/trading-rules", { method: "POST", cookie: admin, form: form(changes) });

  beforeAll(async () => {
    admin = (await registerVia(app, "rules_admin")).cookie;
    user = (await registerVia(app, "rules_user")).cookie;
  });
  beforeEach(async () => {
    await saveTradingConfig(app.database.db, DEFAULT_TRADING_CONFIG);
  });

  test("admins only: a user gets 403 for the page and for the post; anonymous goes to login", async () => {
    const page = await app.fetch("/trading-rules", { cookie: user });
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("Access denied");
    const post = await app.fetch("/trading-rules", {
      method: "POST",
      cookie: user,
      form: form({ autoTradingEnabled: null }),
    });
    expect(post.status).toBe(403);
    const json = await app.fetch(`/trading-rules?${DATA_PARAM}`, {
      method: "POST",
      cookie: user,
      form: { ...form({ autoTradingEnabled: null }), _js: "1" },
    });
    expect(json.status).toBe(403);
    const anonymous = await app.fetch("/trading-rules", { method: "POST", form: form({ autoTradingEnabled: null }) });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toBe("/login?redirectTo=%2Ftrading-rules");
    expect((await config()).autoTradingEnabled).toBe(true);
  });

  test("break-even offset (issue 25, decision 046): the page says what the stop covers; a plain post saves ticks or percent", async () => {
    let html = await (await app.fetch("/trading-rules", { cookie: admin })).text();
    expect(html).toContain("Break-even stop = entry + fees (0.12 %) + offset (0.1 %)");
    expect(inputValue(html, "breakEvenOffset.value")).toBe("0.1");
    const saved = await postRules({ "breakEvenOffset.unit": "ticks", "breakEvenOffset.value": "4" });
    expect(saved.status).toBe(302);
    expect((await config()).breakEvenOffset).toEqual({ unit: "ticks", value: 4 });
    html = await (await app.fetch("/trading-rules", { cookie: admin })).text();
    expect(html).toContain("Break-even stop = entry + fees (0.12 %) + offset (4 ticks)");
    // Out of range: the message, nothing saved.
    const refused = await app.fetch(`/trading-rules?${DATA_PARAM}`, {
      method: "POST",
      cookie: admin,
      form: { ...form({ "breakEvenOffset.unit": "percent", "breakEvenOffset.value": "9" }), _js: "1" },
    });
    expect(JSON.stringify(await refused.json())).toContain("Break-even offset must be from 0% to 5%");
    expect((await config()).breakEvenOffset).toEqual({ unit: "ticks", value: 4 });
    // Percent, through the API too.
    const api = await app.fetch("/api/trading-config", {
      method: "PUT",
      cookie: admin,
      json: { breakEvenOffset: { unit: "percent", value: 0.0005 } },
    });
    expect(api.status).toBe(200);
    expect((await config()).breakEvenOffset).toEqual({ unit: "percent", value: 0.0005 });
  });

  test("the page: every section, the stored values in percent, every conditional field rendered (no JavaScript)", async () => {
    const response = await app.fetch("/trading-rules", { cookie: admin });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    for (const text of [
      "Trading Rules",
      "Emergency Stop",
      "System Controls",
      "Signal Protection",
      "Manual Position Protection",
      "Apply Rules to Existing Positions",
      "Amount Control",
      "Advanced Trading Controls",
      "Take Profit Levels",
      "Stop Loss Offset %",
      "Breakeven",
      "Trailing Stop",
      "Performance Statistics",
      "Reset Statistics",
      "Save Trading Rules",
    ]) {
      expect(html, text).toContain(text);
    }
    // A real form posting to this route, with real checkbox inputs.
    expect(html).toMatch(/<form[^>]*method="post"/);
    expect(inputTag(html, "autoTradingEnabled")).toContain('type="checkbox"');
    expect(isChecked(html, "autoTradingEnabled")).toBe(true);
    expect(isChecked(html, "applyLeverageToSignals")).toBe(false);
    expect(isChecked(html, "applyAmountControlToSignals")).toBe(false);
    expect(inputValue(html, "takeProfits[0].portfolio")).toBe("20");
    expect(inputValue(html, "takeProfits[2].priceDeviation")).toBe("1.5");
    expect(inputValue(html, "stopLossOffset")).toBe("0.5");
    expect(inputValue(html, "trailingStop.activation")).toBe("1.2");
    expect(inputValue(html, "trailingStop.execute")).toBe("0.6");
    // Amount control is off, yet its fields are there: nothing can hide them without JavaScript.
    expect(html).toContain('data-testid="amount-control-fields" data-shown="true"');
    expect(inputValue(html, "orderSizeMultiplier")).toBe("1");
    expect(inputValue(html, "signalAmountValue")).toBe("1");
    expect(html).toContain('data-testid="breakeven-details" data-shown="true"');
    expect(html).toContain('data-testid="trailing-details" data-shown="true"');
  });

  test("without JavaScript, Apply Rules and Reset Statistics ask on a confirmation panel first, then run", async () => {
    // The button is a submit of the rules form: the post names the intent, nothing is saved or run yet.
    const asked = await app.fetch("/trading-rules", {
      method: "POST",
      cookie: admin,
      form: { ...form({ autoTradingEnabled: null }), intent: "apply-rules" },
    });
    expect(asked.status).toBe(302);
    expect(asked.headers.get("location")).toBe("/trading-rules?confirm=apply-rules");
    expect((await config()).autoTradingEnabled).toBe(true);
    const panel = await (await app.fetch("/trading-rules?confirm=apply-rules", { cookie: admin })).text();
    expect(panel).toContain('data-testid="confirm-apply-rules"');
    expect(panel).toContain("Apply the saved trading rules to all existing open positions?");
    const applied = await app.fetch("/trading-rules", {
      method: "POST",
      cookie: admin,
      form: { intent: "apply-rules", confirmed: "yes" },
    });
    expect(await toastAfter(app, applied, admin)).toContain("Applied the trading rules to 0 of 0 open positions");

    const reset = await app.fetch("/trading-rules", { method: "POST", cookie: admin, form: { intent: "reset-stats" } });
    expect(reset.headers.get("location")).toBe("/trading-rules?confirm=reset-stats");
    expect(await (await app.fetch("/trading-rules?confirm=reset-stats", { cookie: admin })).text()).toContain(
      "Reset all performance statistics?",
    );
    const done = await app.fetch("/trading-rules", {
      method: "POST",
      cookie: admin,
      form: { intent: "reset-stats", confirmed: "yes" },
    });
    expect(await toastAfter(app, done, admin)).toContain(
      "All trades, signals, positions and activity logs have been deleted",
    );
    // Refused while a position is open: the page says why, nothing is deleted.
    await app.database.db
      .insertInto("positions")
      .values({
        id: "rules-open-1",
        symbol: "ETH-PERP",
        side: "long",
        quantity: "1",
        remaining_quantity: "1",
        entry_price: "3000",
        status: "open",
        source: "manual",
        created_at: Date.now(),
        updated_at: Date.now(),
      } as never)
      .execute();
    const refused = await app.fetch("/trading-rules", {
      method: "POST",
      cookie: admin,
      form: { intent: "reset-stats", confirmed: "yes" },
    });
    const refusedPage = await toastAfter(app, refused, admin);
    expect(refusedPage).toContain("Reset Failed");
    expect(refusedPage).toContain("Close the positions and cancel the orders first (Flatten all)");
    expect(
      await app.database.db.selectFrom("positions").select("id").where("id", "=", "rules-open-1").executeTakeFirst(),
    ).toBeTruthy();
    await app.database.db.deleteFrom("positions").where("id", "=", "rules-open-1").execute();
    // Admins only, like the rest of the page.
    expect(
      (
        await app.fetch("/trading-rules", {
          method: "POST",
          cookie: user,
          form: { intent: "reset-stats", confirmed: "yes" },
        })
      ).status,
    ).toBe(403);
    // An unknown confirm value shows no panel.
    expect(await (await app.fetch("/trading-rules?confirm=drop-tables", { cookie: admin })).text()).not.toContain(
      'data-testid="confirm-',
    );
  });

  test("a plain post stores the percent inputs as fractions, then redirects with the toast", async () => {
    const response = await postRules({
      autoTradingEnabled: null,
      applyTrailingStopToManual: null,
      applyLeverageToSignals: "on",
      applyAmountControlToSignals: "on",
      orderSizeMultiplier: "2.5",
      signalAmountType: "usd",
      signalAmountValue: "50",
      ...PERCENT_INPUTS,
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/trading-rules");
    const stored = await config();
    expect(stored).toEqual({
      ...DEFAULT_TRADING_CONFIG,
      autoTradingEnabled: false,
      applyTrailingStopToManual: false,
      applyLeverageToSignals: true,
      applyAmountControlToSignals: true,
      orderSizeMultiplier: "2.5",
      signalAmountType: "usd",
      signalAmountValue: "50",
      ...PERCENT_INPUTS_STORED,
    });

    // The redirect target with the flash cookie: the toast, and the saved values in percent.
    const html = await (
      await app.fetch("/trading-rules", { cookie: `${admin}; ${cookieFrom(response, "tv_toast")!}` })
    ).text();
    expect(html).toContain("Trading Rules Saved");
    expect(inputValue(html, "takeProfits[0].portfolio")).toBe("25");
    expect(inputValue(html, "takeProfits[1].priceDeviation")).toBe("1.2");
    expect(inputValue(html, "stopLossOffset")).toBe("0.8");
    expect(inputValue(html, "trailingStop.activation")).toBe("2");
    expect(inputValue(html, "orderSizeMultiplier")).toBe("2.5");
    expect(inputValue(html, "signalAmountValue")).toBe("50");
    expect(isChecked(html, "autoTradingEnabled")).toBe(false);
    expect(isChecked(html, "applyAmountControlToSignals")).toBe(true);

    // Saving is logged.
    const logs = (await (await app.fetch("/api/logs?limit=5&type=system", { cookie: admin })).json()) as {
      message: string;
    }[];
    expect(logs.some((l) => l.message === "Trading rules saved by rules_admin")).toBe(true);
  });

  test("the take-profit total: the exact message on the page (400), nothing saved", async () => {
    const response = await postRules({ "takeProfits[0].portfolio": "30", stopLossOffset: "0.9" });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("Error Saving Rules");
    expect(html).toContain(TP_ERROR_110);
    // The page keeps what was typed.
    expect(inputValue(html, "takeProfits[0].portfolio")).toBe("30");
    expect(inputValue(html, "stopLossOffset")).toBe("0.9");
    expect(await config()).toEqual(DEFAULT_TRADING_CONFIG);
  });

  test("with JavaScript: JSON with the 'Error Saving Rules' toast, or the saved config and a success toast", async () => {
    const bad = await app.fetch(`/trading-rules?${DATA_PARAM}`, {
      method: "POST",
      cookie: admin,
      form: { ...form({ "takeProfits[0].portfolio": "30" }), _js: "1" },
    });
    expect(bad.status).toBe(400);
    const badBody = (await bad.json()) as {
      toast: Record<string, string>;
      result: { error: Record<string, string[]> };
    };
    expect(badBody.toast).toMatchObject({
      title: "Error Saving Rules",
      description: TP_ERROR_110,
      variant: "destructive",
    });
    expect(badBody.result.error.takeProfits).toEqual([TP_ERROR_110]);

    const good = await app.fetch(`/trading-rules?${DATA_PARAM}`, {
      method: "POST",
      cookie: admin,
      form: { ...form({ stopLossOffset: "1.5" }), _js: "1" },
    });
    expect(good.status).toBe(200);
    const body = (await good.json()) as { toast: Record<string, string>; config: TradingConfig };
    expect(body.toast).toMatchObject({ title: "Trading Rules Saved" });
    expect(body.config.stopLossOffset).toBe(0.015);
    expect((await config()).stopLossOffset).toBe(0.015);
  });

  test("clamping: a level's portfolio percent above 100 counts as 100, below 0 as 0", async () => {
    const response = await postRules({
      "takeProfits[0].portfolio": "150",
      "takeProfits[1].portfolio": "-10",
      "takeProfits[1].enabled": null,
      "takeProfits[2].enabled": null,
    });
    expect(response.status).toBe(302);
    const stored = await config();
    expect(stored.takeProfits).toEqual([
      { portfolio: 1, priceDeviation: 0.005, enabled: true },
      { portfolio: 0, priceDeviation: 0.01, enabled: false },
      { portfolio: 0.5, priceDeviation: 0.015, enabled: false },
    ]);
  });

  test("the multiplier falls back to 1; amount control off keeps the stored type and value; per-type rules when on", async () => {
    await saveTradingConfig(app.database.db, {
      ...DEFAULT_TRADING_CONFIG,
      signalAmountType: "contracts",
      signalAmountValue: "3",
      orderSizeMultiplier: "2",
    });
    const off = await postRules({ orderSizeMultiplier: "50", signalAmountType: "usd", signalAmountValue: "0.2" });
    expect(off.status).toBe(302);
    expect(await config()).toMatchObject({
      orderSizeMultiplier: "1",
      applyAmountControlToSignals: false,
      signalAmountType: "contracts",
      signalAmountValue: "3",
    });

    await expectFormRefused(
      app,
      "/trading-rules",
      admin,
      form({ applyAmountControlToSignals: "on", signalAmountType: "contracts", signalAmountValue: "1.5" }),
      "Contracts must be a whole number",
    );
    expect((await config()).applyAmountControlToSignals).toBe(false);

    const pct = await postRules({
      applyAmountControlToSignals: "on",
      signalAmountType: "percentage",
      signalAmountValue: "12.5",
    });
    expect(pct.status).toBe(302);
    expect(await config()).toMatchObject({
      applyAmountControlToSignals: true,
      signalAmountType: "percentage",
      signalAmountValue: "12.5",
    });
  });

  test("the JSON API shares the rule: POST /api/trading-config refuses the same allocation", async () => {
    const response = await app.fetch("/api/trading-config", {
      method: "POST",
      cookie: admin,
      json: {
        takeProfits: [
          { portfolio: 0.3, priceDeviation: 0.005, enabled: true },
          { portfolio: 0.3, priceDeviation: 0.01, enabled: true },
          { portfolio: 0.5, priceDeviation: 0.015, enabled: true },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe(TP_ERROR_110);
  });
});
