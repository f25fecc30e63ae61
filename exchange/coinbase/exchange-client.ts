// The Coinbase Exchange API (docs/spec/exchange.md, docs/decisions/011-profiles-market-reports.md): the only Coinbase API with profiles and
// reports. HMAC-SHA256 over timestamp + METHOD + path(+query) + body with the base64-decoded
// secret, plus the key's passphrase (CB-ACCESS-* headers). It has a real, stateful sandbox.
//
// Implements ProfilesProvider and RemoteReportsProvider (../accounts.ts).
import { createHmac } from "node:crypto";
import type {
  ExchangeProfile,
  ProfilesProvider,
  RemoteReport,
  RemoteReportsProvider,
  ReportRequest,
  ReportStatus,
  ReportType,
  TransferRequest,
} from "#app/core/exchange/accounts.ts";
import { AuthError, ExchangeError, InvalidOrderError, NetworkError } from "#app/core/exchange/errors.ts";
import { D, parseDecimal } from "#app/core/decimal.ts";
import { EXCHANGE_PRODUCTION_URL } from "./config.ts";
import {
  type ClientTransportOptions,
  type FetchFn,
  type RateLimiter,
  READ_TIMEOUT_MS,
  limiterFor,
  send,
  withQuery,
} from "./http.ts";
import type { Query } from "./advanced-trade.ts";

// Documented: private 15 req/s per profile; we use 80 %.
export const EXCHANGE_PRIVATE_RATE = 12;

export interface ExchangeClientOptions extends ClientTransportOptions {
  apiKey: string;
  /** base64, as Coinbase shows it */
  apiSecret: string;
  passphrase: string;
  baseUrl?: string;
  sandbox?: boolean;
}

interface WireProfile {
  id: string;
  user_id?: string;
  name: string;
  active: boolean;
  is_default: boolean;
  created_at: string;
}

interface WireExchangeAccount {
  id: string;
  currency: string;
  balance: string;
  available: string;
  hold: string;
  profile_id: string;
}

interface WireReport {
  id: string;
  type: string;
  status: string;
  created_at?: string | null;
  completed_at?: string | null;
  expires_at?: string | null;
  file_url?: string | null;
}

/** SPEC's report type -> Coinbase's wire `type` (the body key stays `otc_fills`). */
export const WIRE_REPORT_TYPE: Record<ReportType, string> = {
  fills: "fills",
  account: "account",
  balance: "balance",
  otc_fills: "otc-fills",
};
const FROM_WIRE_TYPE: Record<string, ReportType> = {
  fills: "fills",
  account: "account",
  balance: "balance",
  "otc-fills": "otc_fills",
  otc_fills: "otc_fills",
};
const STATUSES = new Set<ReportStatus>(["pending", "creating", "ready", "failed"]);

/** The signature Coinbase Exchange expects (exported for the test fakes, which verify it). */
export function exchangeSignature(
  secretBase64: string,
  timestamp: string,
  method: string,
  requestPath: string,
  body: string,
): string {
  return createHmac("sha256", Buffer.from(secretBase64, "base64"))
    .update(`${timestamp}${method.toUpperCase()}${requestPath}${body}`)
    .digest("base64");
}

export class CoinbaseExchangeClient implements ProfilesProvider, RemoteReportsProvider {
  readonly name = "coinbase-exchange";
  readonly baseUrl: string;
  private readonly fetchImpl: FetchFn;
  private readonly limiter: RateLimiter;

  constructor(private readonly options: ExchangeClientOptions) {
    if (!options.apiKey || !options.apiSecret || !options.passphrase) {
      throw new AuthError("Coinbase Exchange needs an API key, its secret and its passphrase");
    }
    this.baseUrl = (options.baseUrl ?? EXCHANGE_PRODUCTION_URL).replace(/\/+$/, "");
    this.fetchImpl = options.fetchImpl ?? ((input, init) => fetch(input, init));
    this.limiter = limiterFor(`exchange:${new URL(this.baseUrl).host}`, EXCHANGE_PRIVATE_RATE);
  }

  get environment(): string {
    return this.options.sandbox ? "sandbox" : "production";
  }

  async request<T>(
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    options: { query?: Query; body?: unknown } = {},
  ): Promise<T> {
    const url = withQuery(new URL(`${this.baseUrl}${path}`), options.query);
    const body = options.body === undefined ? "" : JSON.stringify(options.body);
    const requestPath = `${url.pathname}${url.search}`;
    const answer = await send({
      service: "Coinbase Exchange",
      fetchImpl: this.fetchImpl,
      limiter: this.limiter,
      method,
      url,
      path,
      body: body || undefined,
      timeoutMs: method === "GET" ? this.options.readTimeoutMs : this.options.writeTimeoutMs,
      maxAttempts: this.options.maxAttempts,
      backoffMs: this.options.backoffMs,
      onResult: this.options.onResult,
      headers: async () => {
        const timestamp = (Date.now() / 1000).toFixed(3);
        return {
          "CB-ACCESS-KEY": this.options.apiKey,
          "CB-ACCESS-SIGN": exchangeSignature(this.options.apiSecret, timestamp, method, requestPath, body),
          "CB-ACCESS-TIMESTAMP": timestamp,
          "CB-ACCESS-PASSPHRASE": this.options.passphrase,
          accept: "application/json",
          ...(body ? { "content-type": "application/json" } : {}),
        };
      },
    });
    return answer.body as T;
  }

  // --- profiles ---------------------------------------------------------------------------

  async listProfiles(): Promise<ExchangeProfile[]> {
    const [profiles, accounts] = await Promise.all([
      this.request<WireProfile[]>("GET", "/profiles", { query: { active: true } }),
      // The key's own profile: Coinbase Exchange shows balances of the key's profile only.
      this.request<WireExchangeAccount[]>("GET", "/accounts").catch((error) => {
        if (error instanceof AuthError) throw error;
        return [] as WireExchangeAccount[];
      }),
    ]);
    return (profiles ?? []).map((p) =>
      toProfile(
        p,
        accounts.filter((a) => a.profile_id === p.id),
      ),
    );
  }

  async createProfile(name: string): Promise<ExchangeProfile> {
    const created = await this.request<WireProfile>("POST", "/profiles", { body: { name } });
    return toProfile(created, []);
  }

  async transferFunds(request: TransferRequest): Promise<void> {
    const amount = parseDecimal(request.amount);
    if (amount === null || !D(amount).gt(0))
      throw new InvalidOrderError(`Transfer amount must be greater than 0, got ${request.amount}`);
    await this.request("POST", "/profiles/transfer", {
      body: { from: request.fromProfileId, to: request.toProfileId, currency: request.currency, amount },
    });
  }

  async deleteProfile(profileId: string, toProfileId: string): Promise<void> {
    await this.request("PUT", `/profiles/${encodeURIComponent(profileId)}/deactivate`, {
      body: { profile_id: profileId, to: toProfileId },
    });
  }

  async testConnection(): Promise<{ success: boolean; message: string }> {
    try {
      const profiles = await this.request<WireProfile[]>("GET", "/profiles", { query: { active: true } });
      return {
        success: true,
        message: `Connected to Coinbase Exchange (${this.environment}): ${profiles.length} profile${profiles.length === 1 ? "" : "s"} visible`,
      };
    } catch (error) {
      return {
        success: false,
        message:
          error instanceof ExchangeError ? error.message : `Coinbase Exchange test failed: ${(error as Error).message}`,
      };
    }
  }

  // --- reports ----------------------------------------------------------------------------

  async createReport(request: ReportRequest): Promise<RemoteReport> {
    const wireType = WIRE_REPORT_TYPE[request.type];
    if (!wireType) throw new InvalidOrderError(`Unknown report type ${request.type}`);
    const range = { start_date: request.startDate ?? undefined, end_date: request.endDate ?? undefined };
    const nested: Record<ReportType, Record<string, unknown>> = {
      fills: { ...range, product_id: request.productId ?? "ALL" },
      otc_fills: { ...range, product_id: request.productId ?? "ALL" },
      account: { ...range, account_id: "ALL" },
      balance: { datetime: request.endDate ?? new Date().toISOString(), group_by_profile: !request.profileId },
    };
    const body: Record<string, unknown> = {
      type: wireType,
      format: request.format,
      [request.type]: nested[request.type],
    };
    if (request.profileId) body.profile_id = request.profileId;
    if (request.year) body.year = request.year;
    const created = await this.request<WireReport>("POST", "/reports", { body });
    return toReport(created, request.type);
  }

  async getReport(reportId: string): Promise<RemoteReport> {
    return toReport(await this.request<WireReport>("GET", `/reports/${encodeURIComponent(reportId)}`));
  }

  /** The file of a ready report: a plain GET of its (pre-signed) file_url, no credentials sent. */
  async downloadReport(fileUrl: string): Promise<Uint8Array> {
    let url: URL;
    try {
      url = new URL(fileUrl);
    } catch {
      throw new InvalidOrderError(`The report's file address is not a URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new InvalidOrderError("The report's file address is not an http(s) URL");
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.readTimeoutMs ?? READ_TIMEOUT_MS);
    try {
      const response = await this.fetchImpl(url.toString(), { signal: controller.signal });
      if (!response.ok) throw new ExchangeError(`Coinbase Exchange report download failed (HTTP ${response.status})`);
      return new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      if (error instanceof ExchangeError) throw error;
      throw new NetworkError(
        controller.signal.aborted
          ? "Coinbase Exchange report download timed out"
          : `Coinbase Exchange report download failed: ${(error as Error).message}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

function toProfile(p: WireProfile, accounts: WireExchangeAccount[]): ExchangeProfile {
  return {
    id: p.id,
    name: p.name,
    isDefault: Boolean(p.is_default),
    active: p.active !== false,
    createdAt: p.created_at ? new Date(p.created_at).toISOString() : new Date(0).toISOString(),
    balances: accounts.map((a) => ({
      currency: a.currency,
      available: parseDecimal(a.available) ?? "0",
      hold: parseDecimal(a.hold) ?? "0",
    })),
  };
}

function toReport(r: WireReport, fallbackType?: ReportType): RemoteReport {
  const status = STATUSES.has(r.status as ReportStatus) ? (r.status as ReportStatus) : "pending";
  return {
    id: r.id,
    type: FROM_WIRE_TYPE[r.type] ?? fallbackType ?? "fills",
    status,
    createdAt: r.created_at ?? null,
    completedAt: r.completed_at ?? null,
    expiresAt: r.expires_at ?? null,
    fileUrl: r.file_url ?? null,
  };
}
