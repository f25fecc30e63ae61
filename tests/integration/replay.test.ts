// The what-if replay (issue 25, docs/decisions/047-replay.md) through the app on both dialects:
// POST /api/replay and the /replay page's form post (no JavaScript), roles, validation, and
// the figures:
// - a seeded day (two days ago): one executed ETH alert (buy 1 at 100, 10:10:30 UTC) and four
//   candles; with TP 1 %/2 % (50 % each), SL 1 %, break-even, at the app's taker fee 0.06 %:
//     entry 1 @ 100, fee 0.06; TP1 0.5 @ 101 (m 10:11), fee 0.0303;
//     break-even stop (100 + 0.06) / (1 − 0.0006) = 100.1200… → 100.13 (rounded up to the
//     0.01 tick), hit in m 10:12 on the way down: 0.5 @ 100.13, fee 0.030039.
//     Match 1: 0.5 − (0.03 + 0.0303) = 0.4397; match 2: 0.065 − (0.03 + 0.030039) = 0.004961.
//     Net 0.444661, fees 0.120339, 2 trades, 2 wins, TP1 hit 100 %, TP2 0 %.
//   Without break-even the stop stays at 99 and TP2 (102) closes the rest in m 10:13:
//     match 2: (102 − 100) × 0.5 = 1 − (0.03 + 0.0306) = 0.9394; net 1.3791.
// - today: the scripted sequence of tests/setup/scripted-trades.ts through the real pipeline:
//   the Real column is the one ledger's figures (net 126.845045 over 4 matches).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freshApp, registerVia, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { PNL_TOTAL, playScriptedTrades } from "#tests/setup/scripted-trades.ts";
import type { Runner } from "#worker/runner.ts";

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const SEEDED_DAY = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const T = (h: number, m: number, s = 0) => SEEDED_DAY + ((h * 60 + m) * 60 + s) * 1000;

const set = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  takeProfits: [
    { price: 1, close: 50 },
    { price: 2, close: 50 },
  ],
  stopLoss: 1,
  breakEven: true,
  breakEvenOffset: 0,
  breakEvenOffsetUnit: "percent",
  trailing: false,
  ...over,
});
const seededRequest = (
  sets: unknown[] = [set(), set({ breakEven: false }), set({ takeProfits: [], stopLoss: undefined, breakEven: false })],
) => ({
  from: day(SEEDED_DAY),
  to: day(SEEDED_DAY),
  strategy: "all",
  sets,
});

interface Column {
  name: string;
  rules: string | null;
  summary: {
    pnl: string;
    fees: string;
    funding: string;
    trades: number;
    wins: number;
    winRate: string | null;
    positions: number;
    tpHitRates: (string | null)[];
    maxDrawdown: string;
    equity: { at: number; equity: string }[];
  };
}
interface Answer {
  alerts: number;
  real: Column;
  sets: (Column & { skipped: number })[];
}

describe.each(testDialects())("what-if replay on %s", (dialect) => {
  const app = freshApp(dialect, { SIM_FUNDING_RATE: "0.0001", SIM_FUNDING_INTERVAL_SECONDS: "3600" }, { file: true });
  let admin: string;
  let viewer: string;
  let runner: Runner | null = null;
  const db = () => app.database.db;
  const replay = (body: unknown, cookie = admin) => app.fetch("/api/replay", { method: "POST", cookie, json: body });

  beforeAll(async () => {
    admin = (await registerVia(app, "replay_admin")).cookie;
    viewer = (await registerVia(app, "replay_viewer", "secret123", "viewer")).cookie;
    await db()
      .insertInto("signals")
      .values({
        id: "seeded-1",
        action: "buy",
        symbol: "ETH-PERP",
        order_type: "market",
        price: "100",
        quantity: "1",
        payload: JSON.stringify({ action: "buy", symbol: "ETH-PERP", quantity: "1", price: "100" }),
        strategy: null,
        signal_time: T(10, 10, 30),
        dedupe_key: "seeded-1",
        processed: 1,
        status: "executed",
        status_reason: null,
        created_at: T(10, 10, 31),
        processed_at: T(10, 10, 32),
      })
      .execute();
    const candle = (m: number, open: string, high: string, low: string, close: string) => ({
      symbol: "ETH-PERP",
      bucket: T(10, m),
      open,
      high,
      low,
      close,
      ticks: 4,
      updated_at: T(10, m, 59),
    });
    await db()
      .insertInto("candles")
      .values([
        candle(10, "100", "100.5", "99.5", "100"),
        candle(11, "100", "101.5", "99.8", "101.2"),
        candle(12, "101.2", "101.4", "99.9", "100.5"),
        candle(13, "100.5", "102.3", "100.4", "102"),
      ])
      .execute();
  });
  afterAll(async () => {
    await runner?.stop();
  });

  test("login required (401); GET is 405; a viewer may replay (it writes nothing)", async () => {
    expect((await app.fetch("/api/replay", { method: "POST", json: seededRequest() })).status).toBe(401);
    expect((await app.fetch("/api/replay", { cookie: admin })).status).toBe(405);
    const before = await db()
      .selectFrom("trades")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    const response = await replay(seededRequest(), viewer);
    expect(response.status).toBe(200);
    const after = await db()
      .selectFrom("trades")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    expect(Number(after!.n)).toBe(Number(before!.n));
  });

  test("the seeded day: the hand-computed figures per rule set, Real empty", async () => {
    const response = await replay(seededRequest());
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Answer;
    expect(answer.alerts).toBe(1);
    const [withBe, withoutBe, none] = answer.sets;
    expect(withBe!.rules).toBe("TP 1/2 % · SL 1 % · BE");
    expect(withBe!.summary).toMatchObject({
      pnl: "0.444661",
      fees: "0.120339",
      funding: "0",
      trades: 2,
      wins: 2,
      winRate: "100.00",
      positions: 1,
      tpHitRates: ["100.00", "0.00"],
      maxDrawdown: "0",
    });
    expect(withBe!.summary.equity.map((p) => p.equity)).toEqual(["0", "0.4397", "0.444661"]);
    expect(withoutBe!.summary).toMatchObject({ pnl: "1.3791", trades: 2, tpHitRates: ["100.00", "100.00"] });
    // No rules: held to the period's end, closed at the last candle's close 102: 2 − (0.06 + 0.0612) = 1.8788.
    expect(none!.rules).toBe("no TP · no SL");
    expect(none!.summary).toMatchObject({ pnl: "1.8788", trades: 1, tpHitRates: [] });
    expect(answer.real.summary).toMatchObject({ pnl: "0", trades: 0, winRate: null, positions: 0 });
    // Deterministic: the same request, the same figures.
    const again = (await (await replay(seededRequest())).json()) as Answer;
    expect(again.sets).toEqual(answer.sets);
  });

  test("validation: the exact messages, with the field", async () => {
    const bad = async (body: unknown) => {
      const response = await replay(body);
      expect(response.status).toBe(400);
      return (await response.json()) as { error: string; field?: string };
    };
    expect(await bad(seededRequest([set({ takeProfits: [{ price: 1, close: 40 }] })]))).toMatchObject({
      error: "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 40%",
      field: "sets.0.takeProfits",
    });
    expect(await bad({ ...seededRequest(), from: day(SEEDED_DAY), to: day(SEEDED_DAY - DAY) })).toMatchObject({
      error: "To must be on or after From",
      field: "to",
    });
    expect(await bad({ ...seededRequest(), from: day(SEEDED_DAY - 40 * DAY) })).toMatchObject({
      error: "The period can be at most 31 days",
    });
    expect(await bad(seededRequest([set({ enabled: false })]))).toMatchObject({
      error: "Turn on at least one rule set",
    });
    expect(await bad({ ...seededRequest(), strategy: "no-such-strategy" })).toMatchObject({
      error: "Unknown strategy",
      field: "strategy",
    });
  });

  test("the page: the form prefilled from Trading Rules, and a post without JavaScript renders the results", async () => {
    const page = await app.fetch("/replay", { cookie: viewer });
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const text of [
      "Replay",
      "Rule set 1",
      "Rule set 2",
      "Rule set 3",
      "Run replay",
      "the adverse extreme is assumed first",
    ])
      expect(html).toContain(text);
    const tp1 = /<input[^>]*name="sets\[0\]\.takeProfits\[0\]\.price"[^>]*>/.exec(html)?.[0];
    expect(tp1).toContain('value="0.5"'); // the default TP1 0.5 %

    const form: Record<string, string> = { from: day(SEEDED_DAY), to: day(SEEDED_DAY), strategy: "all" };
    Object.assign(form, {
      "sets[0].enabled": "on",
      "sets[0].takeProfits[0].price": "1",
      "sets[0].takeProfits[0].close": "50",
      "sets[0].takeProfits[1].price": "2",
      "sets[0].takeProfits[1].close": "50",
    });
    Object.assign(form, {
      "sets[0].stopLoss": "1",
      "sets[0].breakEven": "on",
      "sets[0].breakEvenOffset": "0",
      "sets[0].breakEvenOffsetUnit": "percent",
    });
    const posted = await app.fetch("/replay", { method: "POST", cookie: viewer, form });
    expect(posted.status).toBe(200);
    const result = await posted.text();
    expect(result).toContain("Results");
    expect(result).toContain("+0.44"); // the net P&L of rule set 1, 0.444661
    expect(result).toContain("Equity curve figures");

    const invalid = await app.fetch("/replay", {
      method: "POST",
      cookie: viewer,
      form: { ...form, "sets[0].takeProfits[1].close": "10" },
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain(
      "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 60%",
    );
  });

  test("today: the Real column is the ledger's figures of the alerts' trades", async () => {
    const secret = await webhookSecret(app, admin);
    runner = await playScriptedTrades(app, secret, "replay");
    const today = day(Date.now());
    const response = await replay({ from: today, to: today, strategy: "default", sets: [set()] });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Answer;
    expect(answer.alerts).toBe(5);
    expect(answer.real.summary.pnl).toBe(PNL_TOTAL);
    expect(answer.real.summary.trades).toBe(4);
    expect(answer.sets[0]!.summary.positions).toBeGreaterThan(0);
  });
});
