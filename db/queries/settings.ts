// Key/value settings stored as JSON (trading config, webhook secret, system switches).
import { type Db, isMysql, nowMs, parseJson } from "./util.ts";

export async function getSetting<T>(db: Db, key: string): Promise<T | null> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
  return row ? parseJson<T | null>(row.value, null) : null;
}

export async function setSetting(db: Db, key: string, value: unknown): Promise<void> {
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
  await db.deleteFrom("settings").where("key", "=", key).execute();
}
