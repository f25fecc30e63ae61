// The levels a position's price chart marks (issue 13, decision 032): entry, each take-profit
// level, the stop loss, break-even and the trailing stop, priced by the SAME functions the
// rules engine acts on (engine.ts: ownStopPrice, armedBreakEvenStop, breakEvenApplies; take-profit and trailing
// prices are entry × (1 ± fraction)) and in the state the Positions screen's texts show
// (position-texts.ts: filled / armed / tracking). And the fills it marks: entry and exits.
// Pure: no I/O.
import { Big } from "../decimal.ts";
import type { AdvancedControls } from "../orders/controls.ts";
import { type BreakEvenCosts, breakEvenPrice } from "./breakeven.ts";
import type { EditField } from "../schemas/position-edit.ts";
import { lockedTakeProfits } from "./edit.ts";
import { armedBreakEvenStop, breakEvenApplies, ownStopPrice, tighterStop } from "./engine.ts";
import { parseRuleState } from "./state.ts";

export type ChartLevelKind = "entry" | "tp" | "sl" | "breakeven" | "trailing";

export interface ChartLevel {
  kind: ChartLevelKind;
  /** The price line's title on the chart: "Entry", "TP1", "SL", "BE stop", "Trail", "Trail on". */
  title: string;
  /** A decimal string. */
  price: string;
  /** What it means now, for the list beside the chart ("filled", "stop moved to entry" ...). */
  note: string;
  /**
   * The edit form's field this level is changed with (decision 048), absent when it cannot be
   * edited (the entry, a level taken or being taken): the chart offers "Edit" on it.
   */
  edit?: EditField;
}

export interface ChartPosition {
  side: "long" | "short";
  entryPrice: string;
  advancedControls: AdvancedControls | null;
  breakEvenTriggered: boolean;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  ruleState: unknown;
  status?: string;
}

const ONE = new Big(1);
const away = (entry: Big, long: boolean, fraction: number) =>
  entry.times(long ? ONE.plus(fraction) : ONE.minus(fraction)).toString();
const pct = (fraction: number) => `${new Big(fraction).times(100).toString()} %`;

/** Where a stop lies from the entry: "-2 % from the entry", or past it "+0.5 % from the entry: locks in a profit". */
function stopNote(entry: Big, stop: string, long: boolean): string {
  const away = new Big(stop).minus(entry).div(entry).times(100).round(2);
  if (away.eq(0)) return "at the entry";
  const profit = long ? away.gt(0) : away.lt(0);
  return `${away.gt(0) ? "+" : "-"}${away.abs().toString()} % from the entry${profit ? ": locks in a profit" : ""}`;
}

/** `costs`: what the break-even stop covers before it arms (the fees paid, the exit's taker rate, the tick); absent: estimated. */
export function chartLevels(position: ChartPosition, costs?: BreakEvenCosts | null): ChartLevel[] {
  const long = position.side === "long";
  const entry = new Big(position.entryPrice);
  const controls = position.advancedControls;
  const state = parseRuleState(position.ruleState);
  const levels: ChartLevel[] = [
    { kind: "entry", title: "Entry", price: entry.toString(), note: `${position.side} entry` },
  ];

  const locked = lockedTakeProfits(position.ruleState);
  (controls?.takeProfits ?? []).forEach((level, i) => {
    if (!level.enabled) return;
    const note = state.tpFilled.includes(i)
      ? "filled"
      : state.tpSkipped.includes(i)
        ? "reached (too small to split: left for the last level)"
        : locked.has(i)
          ? "closing"
          : `${long ? "+" : "-"}${pct(level.priceDeviation)}, closes ${pct(level.portfolio)}`;
    levels.push({
      kind: "tp",
      title: `TP${i + 1}`,
      price: level.price ? new Big(level.price).toString() : away(entry, long, level.priceDeviation),
      note,
      ...(locked.has(i) ? {} : { edit: `tp${i + 1}` as const }),
    });
  });

  const own = ownStopPrice({ side: position.side, entryPrice: position.entryPrice, advancedControls: controls });
  if (position.breakEvenTriggered && breakEvenApplies(controls)) {
    const armed = armedBreakEvenStop({ ...position, advancedControls: controls });
    const byHand = own !== null && tighterStop(position.side, armed, own) !== armed;
    levels.push({
      kind: "breakeven",
      title: "BE stop",
      price: armed,
      note: byHand
        ? "break-even armed (entry + fees + offset); the stop set by hand is tighter"
        : "stop moved to break-even (entry + fees + offset)",
      edit: "stopLoss",
    });
    // A stop set by hand past break-even stays in force (decision 048).
    if (byHand)
      levels.push({ kind: "sl", title: "SL", price: own, note: stopNote(entry, own, long), edit: "stopLoss" });
  } else if (own !== null) {
    levels.push({ kind: "sl", title: "SL", price: own, note: stopNote(entry, own, long), edit: "stopLoss" });
    if (breakEvenApplies(controls)) {
      const price = breakEvenPrice(position.side, position.entryPrice, controls?.breakEvenOffset ?? null, costs);
      levels.push({
        kind: "breakeven",
        title: "BE",
        price,
        note: "the stop moves here once TP1 fills (entry + fees + offset)",
        edit: "breakEven",
      });
    }
  }

  const trailing = controls?.trailingStop ?? null;
  if (trailing) {
    if (position.trailingStopActive && position.trailingBestPrice) {
      const best = new Big(position.trailingBestPrice);
      const exit = best.times(long ? ONE.minus(trailing.execute) : ONE.plus(trailing.execute)).toString();
      levels.push({
        kind: "trailing",
        title: "Trail",
        price: exit,
        note: `tracking: ${pct(trailing.execute)} from the best price ${best.toString()}`,
        edit: "trailing",
      });
    } else {
      levels.push({
        kind: "trailing",
        title: "Trail on",
        price: away(entry, long, trailing.activation),
        note: "the trailing stop arms at this price",
        edit: "trailing",
      });
    }
  }
  return levels;
}

export interface ChartFill {
  side: "buy" | "sell";
  status: string;
  executedPrice: string | null;
  executedQuantity: string;
  executedAt: string | null;
  updatedAt: string;
}

export interface ChartMarker {
  /** Epoch ms of the fill. */
  time: number;
  kind: "entry" | "exit";
  side: "buy" | "sell";
  price: string;
  quantity: string;
  text: string;
}

/** The position's fills: an order in its direction is an entry, the other an exit (as the detail's Type column). */
export function chartMarkers(side: "long" | "short", trades: ChartFill[]): ChartMarker[] {
  return trades
    .filter(
      (t) =>
        (t.status === "executed" || t.status === "completed") &&
        t.executedPrice &&
        new Big(t.executedQuantity || "0").gt(0),
    )
    .map((t) => {
      const kind = (side === "long") === (t.side === "buy") ? ("entry" as const) : ("exit" as const);
      return {
        time: Date.parse(t.executedAt ?? t.updatedAt),
        kind,
        side: t.side,
        price: t.executedPrice!,
        quantity: t.executedQuantity,
        text: `${kind === "entry" ? "Entry" : "Exit"} ${t.executedQuantity} @ ${t.executedPrice}`,
      };
    })
    .sort((a, b) => a.time - b.time);
}
