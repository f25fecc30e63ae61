// The webhook against strangers (issue 10). TradingView only delivers to a public port, so
// anyone can post garbage or guess secrets. Per web process, in memory, before any database
// write:
// - an optional allowlist of sender addresses (WEBHOOK_ALLOWLIST or the `webhook_allowlist`
//   setting: "tradingview" for TradingView's published addresses, or addresses);
// - rejections (bad secret, bad body, not allowed) are counted per source and reason: the
//   first of a minute writes one activity-log line at once, the rest of that minute one
//   summary line with the count when the minute ends (never a row and a live event each);
// - a source that keeps being rejected (REJECTS_PER_MINUTE) gets 429 without the secret
//   even being checked. A request with the right secret is never limited: an attacker who
//   makes TradingView post garbage to us must not get TradingView's addresses blocked.
import { isIP } from "node:net";
import type { Kysely } from "kysely";
import { type NewActivityLog, recordActivity } from "#db/queries/activity-logs.ts";
import { getSetting, getSettingCached, setSetting } from "#db/queries/settings.ts";
import type { DB } from "#db/schema.ts";
import { TRADINGVIEW_ADDRESSES } from "#app/core/net/tradingview.ts";
import { recordAudit } from "#db/queries/audit.ts";

export { TRADINGVIEW_ADDRESSES };
export const WEBHOOK_ALLOWLIST_SETTING = "webhook_allowlist";
/** Rejected requests a source may make in a minute before it gets 429 unread. */
export const REJECTS_PER_MINUTE = 30;
const MINUTE_MS = 60_000;

/** "tradingview" and/or addresses, comma separated → the addresses; empty = everyone. */
export function parseAllowlist(value: string | null | undefined): string[] {
  if (!value) return [];
  return [
    ...new Set(
      value
        .split(",")
        .map((v) => v.trim().toLowerCase())
        .filter(Boolean)
        .flatMap((v) => (v === "tradingview" ? TRADINGVIEW_ADDRESSES : [v.replace(/^::ffff:/, "")])),
    ),
  ];
}

/** The allowlist in force: the environment's, else the admin's setting. */
export async function activeAllowlist(db: Kysely<DB>, envValue: string | undefined): Promise<string[]> {
  if (envValue) return parseAllowlist(envValue);
  return parseAllowlist(await getSettingCached<string>(db, WEBHOOK_ALLOWLIST_SETTING));
}

/** What the Webhook Config screen shows of the allowlist. */
export interface AllowlistView {
  /** As typed ("tradingview, 203.0.113.7"), "" for everyone. */
  value: string;
  /** The addresses it stands for. */
  addresses: string[];
  /** WEBHOOK_ALLOWLIST wins over the setting and cannot be changed on the screen. */
  source: "env" | "setting" | "none";
}

export async function allowlistView(db: Kysely<DB>, envValue: string | undefined): Promise<AllowlistView> {
  if (envValue) return { value: envValue, addresses: parseAllowlist(envValue), source: "env" };
  const value = (await getSetting<string>(db, WEBHOOK_ALLOWLIST_SETTING)) ?? "";
  return { value, addresses: parseAllowlist(value), source: value ? "setting" : "none" };
}

/**
 * Checks an allowlist as typed: each entry "tradingview" or an IPv4/IPv6 address, at most
 * 50. Returns the cleaned value, or the message naming the first bad entry.
 */
export function validateAllowlist(input: string): { ok: true; value: string } | { ok: false; error: string } {
  const entries = input
    .split(/[,\s]+/)
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  if (entries.length > 50) return { ok: false, error: "At most 50 entries" };
  for (const entry of entries) {
    if (entry !== "tradingview" && isIP(entry.replace(/^::ffff:/, "")) === 0) {
      return { ok: false, error: `${entry.slice(0, 60)} is not an IP address (or "tradingview")` };
    }
  }
  return { ok: true, value: [...new Set(entries)].join(", ") };
}

export async function saveAllowlist(db: Kysely<DB>, by: string, value: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await recordAudit(trx, {
      actor: by,
      action: "webhook_allowlist.update",
      target: "webhook_allowlist",
      before: { allowlist: (await getSetting<string>(trx, WEBHOOK_ALLOWLIST_SETTING)) ?? "" },
      after: { allowlist: value },
    });
    await setSetting(trx, WEBHOOK_ALLOWLIST_SETTING, value);
    await recordActivity(trx, {
      type: "system",
      level: "warning",
      message: value
        ? `${by} limited webhook senders to: ${value}`
        : `${by} removed the webhook sender allowlist (any address with the secret)`,
      data: { by, allowlist: value },
    });
  });
}

export function addressAllowed(ip: string | null, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  return ip != null && allowlist.includes(ip.replace(/^::ffff:/, "").toLowerCase());
}

interface Tally {
  ip: string | null;
  status: number;
  reason: string;
  minute: number;
  count: number;
}

/** Per-process rejection bookkeeping; `flush` returns the summary lines to write. */
export class RejectionTally {
  private tallies = new Map<string, Tally>();
  private perSource = new Map<string, { minute: number; count: number }>();

  constructor(private now: () => number = Date.now) {}

  /** True when this source has been rejected too often this minute (answer 429, write nothing). */
  limited(ip: string | null): boolean {
    const entry = this.perSource.get(ip ?? "-");
    return entry !== undefined && entry.minute === this.minute() && entry.count >= REJECTS_PER_MINUTE;
  }

  /** Counts a rejection; returns the line to write now (the first of its minute), else null. */
  record(ip: string | null, status: number, reason: string): NewActivityLog | null {
    const minute = this.minute();
    const source = this.perSource.get(ip ?? "-");
    if (source && source.minute === minute) source.count += 1;
    else this.perSource.set(ip ?? "-", { minute, count: 1 });
    const key = `${ip ?? "-"}|${status}|${reason}`;
    const tally = this.tallies.get(key);
    if (tally && tally.minute === minute) {
      tally.count += 1;
      return null;
    }
    const carried = tally ? this.summary(tally) : null;
    this.tallies.set(key, { ip, status, reason, minute, count: 1 });
    if (carried) this.pending.push(carried);
    return { type: "webhook", level: "warning", message: `Webhook rejected: ${reason}`, data: { ip, status } };
  }

  private pending: NewActivityLog[] = [];

  /** The summary lines of minutes that are over (or all, when `all`), one per source and reason. */
  flush(all = false): NewActivityLog[] {
    const minute = this.minute();
    const lines = this.pending.splice(0);
    for (const [key, tally] of this.tallies) {
      if (!all && tally.minute === minute) continue;
      const line = this.summary(tally);
      if (line) lines.push(line);
      this.tallies.delete(key);
    }
    for (const [key, entry] of this.perSource) if (all || entry.minute !== minute) this.perSource.delete(key);
    return lines;
  }

  private summary(tally: Tally): NewActivityLog | null {
    // The first of the minute was written when it came; the summary says how many followed.
    if (tally.count <= 1) return null;
    return {
      type: "webhook",
      level: "warning",
      message: `Webhook rejected ${tally.count} times in one minute from one source: ${tally.reason}`,
      data: {
        ip: tally.ip,
        status: tally.status,
        count: tally.count,
        minute: new Date(tally.minute * MINUTE_MS).toISOString(),
      },
    };
  }

  private minute(): number {
    return Math.floor(this.now() / MINUTE_MS);
  }
}
