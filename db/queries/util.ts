// Small helpers shared by the repositories.
import { createHash, randomUUID } from "node:crypto";
import { type Kysely, MysqlAdapter } from "kysely";
import type { DB } from "../schema.ts";

export type Db = Kysely<DB>;

export function isMysql(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof MysqlAdapter;
}

export const newId = (): string => randomUUID();

export const nowMs = (): number => Date.now();

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export const toBool = (value: number | boolean | null | undefined): boolean => Boolean(Number(value ?? 0));
export const fromBool = (value: boolean): number => (value ? 1 : 0);

export function parseJson<T = unknown>(text: string | null | undefined, fallback: T): T {
  if (text == null || text === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export const toIso = (ms: number | null | undefined): string | null =>
  ms == null ? null : new Date(Number(ms)).toISOString();
