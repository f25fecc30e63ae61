// Editing one open position's protection in place (issue 25, docs/decisions/048-edit-a-position.md):
// the checked edit (app/core/schemas/position-edit.ts) against the position's side, entry and
// current price, turned into new controls and the rule state that goes with them (through
// applyControls, the one path "Apply Rules" takes too). Pure: no I/O.
// - A stop moved by hand keeps the price typed (controls.stopLossPrice) and its signed distance
//   (stopLossOffset: above 0 on the loss side, 0 or below past the entry): a long's stop lies
//   below the current price (a short's above it), on either side of the entry, so a stop past
//   the entry locks in a profit.
// - Take-profit levels filled, skipped or requested stay where they are (the rule state keeps
//   them by index); the others are replaced by the levels given: the slots are reused in
//   order, a slot left over is disabled (its index stays), more levels are appended. A long's
//   level lies above the entry and the current price, a short's below both.
// - Once break-even has armed (after TP1), the stop in force is the break-even stop or a stop
//   set by hand past it: a stop that would loosen it is refused while break-even stays on, and
//   the break-even stop is kept exactly while break-even stays on with the same offset.
import { Big, roundToIncrement } from "../decimal.ts";
import type { AdvancedControls } from "../orders/controls.ts";
import type { PositionEdit } from "../schemas/position-edit.ts";
import { type AppliedRules, applyControls } from "./apply.ts";
import type { BreakEvenCosts } from "./breakeven.ts";
import { armedBreakEvenStop, hasStopLoss, stopPriceFor } from "./engine.ts";
import { parseRuleState } from "./state.ts";

export interface EditablePosition {
  side: "long" | "short";
  entryPrice: string;
  currentPrice: string | null;
  advancedControls: AdvancedControls | null;
  breakEvenTriggered: boolean;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  stopPrice: string | null;
  ruleState: unknown;
}

export type EditResult =
  | { ok: true; applied: AppliedRules; changed: boolean }
  | { ok: false; field: string; error: string };

const fraction = (percent: string) => Number(new Big(percent).div(100).toString());
const distance = (entry: Big, price: Big) => Number(price.minus(entry).abs().div(entry).toString());
/** A stop's distance from the entry as stopLossOffset holds it: above 0 on the loss side, 0 or below past the entry (in profit). */
const signedDistance = (side: "long" | "short", entry: Big, stop: Big) =>
  Number((side === "long" ? entry.minus(stop) : stop.minus(entry)).div(entry).toString());
/** Whether a price posted back is the one in force, as typed or as the form pre-fills it (on the tick). */
const samePrice = (inForce: string, posted: Big, tick: string | null | undefined) =>
  posted.eq(inForce) || (tick != null && new Big(tick).gt(0) && posted.eq(onTick(inForce, tick)));

/** A price on the product's tick (nearest), as a trader types it: what the edit form pre-fills (decision 048). */
export function onTick(price: string, tick: string | null | undefined): string {
  if (!tick || !new Big(tick).gt(0)) return show(price);
  return roundToIncrement(price, tick);
}
const show = (value: Big | string) => new Big(value).toString();

/** The take-profit levels the rule state holds on to (filled, skipped, or a close requested). */
export function lockedTakeProfits(ruleState: unknown): Set<number> {
  const state = parseRuleState(ruleState);
  return new Set([
    ...state.tpFilled,
    ...state.tpSkipped,
    ...Object.values(state.requested).flatMap((r) => (r.trigger === "tp" ? r.levels : [])),
  ]);
}

/** The price of a take-profit level (the typed one, else entry × (1 ± deviation)). */
export function takeProfitPrice(
  side: "long" | "short",
  entryPrice: string,
  level: { priceDeviation: number; price?: string },
): string {
  if (level.price) return show(level.price);
  const entry = new Big(entryPrice);
  return entry
    .times(side === "long" ? new Big(1).plus(level.priceDeviation) : new Big(1).minus(level.priceDeviation))
    .toString();
}

export function editControls(
  position: EditablePosition,
  edit: PositionEdit,
  costs?: BreakEvenCosts | null,
): EditResult {
  const long = position.side === "long";
  const entry = new Big(position.entryPrice);
  const current = position.currentPrice ? new Big(position.currentPrice) : null;
  const name = long ? "long" : "short";
  const before: AdvancedControls = position.advancedControls ?? {
    takeProfits: null,
    stopLossOffset: null,
    breakEven: false,
    trailingStop: null,
  };
  const next: AdvancedControls = {
    ...before,
    takeProfits: before.takeProfits ? before.takeProfits.map((l) => ({ ...l })) : null,
  };

  if (edit.stopLoss !== undefined) {
    if (edit.stopLoss === "") {
      next.stopLossOffset = null;
      delete next.stopLossPrice;
    } else {
      const stop = new Big(edit.stopLoss);
      const inForce = stopPriceFor({ ...position, advancedControls: before });
      // The form pre-fills the stop on the price tick: the same stop posted back is no move.
      const unchanged = inForce !== null && samePrice(inForce, stop, costs?.tick);
      if (!unchanged) {
        // Whether the stop lies on the loss side of a price: below it for a long, above it for a short.
        const lossSideOf = (than: Big) => (long ? stop.lt(than) : stop.gt(than));
        if (position.breakEvenTriggered && before.breakEven && edit.breakEven !== false) {
          // Break-even has armed: a stop past it (tighter) is taken, never one that loosens it.
          const armed = armedBreakEvenStop({ ...position, advancedControls: before });
          if (lossSideOf(new Big(armed))) {
            return {
              ok: false,
              field: "stopLoss",
              error: `The stop is at break-even (${armed}) since take-profit 1 filled: a stop ${long ? "below" : "above"} it would loosen it; turn break-even off to move it there`,
            };
          }
        }
        if (current && !lossSideOf(current)) {
          return {
            ok: false,
            field: "stopLoss",
            error: `A ${name}'s stop loss must be ${long ? "below" : "above"} the current price (${show(current)}), else it closes the position at once`,
          };
        }
        if (!current && !lossSideOf(entry)) {
          return {
            ok: false,
            field: "stopLoss",
            error: `No current price for this position yet: a ${name}'s stop past its entry (${show(entry)}) is checked against it, so set one ${long ? "below" : "above"} the entry for now`,
          };
        }
        next.stopLossOffset = signedDistance(position.side, entry, stop);
        next.stopLossPrice = show(stop);
      }
    }
  }

  if (edit.takeProfits !== undefined) {
    const old = before.takeProfits ?? [];
    const locked = lockedTakeProfits(position.ruleState);
    const wanted: { price: Big; portfolio: number }[] = [];
    for (const [i, level] of edit.takeProfits.entries()) {
      const price = new Big(level.price);
      if (long ? price.lte(entry) : price.gte(entry)) {
        return {
          ok: false,
          field: `takeProfits.${i}.price`,
          error: `Take-profit ${locked.size + i + 1} of a ${name} must be ${long ? "above" : "below"} its entry price (${show(entry)})`,
        };
      }
      if (current && (long ? price.lte(current) : price.gte(current))) {
        return {
          ok: false,
          field: `takeProfits.${i}.price`,
          error: `Take-profit ${locked.size + i + 1} of a ${name} must be ${long ? "above" : "below"} the current price (${show(current)}), else it fills at once`,
        };
      }
      wanted.push({ price, portfolio: fraction(level.close) });
    }
    wanted.sort((a, b) => (long ? a.price.cmp(b.price) : b.price.cmp(a.price)));
    const levels = old.map((l) => ({ ...l }));
    let k = 0;
    for (let i = 0; i < levels.length; i++) {
      if (locked.has(i)) continue;
      const want = wanted[k++];
      const was = levels[i]!;
      if (!want) {
        levels[i] = { ...was, enabled: false };
        continue;
      }
      // The same level posted back (the form sends every level): kept exactly as it was.
      if (
        was.enabled &&
        was.portfolio === want.portfolio &&
        samePrice(takeProfitPrice(position.side, position.entryPrice, was), want.price, costs?.tick)
      )
        continue;
      levels[i] = {
        portfolio: want.portfolio,
        priceDeviation: distance(entry, want.price),
        enabled: true,
        price: show(want.price),
      };
    }
    for (; k < wanted.length; k++) {
      const want = wanted[k]!;
      levels.push({
        portfolio: want.portfolio,
        priceDeviation: distance(entry, want.price),
        enabled: true,
        price: show(want.price),
      });
    }
    next.takeProfits = levels.length > 0 ? levels : before.takeProfits === null ? null : [];
  }

  if (edit.breakEven !== undefined) {
    next.breakEven = edit.breakEven;
    if (edit.breakEven) {
      const value = edit.breakEvenOffset ?? "";
      const unit = edit.breakEvenOffsetUnit ?? before.breakEvenOffset?.unit ?? "ticks";
      if (value !== "") next.breakEvenOffset = { unit, value: unit === "percent" ? fraction(value) : Number(value) };
      else if (edit.breakEvenOffset !== undefined) next.breakEvenOffset = { unit, value: 0 };
      if (!hasStopLoss(next))
        return { ok: false, field: "breakEven", error: "Break-even moves the stop loss: set a stop loss" };
    }
  }

  if (edit.trailing !== undefined) {
    next.trailingStop = edit.trailing
      ? { activation: fraction(edit.trailingActivation!), execute: fraction(edit.trailingRetrace!) }
      : null;
  }

  const same = JSON.stringify(normalise(before)) === JSON.stringify(normalise(next));
  if (same) {
    const state = parseRuleState(position.ruleState);
    return {
      ok: true,
      changed: false,
      applied: {
        advancedControls: position.advancedControls,
        breakEvenTriggered: position.breakEvenTriggered,
        trailingStopActive: position.trailingStopActive,
        trailingBestPrice: position.trailingBestPrice,
        stopPrice: position.stopPrice,
        ruleState: state,
      },
    };
  }
  let applied = applyControls(position, next, costs);
  // Break-even armed and still on with the same offset: the stop stays where it armed (the fees really paid).
  const kept = parseRuleState(position.ruleState).breakEvenStop;
  if (
    position.breakEvenTriggered &&
    applied.breakEvenTriggered &&
    kept &&
    JSON.stringify(before.breakEvenOffset ?? null) === JSON.stringify(next.breakEvenOffset ?? null)
  ) {
    const ruleState = { ...applied.ruleState, breakEvenStop: kept };
    applied = {
      ...applied,
      ruleState,
      stopPrice: stopPriceFor({ ...position, advancedControls: next, breakEvenTriggered: true, ruleState }),
    };
  }
  return { ok: true, changed: true, applied };
}

/** Controls compared for "nothing changed": key order and absent optional fields do not count. */
function normalise(c: AdvancedControls) {
  return {
    takeProfits: c.takeProfits
      ? c.takeProfits.map((l) => ({
          portfolio: l.portfolio,
          priceDeviation: l.priceDeviation,
          enabled: l.enabled,
          price: l.price ?? null,
        }))
      : null,
    stopLossOffset: c.stopLossOffset,
    stopLossPrice: c.stopLossPrice ?? null,
    breakEven: c.breakEven,
    breakEvenOffset: c.breakEven ? (c.breakEvenOffset ?? null) : null,
    trailingStop: c.trailingStop ? { activation: c.trailingStop.activation, execute: c.trailingStop.execute } : null,
  };
}
