// Market data, profiles and reports over HTTP on both dialects: the JSON APIs of docs/spec/api.md,
// the pages' no-JavaScript forms, the market cache (one upstream call per TTL), transfer
// refusals that change nothing, and a report job run by the worker's runner end to end, then
// downloaded. The remote (Coinbase Exchange) report flow runs against an in-memory provider.
import { beforeAll, describe, expect, test } from "vitest";
import type { RemoteReport, RemoteReportsProvider, ReportRequest } from "#app/core/exchange/accounts.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { pruneCandles } from "#db/queries/candles.ts";
import type { ExchangeAdapter, Product } from "#app/core/exchange/types.ts";
import { FILLS_COLUMNS } from "#reports/build.ts";
import { getMarketSummary, marketCacheStats, resetMarketCache } from "#app/services/market-data.server.ts";
import { insertReport } from "#db/queries/reports.ts";
import { insertTrade, updateTrade } from "#db/queries/trades.ts";
import { expectFormRefused, freshApp, registerVia, toastAfter, waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { pdfText } from "#tests/setup/pdf-text.ts";
import { generateReport } from "#worker/tasks/generate-report.ts";
import { startRunner } from "#worker/runner.ts";

interface ProfileJson {
  id: string;
  profileId: string;
  name: string;
  isDefault: boolean;
  active: boolean;
  balances: { currency: string; available: string }[];
}

describe.each(testDialects())("market data, profiles and reports on %s", (dialect) => {
  const app = freshApp(dialect);
  let user: string;
  const db = () => app.database.db;
  const getJson = async <T>(path: string, cookie = user) => {
    const response = await app.fetch(path, { cookie });
    return { status: response.status, body: (await response.json()) as T };
  };
  const send = async (method: string, path: string, json: unknown) => {
    const response = await app.fetch(path, { method, cookie: user, json });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const profiles = async () => (await getJson<ProfileJson[]>("/api/profiles")).body;
  const usdc = (p: ProfileJson | undefined) => p?.balances.find((b) => b.currency === "USDC")?.available;

  beforeAll(async () => {
    await registerVia(app, "acct_admin");
    // Profile changes and report generation are admin-only (issue 10): a second admin.
    user = (await registerVia(app, "acct_user", "secret123", "admin")).cookie;
    await setPrice(db(), "BTC-PERP", "95000.5", "test", { bid: "95000", ask: "95001" });
    await setPrice(db(), "XRP-PERP", "0.5123", "test");
  });

  describe("market data", () => {
    test("products: the active adapter's four perps with SPEC's fields; the change only over the history kept", async () => {
      resetMarketCache(db());
      const { status, body } = await getJson<Record<string, unknown>[]>("/api/market/products");
      expect(status).toBe(200);
      expect(body.map((p) => p.productId)).toEqual(["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"]);
      // One price kept so far: a change of 0 since then (said so), the paper exchange's own volume.
      expect(body[0]).toMatchObject({
        id: "BTC-PERP",
        baseCurrencyId: "BTC",
        quoteCurrencyId: "USDC",
        status: "online",
        price: "95000.5",
        priceChange24h: "0",
        volume24h: "0",
        volumeBasis: "paper fills",
        minMarketFunds: "10",
      });
      expect(typeof body[0]!.priceChangeSince).toBe("string");
      expect(body[1]).toMatchObject({ price: null, priceChange24h: null }); // no stored ETH price yet
    });

    test("the product list is cached: many requests inside the TTL cost one upstream call", async () => {
      resetMarketCache(db());
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          app.fetch(i % 2 ? "/api/market/products" : "/api/market/summary", { cookie: user }),
        ),
      );
      expect(marketCacheStats(db()).upstreamCalls).toBe(1);
    });

    test("summary: counts, the exchange's own 24 h volume (no invented market cap or dominance), and no movers while nothing moved", async () => {
      const { status, body } = await getJson<Record<string, unknown>>("/api/market/summary");
      expect(status).toBe(200);
      expect(body).toMatchObject({
        totalProducts: 4,
        onlineProducts: 4,
        topGainers: [],
        topLosers: [],
        hasChangeData: true,
        source: "simulator",
      });
      // Nothing traded yet on the paper exchange: a real 0 over the products that have a price.
      expect(body.volume24h).toMatchObject({ notional: "0", quote: "USDC", basis: "paper fills" });
      expect(body).not.toHaveProperty("marketCap");
      expect(body).not.toHaveProperty("dominance");
    });

    test("24 h change from the kept minute history, 24 h volume from the paper exchange's fills", async () => {
      const now = Date.now();
      const minute = (at: number) => Math.floor(at / 60_000) * 60_000;
      // Older than 24 h: ignored. One minute inside the window: the reference.
      const candle = (bucket: number, price: string) => ({
        symbol: "ETH-PERP",
        bucket,
        open: price,
        high: price,
        low: price,
        close: price,
        updated_at: bucket,
      });
      await db()
        .insertInto("candles")
        .values(candle(minute(now - 25 * 3_600_000), "1"))
        .execute();
      // The minute's open is the reference (its later ticks moved high, low and close).
      await db()
        .insertInto("candles")
        .values({ ...candle(minute(now - 86_400_000 + 60_000), "3000"), high: "3300", low: "2900", close: "3100" })
        .execute();
      await setPrice(db(), "ETH-PERP", "3150", "test");
      const sim = new SimulatorAdapter(db());
      await sim.ensureAccount();
      expect(
        await sim.placeOrder({
          clientOrderId: "vol-1",
          symbol: "ETH-PERP",
          side: "buy",
          type: "market",
          quantity: "0.5",
        }),
      ).toMatchObject({ status: "filled" });
      resetMarketCache(db());
      const { body } = await getJson<Record<string, unknown>[]>("/api/market/products");
      const eth = body.find((p) => p.productId === "ETH-PERP")!;
      // (3150 − 3000) / 3000 = +5 % over a full day (no "since"); 0.5 ETH traded.
      expect(eth).toMatchObject({
        priceChange24h: "5",
        priceChangeSince: null,
        volume24h: "0.5",
        volumeBasis: "paper fills",
      });
      const summary = (
        await getJson<{ topGainers: { productId: string }[]; volume24h: { notional: string; basis: string } }>(
          "/api/market/summary",
        )
      ).body;
      expect(summary.topGainers.map((p) => p.productId)).toEqual(["ETH-PERP"]);
      // The total is Σ volume × last price: 0.5 ETH × 3150 = 1575 USD of paper fills.
      expect(summary.volume24h).toMatchObject({ notional: "1575", basis: "paper fills" });
      // The worker's housekeeping keeps at least 25 h of candles, then drops what is older than its retention.
      expect(await pruneCandles(db(), 30, now)).toBe(0);
      expect(await pruneCandles(db(), 1, now)).toBe(1);
      // Leave the paper account as the profile tests below expect it: untouched.
      await db().deleteFrom("sim_orders").execute();
      await db().deleteFrom("sim_positions").execute();
      await db()
        .updateTable("balances")
        .set({ available: "10000", hold: "0" })
        .where("currency", "=", "USDC")
        .execute();
    });

    test("one product: bid, ask and mid-market price; an unknown one is a 404", async () => {
      const { status, body } = await getJson<Record<string, unknown>>("/api/market/products/BTC-PERP");
      expect(status).toBe(200);
      expect(body).toMatchObject({
        productId: "BTC-PERP",
        price: "95000.5",
        bid: "95000",
        ask: "95001",
        midMarketPrice: "95000.5",
        priceSource: "test",
      });
      const missing = await getJson<{ error: string }>("/api/market/products/DOGE-PERP");
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe("Product DOGE-PERP not found");
    });

    test("top gainers and losers: 5 each by 24 h change, from an adapter that reports it", async () => {
      const changes = ["5", "-1", "12.5", "0", "-7", "3", "2", "1", "-0.5", "-2", "-3", "-4", "9"];
      const products: Product[] = changes.map((c, i) => ({
        symbol: `P${i}-PERP`,
        base: `P${i}`,
        quote: "USDC",
        baseIncrement: "1",
        baseMinSize: "1",
        quoteIncrement: "0.01",
        minMarketFunds: "1",
        price: "1",
        priceChange24h: c,
        volume24h: "1000",
        status: "online",
      }));
      const fake = { name: "fake", getProducts: async () => products } as unknown as ExchangeAdapter;
      const key = {} as typeof app.database.db; // its own cache
      const summary = await getMarketSummary(key, { exchange: fake });
      expect(summary.topGainers.map((p) => p.priceChange24h)).toEqual(["12.5", "9", "5", "3", "2"]);
      expect(summary.topLosers.map((p) => p.priceChange24h)).toEqual(["-7", "-4", "-3", "-2", "-1"]);
      expect(summary.hasChangeData).toBe(true);
    });

    test("an exchange that fails: the last good list marked stale, else the error", async () => {
      const products: Product[] = [
        {
          symbol: "BTC-PERP",
          base: "BTC",
          quote: "USDC",
          baseIncrement: "0.0001",
          baseMinSize: "0.0001",
          quoteIncrement: "0.01",
          minMarketFunds: "10",
          price: "1",
          status: "online",
        },
      ];
      let down = false;
      const getProducts = async () => {
        if (down) throw new Error("exchange down");
        return products;
      };
      const flaky = { name: "flaky", getProducts } as unknown as ExchangeAdapter;
      const key = {} as typeof app.database.db; // its own cache
      expect((await getMarketSummary(key, { exchange: flaky })).stale).toBe(false);
      down = true;
      const stale = await getMarketSummary(key, { exchange: flaky, ttlMs: 0 });
      expect(stale).toMatchObject({ totalProducts: 1, stale: true });
      await expect(getMarketSummary({} as typeof app.database.db, { exchange: flaky })).rejects.toThrow(
        "exchange down",
      );
    });

    test("the page renders each tab without JavaScript", async () => {
      const overview = await (await app.fetch("/market-data", { cookie: user })).text();
      expect(overview).toContain("Total Products");
      expect(overview).toContain("24h Volume");
      expect(overview).toContain("volume × last price · simulator (paper fills)");
      for (const invented of ["$2.1T", "Market Cap", "Dominance", "Static reference figure"])
        expect(overview).not.toContain(invented);
      expect(overview).toContain("Top Gainers");
      const pairs = await (await app.fetch("/market-data?tab=pairs&q=xrp", { cookie: user })).text();
      expect(pairs).toContain('data-product="XRP-PERP"');
      expect(pairs).not.toContain('data-product="BTC-PERP"');
      expect(pairs).toContain("0.51230000"); // below 1: eight decimals
      const none = await (await app.fetch("/market-data?tab=details", { cookie: user })).text();
      expect(none).toContain("Select a Product");
      const details = await (await app.fetch("/market-data?tab=details&product=BTC-PERP", { cookie: user })).text();
      expect(details).toContain("Price Information");
      expect(details).toContain("95000.50");
    });
  });

  describe("profiles", () => {
    test("the paper account is the default profile; create validates the name", async () => {
      const list = await profiles();
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ name: "Paper trading", isDefault: true, active: true });
      expect(usdc(list[0])).toBe("10000");
      const bad = await send("POST", "/api/profiles", { name: "  " });
      expect(bad).toEqual({ status: 400, body: { error: "Profile name is required", field: "name", success: false } });
      const created = await send("POST", "/api/profiles", { name: "Swing" });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: "Swing", isDefault: false, active: true, profileId: created.body.id });
    });

    test("transfer: required fields, refusals that change nothing, then the move", async () => {
      const [main, swing] = await profiles();
      expect(
        (await send("POST", "/api/profiles/transfer", { toProfileId: swing!.id, currency: "USDC", amount: "1" })).body
          .error,
      ).toBe("From profile is required");
      expect(
        (
          await send("POST", "/api/profiles/transfer", {
            fromProfileId: main!.id,
            toProfileId: swing!.id,
            currency: "USDC",
          })
        ).body.error,
      ).toBe("Amount is required");
      expect(
        (
          await send("POST", "/api/profiles/transfer", {
            fromProfileId: main!.id,
            toProfileId: swing!.id,
            currency: "",
            amount: "1",
          })
        ).body.error,
      ).toBe("Currency is required");
      const same = await send("POST", "/api/profiles/transfer", {
        fromProfileId: main!.id,
        toProfileId: main!.id,
        currency: "USDC",
        amount: "1",
      });
      expect(same.status).toBe(400);
      const tooMuch = await send("POST", "/api/profiles/transfer", {
        fromProfileId: main!.id,
        toProfileId: swing!.id,
        currency: "USDC",
        amount: "10000.01",
      });
      expect(tooMuch).toEqual({
        status: 409,
        body: {
          error: "Insufficient funds: Paper trading has 10000 USDC available, the transfer needs 10000.01 USDC",
          success: false,
        },
      });
      const unknown = await send("POST", "/api/profiles/transfer", {
        fromProfileId: main!.id,
        toProfileId: "missing",
        currency: "USDC",
        amount: "1",
      });
      expect(unknown.status).toBe(404);
      expect((await profiles()).map(usdc)).toEqual(["10000", "0"]);

      const ok = await send("POST", "/api/profiles/transfer", {
        fromProfileId: main!.id,
        toProfileId: swing!.id,
        currency: "usdc",
        amount: 1500.25,
      });
      expect(ok).toEqual({
        status: 200,
        body: { success: true, message: "Transferred 1500.25 USDC from Paper trading to Swing" },
      });
      expect((await profiles()).map(usdc)).toEqual(["8499.75", "1500.25"]);
      const log = await db()
        .selectFrom("activity_logs")
        .select("message")
        .where("message", "like", "Transferred%")
        .executeTakeFirst();
      expect(log?.message).toBe("Transferred 1500.25 USDC from Paper trading to Swing (acct_user)");
    });

    test("the page's form works without JavaScript: a redirect with the toast, or the dialog again with the message", async () => {
      const response = await app.fetch("/profiles", {
        method: "POST",
        cookie: user,
        form: { intent: "create", name: "Scalp" },
      });
      expect(response.headers.get("location")).toBe("/profiles");
      const html = await toastAfter(app, response, user);
      expect(html).toContain("Profile Created");
      expect(html).toContain("Scalp");

      await expectFormRefused(app, "/profiles", user, { intent: "create", name: "" }, "Profile name is required");

      const [main, , scalp] = await profiles();
      const failed = await app.fetch("/profiles", {
        method: "POST",
        cookie: user,
        form: { intent: "transfer", fromProfileId: scalp!.id, toProfileId: main!.id, currency: "USDC", amount: "5" },
      });
      expect(failed.status).toBe(409);
      expect(await failed.text()).toContain("Insufficient funds: Scalp has 0 USDC available");

      const opened = await (await app.fetch(`/profiles?dialog=delete&profile=${scalp!.id}`, { cookie: user })).text();
      expect(opened).toContain("Delete Scalp?");
    });

    test("delete: a destination is required, the default stays, funds move to the destination", async () => {
      const [main, swing, scalp] = await profiles();
      const noDestination = await send("DELETE", `/api/profiles/${swing!.id}`, {});
      expect(noDestination).toEqual({
        status: 400,
        body: { error: "Destination profile is required", field: "toProfileId", success: false },
      });
      const defaultOne = await send("DELETE", `/api/profiles/${main!.id}`, { toProfileId: swing!.id });
      expect(defaultOne).toEqual({
        status: 409,
        body: { error: "The default profile cannot be deleted", success: false },
      });
      const ok = await send("DELETE", `/api/profiles/${swing!.id}`, { toProfileId: scalp!.id });
      expect(ok).toEqual({
        status: 200,
        body: { success: true, message: "Profile Swing deleted; its funds moved to Scalp" },
      });
      const after = await profiles();
      expect(after.map((p) => [p.name, usdc(p)])).toEqual([
        ["Paper trading", "8499.75"],
        ["Scalp", "1500.25"],
      ]);
      const again = await send("DELETE", `/api/profiles/${swing!.id}`, { toProfileId: main!.id });
      expect(again).toEqual({ status: 409, body: { error: "The profile profile has been deleted", success: false } });
    });
  });

  describe("reports", () => {
    test("the form's rules: type and format required, dates checked, an unknown profile refused", async () => {
      expect((await send("POST", "/api/reports", { format: "csv" })).body).toMatchObject({
        error: "Report type is required",
        field: "type",
      });
      expect((await send("POST", "/api/reports", { type: "fills", format: "xls" })).body).toMatchObject({
        error: "Format is required",
        field: "format",
      });
      expect(
        (await send("POST", "/api/reports", { type: "fills", format: "csv", startDate: "2026-13-01" })).body,
      ).toMatchObject({ error: "Start date must be a date (YYYY-MM-DD)" });
      expect(
        (
          await send("POST", "/api/reports", {
            type: "fills",
            format: "csv",
            startDate: "2026-11-10",
            endDate: "2026-11-01",
          })
        ).body,
      ).toMatchObject({ error: "End date must be on or after the start date" });
      expect(await send("POST", "/api/reports", { type: "account", format: "csv", profileId: "nope" })).toEqual({
        status: 400,
        body: { error: "Unknown profile nope", field: "profileId", success: false },
      });
      expect(
        Number(
          (
            await db()
              .selectFrom("reports")
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ).toBe(0);
    });

    test("a request stores the report and its job together; the worker builds it; Download serves the file", async () => {
      await insertTrade(db(), {
        id: "trade-r1",
        symbol: "ETH-PERP",
        side: "buy",
        orderType: "market",
        quantity: "2",
        price: null,
        source: "manual",
        clientOrderId: "c-r1",
        exchange: "simulator",
      });
      await updateTrade(db(), "trade-r1", {
        status: "executed",
        orderId: "ord-r1",
        executedPrice: "3000",
        executedQuantity: "2",
        fee: "3.6",
        executedAt: Date.parse("2026-11-21T09:30:00Z"),
      });

      const csv = await send("POST", "/api/reports", {
        type: "fills",
        format: "csv",
        startDate: "2026-11-21",
        endDate: "2026-11-21",
        productId: "ETH-PERP",
        year: "",
      });
      expect(csv.status).toBe(201);
      expect(csv.body).toMatchObject({
        type: "fills",
        format: "csv",
        status: "pending",
        startDate: "2026-11-21",
        productId: "ETH-PERP",
        fileUrl: null,
        errorMessage: null,
      });
      const job = await db()
        .selectFrom("jobs")
        .selectAll()
        .where("task", "=", "generate-report")
        .executeTakeFirstOrThrow();
      expect(JSON.parse(job.payload)).toEqual({ reportId: csv.body.id });
      const pending = await app.fetch(`/api/reports/${csv.body.id}/download`, { cookie: user });
      expect(pending.status).toBe(409);

      const pdf = await send("POST", "/api/reports", { type: "balance", format: "pdf" });
      const runner = startRunner({
        db: db(),
        exchange: new SimulatorAdapter(db()),
        workerId: "reports-worker",
        pollMs: 5,
      });
      try {
        await waitFor("both reports ready", async () => {
          const { body } = await getJson<{ status: string }[]>("/api/reports?status=ready");
          return body.length === 2;
        });
      } finally {
        await runner.stop();
      }
      const list = (await getJson<Record<string, unknown>[]>("/api/reports")).body;
      expect(list.map((r) => [r.type, r.status])).toEqual([
        ["balance", "ready"],
        ["fills", "ready"],
      ]);
      expect(list[1]).toMatchObject({
        fileUrl: `/api/reports/${csv.body.id}/download`,
        fileName: expect.stringMatching(/^fills-report-\d{8}-[0-9a-f]{8}\.csv$/),
      });
      expect(list[1]).not.toHaveProperty("remoteFileUrl");
      expect((await getJson<unknown[]>("/api/reports?type=balance")).body).toHaveLength(1);
      expect((await getJson<unknown[]>("/api/reports?status=failed")).body).toHaveLength(0);

      const file = await app.fetch(`/api/reports/${csv.body.id}/download`, { cookie: user });
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(file.headers.get("content-disposition")).toMatch(
        /^attachment; filename="fills-report-\d{8}-[0-9a-f]{8}\.csv"/,
      );
      expect(await file.text()).toBe(
        `${FILLS_COLUMNS.join(",")}\r\ntrade-r1,ord-r1,2026-11-21T09:30:00.000Z,ETH-PERP,BUY,market,2,3000,3.6,6000,,manual\r\n`,
      );

      const pdfFile = await app.fetch(`/api/reports/${pdf.body.id}/download`, { cookie: user });
      expect(pdfFile.headers.get("content-type")).toBe("application/pdf");
      const bytes = new Uint8Array(await pdfFile.arrayBuffer());
      expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe("%PDF-");
      const text = pdfText(bytes);
      expect(text).toContain("Balance report");
      expect(text).toContain("Paper trading");
      expect(text).toContain("8499.75");

      const logs = await db()
        .selectFrom("activity_logs")
        .select("message")
        .where("message", "like", "%report%")
        .orderBy("id")
        .execute();
      expect(logs.map((l) => l.message)).toEqual(
        expect.arrayContaining([
          "Fills report (CSV) requested by acct_user",
          expect.stringMatching(/^Fills report \(CSV\) ready: fills-report-/),
        ]),
      );
      expect((await app.fetch("/api/reports/nope/download", { cookie: user })).status).toBe(404);
      expect((await app.fetch(`/api/reports/${csv.body.id}/download`)).status).toBe(401);
    });

    test("the Generate Report form works without JavaScript", async () => {
      const response = await app.fetch("/reports", {
        method: "POST",
        cookie: user,
        form: { type: "otc_fills", format: "csv" },
      });
      expect(response.headers.get("location")).toBe("/reports");
      const html = await toastAfter(app, response, user);
      expect(html).toContain("Report Requested");
      expect(html).toContain("Processing...");
      await expectFormRefused(
        app,
        "/reports",
        user,
        { type: "fills", format: "csv", endDate: "yesterday" },
        "End date must be a date (YYYY-MM-DD)",
      );
    });

    test("with a remote provider the report is created once, polled, downloaded; a failure is recorded", async () => {
      const calls: string[] = [];
      let polls = 0;
      const remote: RemoteReportsProvider = {
        name: "coinbase-exchange",
        async createReport(request: ReportRequest): Promise<RemoteReport> {
          calls.push(`create ${request.type} ${request.format}`);
          return {
            id: "cb-1",
            type: request.type,
            status: "pending",
            createdAt: null,
            completedAt: null,
            expiresAt: null,
            fileUrl: null,
          };
        },
        async getReport(id: string): Promise<RemoteReport> {
          calls.push(`get ${id}`);
          polls += 1;
          const ready = polls >= 2;
          return {
            id,
            type: "fills",
            status: ready ? "ready" : "creating",
            createdAt: null,
            completedAt: null,
            expiresAt: "2099-01-01T00:00:00Z",
            fileUrl: ready ? "https://files.example/cb-1.csv" : null,
          };
        },
        async downloadReport(url: string) {
          calls.push(`download ${url}`);
          return new TextEncoder().encode("portfolio,type,time\r\n");
        },
      };
      const id = `remote-${dialect}`;
      await insertReport(db(), {
        id,
        type: "fills",
        format: "csv",
        startDate: null,
        endDate: null,
        productId: null,
        profileId: null,
        year: null,
        userId: null,
      });
      const ctx = { db: db(), exchange: new SimulatorAdapter(db()), workerId: "w", attempt: 1, jobId: 0 };
      expect(await generateReport(ctx, { reportId: id }, { remote, pollIntervalMs: 1 })).toBe("ready");
      expect(calls).toEqual(["create fills csv", "get cb-1", "get cb-1", "download https://files.example/cb-1.csv"]);
      const row = await db()
        .selectFrom("reports")
        .select(["report_id", "status", "file_url"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ report_id: "cb-1", status: "ready", file_url: "https://files.example/cb-1.csv" });
      expect(await (await app.fetch(`/api/reports/${id}/download`, { cookie: user })).text()).toBe(
        "portfolio,type,time\r\n",
      );

      const failing: RemoteReportsProvider = {
        ...remote,
        getReport: async (rid) => ({
          id: rid,
          type: "fills",
          status: "failed",
          createdAt: null,
          completedAt: null,
          expiresAt: null,
          fileUrl: null,
        }),
      };
      const id2 = `remote-fail-${dialect}`;
      await insertReport(db(), {
        id: id2,
        type: "account",
        format: "pdf",
        startDate: null,
        endDate: null,
        productId: null,
        profileId: null,
        year: null,
        userId: null,
      });
      expect(await generateReport(ctx, { reportId: id2 }, { remote: failing, pollIntervalMs: 1 })).toBe("failed");
      const { body } = await getJson<Record<string, unknown>[]>("/api/reports?status=failed");
      expect(body.find((r) => r.id === id2)).toMatchObject({
        status: "failed",
        errorMessage: "Coinbase could not generate the report",
        fileUrl: null,
      });

      // Download refusals the user can hit: the failed report says why; an expired file is gone.
      const failedDownload = await app.fetch(`/api/reports/${id2}/download`, { cookie: user });
      expect(failedDownload.status).toBe(409);
      expect(await failedDownload.json()).toEqual({
        error: "The report failed: Coinbase could not generate the report",
      });
      await db()
        .updateTable("reports")
        .set({ expires_at: Date.now() - 1000 })
        .where("id", "=", id)
        .execute();
      const expired = await app.fetch(`/api/reports/${id}/download`, { cookie: user });
      expect(expired.status).toBe(410);
      expect(await expired.json()).toEqual({ error: "The report has expired: generate it again" });
    });
  });
});
