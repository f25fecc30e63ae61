// Strategies (issue 12, docs/decisions/027-strategies.md): create, edit, enable, rotate and
// delete, for the Strategies screen and /api/strategies alike. Each strategy has its own
// webhook secret, stored like the global one (AES-GCM with APP_SECRET) plus its SHA-256,
// by which the webhook finds the strategy (db/queries/strategies.ts, cached per process).
import type { AppLoadContext } from "@remix-run/node";
import type { Kysely } from "kysely";
import { signalAmountValueError } from "#app/core/schemas/trading-rules-form.ts";
import { can, type Role } from "#app/core/auth/permissions.ts";
import { DecryptError, decryptSecret, encryptSecret, randomSecret } from "#app/core/crypto.ts";
import { matchFifo, type RealizedMatch } from "#app/core/pnl/fifo.ts";
import { type PeriodStats, periodStats } from "#app/core/pnl/performance-stats.ts";
import {
  DEFAULT_STRATEGY_ID,
  type Strategy,
  type StrategyInput,
  StrategyInputSchema,
} from "#app/core/schemas/strategy.ts";
import { listExecutedFills } from "#db/queries/statistics.ts";
import { getPerformanceStats } from "./statistics.server.ts";
import { takeProfitAllocationError } from "#app/core/schemas/trading-config.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { appendEvent } from "#db/queries/events.ts";
import { clearSettingsCache } from "#db/queries/settings.ts";
import {
  type StoredStrategy,
  countOpenPositionsOfStrategy,
  deleteStrategy as deleteStrategyRow,
  getStrategy,
  getStrategyByNameKey,
  insertStrategy,
  listLotOwners,
  listStrategies,
  setStrategySecret,
  updateStrategy as updateStrategyRow,
} from "#db/queries/strategies.ts";
import { newId, sha256Hex } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { publicOrigin } from "#app/utils/api.server.ts";
import { alertTemplate } from "./webhook-config.server.ts";
import { WEBHOOK_PATH } from "./webhook.server.ts";
import { recordAudit } from "#db/queries/audit.ts";

export type StrategyParse = { success: true; input: StrategyInput } | { success: false; error: string; field?: string };

/** Validates a strategy body (JSON API or the screen's form, already shaped); `base` fills omitted fields (PUT). */
export function parseStrategyInput(body: unknown, base?: StrategyInput): StrategyParse {
  if (!body || typeof body !== "object" || Array.isArray(body))
    return { success: false, error: "Strategy must be an object" };
  const merged = base ? { ...base, ...(body as Record<string, unknown>) } : body;
  const parsed = StrategyInputSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join(".");
    return { success: false, error: issue.message, ...(field ? { field } : {}) };
  }
  const input = parsed.data;
  // The Trading Rules field's own rules (docs/spec/api.md#validation), so a strategy's amount means the same.
  const amount = signalAmountValueError(input.amountType, input.amountValue);
  if (amount) return { success: false, error: amount, field: "amountValue" };
  if (input.rules.takeProfits) {
    const allocation = takeProfitAllocationError(input.rules.takeProfits);
    if (allocation) return { success: false, error: allocation, field: "rules.takeProfits" };
  }
  return { success: true, input };
}

export class StrategyError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const sealed = (secret: string, appSecret: string) => ({
  enc: encryptSecret(secret, appSecret),
  hash: sha256Hex(secret),
});

function toInput(s: StoredStrategy): StrategyInput {
  const { id: _id, createdAt: _c, updatedAt: _u, secretRotatedAt: _r, secretEnc: _e, secretHash: _h, ...input } = s;
  return input;
}

async function requireStrategy(db: Kysely<DB>, id: string): Promise<StoredStrategy> {
  const found = await getStrategy(db, id);
  if (!found) throw new StrategyError(404, "Strategy not found");
  return found;
}

async function assertNameFree(db: Kysely<DB>, name: string, exceptId?: string) {
  const other = await getStrategyByNameKey(db, name);
  if (other && other.id !== exceptId)
    throw new StrategyError(409, `A strategy named ${other.name} already exists`, "name");
}

const isUniqueViolation = (error: unknown) => {
  const e = error as { errno?: number; code?: string; message?: string };
  return e.errno === 1062 || e.code === "SQLITE_CONSTRAINT_UNIQUE" || /UNIQUE constraint failed/i.test(e.message ?? "");
};

/**
 * One change of a strategy in one transaction: `work` (its row and audit line), then its activity
 * line and, unless `pushed` is false, a dashboard update; the cached strategies are dropped after.
 * With `name`, a name the unique index refuses (a race past assertNameFree) answers 409 on the name.
 */
async function writeStrategy(
  db: Kysely<DB>,
  id: string,
  by: string,
  log: { type?: "system" | "webhook"; level: "info" | "warning"; message: string; pushed?: boolean; name?: string },
  work: (trx: Kysely<DB>) => Promise<void>,
): Promise<void> {
  try {
    await db.transaction().execute(async (trx) => {
      await work(trx);
      await recordActivity(trx, {
        type: log.type ?? "system",
        level: log.level,
        message: log.message,
        data: { strategyId: id, by },
      });
      if (log.pushed !== false) await appendEvent(trx, "dashboard_update", { reason: "strategy" });
    });
  } catch (error) {
    if (log.name !== undefined && isUniqueViolation(error))
      throw new StrategyError(409, `A strategy named ${log.name} already exists`, "name");
    throw error;
  }
  clearSettingsCache();
}

export async function createStrategy(
  db: Kysely<DB>,
  appSecret: string,
  input: StrategyInput,
  by: string,
): Promise<{ strategy: StoredStrategy; secret: string }> {
  await assertNameFree(db, input.name);
  const id = newId();
  const secret = randomSecret();
  const log = { level: "info", message: `Strategy ${input.name} created by ${by}`, name: input.name } as const;
  await writeStrategy(db, id, by, log, async (trx) => {
    await insertStrategy(trx, id, input, sealed(secret, appSecret));
    await recordAudit(trx, { actor: by, action: "strategy.create", target: id, after: { ...input } });
  });
  return { strategy: (await getStrategy(db, id))!, secret };
}

export async function updateStrategy(
  db: Kysely<DB>,
  id: string,
  input: StrategyInput,
  by: string,
): Promise<StoredStrategy> {
  const before = await requireStrategy(db, id);
  await assertNameFree(db, input.name, id);
  const switched =
    before.enabled !== input.enabled
      ? input.enabled
        ? " (enabled)"
        : " (disabled: its alerts are stored, not traded)"
      : "";
  const log = {
    level: switched && !input.enabled ? "warning" : "info",
    message: `Strategy ${input.name} updated by ${by}${switched}`,
    name: input.name,
  } as const;
  await writeStrategy(db, id, by, log, async (trx) => {
    await updateStrategyRow(trx, id, input);
    await recordAudit(trx, {
      actor: by,
      action: "strategy.update",
      target: id,
      before: { ...toInput(before) },
      after: { ...input },
    });
  });
  return (await getStrategy(db, id))!;
}

/** A partial change (PUT with some fields, the screen's enable switch): merged onto the stored strategy and validated whole. */
export async function changeStrategy(db: Kysely<DB>, id: string, body: unknown, by: string): Promise<StoredStrategy> {
  const before = await requireStrategy(db, id);
  const parsed = parseStrategyInput(body, toInput(before));
  if (!parsed.success) throw new StrategyError(400, parsed.error, parsed.field);
  return updateStrategy(db, id, parsed.input, by);
}

export async function rotateStrategySecret(db: Kysely<DB>, appSecret: string, id: string, by: string): Promise<string> {
  const strategy = await requireStrategy(db, id);
  const secret = randomSecret();
  // Nothing the dashboards show changes: no live update.
  const log = {
    type: "webhook",
    level: "warning",
    message: `Webhook secret of strategy ${strategy.name} rotated by ${by}`,
    pushed: false,
  } as const;
  await writeStrategy(db, id, by, log, async (trx) => {
    await setStrategySecret(trx, id, sealed(secret, appSecret));
    await recordAudit(trx, {
      actor: by,
      action: "strategy.rotate_secret",
      target: id,
      before: { secret: "previous" },
      after: { secret: "new" },
    });
  });
  return secret;
}

export async function removeStrategy(db: Kysely<DB>, id: string, by: string): Promise<void> {
  const strategy = await requireStrategy(db, id);
  const open = await countOpenPositionsOfStrategy(db, id);
  if (open > 0)
    throw new StrategyError(
      409,
      `Strategy ${strategy.name} has ${open} open position${open === 1 ? "" : "s"}: close ${open === 1 ? "it" : "them"} first`,
    );
  const log = {
    level: "warning",
    message: `Strategy ${strategy.name} deleted by ${by}: its secret no longer works`,
  } as const;
  await writeStrategy(db, id, by, log, async (trx) => {
    await deleteStrategyRow(trx, id);
    await recordAudit(trx, { actor: by, action: "strategy.delete", target: id, before: { ...toInput(strategy) } });
  });
}

export interface StrategyView extends Strategy {
  webhookUrl: string;
  /** The alert message to paste into TradingView (the secret shown to admins only). */
  alertMessage: string;
  /** Admins only; null for the other roles, or when APP_SECRET changed since it was stored. */
  secret: string | null;
}

const HIDDEN_SECRET = "<strategy secret: ask an admin>";

export function strategyView(
  strategy: StoredStrategy,
  options: { origin: string; appSecret: string; role: Role | null },
): StrategyView {
  const { secretEnc, secretHash: _hash, ...rest } = strategy;
  let secret: string | null = null;
  if (can(options.role, "strategies.manage")) {
    try {
      secret = decryptSecret(secretEnc, options.appSecret);
    } catch (error) {
      if (!(error instanceof DecryptError)) throw error;
    }
  }
  return {
    ...rest,
    webhookUrl: `${options.origin}${WEBHOOK_PATH}`,
    alertMessage: alertTemplate(secret ?? HIDDEN_SECRET),
    secret,
  };
}

export async function listStrategyViews(
  request: Request,
  context: AppLoadContext,
  role: Role | null,
): Promise<StrategyView[]> {
  const origin = publicOrigin(request, context);
  return (await listStrategies(context.db)).map((s) =>
    strategyView(s, { origin, appSecret: context.config.appSecret, role }),
  );
}

export async function getStrategyView(
  request: Request,
  context: AppLoadContext,
  id: string,
  role: Role | null,
): Promise<StrategyView | null> {
  const found = await getStrategy(context.db, id);
  return found
    ? strategyView(found, { origin: publicOrigin(request, context), appSecret: context.config.appSecret, role })
    : null;
}

/** id → name of every strategy (filters and tables). */
export async function strategyNames(db: Kysely<DB>): Promise<{ id: string; name: string }[]> {
  return (await listStrategies(db)).map((s) => ({ id: s.id, name: s.name }));
}

export interface StrategyStatsRow {
  /** A strategy id, or "default" (the global secret's signals). */
  id: string;
  name: string;
  stats: PeriodStats;
}

/**
 * docs/spec/api.md#shapes performance statistics per strategy, beside the totals: the one FIFO matching
 * (app/core/pnl) over every executed fill, each realized match counted for the strategy that
 * owns the lot it closed (the strategy of its opening trade, or of the position that trade
 * opened or grew). Manual and reconciliation lots count only in the totals; so does funding.
 */
export async function getStrategyStatistics(
  db: Kysely<DB>,
  now = Date.now(),
): Promise<{ totals: PeriodStats; strategies: StrategyStatsRow[] }> {
  const [fills, ownerOf, strategies, totals] = await Promise.all([
    listExecutedFills(db),
    listLotOwners(db),
    listStrategies(db),
    getPerformanceStats(db, now),
  ]);
  const byOwner = new Map<string, RealizedMatch[]>();
  for (const match of matchFifo(fills).matches) {
    const owner = ownerOf.get(match.entryTradeId);
    if (!owner) continue;
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), match]);
  }
  const rows: StrategyStatsRow[] = [
    {
      id: DEFAULT_STRATEGY_ID,
      name: "default (global secret)",
      stats: periodStats(byOwner.get(DEFAULT_STRATEGY_ID) ?? [], now),
    },
    ...strategies.map((s) => ({ id: s.id, name: s.name, stats: periodStats(byOwner.get(s.id) ?? [], now) })),
  ];
  return { totals, strategies: rows };
}
