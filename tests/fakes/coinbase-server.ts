// The fake Coinbase of tests/msw/coinbase.ts over real HTTP, for browser tests: start it,
// then run the app with COINBASE_API_URL=<url> and COINBASE_EXCHANGE_API_URL=<url>/exchange.
// The same MSW handlers answer (through msw's getResponse), so the app's signed requests are
// verified exactly as in the Vitest suite. Runs under Bun (Bun.serve).
//
//   const fake = await startCoinbaseServer({ cdpKeys: [key] });
//   ... fake.url, fake.coinbase.state, fake.coinbase.fail({...}) ...
//   await fake.stop();
import { getResponse } from "msw";
import { type CoinbaseFake, type FakeCoinbaseOptions, createCoinbaseFake } from "../msw/coinbase.ts";

export interface CoinbaseServer {
  url: string;
  exchangeUrl: string;
  coinbase: CoinbaseFake;
  /** Environment for the app under test. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startCoinbaseServer(
  options: Omit<FakeCoinbaseOptions, "atBase" | "exchangeBase"> & { port?: number } = {},
): Promise<CoinbaseServer> {
  let coinbase: CoinbaseFake | undefined;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    idleTimeout: 60,
    async fetch(request) {
      const response = coinbase ? await getResponse(coinbase.handlers, request) : undefined;
      return (
        response ??
        new Response(
          JSON.stringify({
            error: "NOT_FOUND",
            message: `fake Coinbase has no route ${request.method} ${new URL(request.url).pathname}`,
          }),
          { status: 404, headers: { "content-type": "application/json" } },
        )
      );
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  coinbase = createCoinbaseFake({ ...options, atBase: url, exchangeBase: `${url}/exchange` });
  return {
    url,
    exchangeUrl: `${url}/exchange`,
    coinbase,
    env: { COINBASE_API_URL: url, COINBASE_EXCHANGE_API_URL: `${url}/exchange` },
    async stop() {
      await server.stop(true);
    },
  };
}

// `bun tests/fakes/coinbase-server.ts [port]`: a fake Coinbase to point a dev app at.
if (import.meta.main) {
  const { FAKE_MORE_FUTURES, makeCdpKey } = await import("../msw/coinbase.ts");
  const key = makeCdpKey("ec");
  const fake = await startCoinbaseServer({
    cdpKeys: [key],
    extraProducts: FAKE_MORE_FUTURES,
    port: Number(process.argv[2] ?? 0),
  });
  console.log(
    `fake Coinbase at ${fake.url}\nCOINBASE_API_URL=${fake.url}\nCOINBASE_API_KEY=${key.apiKey}\nCOINBASE_API_SECRET=${JSON.stringify(key.apiSecret)}`,
  );
}
