// An app trading live on the fake Coinbase (tests/msw/coinbase.ts): its paper account made,
// a Coinbase connection saved with sandbox off (as an admin would on Exchanges), and a
// switching exchange, tuned for tests (short timeouts, fast polls), that has resolved to it.
import { SimulatorAdapter } from "#app/core/exchange/simulator/adapter.ts";
import { addExchangeConnection as saveConnection } from "#app/services/exchange-connections.server.ts";
import { type SwitchingExchange, createExchange } from "#app/core/exchange/factory.ts";
import type { makeCdpKey } from "#tests/msw/coinbase.ts";
import { type TestApp, waitFor } from "./app.ts";

export async function goLiveOnFakeCoinbase(app: TestApp, key: ReturnType<typeof makeCdpKey>, by: string): Promise<SwitchingExchange> {
  const db = app.database.db;
  const simulator = new SimulatorAdapter(db);
  await simulator.ensureAccount();
  const exchange = createExchange(db, {
    simulator,
    config: app.config,
    checkMs: 50,
    clientOptions: { readTimeoutMs: 400, writeTimeoutMs: 400, backoffMs: 1 },
    adapterOptions: { fillWaitMs: 500, fillPollMs: 5 },
  });
  await saveConnection(
    db,
    app.config,
    { exchangeName: "COINBASE", accountName: "Main", apiKey: key.apiKey, apiSecret: key.apiSecret, passphrase: null, sandbox: false, isEnabled: true } as never,
    by,
  );
  await waitFor("live on Coinbase", async () => (await exchange.resolve()).mode === "coinbase-live", 5000);
  return exchange;
}
