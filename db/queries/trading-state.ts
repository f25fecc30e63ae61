// System switches kept in settings, read by the web app and the worker alike.
import {
  DEFAULT_TRADING_CONFIG,
  type TradingConfig,
  TradingConfigSchema,
} from "../../app/core/schemas/trading-config.ts";
import { getSetting, getSettingCached, setSetting } from "./settings.ts";
import type { Db } from "./util.ts";

export const TRADING_CONFIG_KEY = "trading_config";
export const EMERGENCY_STOP_KEY = "emergency_stop";

export async function getTradingConfig(db: Db, options: { cached?: boolean } = {}): Promise<TradingConfig> {
  const stored = options.cached
    ? await getSettingCached<unknown>(db, TRADING_CONFIG_KEY)
    : await getSetting<unknown>(db, TRADING_CONFIG_KEY);
  if (!stored) return DEFAULT_TRADING_CONFIG;
  const known = parsedConfigs.get(stored as object);
  if (known) return known;
  // Fields added after the config was saved take their defaults.
  const parsed = TradingConfigSchema.safeParse({ ...DEFAULT_TRADING_CONFIG, ...(stored as object) });
  const config = parsed.success ? parsed.data : DEFAULT_TRADING_CONFIG;
  parsedConfigs.set(stored as object, config);
  return config;
}

// A cached setting is the same object on every hit: parse it once.
const parsedConfigs = new WeakMap<object, TradingConfig>();

export async function saveTradingConfig(db: Db, config: TradingConfig): Promise<void> {
  await setSetting(db, TRADING_CONFIG_KEY, config);
}

export interface EmergencyStopState {
  active: boolean;
  changedAt: string | null;
  changedBy: string | null;
}

export async function getEmergencyStop(db: Db, options: { cached?: boolean } = {}): Promise<EmergencyStopState> {
  const stored = options.cached
    ? await getSettingCached<EmergencyStopState>(db, EMERGENCY_STOP_KEY)
    : await getSetting<EmergencyStopState>(db, EMERGENCY_STOP_KEY);
  return stored ?? { active: false, changedAt: null, changedBy: null };
}

export async function setEmergencyStop(db: Db, active: boolean, changedBy: string): Promise<EmergencyStopState> {
  const state = { active, changedAt: new Date().toISOString(), changedBy };
  await setSetting(db, EMERGENCY_STOP_KEY, state);
  return state;
}
