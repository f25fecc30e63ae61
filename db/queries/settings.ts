// Key/value settings stored as JSON (trading config, webhook secret, system switches).
import { type Db, isMysql, nowMs, parseJson } from "./util.ts";

export async function getSetting<T>(db: Db, key: string): Promise<T | null> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
  return row ? parseJson<T | null>(row.value, null) : null;
}

// A short-lived per-process cache for hot read paths (the webhook reads its secret, the
// trading config and the emergency stop on every call). A write through this module in this
// process empties it at once; a write by another process is seen within the TTL. Nothing
// that sends an order relies on it: the worker reads the switches from the database.
const cache = new WeakMap<object, Map<string, { value: unknown; at: number; generation: number }>>();
// The generation lives on globalThis: the web process holds two copies of this module (the
// Remix build's and server.ts's), and a clear in one must reach the other.
const shared = ((globalThis as Record<symbol, unknown>)[Symbol.for("perpdesk.settingsCache")] ??= {
  generation: 0,
}) as {
  generation: number;
};

/** Forgets every cached setting of this process (call after committing a settings change). */
export function clearSettingsCache(): void {
  shared.generation += 1;
}

/** Changes whenever clearSettingsCache runs in this process (for caches derived from settings). */
export function settingsGeneration(): number {
  return shared.generation;
}

/** getSetting through the per-process cache (at most `ttlMs` old). */
export async function getSettingCached<T>(db: Db, key: string, ttlMs = 1000): Promise<T | null> {
  let perDb = cache.get(db);
  if (!perDb) {
    perDb = new Map();
    cache.set(db, perDb);
  }
  const hit = perDb.get(key);
  const now = Date.now();
  if (hit && hit.generation === shared.generation && now - hit.at < ttlMs) return hit.value as T | null;
  const startedAt = shared.generation;
  const value = await getSetting<T>(db, key);
  // A write that landed while this read was in flight may not be in `value`: don't keep it.
  if (startedAt === shared.generation) perDb.set(key, { value, at: now, generation: startedAt });
  return value;
}

export async function setSetting(db: Db, key: string, value: unknown): Promise<void> {
  clearSettingsCache();
  const json = JSON.stringify(value);
  const now = nowMs();
  const insert = db.insertInto("settings").values({ key, value: json, updated_at: now });
  if (isMysql(db)) {
    await insert.onDuplicateKeyUpdate({ value: json, updated_at: now }).execute();
  } else {
    await insert.onConflict((oc) => oc.column("key").doUpdateSet({ value: json, updated_at: now })).execute();
  }
}

/** Stores the value only when the key is absent; returns the value now stored. */
export async function ensureSetting<T>(db: Db, key: string, make: () => T): Promise<T> {
  const existing = await getSetting<T>(db, key);
  if (existing !== null) return existing;
  await db
    .insertInto("settings")
    .ignore()
    .values({ key, value: JSON.stringify(make()), updated_at: nowMs() })
    .execute();
  return (await getSetting<T>(db, key)) as T;
}

export async function deleteSetting(db: Db, key: string): Promise<void> {
  clearSettingsCache();
  await db.deleteFrom("settings").where("key", "=", key).execute();
}
