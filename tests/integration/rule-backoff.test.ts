// Issue 21, defects 6 and 7, on the fake Coinbase (live) and both dialects: a stop-loss whose
// closes Coinbase refuses three times in a row stays armed, backs off (5 s, 15 s, 60 s ...) and
// is sent again until it fills, with ONE error line; a refusal Coinbase codes as a size is
// recognised by its code whatever its message says, and one that only talks of a size is not
// (docs/decisions/008-position-rules.md, docs/decisions/025-contracts-and-rounding.md).
import { describe, expect, test } from "vitest";
import type { TradingConfig } from "#app/core/schemas/trading-config.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { testDialects } from "#tests/setup/db.ts";
import { CONTRACT_TEST_CONFIG } from "#tests/setup/fixtures.ts";
import { liveBtcRules, liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });

// Stop 5 % under the entry (95 000): 90 250. A tick at 90 000 hits it.
const CONFIG: TradingConfig = { ...CONTRACT_TEST_CONFIG, breakEvenEnabled: false };
const STOP_HIT = "90000";
const ALARM =
  "Stop-loss closes for BTC-PERP failed 3 times in a row: protection paused, retrying in 60 s (then at most every 5 min until one fills); check the exchange or close it by hand";

describe.each(testDialects())("rule closes that keep failing, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, "backoff");
  const { db } = live;

  const { tick, liveMonitor, open, position, ruleState, endHolds, closeSizes, refuseCloses } = liveBtcRules(
    live,
    msw,
    CONFIG,
  );
  const alarms = () =>
    db()
      .selectFrom("activity_logs")
      .select(["level", "message"])
      .where("message", "like", "Stop-loss closes for%")
      .execute();
  const sizeLines = () =>
    db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "%refused for its size%")
      .orderBy("id")
      .execute();

  test("three refusals in a row: the stop-loss stays armed, is sent again after each back-off, one alarm; then it closes", async () => {
    const monitor = liveMonitor();
    const opened = await open("0.05");
    // Refused for a reason that is not the size, although its message talks of one.
    refuseCloses(
      {
        error: "UNKNOWN_FAILURE_REASON",
        message: "size exceeds the position",
        error_details: "",
        new_order_failure_reason: "COMMANDER_REJECTED_NEW_ORDER",
      },
      3,
    );

    await tick(monitor, STOP_HIT); // 1st: refused
    let state = await ruleState(opened.id);
    expect(state.failures).toEqual({ sl: 1 });
    const firstHold = state.holdUntil!.sl! - Date.now();
    expect(firstHold).toBeGreaterThan(3_000);
    expect(firstHold).toBeLessThanOrEqual(5_000);
    await tick(monitor, STOP_HIT); // backing off: nothing sent
    expect(closeSizes()).toEqual(["5"]);

    // The 5 s pass (on the clock): sent again, refused again; now 15 s.
    await new Promise((resolve) => setTimeout(resolve, state.holdUntil!.sl! - Date.now() + 50));
    await tick(monitor, STOP_HIT);
    expect(closeSizes()).toEqual(["5", "5"]);
    state = await ruleState(opened.id);
    expect(state.failures).toEqual({ sl: 2 });
    expect(state.holdUntil!.sl! - Date.now()).toBeGreaterThan(13_000);
    expect(await alarms()).toEqual([]);

    // 3rd refusal in a row: ONE alarm, saying when it retries; still armed, held 60 s.
    await endHolds(opened.id);
    await tick(monitor, STOP_HIT);
    state = await ruleState(opened.id);
    expect(state.failures).toEqual({ sl: 3 });
    expect(state.holdUntil!.sl! - Date.now()).toBeGreaterThan(55_000);
    expect(await alarms()).toEqual([{ level: "error", message: ALARM }]);
    await tick(monitor, STOP_HIT); // held: nothing sent, no second alarm
    expect(closeSizes()).toEqual(["5", "5", "5"]);
    expect(await sizeLines()).toEqual([]); // none of these was taken for a size refusal

    // The back-off over: sent again, it fills, the position is closed.
    await endHolds(opened.id);
    await tick(monitor, STOP_HIT);
    expect(closeSizes()).toEqual(["5", "5", "5", "5"]);
    expect((await position(opened.id)).status).toBe("closed");
    expect(msw.fake.state.positions.size).toBe(0);
    expect(await alarms()).toEqual([{ level: "error", message: ALARM }]);
  });

  test("a size refusal coded by Coinbase is recognised whatever its message: re-sized and sent again under the back-off, one alarm", async () => {
    const monitor = liveMonitor();
    const opened = await open("0.05");
    // The code says size; the words say nothing of it.
    refuseCloses(
      {
        error: "UNKNOWN_FAILURE_REASON",
        message: "Ordre refusé",
        error_details: "",
        new_order_failure_reason: "UNKNOWN_FAILURE_REASON",
        preview_failure_reason: "PREVIEW_INVALID_BASE_SIZE_TOO_LARGE",
      },
      3,
    );

    await tick(monitor, STOP_HIT);
    expect((await sizeLines()).map((l) => l.message)).toEqual([
      "Stop loss hit: 0.05 BTC-PERP refused for its size (Coinbase refused the BIP-20DEC30-CDE order: PREVIEW_INVALID_BASE_SIZE_TOO_LARGE (UNKNOWN_FAILURE_REASON: Ordre refusé)): re-sized and tried again in 5 s",
    ]);
    expect((await ruleState(opened.id)).failures).toEqual({ sl: 1 });
    await tick(monitor, STOP_HIT); // backing off: not re-sent on every tick
    expect(closeSizes()).toEqual(["5"]);

    for (let i = 0; i < 2; i++) {
      await endHolds(opened.id);
      await tick(monitor, STOP_HIT);
    }
    expect((await sizeLines()).map((l) => l.message.replace(/.*: /, ""))).toEqual([
      "re-sized and tried again in 5 s",
      "re-sized and tried again in 15 s",
      "re-sized and tried again in 60 s",
    ]);
    expect(await alarms()).toEqual([{ level: "error", message: ALARM }]);
    expect((await position(opened.id)).status).toBe("open"); // never disabled

    await endHolds(opened.id);
    await tick(monitor, STOP_HIT);
    expect(closeSizes()).toEqual(["5", "5", "5", "5"]);
    expect((await position(opened.id)).status).toBe("closed");
    expect(await alarms()).toHaveLength(1);
  });
});
