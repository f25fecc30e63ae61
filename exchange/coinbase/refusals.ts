// Which of Coinbase's refusal codes are about the order's SIZE: ONE table, read from the
// structured fields of a refusal (error_response.new_order_failure_reason,
// preview_failure_reason, error, the deprecated failure_reason), never from its message, whose
// wording Coinbase may change (issue 21, defect 7; docs/decisions/025-contracts-and-rounding.md).
// The values are those of Advanced Trade's create / close order answers (NewOrderFailureReason,
// PreviewFailureReason).

/** Coinbase codes that refuse an order for its size. */
export const COINBASE_SIZE_CODES: ReadonlySet<string> = new Set([
  // Not a multiple of the product's base increment (one contract on CDE futures).
  "INVALID_SIZE_PRECISION",
  "PREVIEW_INVALID_SIZE_PRECISION",
  // Under the product's minimum / over its maximum base size.
  "PREVIEW_INVALID_BASE_SIZE_TOO_SMALL",
  "PREVIEW_INVALID_BASE_SIZE_TOO_LARGE",
  // A reduce-only close larger than the position (it would open the other side).
  "REDUCE_ONLY_INCREASED_POSITION_SIZE",
  "PREVIEW_REDUCE_ONLY_INCREASED_POSITION_SIZE",
]);

/** The fields of a refusal that carry codes (an error_response, or an HTTP 4xx body). */
export interface CoinbaseRefusalCodes {
  new_order_failure_reason?: string | null;
  preview_failure_reason?: string | null;
  error?: string | null;
  failure_reason?: string | null;
}

/** The first size code among the refusal's structured fields; null when it is not about the size. */
export function coinbaseSizeCode(fields: CoinbaseRefusalCodes): string | null {
  for (const value of [
    fields.new_order_failure_reason,
    fields.preview_failure_reason,
    fields.error,
    fields.failure_reason,
  ]) {
    if (typeof value === "string" && COINBASE_SIZE_CODES.has(value)) return value;
  }
  return null;
}
