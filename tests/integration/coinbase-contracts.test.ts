// Whole contracts on the fake Coinbase (docs/decisions/025-contracts-and-rounding.md), on both
// dialects: positions of 2, 5 and 1 BIP contracts (0.01 BTC each) opened by webhooks go
// through TP1..TP3 (30 / 30 / 40 %) with whole contracts sent (the sizes the fake received),
// nothing disabled and the position closed at the end; a refused close backs off and is sent
// again (a size refusal of a partial take-profit leaves its share to the last level); a signal
// with the `contracts` amount type sends that many exchange contracts.
import { describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { createTradingProductResolver } from "#exchange/trading-product.ts";
import { parseRuleState } from "#app/core/rules/index.ts";
import type { TradingConfig } from "#app/core/schemas/trading-config.ts";
import { saveTradingConfig } from "#db/queries/trading-state.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { openPositionOn, sendSignal } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { CONTRACT_TEST_CONFIG } from "#tests/setup/fixtures.ts";
import { liveBtcRules, liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";
import { createRulesMonitor } from "#worker/monitor/rules-monitor.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });
const BIP = "BIP-20DEC30-CDE"; // BTC-PERP, contract 0.01 BTC, fake price 95 000

// TP 30 / 30 / 40 % at +1 / +2 / +3 % of the entry (95 000): 95 950, 96 900, 97 850.
const CONFIG: TradingConfig = { ...CONTRACT_TEST_CONFIG, breakEvenEnabled: true };
const TP = ["95950", "96900", "97850"];

describe.each(testDialects())("whole Coinbase contracts, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, "contracts");
  const { app, db } = live;

  const { tick, liveMonitor, open, position, ruleState, endHolds, closeSizes, refuseCloses } = liveBtcRules(
    live,
    msw,
    CONFIG,
  );
  /** Alarms raised (a kind's closes failed 3 times in a row): none in these runs. */
  const givenUp = async () =>
    (await db().selectFrom("activity_logs").select("message").where("message", "like", "%times in a row%").execute())
      .length;

  test("2 contracts: TP1 closes 1, TP2 is skipped (one contract left for the last level), TP3 closes 1", async () => {
    const monitor = liveMonitor();
    const opened = await open("0.02");
    expect(D(opened.quantity).toString()).toBe("0.02");
    for (const price of TP) await tick(monitor, price);
    expect(closeSizes()).toEqual(["1", "1"]);
    const closed = await position(opened.id);
    expect(closed.status).toBe("closed");
    const state = parseRuleState(closed.rule_state ? JSON.parse(String(closed.rule_state)) : null);
    expect(state.failures).toEqual({});
    expect(state.tpSkipped).toEqual([1]);
    expect(await givenUp()).toBe(0);
    expect(msw.fake.state.positions.size).toBe(0);
  });

  test("5 contracts: 2, 2, then the rest (1)", async () => {
    const monitor = liveMonitor();
    const opened = await open("0.05");
    for (const price of TP) await tick(monitor, price);
    expect(closeSizes()).toEqual(["2", "2", "1"]);
    expect((await position(opened.id)).status).toBe("closed");
    expect(await givenUp()).toBe(0);
    expect(msw.fake.state.positions.size).toBe(0);
  });

  test("1 contract: TP1 and TP2 are skipped, TP3 closes it", async () => {
    const monitor = liveMonitor();
    const opened = await open("0.01");
    for (const price of TP) await tick(monitor, price);
    expect(closeSizes()).toEqual(["1"]);
    const closed = await position(opened.id);
    expect(closed.status).toBe("closed");
    expect(parseRuleState(JSON.parse(String(closed.rule_state))).tpSkipped).toEqual([0, 1]);
    const skipped = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Take profit % reached for BTC-PERP%left for the last level")
      .execute();
    expect(skipped).toHaveLength(2);
  });

  test("rules sized with the wrong increments (0.0001 BTC) never disable protection: the close re-sizes", async () => {
    // The bug: 30 % of 2 contracts = 0.006 BTC, under one contract. The close-position task
    // sizes with Coinbase's contract and sends nothing for it: the level is left for the last.
    const stale = createRulesMonitor(db(), {
      exchange: live.exchange,
      products: createTradingProductResolver(db(), { coinbaseContractsOn: async () => false }),
    });
    const opened = await open("0.02");
    for (const price of TP) await tick(stale, price);
    expect(closeSizes()).toEqual(["2"]); // TP3 closes everything
    const closed = await position(opened.id);
    expect(closed.status).toBe("closed");
    expect(parseRuleState(JSON.parse(String(closed.rule_state))).failures).toEqual({});
    expect(await givenUp()).toBe(0);
  });

  test("a partial take-profit refused for its size is not a failure; a real refusal backs off and is sent again", async () => {
    const monitor = liveMonitor();
    const opened = await open("0.05");
    // TP1 (2 contracts) refused for its size: not counted, its share left for the last level.
    refuseCloses({ error: "INVALID_ARGUMENT", message: "size", new_order_failure_reason: "INVALID_SIZE_PRECISION" });
    await tick(monitor, TP[0]!);
    let state = await ruleState(opened.id);
    expect(state.failures).toEqual({});
    expect(state.tpSkipped).toEqual([0]);
    // TP2 refused for another reason: that counts (1 in a row): held 5 s, then sent again.
    refuseCloses({ error: "UNKNOWN", message: "rejected", new_order_failure_reason: "COMMANDER_REJECTED_NEW_ORDER" });
    await tick(monitor, TP[1]!);
    state = await ruleState(opened.id);
    expect(state.failures).toEqual({ tp: 1 });
    expect(state.holdUntil?.tp2).toBeGreaterThan(Date.now() + 3_000);
    await tick(monitor, TP[1]!); // held: nothing sent
    expect(closeSizes()).toEqual(["2", "2"]);
    await endHolds(opened.id);
    await tick(monitor, TP[1]!);
    expect((await ruleState(opened.id)).failures).toEqual({}); // its fill ends the count
    await tick(monitor, TP[2]!);
    // Sent: TP1 2 (refused), TP2 2 (refused), TP2 2, TP3 the rest 3.
    expect(closeSizes()).toEqual(["2", "2", "2", "3"]);
    expect((await position(opened.id)).status).toBe("closed");
    expect(await givenUp()).toBe(0);
  });

  test("a close of everything refused for its size backs off instead of being re-sent every tick, then is sent again", async () => {
    const monitor = liveMonitor();
    const opened = await open("0.01");
    refuseCloses({ error: "INVALID_ARGUMENT", message: "size", new_order_failure_reason: "INVALID_SIZE_PRECISION" });
    await tick(monitor, TP[2]!); // TP3 (the last level): everything, refused for its size
    let state = await ruleState(opened.id);
    expect(state.failures).toEqual({ tp: 1 });
    expect(state.holdUntil?.tp3).toBeGreaterThan(Date.now() + 3_000);
    await tick(monitor, TP[2]!); // held: nothing sent
    expect(closeSizes()).toEqual(["1"]);
    const line = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "%refused for its size%")
      .executeTakeFirst();
    expect(line?.message).toMatch(/INVALID_SIZE_PRECISION.*: re-sized and tried again in 5 s$/);
    // The hold over (as 5 s later): sent again and filled.
    state = { ...state, holdUntil: { tp3: Date.now() - 1 } };
    await db()
      .updateTable("positions")
      .set({ rule_state: JSON.stringify(state) })
      .where("id", "=", opened.id)
      .execute();
    await tick(monitor, TP[2]!);
    expect(closeSizes()).toEqual(["1", "1"]);
    expect((await position(opened.id)).status).toBe("closed");
    expect(await givenUp()).toBe(0);
  });

  test("amount type contracts: 3 means three BIP contracts (0.03 BTC), 2 SOL contracts are 10 SOL", async () => {
    await saveTradingConfig(db(), {
      ...CONFIG,
      applyAmountControlToSignals: true,
      signalAmountType: "contracts",
      signalAmountValue: "3",
    });
    const opened = await open("1");
    expect(D(opened.quantity).toString()).toBe("0.03");
    await saveTradingConfig(db(), {
      ...CONFIG,
      applyAmountControlToSignals: true,
      signalAmountType: "contracts",
      signalAmountValue: "2",
    });
    expect(
      (
        await sendSignal(app, live.secret, {
          action: "sell",
          symbol: "SOL-PERP",
          quantity: "1",
          order_type: "market",
          id: "c-sol",
        })
      ).status,
    ).toBe(200);
    const sol = await openPositionOn(app, "SOL-PERP");
    expect(D(sol.quantity).toString()).toBe("10");
    const sizes = msw.fake.requestsTo("/orders", "POST").map((r) => {
      const body = r.body as { product_id: string; order_configuration: { market_market_ioc: { base_size: string } } };
      return [body.product_id, body.order_configuration.market_market_ioc.base_size];
    });
    expect(sizes).toEqual([
      [BIP, "3"],
      ["SLP-20DEC30-CDE", "2"],
    ]);
  });
});
